"""kill -9 of the fault flow at random moments, with repository faults on, then the exact
continuation: run, kill, reopen the same directory, run to completion, check.

Each trial (seeded) starts ``fault_child.py`` with random documents and fault windows
(some end the process inside a repository call, mid-commit), kills it with SIGKILL after
a random delay (anywhere from opening the node to after it went idle), reopens the data
directory in this process, enqueues again the documents whose enqueue never committed
(a client retrying what it never saw acknowledged; what provenance shows was received is
not sent twice), runs to completion and checks the same conservation as the in-process
tests: every line once, nothing mid-flow, queues equal to the FlowFile repository,
claims counted, no orphan claim file, provenance whole. A document the child
acknowledged must have been received.

``FLOWCORE_FAULT_KILLS=50`` runs more trials (seeds from 0).
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

import pytest

from flowcore.clock import ManualClock
from flowcore.simulation import invariants
from tests import crash_support
from tests.flowcore.engine import fault_flow as ff

CHILD = Path(__file__).parent / "fault_child.py"
TRIALS = int(os.environ.get("FLOWCORE_FAULT_KILLS", "3"))


def trial_plan(seed: int) -> tuple[str, list[tuple[int, int]], list[dict[str, object]], float]:
    rng = random.Random(f"fault-kill-{seed}")
    durability = rng.choice(["process", "process", "power"])
    docs = [(doc, rng.randint(1, 25)) for doc in range(rng.randint(4, 16))]
    sites = [s for s in ff.Site if s is not ff.Site.INDEX] + [ff.Site.INDEX]
    windows: list[dict[str, object]] = [
        {
            "site": rng.choice(sites).value,
            "start": rng.randint(1, 60),
            "length": rng.randint(1, 6),
            "kind": rng.randint(0, 2),
            "crash": rng.random() < 0.25,
        }
        for _ in range(rng.randint(0, 3))
    ]
    return durability, docs, windows, rng.uniform(0.0, 1.5)


def received_docs(events: list[object]) -> set[int]:
    """The documents provenance shows entering at the input port."""
    return {
        int(e.attributes["doc"])  # type: ignore[attr-defined]
        for e in events
        if e.component_id == "in" and e.event_type in ("RECEIVE", "CREATE")  # type: ignore[attr-defined]
    }


@pytest.mark.crash
@pytest.mark.parametrize("seed", range(TRIALS))
def test_kill_9_with_faults_continues_exactly(tmp_path: Path, seed: int) -> None:
    durability, docs, windows, delay = trial_plan(seed)
    data_dir = tmp_path / "data"
    child = crash_support.start_child(
        CHILD, str(data_dir), durability, json.dumps(docs), json.dumps(windows)
    )
    time.sleep(delay)  # a random moment to kill at, not a wait
    child.send_signal(signal.SIGKILL)
    out, _err = child.communicate()
    acked = {int(line.split()[1]) for line in out.splitlines() if line.startswith("ack ")}

    node = ff.open_node(data_dir, ManualClock(ff.START_MS), durability)
    try:
        orphans = invariants.unreferenced_claim_files(node)
        assert not orphans, f"claim files nothing references survived the restart: {orphans}"
        received = received_docs(invariants.all_events(node))
        assert acked <= received, f"acknowledged but never received: {acked - received}"
        progress = ff.Progress(acknowledged=set(received))
        ff.enqueue_some(node, docs, progress)
        ff.run_until_idle(node)
        ff.check_conservation(node, docs, {doc for doc, _ in docs})
        counts = ff.queue_counts(node)
        assert counts == ff.recovered_counts(node)
    finally:
        node.close()
    again = ff.open_node(data_dir, ManualClock(ff.START_MS), durability)
    try:
        assert ff.queue_counts(again) == counts
        ff.check_conservation(again, docs, {doc for doc, _ in docs})
    finally:
        again.close()
