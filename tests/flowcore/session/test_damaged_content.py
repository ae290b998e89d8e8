"""Damaged content (a checksum mismatch) never flows on: the FlowFile goes to failure.

Each test garbles one byte of a claim file on disk, between the write and the read, with
the real file-system content repository under a TestRunner.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest
import xxhash

from flowcore.errors import ContentCorruptedError
from flowcore.model.flowfile import FlowFile
from flowcore.processor import ProcessContext, Processor, Relationship
from flowcore.repository.content import ContentWriter
from flowcore.session import ProcessSession
from flowcore.session.content_errors import CONTENT_ERROR_REASON
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


def garble(runner: TestRunner, flowfile: FlowFile, at: int = 0) -> None:
    """Flip one byte of the FlowFile's content in its resource-claim file."""
    claim = flowfile.claim
    assert claim is not None
    resource = claim.resource
    containers = runner.settings.content_containers
    path = containers[int(resource.container)] / resource.section / resource.id
    with path.open("r+b") as handle:
        position = claim.offset + flowfile.claim_offset + at
        handle.seek(position)
        byte = handle.read(1)
        handle.seek(position)
        handle.write(bytes([byte[0] ^ 0x01]))


def upper_case(_: ProcessContext, session: ProcessSession) -> None:
    for flowfile in session.get_batch(10):
        session.transfer(session.write(flowfile, session.read(flowfile).upper()), "success")


def test_damaged_content_goes_to_failure_with_the_reason(runner_factory: RunnerFactory) -> None:
    runner = runner_factory(upper_case)
    healthy = runner.enqueue("fine")
    damaged = runner.enqueue("this content will be garbled", {"keep": "me"})
    garble(runner, damaged.flowfile, 3)

    with pytest.raises(ContentCorruptedError):
        runner.run()

    runner.assert_all_flowfiles_transferred("failure", 1)
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    assert failed.uuid == damaged.uuid
    reason = failed.get_attribute(CONTENT_ERROR_REASON)
    assert reason is not None and "is damaged" in reason and "xxh3_64" in reason
    failed.assert_attribute_equals("keep", "me")
    assert failed.flowfile.claim == damaged.flowfile.claim, "the damaged claim, not new bytes"
    assert failed.is_penalized(runner.clock.now_ms())
    assert failed.content_error is not None and "is damaged" in failed.content_error
    with pytest.raises(AssertionError, match="content could not be read"):
        failed.assert_content_equals("this content will be garbled")
    assert runner.get_flowfiles_for_relationship("success") == []
    assert runner.queue_size == 1, "the healthy FlowFile went back to its queue"
    events = [e for e in runner.get_provenance_events() if e.flowfile_uuid == damaged.uuid]
    assert "DROP" not in [e.event_type for e in events]
    modified = next(e for e in events if e.event_type == "ATTRIBUTES_MODIFIED")
    assert modified.updated_attributes[CONTENT_ERROR_REASON] == reason

    runner.advance_time(60)
    runner.run()
    (done,) = runner.get_flowfiles_for_relationship("success")
    assert done.uuid == healthy.uuid
    done.assert_content_equals("FINE")


class OnlySuccess(Processor):
    """Reads and passes on; no failure relationship."""

    type_name = "OnlySuccess"
    relationships: ClassVar[list[Relationship]] = [Relationship("success")]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        upper_case(context, session)


def test_without_a_failure_relationship_damaged_content_is_dropped_with_the_reason(
    tmp_path: Any,
) -> None:
    from flowcore.settings import EngineSettings

    runner = TestRunner(
        OnlySuccess(), settings=EngineSettings(data_dir=tmp_path / "data"), repositories="durable"
    )
    try:
        damaged = runner.enqueue("garbled")
        garble(runner, damaged.flowfile)
        with pytest.raises(ContentCorruptedError):
            runner.run()
        assert runner.queue_size == 0
        assert runner.get_flowfiles_for_relationship("success") == []
        (drop,) = runner.get_provenance_events()
        assert (drop.event_type, drop.flowfile_uuid) == ("DROP", damaged.uuid)
        assert drop.details is not None and drop.details.startswith("Content Damaged: ")
        assert "is damaged" in drop.details
    finally:
        runner.close()


def test_a_failure_relationship_that_is_auto_terminated_drops_it_as_routed(
    runner_factory: RunnerFactory,
) -> None:
    runner = runner_factory(upper_case)
    runner.set_relationship_auto_terminated("failure")
    damaged = runner.enqueue("garbled")
    garble(runner, damaged.flowfile)
    with pytest.raises(ContentCorruptedError):
        runner.run()
    assert runner.queue_size == 0
    drop = runner.get_provenance_events()[-1]
    assert (drop.event_type, drop.flowfile_uuid) == ("DROP", damaged.uuid)
    assert drop.attributes[CONTENT_ERROR_REASON].endswith("now")


