"""One stretch of a simulated run in a child process (``flowcore simulate --kill``).

The child opens the node on the run's data directory, installs the fault hooks and runs
the flow until it is idle. A crash fault ends the process on the spot with ``os._exit``:
nothing is closed, flushed, checkpointed or stopped, as after ``kill -9``. Before that it
writes its progress (counts, committed runs, clock, faults met) for the parent, which
starts the next child on the same directory. Deliveries go to a file ledger (appended
as they happen) so that they outlive the process.

Run as ``python -m flowcore.simulation.child JOB.json``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from flowcore.clock import ManualClock
from flowcore.delivery import Delivery, DeliveryLedger, recording
from flowcore.engine.node import Node
from flowcore.engine.scheduler import DeterministicScheduler
from flowcore.flow.definition import parse_flow
from flowcore.settings import EngineSettings
from flowcore.simulation import invariants
from flowcore.simulation.faults import Fault, FaultSchedule
from flowcore.simulation.injector import Counts, FaultInjector

KILLED_EXIT_CODE = 99


class FileLedger(DeliveryLedger):
    """A delivery ledger kept in a file, one JSON line per delivery, written at once."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self._path = path
        self._known = len(read_ledger(path))

    def record(
        self, component: str, flowfile_uuid: str, uri: str, content: bytes | None = None
    ) -> Delivery:
        delivery = super().record(component, flowfile_uuid, uri, content)
        line = json.dumps(
            {
                "component": delivery.component,
                "flowfile_uuid": delivery.flowfile_uuid,
                "uri": delivery.uri,
                "size": delivery.size,
                "digest": delivery.digest,
                "sequence": self._known + delivery.sequence,
            }
        )
        with self._path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")
        return delivery


def read_ledger(path: Path) -> list[Delivery]:
    if not path.exists():
        return []
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                found.append(Delivery(**json.loads(line)))
            except (ValueError, TypeError):
                continue  # a line cut short by the kill: that delivery never completed
    return found


def main(argv: list[str]) -> int:
    job: dict[str, Any] = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    definition = parse_flow(job["flow"])
    definition.set_folder(Path(job["folder"]))
    settings = EngineSettings.model_validate(job["settings"])
    clock = ManualClock(job["clock_ms"])
    injector = FaultInjector(FaultSchedule.from_json(job["schedule"]), clock)
    injector.counts = Counts(**job["counts"])
    injector.met = [Fault.from_json(f) for f in job["met"]]
    progress_path = Path(job["progress"])
    violations: list[str] = []

    def write_progress(node: Node | None, done: bool, idle: bool = True) -> None:
        runs = dict(job["runs"])
        if node is not None:
            runs = {name: p.runs for name, p in node.processors.items()}
            crashed_in = injector.triggering
            if not done and crashed_in in runs and not injector.crash_durable:
                runs[crashed_in] = max(runs[crashed_in] - 1, 0)
        document = {
            "done": done,
            "idle": idle,
            "clock_ms": clock.now_ms(),
            "counts": {
                "commits": injector.counts.commits,
                "triggers": injector.counts.triggers,
                "content_writes": injector.counts.content_writes,
                "offload_calls": injector.counts.offload_calls,
            },
            "runs": runs,
            "met": [f.to_json() for f in injector.met],
            "violations": violations,
        }
        progress_path.write_text(json.dumps(document), encoding="utf-8")

    holder: dict[str, Node] = {}

    def die() -> None:
        write_progress(holder.get("node"), done=False)
        os._exit(KILLED_EXIT_CODE)

    injector.on_crash = die
    with recording(FileLedger(Path(job["ledger"]))):
        node = Node.from_flow(settings, definition, clock)
        holder["node"] = node
        orphans = invariants.unreferenced_claim_files(node)
        if orphans and job["restarts"] > 0:
            violations.append(
                f"after restart {job['restarts']}, {len(orphans)} claim file(s) nothing "
                "references remain: " + ", ".join(orphans[:10])
            )
        for name, count in job["runs"].items():
            if name in node.processors:
                node.processors[name].resume_runs(count)
        injector.install(node, count_failed_runs=job["count_failed_runs"])
        summary = DeterministicScheduler(node).run_until_idle(
            max_triggers=max(job["max_triggers"] - injector.counts.triggers, 1),
            retry_wait_ms=job["idle_wait_ms"],
        )
        write_progress(node, done=True, idle=summary.idle)
        node.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
