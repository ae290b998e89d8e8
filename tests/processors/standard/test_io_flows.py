"""The new processors in real flows under the deterministic scheduler: Max Bin Age fires
on the manual clock through ``next_wake_ms``; ListFile feeds FetchFile; Wait and Notify
meet through one LmdbMapCacheService declared in the flow."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, EnqueueItem, Node
from flowcore.flow import parse_flow
from flowcore.model import FlowFile
from flowcore.settings import EngineSettings


def _run(tmp_path: Path, flow: dict[str, Any], items: list[EnqueueItem] | None = None) -> Node:
    node = Node.from_flow(
        EngineSettings(data_dir=tmp_path / "data"), parse_flow(flow), ManualClock()
    )
    if items:
        node.enqueue("in", items)
    DeterministicScheduler(node).run_until_idle()
    return node


def _drain(node: Node, connection: str) -> list[FlowFile]:
    queue = node.connections[connection].queue
    found: list[FlowFile] = []
    while batch := queue.poll_batch(1000, 2**62):
        found.extend(record.flowfile for record in batch)
    return found


def _sink() -> dict[str, Any]:
    return {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]}


def test_merge_content_bin_ages_out_on_the_manual_clock(tmp_path: Path) -> None:
    flow = {
        "flow": {
            "name": "merge-age",
            "input_ports": ["in"],
            "processors": {
                "merge": {
                    "type": "MergeContent",
                    "properties": {"Minimum Number of Entries": "10", "Max Bin Age": "30 sec"},
                    "auto_terminate": ["original", "failure"],
                },
                "sink": _sink(),
            },
            "connections": [
                {"from": "in", "to": "merge", "name": "incoming"},
                {"from": "merge", "relationships": ["merged"], "to": "sink", "name": "merged"},
            ],
        }
    }
    started = ManualClock().now_ms()
    node = _run(tmp_path, flow, [EnqueueItem(t.encode(), {}) for t in ("a", "b", "c")])
    try:
        merged = _drain(node, "merged")
        assert len(merged) == 1
        assert merged[0].attributes["merge.reason"] == "TIMEOUT"
        assert merged[0].attributes["merge.count"] == "3"
        assert node.clock.now_ms() - started >= 30_001
    finally:
        node.close()


def test_list_file_feeds_fetch_file(tmp_path: Path) -> None:
    source = tmp_path / "in"
    (source / "sub").mkdir(parents=True)
    (source / "a.txt").write_text("alpha")
    (source / "sub" / "b.txt").write_text("beta")
    for path in (source / "a.txt", source / "sub" / "b.txt"):
        os.utime(path, (1_000, 1_000))  # older than the manual clock's now
    flow = {
        "flow": {
            "name": "list-fetch",
            "processors": {
                "list": {
                    "type": "ListFile",
                    "schedule": {"max_runs": 1},
                    "properties": {"Input Directory": str(source)},
                },
                "fetch": {
                    "type": "FetchFile",
                    "properties": {"Completion Strategy": "Delete File"},
                    "auto_terminate": ["not.found", "permission.denied", "failure"],
                },
                "sink": _sink(),
            },
            "connections": [
                {"from": "list", "relationships": ["success"], "to": "fetch", "name": "listed"},
                {"from": "fetch", "relationships": ["success"], "to": "sink", "name": "fetched"},
            ],
        }
    }
    node = _run(tmp_path, flow)
    try:
        fetched = _drain(node, "fetched")
        contents = sorted(
            node.content.read(f.claim, f.claim_offset, f.size) for f in fetched if f.claim
        )
        assert contents == [b"alpha", b"beta"]
        assert not (source / "a.txt").exists() and not (source / "sub" / "b.txt").exists()
    finally:
        node.close()


def test_wait_released_by_notify_through_the_flows_cache(tmp_path: Path) -> None:
    flow = {
        "flow": {
            "name": "wait-notify",
            "input_ports": ["in"],
            "controller_services": {"cache": {"type": "LmdbMapCacheService"}},
            "processors": {
                "wait": {
                    "type": "Wait",
                    "properties": {
                        "Distributed Cache Service": "cache",
                        "Release Signal Identifier": "${batch}",
                        "Target Signal Count": "2",
                        "Expiration Duration": "1 hour",
                        "Wait Penalty Duration": "1 sec",
                    },
                    "auto_terminate": ["expired", "failure"],
                },
                "notify": {
                    "type": "Notify",
                    "properties": {
                        "Distributed Cache Service": "cache",
                        "Release Signal Identifier": "${batch}",
                    },
                    "auto_terminate": ["success", "failure"],
                },
                "route": {
                    "type": "RouteOnAttribute",
                    "properties": {"signal": "${role:equals('signal')}"},
                },
                "sink": _sink(),
            },
            "connections": [
                {"from": "in", "to": "route", "name": "incoming"},
                {"from": "route", "relationships": ["signal"], "to": "notify", "name": "signals"},
                {"from": "route", "relationships": ["unmatched"], "to": "wait", "name": "held"},
                {"from": "wait", "relationships": ["wait"], "to": "wait", "name": "waiting"},
                {"from": "wait", "relationships": ["success"], "to": "sink", "name": "released"},
            ],
        }
    }
    items = [
        EnqueueItem(b"payload", {"batch": "b1", "role": "payload"}),
        EnqueueItem(b"", {"batch": "b1", "role": "signal"}),
        EnqueueItem(b"", {"batch": "b1", "role": "signal"}),
    ]
    node = _run(tmp_path, flow, items)
    try:
        released = _drain(node, "released")
        assert len(released) == 1
        assert released[0].attributes["wait.counter.total"] == "2"
        assert (tmp_path / "data" / "map_cache" / "cache" / "data.mdb").exists()
    finally:
        node.close()