def test_streamed_damaged_content_never_reaches_new_content(
    runner_factory: RunnerFactory,
) -> None:
    """A processor copying chunk by chunk never completes a copy of damaged bytes."""
    copied: list[bytes] = []

    def copy_in_chunks(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None

        def copy(writer: ContentWriter) -> None:
            for chunk in session.stream(flowfile, chunk_size=4):
                copied.append(chunk)
                writer.write(chunk)

        session.transfer(session.write(flowfile, copy), "success")

    runner = runner_factory(copy_in_chunks)
    damaged = runner.enqueue("0123456789abcdefXYZ")  # five chunks of at most 4 bytes
    garble(runner, damaged.flowfile, 17)
    with pytest.raises(ContentCorruptedError):
        runner.run()
    assert len(copied) == 4, "the last chunk is held back"
    assert runner.get_flowfiles_for_relationship("success") == []
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    assert failed.uuid == damaged.uuid
    failed.assert_attribute_exists(CONTENT_ERROR_REASON)


def test_export_checks_the_content_too(runner_factory: RunnerFactory, tmp_path: Any) -> None:
    target = tmp_path / "exported"

    def export(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        with target.open("wb") as out:
            session.export_to(flowfile, out)
        session.transfer(flowfile, "success")

    runner = runner_factory(export)
    damaged = runner.enqueue("exported bytes")
    garble(runner, damaged.flowfile, 13)
    with pytest.raises(ContentCorruptedError):
        runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_a_processor_that_handles_the_error_keeps_the_reason_on_the_flowfile(
    runner_factory: RunnerFactory,
) -> None:
    def tolerant(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        try:
            session.read(flowfile)
        except ContentCorruptedError:
            session.transfer(flowfile, "other")
            return
        session.transfer(flowfile, "success")

    runner = runner_factory(tolerant)
    damaged = runner.enqueue("garbled")
    garble(runner, damaged.flowfile)
    runner.run()
    (other,) = runner.get_flowfiles_for_relationship("other")
    reason = other.get_attribute(CONTENT_ERROR_REASON)
    assert damaged.flowfile.claim is not None
    assert reason is not None and str(damaged.flowfile.claim.resource) in reason


def test_clone_and_copy_on_write_keep_the_checksum_and_a_range_is_not_checked(
    runner_factory: RunnerFactory,
) -> None:
    seen: dict[str, Any] = {}

    def clone_and_write(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        whole = session.clone(flowfile)
        head = session.clone(flowfile, 0, 4)
        seen["clone"] = whole.claim
        seen["range"] = head.claim
        seen["head"] = session.read(head)  # the byte garbled lies outside this range
        appended = session.append(session.clone(flowfile, 0, 4), b"++")
        seen["appended"] = appended.claim
        session.transfer(appended, "other")
        session.transfer(head, "other")
        session.transfer(whole, "success")
        session.transfer(flowfile, "success")

    runner = runner_factory(clone_and_write)
    original = runner.enqueue("abcdefgh")
    assert original.flowfile.claim is not None
    assert original.flowfile.claim.checksum == xxhash.xxh3_64_intdigest(b"abcdefgh")
    garble(runner, original.flowfile, 6)
    runner.run()
    assert seen["clone"] == original.flowfile.claim
    assert seen["range"] == original.flowfile.claim
    assert seen["head"] == b"abcd"
    assert seen["appended"].checksum == xxhash.xxh3_64_intdigest(b"abcd++")
    for out in runner.get_flowfiles_for_relationship("success"):
        assert out.flowfile.claim == original.flowfile.claim
        assert out.content_error is not None, "the whole damaged content is never read back"


def test_content_written_piece_by_piece_is_checksummed_as_it_streams(
    runner_factory: RunnerFactory,
) -> None:
    pieces = [b"x" * 70_000, b"y" * 10, b"z" * 100_000]

    def open_write(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.create()
        handle = session.open_write(flowfile)
        for piece in pieces:
            handle.write(piece)
        session.transfer(handle.close(), "success")

    runner = runner_factory(open_write)
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert out.flowfile.claim is not None
    assert out.flowfile.claim.checksum == xxhash.xxh3_64_intdigest(b"".join(pieces))
    assert out.content == b"".join(pieces)
