"""MergeRecord and a full content repository: the FlowFiles stay queued, nothing fails."""

from __future__ import annotations

import pytest

from flowcore.errors import RepositoryFullError
from flowcore.testing import TestRunner
from flowcore.testing.full_content import FullContent

TWO = "name,age\nJohn,35\nJane,34\n"
TWO_MORE = "name,age\nJake,3\nJimmy,4\n"
WRITERS = ["CSVRecordSetWriter", "ParquetRecordSetWriter"]


def make_runner(writer: str) -> TestRunner:
    runner = TestRunner("MergeRecord")
    runner.add_controller_service("reader", "CSVReader", {"Treat First Line as Header": "true"})
    runner.add_controller_service("writer", writer, {})
    runner.set_property("Record Reader", "reader")
    runner.set_property("Record Writer", "writer")
    runner.set_property("Minimum Number of Records", "4")
    return runner


def queued(runner: TestRunner) -> list[tuple[str, dict[str, str], bytes]]:
    """The input queue's FlowFiles: uuid, attributes, content."""
    return sorted((f.uuid, f.attributes, f.content) for f in runner.queued_flowfiles())


def normal_output(writer: str) -> tuple[bytes, str]:
    with make_runner(writer) as runner:
        runner.enqueue(TWO)
        runner.enqueue(TWO_MORE)
        runner.run(2)
        out = runner.get_flowfiles_for_relationship("merged")
        assert len(out) == 1
        return out[0].content, out[0].attributes["record.count"]


def assert_recovers(runner: TestRunner, full: FullContent, writer: str) -> None:
    full.full = False
    runner.advance_time(31)  # past the penalty
    runner.run(2)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 2)
    out = runner.get_flowfiles_for_relationship("merged")
    assert len(out) == 1
    assert (out[0].content, out[0].attributes["record.count"]) == normal_output(writer)
    runner.assert_queue_empty()


@pytest.mark.parametrize("writer", WRITERS)
def test_full_when_a_bin_opens_its_output(writer: str) -> None:
    with make_runner(writer) as runner:
        runner.enqueue(TWO)
        runner.enqueue(TWO_MORE)
        before = queued(runner)
        events = len(runner.get_provenance_events())
        full = FullContent.install(runner.node)
        full.full = True
        with pytest.raises(RepositoryFullError):
            runner.run(1)
        assert full.refused
        runner.assert_transfer_count("failure", 0)
        assert queued(runner) == before
        assert len(runner.get_provenance_events()) == events
        assert_recovers(runner, full, writer)


@pytest.mark.parametrize("wrapped", [False, True], ids=["plain", "wrapped"])
@pytest.mark.parametrize("writer", WRITERS)
def test_full_while_writing_the_merged_records(writer: str, wrapped: bool) -> None:
    """The bin's writer meets the full disk inside its sink at the merge."""
    with make_runner(writer) as runner:
        runner.enqueue(TWO)
        runner.enqueue(TWO_MORE)
        before = queued(runner)
        events = len(runner.get_provenance_events())
        full = FullContent.install(runner.node)
        runner.run(1, stop_on_finish=False)  # binned, full enough, not merged yet
        assert queued(runner) == []  # in the bin
        full.full, full.wrapped = True, wrapped
        with pytest.raises((RepositoryFullError, OSError)):
            runner.run(1, stop_on_finish=False)  # the empty trigger merges
        assert full.refused
        runner.assert_transfer_count("failure", 0)
        runner.assert_transfer_count("merged", 0)
        assert queued(runner) == before
        assert len(runner.get_provenance_events()) == events
        assert not runner.processor._bins  # type: ignore[attr-defined]
        assert_recovers(runner, full, writer)


def test_full_after_a_flush_mid_bin() -> None:
    """A size threshold flushes after each FlowFile: the second flush meets the full disk,
    and the whole bin (the first FlowFile included) goes back to the queue."""
    with make_runner("CSVRecordSetWriter") as runner:
        runner.set_property("Minimum Bin Size", "1 B")
        runner.set_property("Minimum Number of Records", "2")
        runner.set_property("Maximum Number of Records", "100")
        runner.enqueue(TWO)
        runner.enqueue(TWO_MORE)
        before = queued(runner)
        full = FullContent.install(runner.node)
        full.full_after = 2  # the bin's writer opens and writes once
        with pytest.raises(RepositoryFullError):
            runner.run(1, stop_on_finish=False)
        runner.assert_transfer_count("failure", 0)
        assert queued(runner) == before
        assert not runner.processor._bins  # type: ignore[attr-defined]


@pytest.mark.parametrize("wrapped", [False, True], ids=["plain", "wrapped"])
def test_full_while_merging_by_key(wrapped: bool) -> None:
    """A keyed bin writes its merged records at the merge: a full disk there gives the
    bin back to the queue instead of failing it."""
    first, second = "id,v\nb,1\na,2\nb,3\n", "id,v\nc,4\na,5\n"
    with make_runner("CSVRecordSetWriter") as runner:
        runner.set_property("Record Key Field(s)", "id")
        runner.enqueue(first)
        runner.enqueue(second)
        before = queued(runner)
        events = len(runner.get_provenance_events())
        full = FullContent.install(runner.node)
        runner.run(1, stop_on_finish=False)  # binned, not merged yet
        full.full, full.wrapped = True, wrapped
        with pytest.raises((RepositoryFullError, OSError)):
            runner.run(1, stop_on_finish=False)
        assert full.refused
        runner.assert_transfer_count("failure", 0)
        assert queued(runner) == before
        assert len(runner.get_provenance_events()) == events
        full.full = False
        runner.advance_time(31)
        runner.run(2)
        runner.assert_transfer_count("failure", 0)
        runner.assert_transfer_count("original", 2)
        out = runner.get_flowfiles_for_relationship("merged")
        assert len(out) == 1
        out[0].assert_content_equals("id,v\nb,3\na,5\nc,4\n")
