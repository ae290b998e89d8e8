"""A flow for the EnforceOrder kill -9 test, importable by the test and run as the child.

``source`` (ShuffledSequence) emits GROUPS groups of SIZE FlowFiles in a seeded shuffled
order, a few per trigger; ``enforce`` (EnforceOrder) has ``wait`` looped back into
itself; ``success`` goes to the ``ordered`` queue and on to ``sink`` (a Funnel whose
``success`` is auto-terminated, so each FlowFile that left through success ends with one
DROP event of ``sink``). Nothing times out (Wait Timeout is 10 min).

Run as ``python enforce_order_crash_flow.py DATA_DIR``: it prints ``ready`` and runs until
killed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from flowcore.clock import Clock, SystemClock
from flowcore.engine import Node
from flowcore.flow import parse_flow
from flowcore.settings import EngineSettings
from tests.crash_support import run_until_killed

GROUPS = 6
SIZE = 400
SEED = 20240604

FLOW: dict[str, Any] = {
    "flow": {
        "name": "enforce-order-crash",
        "processors": {
            "source": {
                "type": "ShuffledSequence",
                "properties": {
                    "Group Count": str(GROUPS),
                    "Group Size": str(SIZE),
                    "Seed": str(SEED),
                    "Batch Size": "7",
                },
            },
            "enforce": {
                "type": "EnforceOrder",
                "properties": {
                    "Group Identifier": "${group}",
                    "Order Attribute": "order",
                    "Batch Count": "200",
                },
            },
            "sink": {"type": "Funnel", "auto_terminate": ["success"]},
        },
        "connections": [
            {"from": "source", "relationships": ["success"], "to": "enforce", "name": "incoming"},
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


def settings(data_dir: Path) -> EngineSettings:
    return EngineSettings.model_validate({"data_dir": data_dir, "durability": "process"})


def open_node(data_dir: Path, clock: Clock | None = None) -> Node:
    import processors.ordering  # noqa: F401  (registers the types)

    return Node.from_flow(settings(data_dir), parse_flow(FLOW), clock or SystemClock())


def main() -> None:
    run_until_killed(open_node(Path(sys.argv[1])), checkpoint_every=50, index_every=20)


if __name__ == "__main__":
    main()
