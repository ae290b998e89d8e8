"""Property: holding waiting FlowFiles routes every FlowFile exactly as NiFi's wait loop.

The reference is NiFi's loop without an engine: at each moment the waiting FlowFiles and
the new arrivals go through EnforceOrder's routing together, again and again until
nothing changes (the loop keeps re-polling them). The real flow has ``wait`` looped
straight back, so waiting FlowFiles are held instead. Arrivals come in rounds at moments
that cross the Wait Timeout (10 sec) and the Inactive Timeout (20 sec); duplicates, late
ones and orders beyond the Maximum Order (6) are included.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import processors.ordering  # noqa: F401  (registers the types)
from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, EnqueueItem, Node
from flowcore.flow import parse_flow
from flowcore.settings import EngineSettings
from processors.ordering.enforce_order import (
    ATTR_DETAIL,
    ATTR_EXPECTED_ORDER,
    ATTR_RESULT,
    ATTR_STARTED_AT,
    WAIT,
    Settings,
    decide,
)
from tests import crash_support

WAIT_MS, INACTIVE_MS, MAXIMUM = 10_000, 20_000, 6
START = 1_700_000_000_000

FLOW: dict[str, Any] = {
    "flow": {
        "name": "enforce-order-equivalence",
        "input_ports": ["in"],
        "processors": {
            "enforce": {
                "type": "EnforceOrder",
                "properties": {
                    "Group Identifier": "${group}",
                    "Order Attribute": "order",
                    "Maximum Order": str(MAXIMUM),
                    "Wait Timeout": "10 sec",
                    "Inactive Timeout": "20 sec",
                },
            },
            "sink": {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]},
        },
        "connections": [
            {"from": "in", "to": "enforce", "name": "incoming"},
            {"from": "enforce", "relationships": ["wait"], "to": "enforce", "name": "wait"},
            {
                "from": "enforce",
                "relationships": ["success", "overtook", "skipped", "failure"],
                "to": "sink",
                "name": "out",
            },
        ],
    }
}

Round = tuple[int, list[tuple[str, int]]]
Seen = tuple[str, str, str | None, str | None, str | None]


def seen(attributes: dict[str, str]) -> Seen:
    return (
        f"{attributes['group']}.{attributes['order']}",
        attributes[ATTR_RESULT],
        attributes.get(ATTR_EXPECTED_ORDER),
        attributes.get(ATTR_DETAIL),
        attributes.get(ATTR_STARTED_AT),
    )


def reference(rounds: list[Round]) -> tuple[dict[str, list[Seen]], dict[str, str], list[str]]:
    """NiFi's wait loop: per group what left, in order; the state; what still waits."""
    routing = Settings(
        group_id=lambda a: a.get("group", ""),
        order_attribute="order",
        initial_order=lambda a: "0",
        maximum_order=lambda a: str(MAXIMUM),
        wait_timeout_ms=WAIT_MS,
        inactive_timeout_ms=INACTIVE_MS,
    )
    state: dict[str, str] = {}
    waiting: list[dict[str, str]] = []
    left: dict[str, list[Seen]] = defaultdict(list)
    now = START
    for gap, arrivals in rounds:
        now += gap * 1000
        new = [{"group": g, "order": str(o)} for g, o in arrivals]
        for _ in range(10):
            batch, new = waiting + new, []
            if not batch:
                break
            before = dict(state)
            waiting = []
            moved = False
            for outcome in decide(batch, routing, state, now):
                attributes = {**batch[outcome.index], **outcome.put}
                for key in outcome.remove:
                    attributes.pop(key, None)
                if outcome.relationship is WAIT:
                    waiting.append(attributes)
                else:
                    moved = True
                    left[attributes["group"]].append(seen(attributes))
            if not moved and state == before:
                break
    return dict(left), state, sorted(f"{a['group']}.{a['order']}" for a in waiting)


def held_flow(rounds: list[Round]) -> tuple[dict[str, list[Seen]], dict[str, str], list[str]]:
    with tempfile.TemporaryDirectory(prefix="enforce-order-eq-") as directory:
        clock = ManualClock(START)
        node = Node.from_flow(EngineSettings(data_dir=Path(directory)), parse_flow(FLOW), clock)
        try:
            scheduler = DeterministicScheduler(node)
            for gap, arrivals in rounds:
                clock.advance(gap)
                if arrivals:
                    node.enqueue(
                        "in",
                        [EnqueueItem(b"", {"group": g, "order": str(o)}) for g, o in arrivals],
                    )
                scheduler.run_until_idle(advance_clock=False)
            left: dict[str, list[Seen]] = defaultdict(list)
            for flowfile in crash_support.queued_flowfiles(node, "out"):
                left[flowfile.attributes["group"]].append(seen(dict(flowfile.attributes)))
            node.processors["enforce"].stop()  # parked FlowFiles go back to their queue
            still = sorted(
                f"{f.attributes['group']}.{f.attributes['order']}"
                for f in crash_support.queued_flowfiles(node, "incoming")
            )
            return dict(left), node.flowfiles.load_state("enforce"), still
        finally:
            node.close()


rounds_strategy = st.lists(
    st.tuples(
        st.sampled_from([1, 4, 11, 25]),
        st.lists(
            st.tuples(st.sampled_from(["g0", "g1", "g2"]), st.integers(min_value=0, max_value=7)),
            max_size=8,
        ),
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=30, deadline=None)
@given(rounds=rounds_strategy)
def test_held_flowfiles_leave_as_the_wait_loop_lets_them(rounds: list[Round]) -> None:
    assert held_flow(rounds) == reference(rounds)
