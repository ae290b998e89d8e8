"""kill -9 tests: a flow runs in a child process until it is killed or crashes on purpose.

The parent starts the child with ``start_child`` and waits for its ``ready`` line; the
child opens its node, optionally arms ``crash_after_commits`` (the commit path's fault
hook ends the process between two commit steps) and calls ``run_until_killed``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from flowcore.engine import DeterministicScheduler, Node
from flowcore.model import FlowFile
from flowcore.session.commit import CommitPhase

REPO_ROOT = Path(__file__).resolve().parents[1]
CRASH_EXIT_CODE = 99


def start_child(script: Path, *args: str) -> subprocess.Popen[str]:
    """Start a flow's child program and return once it has said ``ready``."""
    child = subprocess.Popen(
        [sys.executable, str(script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line.strip() == "ready", child.stderr.read() if child.stderr else line
    return child


def crash_after_commits(node: Node, phase: str, commits: int) -> None:
    """End the process (exit code 99) when the ``commits``-th commit reaches ``phase``."""
    target = CommitPhase(phase)
    seen = {"commits": 0}

    def crash(reached: CommitPhase) -> None:
        if reached is target:
            seen["commits"] += 1
            if seen["commits"] == commits:
                os._exit(CRASH_EXIT_CODE)

    node.committer.fault_hook = crash


def run_until_killed(node: Node, *, checkpoint_every: int, index_every: int | None = None) -> None:
    """Say ``ready``, then trigger the flow forever, checkpointing (and indexing) as asked."""
    print("ready", flush=True)
    scheduler = DeterministicScheduler(node)
    passes = 0
    while True:
        scheduler.run_once()
        passes += 1
        if passes % checkpoint_every == 0:
            node.checkpoint()
        if index_every is not None and passes % index_every == 0:
            node.index_provenance()


def queued_flowfiles(node: Node, connection: str) -> list[FlowFile]:
    """The FlowFiles waiting in a connection, in queue order; they are put back."""
    queue = node.connections[connection].queue
    now = node.clock.now_ms()
    taken = []
    while batch := queue.poll_batch(1000, now):
        taken.extend(batch)
    queue.requeue(taken, now)
    return [record.flowfile for record in taken]
