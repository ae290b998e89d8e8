"""The fault flow (``fault_flow.py``) in a child process, to be killed with SIGKILL.

Run as ``python fault_child.py DATA_DIR DURABILITY DOCS_JSON WINDOWS_JSON``: DOCS_JSON
is ``[[doc, lines], ...]``, WINDOWS_JSON the repository faults to inject (``Window``
fields; a ``crash`` window ends the process on the spot with ``os._exit``, as kill -9
inside that call). It says ``ready``, then enqueues each document at the input port
(printing ``ack DOC`` once the enqueue returned), running the flow a little between
documents, then runs it until idle, says ``idle`` and waits to be killed.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler
from tests.flowcore.engine import fault_flow as ff

CRASHED = 99


def main() -> None:
    data_dir, durability = Path(sys.argv[1]), sys.argv[2]
    docs = [(int(doc), int(lines)) for doc, lines in json.loads(sys.argv[3])]
    windows = [
        ff.Window(
            ff.Site(w["site"]), w["start"], w["length"], w.get("kind", 0), w.get("crash", False)
        )
        for w in json.loads(sys.argv[4])
    ]
    node = ff.open_node(data_dir, ManualClock(ff.START_MS), durability)
    faults = ff.RepositoryFaults(windows, on_crash=lambda: os._exit(CRASHED))
    progress = ff.Progress()
    print("ready", flush=True)
    with faults.installed(node):
        scheduler = DeterministicScheduler(node)
        for doc, lines in docs:
            ff.enqueue_some(node, [(doc, lines)], progress)
            if doc in progress.acknowledged:
                print(f"ack {doc}", flush=True)
            for _ in range(3):
                scheduler.run_once()
        ff.run_until_idle(node, max_triggers=2000, must_idle=False)
    faults.healed = True
    ff.run_until_idle(node)
    print("idle", flush=True)
    signal.pause()  # until killed


if __name__ == "__main__":
    main()
