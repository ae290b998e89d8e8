"""Property: any arrival order of each group's orders 0..n-1 comes out in order, once.

A real flow on the durable repositories: input port -> EnforceOrder, ``wait`` looped back
into EnforceOrder, ``success`` into a queue that is drained at the end. No timeout fires
(the manual clock only moves when the flow is idle).
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


def loop_flow(batch_count: int) -> dict[str, Any]:
    return {
        "flow": {
            "name": "enforce-order-loop",
            "input_ports": ["in"],
            "processors": {
                "enforce": {
                    "type": "EnforceOrder",
                    "properties": {
                        "Group Identifier": "${group}",
                        "Order Attribute": "order",
                        "Batch Count": str(batch_count),
                    },
                },
                "sink": {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]},
            },
            "connections": [
                {"from": "in", "to": "enforce", "name": "incoming"},
                {"from": "enforce", "relationships": ["wait"], "to": "enforce", "name": "wait"},
                {"from": "enforce", "relationships": ["success"], "to": "sink", "name": "ordered"},
                {
                    "from": "enforce",
                    "relationships": ["overtook", "skipped", "failure"],
                    "to": "sink",
                    "name": "others",
                },
            ],
        }
    }


@st.composite
def arrivals(draw: st.DrawFn) -> list[tuple[str, int]]:
    sizes = draw(st.lists(st.integers(min_value=1, max_value=8), min_size=1, max_size=4))
    pairs = [(f"g{g}", order) for g, size in enumerate(sizes) for order in range(size)]
    return draw(st.permutations(pairs))


@settings(max_examples=50, deadline=None)
@given(arrival=arrivals(), batch_count=st.sampled_from([1, 3, 1000]))
def test_every_group_in_order_exactly_once(
    arrival: list[tuple[str, int]], batch_count: int
) -> None:
    with tempfile.TemporaryDirectory(prefix="enforce-order-") as directory:
        node = Node.from_flow(
            EngineSettings(data_dir=Path(directory)),
            parse_flow(loop_flow(batch_count)),
            ManualClock(),
        )
        try:
            node.enqueue(
                "in",
                [
                    EnqueueItem(f"{g}.{o}".encode(), {"group": g, "order": str(o)})
                    for g, o in arrival
                ],
            )
            DeterministicScheduler(node).run_until_idle()
            queue = node.connections["ordered"].queue
            emitted: list[tuple[str, int]] = []
            while batch := queue.poll_batch(1000, node.clock.now_ms()):
                for record in batch:
                    attributes = record.flowfile.attributes
                    emitted.append((attributes["group"], int(attributes["order"])))
            assert sorted(emitted) == sorted(arrival), "nothing lost, nothing duplicated"
            per_group: dict[str, list[int]] = defaultdict(list)
            for group, order in emitted:
                per_group[group].append(order)
            for group, orders in per_group.items():
                assert orders == list(range(len(orders))), group
            for name in ("incoming", "wait", "others"):
                assert node.connections[name].queue.size == 0
        finally:
            node.close()
