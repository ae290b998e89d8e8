"""kill -9 a flow running EnforceOrder: its state is never ahead of or behind its FlowFiles.

After each restart, for every group with ``<group>.target`` = T in the committed state:
the FlowFiles that left through ``success`` (still in the ``ordered`` queue, or dropped by
the sink) are exactly orders 0..T-1, each once, in order; every other FlowFile the source
committed is still waiting (in ``incoming`` or ``wait``) exactly once. A final run on a
manual clock completes every group in order.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, Node
from flowcore.repository import ProvenanceQuery
from tests import crash_support

sys.path.insert(0, str(Path(__file__).parent))
import enforce_order_crash_flow as crash_flow

from processors.ordering.shuffled_sequence import shuffled

CHILD = Path(__file__).parent / "enforce_order_crash_flow.py"
TRIALS = 8
REPO_ROOT = Path(__file__).resolve().parents[3]


def start_child(data_dir: Path) -> subprocess.Popen[str]:
    return crash_support.start_child(CHILD, str(data_dir))


def queued(node: Node, connection: str) -> list[tuple[str, int]]:
    return [
        (f.attributes["group"], int(f.attributes["order"]))
        for f in crash_support.queued_flowfiles(node, connection)
    ]


def passed_success(node: Node) -> dict[str, list[int]]:
    """Per group, the orders that left through success, in the order they left."""
    node.index_provenance()
    events = node.provenance.search(ProvenanceQuery(component_id="sink", limit=10_000_000))
    passed: dict[str, list[int]] = defaultdict(list)
    for event in sorted(events, key=lambda e: e.event_id):
        if event.event_type == "DROP":
            passed[event.attributes["group"]].append(int(event.attributes["order"]))
    for group, order in queued(node, "ordered"):
        passed[group].append(order)
    return passed


def check_invariants(node: Node) -> tuple[int, dict[str, int]]:
    created = int(node.flowfiles.load_state("source").get("next", "0"))
    state = node.flowfiles.load_state("enforce")
    targets = {
        key.removesuffix(".target"): int(value)
        for key, value in state.items()
        if key.endswith(".target")
    }
    passed = passed_success(node)
    assert queued(node, "others") == [], "nothing overtook, was skipped or failed"
    for group, orders in passed.items():
        target = targets.get(group, 0)
        assert orders == list(range(target)), (
            f"{group}: target {target} but success saw {orders[:5]}...{orders[-5:]}"
        )
    for group, target in targets.items():
        assert len(passed.get(group, [])) == target, f"{group}: state ahead of the FlowFiles"
    waiting = Counter(queued(node, "incoming") + queued(node, "wait"))
    assert max(waiting.values(), default=1) == 1, "a waiting FlowFile is duplicated"
    emitted = shuffled(crash_flow.GROUPS, crash_flow.SIZE, crash_flow.SEED)[:created]
    expected_waiting = {(g, o) for g, o in emitted if o >= targets.get(g, 0)}
    assert set(waiting) == expected_waiting, "a FlowFile was lost or appeared"
    return created, targets


@pytest.mark.crash
def test_kill_9_keeps_state_and_flowfiles_together(tmp_path: Path) -> None:
    rng = random.Random("enforce-order-crash")
    data_dir = tmp_path / "data"
    progress: list[int] = []
    for _ in range(TRIALS):
        child = start_child(data_dir)
        time.sleep(rng.uniform(0.05, 0.5))  # a random moment to kill at, not a wait
        child.send_signal(signal.SIGKILL)
        child.wait()
        node = crash_flow.open_node(data_dir)
        try:
            _, targets = check_invariants(node)
            progress.append(sum(targets.values()))
            assert progress == sorted(progress), "the targets went back"
        finally:
            node.close()
    assert progress[-1] > 0, "the flow made progress"
    node = crash_flow.open_node(data_dir, ManualClock())
    try:
        DeterministicScheduler(node).run_until_idle()
        created, targets = check_invariants(node)
        assert created == crash_flow.GROUPS * crash_flow.SIZE
        assert targets == {f"group-{g:03d}": crash_flow.SIZE for g in range(crash_flow.GROUPS)}
    finally:
        node.close()
