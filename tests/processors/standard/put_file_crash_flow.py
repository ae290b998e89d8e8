"""A flow for the PutFile kill -9 test, importable by the test and run as the child.

``source`` numbers TOTAL FlowFiles (``seq``, filename ``file-<seq>.txt``, content
``payload(seq)``), 20 per trigger, from a counter kept in its state; ``put`` (PutFile)
writes them to OUT_DIR with the given Conflict Resolution Strategy, its ``success``
auto-terminated (one DROP each) and its ``failure`` queued in ``failed`` for ``hold``,
which never takes anything.

Run as ``python put_file_crash_flow.py DATA_DIR OUT_DIR STRATEGY CRASH_AT``: it prints
``ready`` and runs the flow; when PutFile's CRASH_AT-th session commits (0: never), the
process kills itself with SIGKILL once the session's files are written and its content is
durable, before its repository transaction. It exits with 0 once every FlowFile has left
PutFile's queue.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any, ClassVar

from flowcore.clock import SystemClock
from flowcore.engine import DeterministicScheduler, Node
from flowcore.flow import parse_flow
from flowcore.processor import ProcessContext, Processor, Relationship, processor
from flowcore.processor.descriptors import Scheduling
from flowcore.session import CommitPhase, ProcessSession
from flowcore.session.commit import SessionChanges
from flowcore.settings import EngineSettings

TOTAL = 240
PER_TRIGGER = 20


def payload(seq: int) -> bytes:
    return f"file {seq};".encode() * (seq % 11 + 1)


def filename(seq: int) -> str:
    return f"file-{seq:04d}.txt"


@processor("PutFileCrashSource")
class PutFileCrashSource(Processor):
    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    scheduling = Scheduling(input_required=False)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        start = int(session.get_state().get("next", "0"))
        end = min(start + PER_TRIGGER, TOTAL)
        if start >= end:
            return
        for seq in range(start, end):
            flowfile = session.create()
            flowfile = session.write(flowfile, payload(seq))
            flowfile = session.put_all_attributes(
                flowfile, {"seq": str(seq), "filename": filename(seq)}
            )
            session.transfer(flowfile, "success")
        session.set_state({"next": str(end)})


@processor("PutFileCrashHold")
class PutFileCrashHold(Processor):
    """Keeps what PutFile routed to failure queued, for the test to see."""

    relationships: ClassVar[list[Relationship]] = []

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        return


def flow(out_dir: Path, strategy: str) -> dict[str, Any]:
    return {
        "flow": {
            "name": "put-file-crash",
            "processors": {
                "source": {"type": "PutFileCrashSource"},
                "put": {
                    "type": "PutFile",
                    "properties": {
                        "Directory": str(out_dir),
                        "Conflict Resolution Strategy": strategy,
                    },
                    "auto_terminate": ["success"],
                },
                "hold": {"type": "PutFileCrashHold"},
            },
            "connections": [
                {"from": "source", "relationships": ["success"], "to": "put", "name": "to_put"},
                {"from": "put", "relationships": ["failure"], "to": "hold", "name": "failed"},
            ],
        }
    }


def open_node(data_dir: Path, out_dir: Path, strategy: str) -> Node:
    settings = EngineSettings.model_validate({"data_dir": data_dir, "durability": "process"})
    return Node.from_flow(settings, parse_flow(flow(out_dir, strategy)), SystemClock())


def kill_in_commit(node: Node, component_id: str, commits: int) -> None:
    """SIGKILL this process when ``component_id``'s ``commits``-th session commit has
    made its content durable, before its repository transaction (the fault hook)."""
    committer = node.committer
    commit = committer.commit
    seen = {"commits": 0}

    def kill(reached: CommitPhase) -> None:
        if reached is CommitPhase.CONTENT_DURABLE:
            os.kill(os.getpid(), signal.SIGKILL)

    def counting_commit(changes: SessionChanges, now_ms: int) -> Any:
        if changes.binding.component_id == component_id:
            seen["commits"] += 1
            if seen["commits"] == commits:
                committer.fault_hook = kill
        return commit(changes, now_ms)

    committer.commit = counting_commit  # type: ignore[method-assign]


def main() -> None:
    data_dir, out_dir, strategy, crash_at = sys.argv[1:5]
    node = open_node(Path(data_dir), Path(out_dir), strategy)
    if int(crash_at):
        kill_in_commit(node, "put", int(crash_at))
    print("ready", flush=True)
    scheduler = DeterministicScheduler(node)
    to_put = node.connections["to_put"].queue
    while True:
        scheduler.run_once()
        done = int(node.flowfiles.load_state("source").get("next", "0")) >= TOTAL
        if done and to_put.size == 0:
            break
    node.close()


if __name__ == "__main__":
    main()
