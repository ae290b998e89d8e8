"""Commit and rollback: claimant counts, penalties, failed commits, state, connections."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flowcore.errors import (
    CommitFailedError,
    ContentNotFoundError,
    FlowFileHandlingError,
    RepositoryError,
    RepositoryFullError,
)
from flowcore.processor import ProcessContext
from flowcore.session import ProcessSession
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


def claim_count(runner: TestRunner, flowfile: Any) -> int:
    return runner.node.content.claimant_count(flowfile.claim.resource)


def test_write_keeps_the_original_claim_until_commit_then_releases_it(
    runner_factory: RunnerFactory,
) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        flowfile = session.write(flowfile, b"first rewrite")
        flowfile = session.write(flowfile, b"second rewrite")
        session.transfer(flowfile, "success")

    runner = runner_factory(
        trigger, content={"max_appendable_size": "1 B", "archive_enabled": False}
    )
    original = runner.enqueue("original content")
    assert claim_count(runner, original.flowfile) == 1
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("second rewrite")
    assert claim_count(runner, original.flowfile) == 0
    assert claim_count(runner, out.flowfile) == 1
    assert runner.node.content.exists(original.flowfile.claim), "released only after sync"
    runner.node.checkpoint()
    assert not runner.node.content.exists(original.flowfile.claim)


def test_a_checkpoint_whose_sync_fails_releases_its_claims_at_the_next_one(
    runner_factory: RunnerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The claims a checkpoint took for release wait while the FlowFile repository cannot
    sync; they were dropped, and their files kept until the next start-up."""

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        session.remove(flowfile)

    runner = runner_factory(
        trigger, content={"max_appendable_size": "1 B", "archive_enabled": False}
    )
    original = runner.enqueue("original content")
    runner.run()
    assert claim_count(runner, original.flowfile) == 0
    flowfiles = runner.node.flowfiles
    real_sync = flowfiles.sync

    def failing_sync() -> None:
        raise CommitFailedError("cannot sync: Input/output error", repository="FlowFile")

    monkeypatch.setattr(flowfiles, "sync", failing_sync)
    with pytest.raises(CommitFailedError):
        runner.node.checkpoint()
    assert runner.node.content.exists(original.flowfile.claim), "never before a sync"
    monkeypatch.setattr(flowfiles, "sync", real_sync)
    assert runner.node.checkpoint() == 1
    assert not runner.node.content.exists(original.flowfile.claim)


