"""kill -9 PutFile between writing its files and committing its session, then restart.

Each trial's child kills itself (SIGKILL, through the commit path's fault hook) when one
of PutFile's sessions has written its files but not yet committed, so the restarted flow
delivers those FlowFiles again. After every restart, and once the flow has finished:
every file in the directory is whole and named after a FlowFile the source committed, at
most one SEND per FlowFile has been recorded (exactly one once it left PutFile), nothing
went to failure, and no temporary file is left once the FlowFiles are delivered.
"""

from __future__ import annotations

import random
import signal
import sys
from collections import Counter
from pathlib import Path

import pytest

from flowcore.engine import Node
from flowcore.repository import ProvenanceQuery
from tests import crash_support

sys.path.insert(0, str(Path(__file__).parent))
import put_file_crash_flow as crash_flow

CHILD = Path(__file__).parent / "put_file_crash_flow.py"
MAX_TRIALS = 40


def sends(node: Node) -> Counter[str]:
    node.index_provenance()
    events = node.provenance.search(ProvenanceQuery(component_id="put", limit=1_000_000))
    return Counter(e.attributes["seq"] for e in events if e.event_type == "SEND")


def check(node: Node, out_dir: Path) -> tuple[int, int]:
    """Assert the invariants; (FlowFiles created, FlowFiles delivered)."""
    created = int(node.flowfiles.load_state("source").get("next", "0"))
    assert crash_support.queued_flowfiles(node, "failed") == [], "a FlowFile went to failure"
    waiting = {f.attributes["seq"] for f in crash_support.queued_flowfiles(node, "to_put")}
    sent = sends(node)
    assert max(sent.values(), default=1) == 1, "a FlowFile was sent twice"
    assert set(sent) | waiting == {str(s) for s in range(created)}, "a FlowFile was lost"
    assert not set(sent) & waiting, "a FlowFile was sent and is still waiting"
    files = {p.name for p in out_dir.iterdir() if not p.name.startswith(".")}
    for seq in range(created):
        name = crash_flow.filename(seq)
        if str(seq) in sent:
            assert name in files, f"{name} was sent but is not there"
        if name in files:
            assert (out_dir / name).read_bytes() == crash_flow.payload(seq), name
    assert files <= {crash_flow.filename(s) for s in range(created)}
    return created, len(sent)


@pytest.mark.crash
@pytest.mark.parametrize("strategy", ["fail", "ignore"])
def test_kill_9_between_write_and_commit_delivers_each_flowfile_once(
    tmp_path: Path, strategy: str
) -> None:
    rng = random.Random(f"put-file-crash-{strategy}")
    data_dir, out_dir = tmp_path / "data", tmp_path / "out"
    kills = 0
    for _ in range(MAX_TRIALS):
        crash_at = rng.randint(2, 4)
        child = crash_support.start_child(
            CHILD, str(data_dir), str(out_dir), strategy, str(crash_at)
        )
        code = child.wait(timeout=120)
        assert code in (0, -signal.SIGKILL), child.stderr.read() if child.stderr else code
        node = crash_flow.open_node(data_dir, out_dir, strategy)
        try:
            created, delivered = check(node, out_dir)
        finally:
            node.close()
        if code == 0:
            break
        kills += 1
    else:
        pytest.fail("the flow never finished")
    assert kills >= 3, "the flow was killed between PutFile's write and its commit"
    assert created == delivered == crash_flow.TOTAL
    assert sorted(p.name for p in out_dir.iterdir()) == [
        crash_flow.filename(s) for s in range(crash_flow.TOTAL)
    ], "one file per FlowFile and no temporary file left"
