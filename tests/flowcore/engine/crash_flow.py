"""A flow for crash tests, importable by the test and runnable as the child process.

``source`` numbers every FlowFile it creates (``seq``) from a counter kept in its state,
``transform`` rewrites content and clones every fifth FlowFile (``copy=1``), and ``sink``
drops what reaches it. Small swap and back-pressure thresholds make swapping happen. The
invariants the tests check follow from the numbering: every seq below the source's
counter is in exactly one queue or has exactly one DROP event.

Run as ``python crash_flow.py DATA_DIR DURABILITY [CRASH_PHASE]``: it runs until killed,
or exits with status 99 at the given commit phase of the 40th commit.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, ClassVar

from flowcore.clock import SystemClock
from flowcore.engine import Node
from flowcore.flow import parse_flow
from flowcore.processor import ProcessContext, Processor, Relationship, processor
from flowcore.processor.descriptors import Scheduling
from flowcore.session import ProcessSession
from flowcore.settings import EngineSettings
from tests.crash_support import crash_after_commits, run_until_killed


def payload(seq: int) -> bytes:
    return f"item-{seq};".encode() * (seq % 7 + 1)


@processor("CrashSource")
class CrashSource(Processor):
    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    scheduling = Scheduling(input_required=False)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        state = session.get_state()
        start = int(state.get("next", "0"))
        for seq in range(start, start + 25):
            flowfile = session.create()
            flowfile = session.write(flowfile, payload(seq))
            flowfile = session.put_attribute(flowfile, "seq", str(seq))
            session.transfer(flowfile, "success")
        session.set_state({"next": str(start + 25)})


@processor("CrashTransform")
class CrashTransform(Processor):
    relationships: ClassVar[list[Relationship]] = [Relationship("success")]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        for flowfile in session.get_batch(40):
            seq = int(flowfile.attributes["seq"])
            if seq % 5 == 0:
                copy = session.clone(flowfile)
                session.transfer(session.put_attribute(copy, "copy", "1"), "success")
            flowfile = session.write(flowfile, session.read(flowfile).upper())
            session.transfer(session.put_attribute(flowfile, "transformed", "yes"), "success")


@processor("CrashSink")
class CrashSink(Processor):
    relationships: ClassVar[list[Relationship]] = []

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        for flowfile in session.get_batch(30):
            session.remove(flowfile)


FLOW: dict[str, Any] = {
    "flow": {
        "name": "crash",
        "processors": {
            "source": {"type": "CrashSource"},
            "transform": {"type": "CrashTransform"},
            "sink": {"type": "CrashSink", "schedule": {"period": "5 millis"}},
        },
        "connections": [
            {
                "from": "source",
                "relationships": ["success"],
                "to": "transform",
                "name": "generated",
                "back_pressure": {"object_threshold": 600},
            },
            {
                "from": "transform",
                "relationships": ["success"],
                "to": "sink",
                "name": "transformed",
                "back_pressure": {"object_threshold": 900},
            },
        ],
    }
}


def settings(data_dir: Path, durability: str = "process") -> EngineSettings:
    return EngineSettings.model_validate(
        {
            "data_dir": data_dir,
            "durability": durability,
            "queue": {"swap_threshold": 200, "swap_batch_size": 100},
            "content": {"max_appendable_size": "2 KB"},
        }
    )


def open_node(data_dir: Path, durability: str = "process") -> Node:
    return Node.from_flow(settings(data_dir, durability), parse_flow(FLOW), SystemClock())


def main() -> None:
    data_dir, durability = Path(sys.argv[1]), sys.argv[2]
    node = open_node(data_dir, durability)
    if len(sys.argv) > 3:
        crash_after_commits(node, sys.argv[3], 40)
    run_until_killed(node, checkpoint_every=50, index_every=20)


if __name__ == "__main__":
    main()
