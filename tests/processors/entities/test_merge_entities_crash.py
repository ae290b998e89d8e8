"""kill -9 a flow running MergeEntities: its index and the entities it emitted stay together.

After each restart: the merged FlowFiles waiting in ``emitted``, read in queue order,
carry ``_updated`` 0..N-1 exactly once each, where N is the committed ``_updated``
counter (nothing emitted twice, nothing lost); the FlowFiles the merge consumed are a
prefix of what the source created (the rest still wait in ``incoming``, each once); the
emitted entities replayed equal a full rebuild over the consumed entities; and the
committed index equals the index the bulk path builds for them. A final run completes
the flow and ``_updated`` carries on from where the crashes left it.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, Node
from flowcore.session import CommitPhase
from tests import crash_support

sys.path.insert(0, str(Path(__file__).parent))
import entities_crash_flow as crash_flow
from entities_helpers import DictStore, config, rebuilt_view, replay

from processors.entities.bulk import rebuild_datasets, write_rebuild
from processors.entities.index import COUNTER, DATASET, EntityIndex

CHILD = Path(__file__).parent / "entities_crash_flow.py"
REPO_ROOT = Path(__file__).resolve().parents[3]
TRIALS = 6


def start_child(data_dir: Path, *extra: str) -> subprocess.Popen[str]:
    return crash_support.start_child(CHILD, str(data_dir), *extra)


def check_invariants(node: Node) -> int:
    """Assert the invariants; returns the committed ``_updated`` counter."""
    created = int(node.flowfiles.load_state("source").get("next", "0"))
    waiting = [int(f.attributes["seq"]) for f in crash_support.queued_flowfiles(node, "incoming")]
    assert len(waiting) == len(set(waiting)), "a waiting FlowFile is duplicated"
    consumed = sorted(set(range(created)) - set(waiting))
    assert consumed == list(range(len(consumed))), "the merge consumed a prefix, in order"
    assert sorted(waiting) == list(range(len(consumed), created))

    emitted: list[dict[str, Any]] = []
    for flowfile in crash_support.queued_flowfiles(node, "emitted"):
        assert flowfile.claim is not None
        data = node.content.read(flowfile.claim, flowfile.claim_offset, flowfile.size)
        emitted.extend(json.loads(data))
    committed = {
        item.key: item.value for item in node.flowfiles.scan_keyed("merge", b"", None, 2**62)
    }
    counter = EntityIndex(DictStore(committed)).next_updated()
    assert [e["_updated"] for e in emitted] == list(range(counter)), (
        "every _updated once, in order, up to the committed counter"
    )

    datasets: dict[str, dict[str, dict[str, Any]]] = {"A": {}, "B": {}, "C": {}}
    for seq in consumed:
        for entity in crash_flow.changes(seq):
            datasets[crash_flow.dataset_of(seq)][entity["_id"]] = entity
    final = {name: list(by_id.values()) for name, by_id in datasets.items()}
    merge_config = config(crash_flow.DATASETS, equality=crash_flow.EQUALITY)
    assert replay(emitted) == rebuilt_view(merge_config, final)
    expected = DictStore()
    write_rebuild(EntityIndex(expected), rebuild_datasets(merge_config, final))
    expected.data.pop(COUNTER)
    index = {k: v for k, v in committed.items() if k != COUNTER and not k.startswith(DATASET)}
    assert index == expected.data, "the committed index is the index of the consumed entities"
    return counter


def finish(data_dir: Path, progress: list[int]) -> None:
    node = crash_flow.open_node(data_dir, ManualClock())
    try:
        DeterministicScheduler(node).run_until_idle(max_triggers=100_000)
        counter = check_invariants(node)
        assert int(node.flowfiles.load_state("source")["next"]) == crash_flow.FLOWFILES
        assert crash_support.queued_flowfiles(node, "incoming") == []
        assert counter >= max(progress)
    finally:
        node.close()


@pytest.mark.crash
def test_kill_9_at_random_moments(tmp_path: Path) -> None:
    rng = random.Random("merge-entities-crash")
    data_dir = tmp_path / "data"
    progress: list[int] = []
    trial = 0
    # TRIALS kills at random moments; on a loaded machine the child may not have emitted
    # anything yet, so further kills come later and later until it has.
    while trial < TRIALS or (progress[-1] == 0 and trial < TRIALS + 8):
        late = 2 ** max(0, trial - TRIALS + 1) if trial >= TRIALS else 1
        child = start_child(data_dir)
        time.sleep(rng.uniform(0.05, 0.3) * late)  # a random moment to kill at, not a wait
        child.send_signal(signal.SIGKILL)
        child.wait()
        node = crash_flow.open_node(data_dir)
        try:
            progress.append(check_invariants(node))
        finally:
            node.close()
        assert progress == sorted(progress), "_updated went back"
        trial += 1
    assert progress[-1] > 0, "the flow made progress"
    finish(data_dir, progress)


@pytest.mark.crash
@pytest.mark.parametrize(
    "phase",
    [CommitPhase.CONTENT_DURABLE, CommitPhase.REPOSITORY_COMMITTED, CommitPhase.QUEUES_UPDATED],
    ids=lambda p: p.name,
)
def test_crash_at_commit_phase(tmp_path: Path, phase: CommitPhase) -> None:
    data_dir = tmp_path / "data"
    child = start_child(data_dir, phase.value)
    assert child.wait(timeout=120) == 99
    node = crash_flow.open_node(data_dir)
    try:
        counter = check_invariants(node)
    finally:
        node.close()
    finish(data_dir, [counter])
