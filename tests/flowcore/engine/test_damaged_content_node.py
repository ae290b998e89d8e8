"""Damaged content in a running node: failure with the reason, kept across a restart.

A real node (LMDB, file-system content, DuckDB) under tmp_path: FlowFiles come in at an
input port, one byte of a claim file is garbled on disk, SplitText reads them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, EnqueueItem, Node, ReplayError
from flowcore.errors import ContentCorruptedError
from flowcore.flow import parse_flow
from flowcore.model.flowfile import FlowFile
from flowcore.repository import ProvenanceQuery
from flowcore.session.content_errors import CONTENT_ERROR_REASON
from flowcore.settings import EngineSettings

FLOW: dict[str, Any] = {
    "flow": {
        "name": "damaged",
        "input_ports": ["in"],
        "processors": {
            "split": {"type": "SplitText", "properties": {"Line Split Count": "1"}},
            "done": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            "failed": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
        },
        "connections": [
            {"from": "in", "to": "split", "name": "incoming"},
            {"from": "split", "relationships": ["splits", "original"], "to": "done", "name": "out"},
            {"from": "split", "relationships": ["failure"], "to": "failed", "name": "failed"},
        ],
    }
}


def queued(node: Node, connection: str) -> list[FlowFile]:
    return [r.flowfile for r in node.connections[connection].queue.listing()]


def garble(settings: EngineSettings, flowfile: FlowFile) -> None:
    claim = flowfile.claim
    assert claim is not None
    resource = claim.resource
    path = settings.content_containers[int(resource.container)] / resource.section / resource.id
    with path.open("r+b") as handle:
        handle.seek(claim.offset)
        first = handle.read(1)
        handle.seek(claim.offset)
        handle.write(bytes([first[0] ^ 0x20]))


def test_damaged_content_goes_to_failure_and_stays_detected_after_restart(
    settings_factory: Callable[..., EngineSettings],
) -> None:
    settings = settings_factory()
    clock = ManualClock()
    node = Node.from_flow(settings, parse_flow(FLOW), clock)
    try:
        node.processors["split"].stop()
        healthy, damaged = node.enqueue(
            "in", [EnqueueItem(b"one\ntwo\n"), EnqueueItem(b"three\nfour\n", {"k": "v"})]
        )
        by_uuid = {f.uuid: f for f in queued(node, "incoming")}
        garble(settings, by_uuid[damaged])
        node.processors["split"].start()
        DeterministicScheduler(node).run_until_idle()

        (failed,) = queued(node, "failed")
        assert failed.uuid == damaged
        assert failed.attributes["k"] == "v"
        reason = failed.attributes[CONTENT_ERROR_REASON]
        assert "is damaged" in reason
        assert failed.claim == by_uuid[damaged].claim
        out = queued(node, "out")
        contents = sorted(
            node.content.read(f.claim, f.claim_offset, f.size) for f in out if f.claim
        )
        assert contents == [b"one", b"one\ntwo\n", b"two"]  # splits lose their newline
        assert healthy in {f.uuid for f in out} and damaged not in {f.uuid for f in out}
        assert node.processors["split"].errors, "the error is reported on the processor"
        node.index_provenance()
        received = next(
            e
            for e in node.provenance.search(ProvenanceQuery(limit=100))
            if e.event_type == "RECEIVE" and e.flowfile_uuid == damaged
        )
        assert received.current_content is not None
        assert received.current_content.checksum == failed.claim.checksum
        routed = next(
            e
            for e in node.provenance.search(ProvenanceQuery(limit=100))
            if e.event_type == "ATTRIBUTES_MODIFIED" and e.flowfile_uuid == damaged
        )
        assert routed.component_id == "split" and routed.source_queue_id == "incoming"
        with pytest.raises(ReplayError, match="is damaged") as refused:
            node.replay(routed.event_id)
        assert refused.value.reason == "content-gone"
    finally:
        node.close()

    node = Node.from_flow(settings, parse_flow(FLOW), clock)
    try:
        (failed_again,) = queued(node, "failed")
        assert failed_again == failed, "the record, its checksum included, came back from LMDB"
        assert failed_again.claim is not None and failed_again.claim.checksum is not None
        with pytest.raises(ContentCorruptedError):
            node.content.read(failed_again.claim)
    finally:
        node.close()
