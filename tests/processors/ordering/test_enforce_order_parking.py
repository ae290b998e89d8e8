"""EnforceOrder with ``wait`` looped straight back: waiting FlowFiles are held, not looped.

Real flows on the durable repositories and a manual clock. A FlowFile that has to wait
stays in flight in the connection it came from, untouched, with its startedAt in keyed
state; it leaves exactly as NiFi's wait loop would let it (same relationship, attributes
and order), and a restart (even kill -9) loses nothing and keeps its startedAt.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any

import pytest

import processors.ordering  # noqa: F401  (registers the types)
from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, EnqueueItem, Node
from flowcore.flow import parse_flow
from flowcore.model import FlowFile
from flowcore.settings import EngineSettings
from processors.ordering.enforce_order import (
    ATTR_DETAIL,
    ATTR_EXPECTED_ORDER,
    ATTR_RESULT,
    ATTR_STARTED_AT,
)
from tests import crash_support

sys.path.insert(0, str(Path(__file__).parent))
import enforce_order_park_flow as park_flow

PARKED_PREFIX = b"parked\x00"


def flow(wait_to: str = "enforce", **properties: str) -> dict[str, Any]:
    """``wait`` looped back (``enforce``), through a funnel (``loop``) or to ``held``."""
    connections: list[dict[str, Any]] = [
        {"from": "in", "to": "enforce", "name": "incoming"},
        {"from": "enforce", "relationships": ["wait"], "to": wait_to, "name": "wait"},
        {
            "from": "enforce",
            "relationships": ["success", "overtook", "skipped"],
            "to": "sink",
            "name": "ordered",
        },
    ]
    processors: dict[str, Any] = {
        "enforce": {
            "type": "EnforceOrder",
            "properties": {
                "Group Identifier": "${group}",
                "Order Attribute": "order",
                **properties,
            },
            "auto_terminate": ["failure"],
        },
        "sink": {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]},
    }
    if wait_to == "loop":
        processors["loop"] = {"type": "Funnel"}
        connections.append({"from": "loop", "relationships": ["success"], "to": "enforce"})
    if wait_to == "held":
        processors["held"] = {
            "type": "Funnel",
            "run_state": "STOPPED",
            "auto_terminate": ["success"],
        }
    return {
        "flow": {
            "name": "enforce-order-parking",
            "input_ports": ["in"],
            "processors": processors,
            "connections": connections,
        }
    }


def open_node(data_dir: Path, definition: dict[str, Any], clock: ManualClock) -> Node:
    return Node.from_flow(EngineSettings(data_dir=data_dir), parse_flow(definition), clock)


def enqueue(node: Node, pairs: list[tuple[str, int]]) -> None:
    node.enqueue(
        "in", [EnqueueItem(f"{g}.{o}".encode(), {"group": g, "order": str(o)}) for g, o in pairs]
    )


def drain(node: Node, connection: str) -> list[FlowFile]:
    return crash_support.queued_flowfiles(node, connection)


def names(flowfiles: list[FlowFile]) -> list[str]:
    return [f"{f.attributes['group']}.{f.attributes['order']}" for f in flowfiles]


def parked_index(node: Node) -> dict[int, str]:
    size = len(PARKED_PREFIX)
    return {
        int.from_bytes(item.key[size:], "big"): item.value.decode()
        for item in node.flowfiles.scan_keyed("enforce", PARKED_PREFIX, None, 1 << 30)
    }


def run(node: Node, *, advance_clock: bool = False) -> None:
    DeterministicScheduler(node).run_until_idle(advance_clock=advance_clock)


def test_waiting_flowfiles_are_held_in_flight_and_indexed(tmp_path: Path) -> None:
    clock = ManualClock()
    node = open_node(tmp_path, flow(), clock)
    try:
        start = clock.now_ms()
        enqueue(node, [("a", 2), ("a", 1), ("b", 1)])
        run(node)
        incoming = node.connections["incoming"].queue
        assert node.connections["wait"].queue.size == 0, "nothing goes round the loop"
        assert incoming.snapshot().in_flight == 3
        assert node.connections["ordered"].queue.size == 0
        assert sorted(parked_index(node).values()) == [str(start)] * 3
        enforce = node.processors["enforce"]
        commits = enforce.binding.stats.commits
        run(node)  # nothing to do: nothing is read or written again
        assert enforce.binding.stats.commits == commits
        clock.advance(5)
        enqueue(node, [("b", 0), ("a", 0)])
        run(node)
        ordered = drain(node, "ordered")
        assert names(ordered) == ["a.0", "a.1", "a.2", "b.0", "b.1"]
        by_name = dict(zip(names(ordered), ordered, strict=True))
        assert by_name["a.2"].attributes[ATTR_STARTED_AT] == str(start)
        assert by_name["a.0"].attributes[ATTR_STARTED_AT] == str(start + 5000)
        for flowfile in ordered:
            assert flowfile.attributes[ATTR_RESULT] == "success"
            assert ATTR_EXPECTED_ORDER not in flowfile.attributes
            assert ATTR_DETAIL not in flowfile.attributes
        assert incoming.size == 0
        assert parked_index(node) == {}
        assert node.flowfiles.load_state("enforce")["a.target"] == "3"
    finally:
        node.close()


def test_wait_timeout_overtakes_when_it_passes(tmp_path: Path) -> None:
    clock = ManualClock()
    node = open_node(tmp_path, flow(**{"Wait Timeout": "10 sec"}), clock)
    try:
        start = clock.now_ms()
        enqueue(node, [("a", 3), ("a", 2), ("a", 5)])
        run(node, advance_clock=True)  # time moves to the first Wait Timeout passing
        assert clock.now_ms() == start + 10_001, "strictly longer than Wait Timeout"
        ordered = drain(node, "ordered")
        assert names(ordered) == ["a.2", "a.3", "a.5"]
        overtook = ordered[0]
        assert overtook.attributes[ATTR_RESULT] == "overtook"
        assert overtook.attributes[ATTR_EXPECTED_ORDER] == "0"
        assert overtook.attributes[ATTR_STARTED_AT] == str(start)
        assert [f.attributes[ATTR_RESULT] for f in ordered[1:]] == ["success", "overtook"]
        assert ordered[2].attributes[ATTR_EXPECTED_ORDER] == "4"
        assert node.flowfiles.load_state("enforce")["a.target"] == "6"
        assert parked_index(node) == {}
        assert node.connections["incoming"].queue.size == 0
    finally:
        node.close()


def test_late_and_duplicate_flowfiles_are_skipped_as_in_the_loop(tmp_path: Path) -> None:
    clock = ManualClock()
    node = open_node(tmp_path, flow(), clock)
    try:
        enqueue(node, [("a", 2), ("a", 2), ("a", 1)])
        run(node)
        clock.advance(1)  # with FlowFiles parked and nothing to do it yields (1 sec)
        enqueue(node, [("a", 0), ("a", 1)])
        run(node)
        ordered = drain(node, "ordered")
        results = [
            (n, f.attributes[ATTR_RESULT]) for n, f in zip(names(ordered), ordered, strict=True)
        ]
        assert results == [
            ("a.0", "success"),
            ("a.1", "success"),
            ("a.1", "skipped"),
            ("a.2", "success"),
            ("a.2", "skipped"),
        ]
        assert ordered[2].attributes[ATTR_DETAIL] == (
            "Skipped, FlowFile order was 1 but current target is 2"
        )
    finally:
        node.close()


@pytest.mark.parametrize("wait_to", ["loop", "held"])
def test_wait_not_looped_straight_back_is_routed_to_wait(tmp_path: Path, wait_to: str) -> None:
    clock = ManualClock()
    node = open_node(tmp_path, flow(wait_to), clock)
    try:
        enqueue(node, [("a", 1)])
        if wait_to == "held":
            run(node)
            waiting = drain(node, "wait")
            assert names(waiting) == ["a.1"]
            assert waiting[0].attributes[ATTR_RESULT] == "wait"
            assert waiting[0].attributes[ATTR_EXPECTED_ORDER] == "0"
            assert parked_index(node) == {}
        else:
            scheduler = DeterministicScheduler(node)
            for _ in range(3):
                scheduler.run_once()
            enqueue(node, [("a", 0)])
            for _ in range(3):
                scheduler.run_once()
            assert names(drain(node, "ordered")) == ["a.0", "a.1"]
    finally:
        node.close()


def test_stopping_puts_parked_flowfiles_back_and_keeps_started_at(tmp_path: Path) -> None:
    clock = ManualClock()
    node = open_node(tmp_path, flow(), clock)
    try:
        start = clock.now_ms()
        enqueue(node, [("a", 1)])
        run(node)
        node.processors["enforce"].stop()
        incoming = node.connections["incoming"].queue
        assert incoming.snapshot().in_flight == 0
        assert names(drain(node, "incoming")) == ["a.1"]
        assert ATTR_STARTED_AT not in drain(node, "incoming")[0].attributes
        node.processors["enforce"].start()
        clock.advance(60)
        enqueue(node, [("a", 0)])
        run(node)
        ordered = drain(node, "ordered")
        assert names(ordered) == ["a.0", "a.1"]
        assert ordered[1].attributes[ATTR_STARTED_AT] == str(start)
    finally:
        node.close()


@pytest.mark.crash
def test_parked_flowfiles_survive_kill_9_and_leave_in_order(tmp_path: Path) -> None:
    child = crash_support.start_child(
        Path(__file__).parent / "enforce_order_park_flow.py", str(tmp_path)
    )
    child.send_signal(signal.SIGKILL)
    child.wait()
    clock = ManualClock(park_flow.START_MS + 120_000)
    node = park_flow.open_node(tmp_path, clock)
    try:
        # Nothing was lost or duplicated: the parked FlowFiles are back in their queue.
        assert sorted(names(drain(node, "incoming"))) == sorted(
            f"{g}.{o}" for g, o in park_flow.PARKED
        )
        assert names(drain(node, "ordered")) == ["c.0"]
        assert sorted(parked_index(node).values()) == [str(park_flow.START_MS)] * len(
            park_flow.PARKED
        )
        state = node.flowfiles.load_state("enforce")
        assert (state["a.target"], state["b.target"], state["c.target"]) == ("0", "0", "1")
        node.enqueue("in", park_flow.items([("b", 0), ("a", 0)]))
        DeterministicScheduler(node).run_until_idle(advance_clock=False)
        ordered = drain(node, "ordered")
        assert names(ordered) == [
            "c.0",
            "a.0",
            "a.1",
            "a.2",
            "a.3",
            "a.4",
            "a.5",
            "b.0",
            "b.1",
            "b.2",
        ]
        started = {
            n: f.attributes[ATTR_STARTED_AT] for n, f in zip(names(ordered), ordered, strict=True)
        }
        assert started["a.5"] == started["b.2"] == str(park_flow.START_MS)
        assert started["a.0"] == str(clock.now_ms())
        assert parked_index(node) == {}
        assert node.connections["incoming"].queue.size == 0
    finally:
        node.close()
