"""Benchmark: FlowFiles committed per second through the LMDB FlowFile repository.

``LmdbFlowFileRepository.commit(RepositoryUpdate(puts=[...]))`` at 1, 100 and 1,000
FlowFiles per commit (one commit is one session), with ``durability=process`` (no fsync:
survives kill -9) and ``durability=power`` (fsync per transaction), each beside the
physical limit measured in the same run:

* raw LMDB: the same records, serialised beforehand with ``repos.lmdb_flowfile.codec``,
  put one ``txn.put`` at a time into a fresh environment opened with the same flags
  (``sync``/``metasync`` as the durability asks, ``readahead=False``, same map size),
  one write transaction per session-sized batch;
* for context, ``cursor.putmulti`` of the same batches (the loop in C) and the cost of
  ``codec.encode`` alone.

Ours pays what a session commit pays in the repository: building the ``RepositoryUpdate``,
serialising the records, the group-commit hand-off and the two id high-water marks
written in every transaction. FlowFiles are realistic: 6 attributes and a content claim.
Rounds alternate ours and raw on fresh directories; the best of ``--rounds`` is kept.

Run: ``python -m benchmarks.bench_flowfile_repo [--scale 1.0] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import lmdb

from benchmarks._common import (
    best_of,
    gc_frozen,
    realistic_records,
    result_line,
    sync_disks,
)
from flowcore.clock import SystemClock
from flowcore.repository.flowfile import QueuedFlowFile, RepositoryUpdate
from flowcore.settings import EngineSettings
from flowcore.units import parse_data_size
from repos.lmdb_flowfile import LmdbFlowFileRepository, codec

QUEUE = "generate.success->update"
GOAL_RATIO = 0.7


@dataclass(frozen=True, slots=True)
class Case:
    """``commits`` sessions of ``per_session`` FlowFiles, into ``repeats`` fresh repositories.

    Each repeat commits the same records into a new environment, so a run is long enough
    to time (a few seconds) while the pre-built records stay within memory; the times of
    the repeats are summed.
    """

    durability: str
    per_session: int
    commits: int
    repeats: int = 1

    @property
    def flowfiles(self) -> int:
        return self.per_session * self.commits


# Sized so that ours takes about 2-3 s per run on a 2-core VM; power at 1/session is
# capped (one fsync per commit).
DEFAULT_CASES = (
    Case("process", 1, 40_000, 4),
    Case("process", 100, 2_000, 10),
    Case("process", 1000, 250, 10),
    Case("power", 1, 500),
    Case("power", 100, 500),
    Case("power", 1000, 200, 2),
)


def _settings(root: Path, durability: str) -> EngineSettings:
    return EngineSettings.model_validate({"data_dir": root, "durability": durability})


def run_ours(root: Path, batches: list[list[QueuedFlowFile]], durability: str) -> float:
    repo = LmdbFlowFileRepository(_settings(root, durability), SystemClock())
    try:
        sync_disks()
        started = time.perf_counter()
        commit = repo.commit
        for batch in batches:
            commit(RepositoryUpdate(puts=batch))
        return time.perf_counter() - started
    finally:
        repo.close()


def _open_raw(root: Path, durability: str) -> tuple[lmdb.Environment, object]:
    """An environment opened exactly as ``LmdbFlowFileRepository`` opens its own."""
    power = durability == "power"
    settings = _settings(root, durability)
    path = settings.flowfile_repository_dir
    path.mkdir(parents=True, exist_ok=True)
    env = lmdb.open(
        str(path),
        map_size=parse_data_size(settings.flowfile_repository.map_size),
        max_dbs=8,
        sync=power,
        metasync=power,
        readahead=False,
        lock=True,
    )
    return env, env.open_db(b"flowfiles")


def run_raw(root: Path, batches: list[list[tuple[bytes, bytes]]], durability: str) -> float:
    env, db = _open_raw(root, durability)
    try:
        sync_disks()
        started = time.perf_counter()
        for batch in batches:
            with env.begin(write=True) as txn:
                put = txn.put
                for key, value in batch:
                    put(key, value, db=db)
        return time.perf_counter() - started
    finally:
        env.close()


def run_raw_putmulti(
    root: Path, batches: list[list[tuple[bytes, bytes]]], durability: str
) -> float:
    env, db = _open_raw(root, durability)
    try:
        sync_disks()
        started = time.perf_counter()
        for batch in batches:
            with env.begin(write=True, db=db) as txn:
                txn.cursor().putmulti(batch)
        return time.perf_counter() - started
    finally:
        env.close()


def run_raw_encoding(root: Path, batches: list[list[QueuedFlowFile]], durability: str) -> float:
    """Raw puts that also serialise each record with the repository's codec on the way."""
    env, db = _open_raw(root, durability)
    encode, id_key = codec.encode, codec.id_key
    try:
        sync_disks()
        started = time.perf_counter()
        for batch in batches:
            items = [(id_key(r.flowfile.id), encode(r)) for r in batch]
            with env.begin(write=True) as txn:
                put = txn.put
                for key, value in items:
                    put(key, value, db=db)
        return time.perf_counter() - started
    finally:
        env.close()


