"""The record processors and a full content repository: nothing goes to failure, the
session rolls back and the input FlowFiles stay queued, even when the fault comes back
wrapped by a library writing to the session's sink."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.errors import RepositoryFullError
from flowcore.testing import TestRunner
from flowcore.testing.full_content import FullContent

RunnerFactory = Callable[..., TestRunner]

CSV = "name,age\nJohn,35\nJane,34\n"
CSV_MORE = "name,age\nJake,3\nJimmy,4\n"


def _lookup(make_runner: RunnerFactory) -> TestRunner:
    runner = make_runner("LookupRecord", {"key": "/name"})
    runner.add_controller_service("lookup", "SimpleKeyValueLookupService", {"John": "x"})
    runner.set_property("Lookup Service", "lookup")
    return runner


CASES: dict[str, Callable[[RunnerFactory], TestRunner]] = {
    "ConvertRecord": lambda make: make("ConvertRecord"),
    "PartitionRecord": lambda make: make("PartitionRecord", {"age": "/age"}),
    "SplitRecord": lambda make: make("SplitRecord", {"Records Per Split": "1"}),
    "QueryRecord": lambda make: make("QueryRecord", {"adults": "SELECT * FROM FLOWFILE"}),
    "UpdateRecord": lambda make: make(
        "UpdateRecord", {"Replacement Value Strategy": "Literal Value", "/name": "x"}
    ),
    "ValidateRecord": lambda make: make("ValidateRecord"),
    "LookupRecord": _lookup,
}


def queued(runner: TestRunner) -> list[tuple[str, dict[str, str], bytes]]:
    """The input queue's FlowFiles: uuid, attributes, content."""
    return sorted((f.uuid, f.attributes, f.content) for f in runner.queued_flowfiles())


def outputs(runner: TestRunner) -> dict[str, list[tuple[bytes, str | None]]]:
    """Per relationship: each FlowFile's content and record.count, uuids left out."""
    runner.get_flowfiles_for_relationship("failure")  # collects
    return {
        name: sorted((f.content, f.attributes.get("record.count")) for f in flowfiles)
        for name, flowfiles in sorted(runner._transferred.items())
        if flowfiles
    }


@pytest.mark.parametrize("wrapped", [False, True], ids=["plain", "wrapped"])
@pytest.mark.parametrize("full_after", [0, 1])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_full_content_repository_keeps_the_input_queued(
    make_runner: RunnerFactory, name: str, full_after: int, wrapped: bool
) -> None:
    expected_runner = CASES[name](make_runner)
    expected_runner.enqueue(CSV)
    expected_runner.enqueue(CSV_MORE)
    expected_runner.run(2)
    expected = outputs(expected_runner)
    assert "failure" not in expected

    runner = CASES[name](make_runner)
    runner.enqueue(CSV)
    runner.enqueue(CSV_MORE)
    before = queued(runner)
    events = len(runner.get_provenance_events())
    full = FullContent.install(runner.node)
    full.full_after, full.wrapped = full_after, wrapped
    with pytest.raises((RepositoryFullError, OSError)):
        runner.run(1)
    assert full.refused
    assert outputs(runner) == {}  # nothing in failure, nor anywhere else
    assert queued(runner) == before
    assert len(runner.get_provenance_events()) == events

    full.full, full.full_after = False, None
    runner.advance_time(31)  # past the penalty
    runner.run(2)
    assert outputs(runner) == expected
    runner.assert_queue_empty()
