"""Randomized repository faults over a whole flow lose nothing and duplicate nothing.

Hypothesis draws the documents (1 to 25 unique lines each), the durability and up to
four fault windows (``fault_flow.Window``): ENOSPC or EIO writing content, ENOSPC or
EMFILE creating a claim file, EIO or ENOSPC from fsync, EIO reading content, LMDB's
``MapFullError`` / ``DiskError`` / ``Error`` on a write transaction (commits, swap-ins,
journal trims), an error while journaling provenance, DuckDB errors while indexing; or a
crash (``Abort``, a ``BaseException``) at one of those calls, after which the node is
abandoned as a killed process leaves it and opened again on the same directory. The
documents go in through the input port in four waves (a refused enqueue is retried
later, as a client does after a 507), the flow runs while the faults last, then heals
and drains. Afterwards, and again after a clean reopen: every line of every
acknowledged document is in exactly one merged output or in a failure connection with a
reason, nothing is left mid-flow, the queue counts are what the FlowFile repository
holds, claimant counts equal the references, no unreferenced claim file is kept, and
provenance accounts for every FlowFile once.

``FLOWCORE_FAULT_EXAMPLES=200`` runs more examples (random ones; by default a few,
derandomized, so ``make test`` is the same every time).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowcore.clock import ManualClock
from flowcore.engine import Node
from tests.flowcore.engine import fault_flow as ff

_EXAMPLES = int(os.environ.get("FLOWCORE_FAULT_EXAMPLES", "0"))
_SETTINGS = settings(
    max_examples=_EXAMPLES or 4,
    derandomize=not _EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# How far into its calls a site's window may start: about what a run makes of each.
_REACH = {
    ff.Site.CONTENT_WRITE: 40,
    ff.Site.CLAIM_CREATE: 20,
    ff.Site.FSYNC: 60,
    ff.Site.CONTENT_READ: 120,
    ff.Site.LMDB_WRITE: 120,
    ff.Site.SWAP_IN: 4,
    ff.Site.JOURNAL_TRIM: 12,
    ff.Site.LMDB_SYNC: 4,
    ff.Site.JOURNAL: 120,
    ff.Site.INDEX: 30,
}


@st.composite
def fault_window(draw: st.DrawFn) -> ff.Window:
    site = draw(st.sampled_from(ff.Site))
    return ff.Window(
        site,
        start=draw(st.integers(1, _REACH[site])),
        length=draw(st.integers(1, 8)),
        kind=draw(st.integers(0, 2)),
        crash=draw(st.sampled_from([False, False, True])),
    )


windows = st.lists(fault_window(), min_size=1, max_size=4)
documents = st.lists(st.integers(1, 25), min_size=4, max_size=16)
durabilities = st.sampled_from(["process", "power"])


def run_with_faults(
    data_dir: Path,
    docs: list[tuple[int, int]],
    faults: ff.RepositoryFaults,
    durability: str,
    waves: int = 4,
    per_call: int = 1,
) -> tuple[Node, ff.Progress, int]:
    """Enqueue in waves and run while the faults last (reopening after each crash), then
    heal, enqueue what was refused and drain. Returns the node, what was acknowledged
    and the number of crashes."""
    clock = ManualClock(ff.START_MS)
    node = ff.open_node(data_dir, clock, durability)
    progress = ff.Progress()
    crashes = 0
    for wave in range(1, waves + 1):
        try:
            with faults.installed(node):
                ff.enqueue_some(node, docs[: len(docs) * wave // waves], progress, per_call)
                ff.run_until_idle(node, max_triggers=400, must_idle=False)
        except ff.Abort:
            crashes += 1
            node.abandon()
            node = ff.open_node(data_dir, clock, durability)
    faults.healed = True
    ff.enqueue_some(node, docs, progress)
    ff.run_until_idle(node)
    ff.check_no_leak(node)
    return node, progress, crashes


def check_after_reopen(
    node: Node, data_dir: Path, docs: list[tuple[int, int]], progress: ff.Progress, durability: str
) -> None:
    ff.check_conservation(node, docs, progress.acknowledged)
    counts = ff.queue_counts(node)
    assert counts == ff.recovered_counts(node)
    clock = node.clock
    node.close()
    again = ff.open_node(data_dir, clock, durability)  # type: ignore[arg-type]
    try:
        assert ff.queue_counts(again) == counts
        ff.check_conservation(again, docs, progress.acknowledged)
    finally:
        again.close()


@_SETTINGS
@given(
    lines=documents,
    plan=windows,
    durability=durabilities,
    waves=st.sampled_from([1, 4]),
    per_call=st.sampled_from([1, 3]),
)
def test_repository_faults_lose_and_duplicate_nothing(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[int],
    plan: list[ff.Window],
    durability: str,
    waves: int,
    per_call: int,
) -> None:
    data_dir = tmp_path_factory.mktemp("faults") / "data"
    docs = list(enumerate(lines))
    faults = ff.RepositoryFaults(plan)
    node, progress, _crashes = run_with_faults(data_dir, docs, faults, durability, waves, per_call)
    check_after_reopen(node, data_dir, docs, progress, durability)


@pytest.mark.parametrize(
    "window",
    [
        ff.Window(ff.Site.CONTENT_READ, start=9, length=1),
        ff.Window(ff.Site.LMDB_WRITE, start=30, length=3, kind=2),
        ff.Window(ff.Site.CONTENT_WRITE, start=5, length=2),
        ff.Window(ff.Site.CLAIM_CREATE, start=2, length=2),
        ff.Window(ff.Site.JOURNAL, start=10, length=2),
        ff.Window(ff.Site.FSYNC, start=4, length=3),
        ff.Window(ff.Site.INDEX, start=2, length=3),
        ff.Window(ff.Site.SWAP_IN, start=1, length=2),
        ff.Window(ff.Site.JOURNAL_TRIM, start=1, length=2),
        ff.Window(ff.Site.LMDB_SYNC, start=1, length=2),
        ff.Window(ff.Site.LMDB_WRITE, start=20, length=1, crash=True),
        ff.Window(ff.Site.CONTENT_WRITE, start=12, length=1, crash=True),
    ],
    ids=lambda w: f"{w.site.name.lower()}-{'crash' if w.crash else 'error'}",
)
def test_each_site_heals_without_loss(tmp_path: Path, window: ff.Window) -> None:
    """One window at each site, fixed: the faults fire, and nothing is lost."""
    docs = [(doc, 20 + doc % 5) for doc in range(12)]
    faults = ff.RepositoryFaults([window])
    durability = "power" if window.site is ff.Site.FSYNC else "process"
    node, progress, _crashes = run_with_faults(tmp_path / "data", docs, faults, durability, 1)
    assert faults.fired[window.site] > 0, "the fault never fired"
    assert progress.acknowledged == {doc for doc, _ in docs}
    check_after_reopen(node, tmp_path / "data", docs, progress, durability)
