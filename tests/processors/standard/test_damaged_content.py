"""Standard processors meeting damaged content: nothing wrong is written or passed on.

One byte of a claim file is garbled on disk between the write and the processor's read,
so these runners use the durable repositories.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from flowcore.errors import ContentCorruptedError
from flowcore.model.flowfile import FlowFile
from flowcore.session.content_errors import CONTENT_ERROR_REASON
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


def garble(runner: TestRunner, flowfile: FlowFile, at: int) -> None:
    claim = flowfile.claim
    assert claim is not None
    resource = claim.resource
    directory = runner.settings.content_containers[int(resource.container)] / resource.section
    with (directory / resource.id).open("r+b") as handle:
        handle.seek(claim.offset + at)
        byte = handle.read(1)
        handle.seek(claim.offset + at)
        handle.write(bytes([byte[0] ^ 0x04]))


@pytest.mark.parametrize("size", [100, 3 * 1024 * 1024])  # read whole, and streamed (export)
def test_put_file_writes_nothing_and_routes_to_failure_with_both_reasons(
    make_runner: RunnerFactory, tmp_path: Path, size: int
) -> None:
    outbox = tmp_path / "out"
    runner = make_runner("PutFile", repositories="durable", properties={"Directory": str(outbox)})
    damaged = runner.enqueue(b"d" * size, {"filename": "damaged.bin"})
    garble(runner, damaged.flowfile, size - 1)
    runner.run()
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    reason = failed.get_attribute(CONTENT_ERROR_REASON)
    assert reason is not None and "is damaged" in reason
    putfile_reason = failed.get_attribute("putfile.failure.reason")
    assert putfile_reason is not None and "ContentCorruptedError" in putfile_reason
    assert not outbox.exists() or list(outbox.iterdir()) == []  # no file, no temporary file
    assert [e.event_type for e in runner.get_provenance_events()] == ["ATTRIBUTES_MODIFIED"]


def test_split_text_sends_the_damaged_original_to_failure_and_no_split(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner("SplitText", repositories="durable", properties={"Line Split Count": "1"})
    damaged = runner.enqueue("first\nsecond\nthird\n")
    garble(runner, damaged.flowfile, 8)
    with pytest.raises(ContentCorruptedError):
        runner.run()
    assert runner.get_flowfiles_for_relationship("splits") == []
    assert runner.get_flowfiles_for_relationship("original") == []
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    assert failed.uuid == damaged.uuid
    failed.assert_attribute_exists(CONTENT_ERROR_REASON)


def test_log_attribute_has_no_failure_so_the_flowfile_is_dropped_with_the_reason(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner(
        "LogAttribute",
        repositories="durable",
        properties={"Log Payload": "true", "Log Level": "error"},
    )
    damaged = runner.enqueue("payload")
    garble(runner, damaged.flowfile, 0)
    with pytest.raises(ContentCorruptedError):
        runner.run()
    assert runner.get_flowfiles_for_relationship("success") == []
    assert runner.queue_size == 0
    (drop,) = runner.get_provenance_events()
    assert drop.event_type == "DROP" and drop.flowfile_uuid == damaged.uuid
    assert drop.details is not None and drop.details.startswith("Content Damaged: content claim")
