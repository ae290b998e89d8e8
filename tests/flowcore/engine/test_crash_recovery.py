"""Crash recovery with real processes: kill -9 a running flow, restart, check everything.

After every restart: each FlowFile the source committed is in exactly one queue or has
exactly one DROP event, none is duplicated, every queued FlowFile's content is intact,
claimant counts equal the references, no unreferenced claim file is left, provenance
holds each committed event exactly once, and event ids continue without reuse.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from flowcore.engine import DeterministicScheduler, Node
from flowcore.repository import ProvenanceQuery
from flowcore.session import CommitPhase
from tests import crash_support

sys.path.insert(0, str(Path(__file__).parent))
import crash_flow

CHILD = Path(__file__).parent / "crash_flow.py"
TRIALS = 20


def start_child(data_dir: Path, durability: str, *extra: str) -> subprocess.Popen[str]:
    return crash_support.start_child(CHILD, str(data_dir), durability, *extra)


def content_files(data_dir: Path) -> set[str]:
    root = data_dir / "content_repository"
    return {p.name for p in root.glob("*/*") if p.is_file()}


def check_invariants(node: Node) -> int:
    """Assert every invariant; returns the number of FlowFiles the source has created."""
    source_state = node.flowfiles.load_state("source")
    created = int(source_state.get("next", "0"))
    recovered = node.flowfiles.recover()
    references = recovered.claim_references
    for resource, count in references.items():
        assert node.content.claimant_count(resource) == count, resource
    assert content_files(node.settings.data_dir) == {r.id for r in references}, (
        "every claim file left is referenced, and every referenced one exists"
    )
    node.index_provenance()
    events = node.provenance.search(ProvenanceQuery(limit=10_000_000))
    event_ids = sorted(e.event_id for e in events)
    assert event_ids == list(range(len(event_ids))), "each committed event exactly once"
    creates = Counter(e.attributes.get("seq") for e in events if e.event_type == "CREATE")
    assert set(creates) == {str(s) for s in range(created)}
    assert max(creates.values(), default=1) == 1
    dropped = Counter(
        (e.attributes["seq"], e.attributes.get("copy")) for e in events if e.event_type == "DROP"
    )
    queued: Counter[tuple[str, str | None]] = Counter()
    for connection in node.connections.values():
        taken = []
        while batch := connection.queue.poll_batch(1000, node.clock.now_ms()):
            taken.extend(batch)
        for record in taken:
            flowfile = record.flowfile
            seq = int(flowfile.attributes["seq"])
            queued[(str(seq), flowfile.attributes.get("copy"))] += 1
            data = (
                node.content.read(flowfile.claim, flowfile.claim_offset, flowfile.size)
                if flowfile.claim
                else b""
            )
            expected = crash_flow.payload(seq)
            if flowfile.attributes.get("transformed") == "yes":
                expected = expected.upper()
            assert data == expected, f"content of seq {seq}"
        connection.queue.requeue(taken, node.clock.now_ms())
    everything = queued + dropped
    assert max(everything.values(), default=1) == 1, "a FlowFile is duplicated"
    originals = {seq for seq, copy in everything if copy is None}
    assert originals == {str(s) for s in range(created)}, "a FlowFile was lost"
    for seq, copy in everything:
        if copy is not None:
            assert int(seq) % 5 == 0
    return created


def continue_after_restart(node: Node) -> None:
    """Event ids continue without reuse once the restarted flow runs again."""
    node.index_provenance()
    before = node.provenance.indexed_through()
    scheduler = DeterministicScheduler(node)
    for _ in range(5):
        scheduler.run_once()
    node.index_provenance()
    new = node.provenance.search(ProvenanceQuery(limit=10_000_000))
    assert sorted(e.event_id for e in new) == list(range(len(new)))
    assert node.provenance.indexed_through() > before


@pytest.mark.crash
@pytest.mark.parametrize("durability", ["process", "power"])
def test_kill_9_at_random_moments(tmp_path: Path, durability: str) -> None:
    rng = random.Random(f"flowcore-crash-{durability}")
    data_dir = tmp_path / "data"
    trials = TRIALS if durability == "process" else TRIALS // 4
    created_before = 0
    for trial in range(trials):
        child = start_child(data_dir, durability)
        time.sleep(rng.uniform(0.05, 0.6))  # a random moment to kill at, not a wait
        child.send_signal(signal.SIGKILL)
        child.wait()
        node = crash_flow.open_node(data_dir, durability)
        try:
            created = check_invariants(node)
            assert created >= created_before, f"trial {trial}: the source counter went back"
            created_before = created
            if trial == trials - 1:
                continue_after_restart(node)
        finally:
            node.close()
    assert created_before > 0


@pytest.mark.crash
@pytest.mark.parametrize(
    "phase",
    [CommitPhase.CONTENT_DURABLE, CommitPhase.REPOSITORY_COMMITTED, CommitPhase.QUEUES_UPDATED],
)
def test_crash_between_commit_steps(tmp_path: Path, phase: CommitPhase) -> None:
    data_dir = tmp_path / "data"
    child = start_child(data_dir, "process", phase.value)
    assert child.wait(timeout=120) == 99
    node = crash_flow.open_node(data_dir)
    try:
        assert check_invariants(node) > 0
    finally:
        node.close()