def test_clone_then_write_then_rollback_counts_references(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        clone = session.clone(flowfile)
        session.write(clone, b"changed")
        raise RuntimeError("boom")

    runner = runner_factory(trigger)
    original = runner.enqueue("data")
    with pytest.raises(RuntimeError, match="boom"):
        runner.run()
    assert claim_count(runner, original.flowfile) == 1
    assert runner.queue_size == 1
    assert runner.get_provenance_events() == []


def test_create_then_rollback_removes_the_new_content(runner_factory: RunnerFactory) -> None:
    written: list[Any] = []

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.write(session.create(), b"x" * 100)
        written.append(flowfile)
        session.rollback()

    runner = runner_factory(
        trigger, content={"max_appendable_size": "1 B", "archive_enabled": False}
    )
    runner.run()
    assert claim_count(runner, written[0]) == 0
    runner.node.checkpoint()
    assert not runner.node.content.exists(written[0].claim)


def test_processor_error_rolls_back_with_penalty_and_yields(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        session.transfer(session.put_attribute(flowfile, "seen", "1"), "success")
        raise ValueError("cannot parse")

    runner = runner_factory(trigger)
    runner.enqueue("x")
    with pytest.raises(ValueError, match="cannot parse"):
        runner.run()
    assert runner.queue_size == 1
    assert runner.get_flowfiles_for_relationship("success") == []
    assert runner.yielded
    queued = runner.node.connections["input"].queue.listing()[0].flowfile
    assert queued.penalty_expiration == runner.clock.now_ms() + 30_000
    assert "seen" not in queued.attributes
    node = runner.node.processors["processor-under-test"]
    assert node.errors[-1].message == "ValueError: cannot parse"


def test_failed_commit_leaves_the_queue_as_it_was(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        for flowfile in session.get_batch(10):
            flowfile = session.write(flowfile, b"rewritten")
            flowfile = session.put_attribute(flowfile, "big", "x" * 600_000)
            session.transfer(flowfile, "success")

    runner = runner_factory(
        trigger, flowfile_repository={"map_size": "2 MB", "max_map_size": "2 MB"}
    )
    before = [runner.enqueue(f"ff{i}") for i in range(3)]
    with pytest.raises(CommitFailedError, match="full"):
        runner.run()
    assert runner.queue_size == 3
    assert runner.get_flowfiles_for_relationship("success") == []
    recovered = runner.node.flowfiles.recover()
    assert sorted(r.flowfile.uuid for r in recovered.queues["input"]) == sorted(
        f.uuid for f in before
    )
    assert all("big" not in r.flowfile.attributes for r in recovered.queues["input"])
    for flowfile in before:
        assert claim_count(runner, flowfile.flowfile) >= 1
    assert runner.get_provenance_events() == []


def test_state_commits_with_the_session_and_rollback_discards_it(
    runner_factory: RunnerFactory,
) -> None:
    fail = {"now": False}

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        state = session.get_state()
        session.set_state({"count": str(int(state.get("count", "0")) + 1)})
        if fail["now"]:
            raise RuntimeError("no")

    runner = runner_factory(trigger)
    runner.run(iterations=2)
    assert runner.state == {"count": "2"}
    fail["now"] = True
    with pytest.raises(RuntimeError):
        runner.run()
    assert runner.state == {"count": "2"}
    assert runner.node.flowfiles.load_state("processor-under-test") == {"count": "2"}


def test_uuid_cannot_be_changed(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        flowfile = session.put_attribute(flowfile, "uuid", "mine")
        flowfile = session.remove_attribute(flowfile, "uuid")
        session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    original = runner.enqueue("x")
    runner.run()
    assert runner.get_flowfiles_for_relationship("success")[0].uuid == original.uuid


def test_untransferred_flowfile_fails_the_commit(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        session.get()

    runner = runner_factory(trigger)
    runner.enqueue("x")
    with pytest.raises(FlowFileHandlingError, match="not transferred"):
        runner.run()
    assert runner.queue_size == 1


def test_unknown_relationship_and_stale_versions_are_refused(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        newer = session.put_attribute(flowfile, "a", "1")
        with pytest.raises(FlowFileHandlingError, match="not known"):
            session.transfer(newer, "nowhere")
        with pytest.raises(FlowFileHandlingError, match="most recent version"):
            session.transfer(flowfile, "success")
        session.transfer(newer, "success")

    runner = runner_factory(trigger)
    runner.enqueue("x")
    runner.run()
    runner.assert_transfer_count("success", 1)


def test_transfer_to_two_connections_clones(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    runner.run(iterations=0)
    second = runner.node.add_connection("second.success", "processor-under-test", ["success"], None)
    runner.node.rebind()
    original = runner.enqueue("shared")
    runner.run()
    first = runner.get_flowfiles_for_relationship("success")
    copies = [r.flowfile for r in second.queue.listing()]
    assert len(first) == 1 and len(copies) == 1
    assert {first[0].uuid, copies[0].uuid} >= {original.uuid}
    assert first[0].uuid != copies[0].uuid
    assert copies[0].claim == original.flowfile.claim
    assert claim_count(runner, original.flowfile) == 2
    events = runner.get_provenance_events()
    assert [e.event_type for e in events] == ["CLONE"]
    assert events[0].flowfile_uuid == original.uuid


def test_disk_full_during_write_rolls_back_and_loses_nothing(
    runner_factory: RunnerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        for flowfile in session.get_batch(10):
            flowfile = session.write(flowfile, b"y" * 200_000)
            session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    originals = [runner.enqueue(f"ff{i}") for i in range(3)]
    real_write = os.write

    def full_disk(fd: int, data: bytes) -> int:
        if len(data) >= 100_000:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(RepositoryError, match="out of disk space"):
        runner.run()
    monkeypatch.setattr(os, "write", real_write)
    assert runner.queue_size == 3
    assert runner.get_flowfiles_for_relationship("success") == []
    queued = runner.node.connections["input"].queue.listing()
    assert sorted(r.flowfile.uuid for r in queued) == sorted(f.uuid for f in originals)
    assert all(r.flowfile.size == 3 for r in queued)


def test_missing_content_is_reported_and_removed_not_retried(
    runner_factory: RunnerFactory,
) -> None:
    from flowcore.errors import ContentNotFoundError

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        for flowfile in session.get_batch(10):
            session.transfer(session.write(flowfile, session.read(flowfile).upper()), "success")

    runner = runner_factory(trigger, content={"max_appendable_size": "1 B"})
    healthy = runner.enqueue("fine")
    torn = runner.enqueue("this content will be cut short")
    assert torn.flowfile.claim is not None
    resource = torn.flowfile.claim.resource
    path = (
        runner.settings.content_containers[int(resource.container)] / resource.section / resource.id
    )
    with path.open("r+b") as handle:
        handle.truncate(5)
    with pytest.raises(ContentNotFoundError):
        runner.run()
    assert runner.queue_size == 1, "the healthy FlowFile goes back, the torn one is removed"
    events = runner.get_provenance_events()
    assert [(e.event_type, e.flowfile_uuid) for e in events] == [("DROP", torn.uuid)]
    assert events[0].details is not None and events[0].details.startswith("Content Missing")
    runner.advance_time(60)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert runner.get_flowfiles_for_relationship("success")[0].uuid == healthy.uuid


def test_unreadable_content_whose_removal_cannot_commit_goes_back_to_its_queue(
    runner_factory: RunnerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The DROP of a FlowFile with missing content is a commit of its own: if the
    repository refuses it, the FlowFile is not left in flight, it goes back to its queue."""
    from flowcore.errors import ContentNotFoundError

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        for flowfile in session.get_batch(10):
            session.transfer(session.write(flowfile, session.read(flowfile).upper()), "success")

    runner = runner_factory(trigger, content={"max_appendable_size": "1 B"})
    runner.enqueue("fine")
    torn = runner.enqueue("this content will be cut short")
    assert torn.flowfile.claim is not None
    resource = torn.flowfile.claim.resource
    path = (
        runner.settings.content_containers[int(resource.container)] / resource.section / resource.id
    )
    with path.open("r+b") as handle:
        handle.truncate(5)
    committer = runner.node.committer
    real_commit = committer.commit

    def refused(*_: Any) -> None:
        raise CommitFailedError("the FlowFile repository is full")

    monkeypatch.setattr(committer, "commit", refused)
    with pytest.raises(ContentNotFoundError):
        runner.run()
    assert runner.queue_size == 2, "neither FlowFile is left in flight"
    assert runner.get_provenance_events() == []
    monkeypatch.setattr(committer, "commit", real_commit)
    runner.advance_time(60)
    with pytest.raises(ContentNotFoundError):
        runner.run()
    assert runner.queue_size == 1
    assert [e.event_type for e in runner.get_provenance_events()] == ["DROP"]


def test_open_write_spans_triggers_and_commits_with_the_session(tmp_path: Any) -> None:
    from typing import ClassVar

    from flowcore.processor import Relationship, SessionFactory, SessionFactoryProcessor
    from flowcore.settings import EngineSettings

    class Concatenate(SessionFactoryProcessor):
        """Appends every FlowFile to one open content, emitted after three parts."""

        relationships: ClassVar[list[Relationship]] = [Relationship("success")]

        def __init__(self) -> None:
            super().__init__()
            self.bin: ProcessSession | None = None
            self.handle: Any = None

        def on_trigger_with_factory(self, context: ProcessContext, factory: SessionFactory) -> None:
            if self.bin is None:
                self.bin = factory.create_session()
                self.handle = self.bin.open_write(self.bin.create())
            session = factory.create_session()
            flowfile = session.get()
            if flowfile is None:
                return
            session.migrate(self.bin, [flowfile])
            self.handle.write(self.bin.read(flowfile))
            self.bin.remove(flowfile)
            if self.handle.bytes_written < 6:
                return
            with pytest.raises(FlowFileHandlingError, match="open for writing"):
                self.bin.commit()
            merged = self.handle.close()
            self.bin.transfer(self.bin.put_attribute(merged, "parts", "3"), "success")
            self.bin.adjust_counter("merged", 1)
            self.bin.commit()

    runner = TestRunner(Concatenate(), settings=EngineSettings(data_dir=tmp_path / "d"))
    try:
        for part in ("ab", "cd", "ef"):
            runner.enqueue(part)
        runner.run(iterations=3)
        out = runner.get_flowfiles_for_relationship("success")
        assert len(out) == 1
        out[0].assert_content_equals("abcdef")
        assert runner.get_counter_value("merged") == 1
        assert runner.queue_size == 0
    finally:
        runner.close()


def test_rollback_aborts_open_writes(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        handle = session.open_write(flowfile)
        handle.write(b"partial")
        session.adjust_counter("seen", 1)
        raise RuntimeError("stop")

    runner = runner_factory(trigger)
    original = runner.enqueue("original")
    with pytest.raises(RuntimeError):
        runner.run()
    assert runner.queue_size == 1
    assert runner.get_counter_value("seen") is None
    queued = runner.node.connections["input"].queue.listing()[0].flowfile
    assert queued.claim == original.flowfile.claim


def test_flowfiles_reach_their_queue_in_transfer_order(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        batch = session.get_batch(10)
        for flowfile in sorted(batch, key=lambda f: int(f.attributes["n"])):
            session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    for n in (3, 1, 2, 0):
        runner.enqueue(str(n), {"n": str(n)})
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")
    assert [f.get_attribute("n") for f in out] == ["0", "1", "2", "3"]


@pytest.mark.parametrize(
    ("raised", "repository"),
    [
        (RepositoryFullError("full", repository="content", setting="content.containers"), True),
        (OSError("wrapped"), True),  # raised from a RepositoryFullError, as libraries wrap it
        (ContentNotFoundError("gone"), False),  # the data's fault: routed, not the repository's
        (ValueError("bad data"), False),
    ],
)
def test_a_processor_error_says_whether_a_repository_failed(
    runner_factory: RunnerFactory, raised: Exception, repository: bool
) -> None:
    """What ``flowcore run`` reports as a repository failure (exit 3)."""

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        session.get()
        if isinstance(raised, OSError):
            raise raised from RepositoryFullError("full", repository="content", setting="x")
        raise raised

    runner = runner_factory(trigger)
    runner.enqueue("a")
    with pytest.raises(type(raised)):
        runner.run()
    (error,) = runner.node.processors["processor-under-test"].errors
    assert error.repository is repository
