"""A flow for the EnforceOrder restart test: parks FlowFiles, then waits to be killed.

``enforce`` (EnforceOrder) has ``wait`` looped straight back into itself, so FlowFiles
that have to wait are held in flight and indexed in keyed state; ``success`` goes to the
stopped ``sink``. Run as ``python enforce_order_park_flow.py DATA_DIR``: it enqueues
``PARKED`` and ``RELEASED``, runs until nothing moves (the manual clock never advances),
prints ``ready`` and sleeps until killed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, EnqueueItem, Node
from flowcore.flow import parse_flow
from flowcore.settings import EngineSettings

START_MS = 1_700_000_000_000
# Orders 0 are missing: these wait. c.0 leaves at once.
PARKED = [("a", 5), ("a", 3), ("b", 2), ("a", 1), ("a", 4), ("b", 1), ("a", 2)]
RELEASED = [("c", 0)]

FLOW: dict[str, Any] = {
    "flow": {
        "name": "enforce-order-park",
        "input_ports": ["in"],
        "processors": {
            "enforce": {
                "type": "EnforceOrder",
                "properties": {"Group Identifier": "${group}", "Order Attribute": "order"},
                "auto_terminate": ["overtook", "skipped", "failure"],
            },
            "sink": {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]},
        },
        "connections": [
            {"from": "in", "to": "enforce", "name": "incoming"},
            {"from": "enforce", "relationships": ["wait"], "to": "enforce", "name": "wait"},
            {"from": "enforce", "relationships": ["success"], "to": "sink", "name": "ordered"},
        ],
    }
}


def items(pairs: list[tuple[str, int]]) -> list[EnqueueItem]:
    return [EnqueueItem(f"{g}.{o}".encode(), {"group": g, "order": str(o)}) for g, o in pairs]


def open_node(data_dir: Path, clock: ManualClock) -> Node:
    import processors.ordering  # noqa: F401  (registers the types)

    settings = EngineSettings.model_validate({"data_dir": data_dir, "durability": "process"})
    return Node.from_flow(settings, parse_flow(FLOW), clock)


def main() -> None:
    node = open_node(Path(sys.argv[1]), ManualClock(START_MS))
    node.enqueue("in", items(PARKED + RELEASED))
    DeterministicScheduler(node).run_until_idle(advance_clock=False)
    print("ready", flush=True)
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