def _in_fresh_dirs(base: Path, repeats: int, run: Callable[[Path], float]) -> Callable[[], float]:
    """A run: ``repeats`` times ``run`` in a new directory each, the seconds summed."""

    def fresh() -> float:
        total = 0.0
        for _ in range(repeats):
            work = Path(tempfile.mkdtemp(prefix="ffrepo-", dir=base))
            try:
                total += run(work)
            finally:
                shutil.rmtree(work, ignore_errors=True)
        return total

    return fresh


def bench_case(case: Case, rounds: int, base: Path, context: bool) -> tuple[float, float]:
    """Print ours beside raw LMDB for one case; returns (ours, raw) FlowFiles/s."""
    records = realistic_records(QUEUE, 0, case.flowfiles)
    batches = [
        records[start : start + case.per_session]
        for start in range(0, len(records), case.per_session)
    ]
    raw_batches = [
        [(codec.id_key(r.flowfile.id), codec.encode(r)) for r in batch] for batch in batches
    ]
    durability, repeats = case.durability, case.repeats
    runs: dict[str, Callable[[], float]] = {
        "ours": _in_fresh_dirs(base, repeats, lambda d: run_ours(d, batches, durability)),
        "raw": _in_fresh_dirs(base, repeats, lambda d: run_raw(d, raw_batches, durability)),
    }
    if context:
        runs["putmulti"] = _in_fresh_dirs(
            base, repeats, lambda d: run_raw_putmulti(d, raw_batches, durability)
        )
        runs["raw+encode"] = _in_fresh_dirs(
            base, repeats, lambda d: run_raw_encoding(d, batches, durability)
        )
    with gc_frozen():
        best = best_of(rounds, runs)
    n = case.flowfiles * repeats
    ours, raw = n / best["ours"], n / best["raw"]
    name = f"flowfile repo {case.per_session}/session {case.durability}"
    if case.per_session == 1000:
        goal, met = f">= {GOAL_RATIO} of raw", ours / raw >= GOAL_RATIO
        print(
            result_line(
                name,
                f"{ours:,.0f} FlowFiles/s",
                "raw LMDB",
                f"{raw:,.0f} records/s",
                ours / raw,
                goal,
                met,
            )
        )
    else:
        print(
            result_line(
                name, f"{ours:,.0f} FlowFiles/s", "raw LMDB", f"{raw:,.0f} records/s", ours / raw
            )
        )
    commits = case.commits * repeats
    print(
        f"  ({n:,} FlowFiles in {commits:,} commits ({repeats} x {case.commits:,} into fresh "
        f"repositories), best of {rounds}; ours {best['ours'] / commits * 1e6:,.1f} us/commit "
        f"vs raw {best['raw'] / commits * 1e6:,.1f} us/txn)"
    )
    if context:
        multi, encoding = n / best["putmulti"], n / best["raw+encode"]
        print(
            f"  context: raw cursor.putmulti {multi:,.0f} records/s (ours/that "
            f"{ours / multi:.2f}); raw puts that also run codec.encode per record "
            f"{encoding:,.0f} records/s (ours/that {ours / encoding:.2f})"
        )
    return ours, raw


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; best kept")
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiply every case's commit count"
    )
    parser.add_argument("--durability", choices=("process", "power", "both"), default="both")
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: temp)")
    parser.add_argument(
        "--context",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time putmulti and encode-while-putting raw runs (context lines)",
    )
    args = parser.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="flowcore-bench-ffrepo-", dir=args.dir))
    print(f"rounds={args.rounds} scale={args.scale} dir={base}")
    try:
        for case in DEFAULT_CASES:
            if args.durability not in ("both", case.durability):
                continue
            commits = max(1, int(case.commits * args.scale))
            scaled = Case(case.durability, case.per_session, commits, case.repeats)
            bench_case(scaled, args.rounds, base, args.context)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
