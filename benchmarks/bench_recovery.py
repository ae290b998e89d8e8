"""Benchmark: start-up of a node with 1,000,000 FlowFiles queued, most of them swapped out.

The repository is built directly, as a long-running node would have left it: realistic
FlowFiles (6 attributes, a content claim in 50 KB resource claims) committed through
``LmdbFlowFileRepository.commit`` in sessions of 10,000 on connection ``queued`` of a
small flow, every batch after the first ``swap_threshold`` (20,000) moved out with
a ``SwapOut`` in its commit (which writes the batch and its summary), so 20,000 stay live and 98
batches are swapped. The resource-claim files the FlowFiles point at exist (sparse, 50
KB each) so that the content repository's start-up sweep has its real work to do.

Ours: ``Node.from_flow(settings, parse_flow(flow), clock)`` (open the three
repositories, wire the flow, recover queues, swap summaries, claimant counts and state,
sweep content, index the journal), timed in a fresh child process, whose peak resident
set (``ru_maxrss``) is reported too. Goals: under 10 s and under 1.5 GB resident.

Physical limit, measured in the same run: a raw LMDB cursor scan of every record of
every database of the same environment (values copied out), in a fresh child process.
For context, the scan of just what recovery must read (the live FlowFiles and the swap
summaries) is printed too. Best of ``--rounds`` for each.

Run: ``python -m benchmarks.bench_recovery [--flowfiles 1000000] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import lmdb

from benchmarks._common import CLAIM_SIZE, KB, START_MS, realistic_records, result_line
from flowcore.clock import SystemClock
from flowcore.engine.repositories import open_repositories
from flowcore.repository.flowfile import RepositoryUpdate, SwapOut
from flowcore.settings import EngineSettings
from flowcore.units import parse_data_size
from repos.lmdb_flowfile import LmdbFlowFileRepository

QUEUE = "queued"
GOAL_SECONDS = 10.0
GOAL_RSS_BYTES = 1.5 * 1024**3
SESSION = 10_000

FLOW: dict[str, Any] = {
    "flow": {
        "name": "bench-recovery",
        "processors": {
            "generate": {
                "type": "GenerateFlowFile",
                "properties": {"File Size": "1 KB", "Batch Size": "1000"},
                "run_state": "STOPPED",
            },
            "update": {
                "type": "UpdateAttribute",
                "properties": {"seen": "${filename:toUpper()}"},
                "run_state": "STOPPED",
                "auto_terminate": ["success"],
            },
        },
        "connections": [
            {"from": "generate", "relationships": ["success"], "to": "update", "name": QUEUE}
        ],
    }
}


def settings_for(data_dir: Path) -> EngineSettings:
    return EngineSettings.model_validate({"data_dir": data_dir, "durability": "process"})


# -- building the repository --------------------------------------------------------------


def build(data_dir: Path, flowfiles: int, content_files: bool) -> tuple[int, int]:
    """Commit ``flowfiles`` FlowFiles and swap out all but the first ``swap_threshold``."""
    settings = settings_for(data_dir)
    live = settings.queue.swap_threshold
    batch = settings.queue.swap_batch_size
    # All three repositories are opened (and marked as one data directory) as a node
    # would; FlowFile records are then committed straight into the LMDB repository.
    repositories = open_repositories(settings, SystemClock())
    repo = repositories.flowfiles
    assert isinstance(repo, LmdbFlowFileRepository)
    swapped = 0
    try:
        for start in range(0, flowfiles, batch):
            records = realistic_records(QUEUE, start, min(batch, flowfiles - start))
            if start >= live:
                repo.commit(RepositoryUpdate(swap_outs=[SwapOut(QUEUE, records)]))
                swapped += len(records)
            else:
                repo.commit(RepositoryUpdate(puts=records))
        repo.sync()
    finally:
        repositories.close()
    if content_files:
        container = settings.content_containers[0]
        per_claim = CLAIM_SIZE // KB
        for number in range((flowfiles + per_claim - 1) // per_claim):
            section = container / str(number % settings.content.sections)
            section.mkdir(parents=True, exist_ok=True)
            path = section / f"{START_MS}-{number}"
            with open(path, "wb") as file:
                file.truncate(CLAIM_SIZE)
    return flowfiles - swapped, swapped


# -- the child processes ------------------------------------------------------------------


def _status_bytes(field: str) -> int | None:
    """A ``/proc/self/status`` memory figure (Linux), in bytes."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def peak_rss() -> int:
    """Peak resident set of this process image.

    ``VmHWM`` where there is one: ``ru_maxrss`` survives ``exec`` on Linux, so a child
    started by a big parent would report the parent's peak.
    """
    hwm = _status_bytes("VmHWM")
    return hwm if hwm is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def current_rss() -> int:
    rss = _status_bytes("VmRSS")
    return rss if rss is not None else peak_rss()


def child_recover(data_dir: Path) -> dict[str, Any]:
    """Time ``Node.from_flow`` in this (fresh) process; report the peak RSS too."""
    from flowcore.engine import Node
    from flowcore.flow import parse_flow

    settings = settings_for(data_dir)
    flow = parse_flow(FLOW)
    before = current_rss()
    started = time.perf_counter()
    node = Node.from_flow(settings, flow, SystemClock())
    seconds = time.perf_counter() - started
    peak = peak_rss()
    report = node.recovery
    assert report is not None
    snapshot = node.connections[QUEUE].queue.snapshot()
    node.close()
    return {
        "seconds": seconds,
        "peak_rss": peak,
        "rss_before": before,
        "flowfiles": report.flowfiles,
        "swapped": report.swapped,
        "queued": snapshot.count,
    }


def child_scan(data_dir: Path) -> dict[str, Any]:
    """Raw cursor scan of every database of the environment, values copied out."""
    settings = settings_for(data_dir)
    env = lmdb.open(
        str(settings.flowfile_repository_dir),
        map_size=parse_data_size(settings.flowfile_repository.map_size),
        max_dbs=8,
        readonly=True,
        readahead=False,
        lock=True,
    )
    try:
        with env.begin() as txn:
            names = [bytes(key) for key, _ in txn.cursor()]
        dbs = {name.decode(): env.open_db(name, create=False) for name in names}
        timings: dict[str, float] = {}
        counts: dict[str, int] = {}
        sizes: dict[str, int] = {}
        for name, db in dbs.items():
            started = time.perf_counter()
            count = size = 0
            with env.begin(db=db) as txn:
                for _key, value in txn.cursor():
                    count += 1
                    size += len(value)
            timings[name] = time.perf_counter() - started
            counts[name], sizes[name] = count, size
    finally:
        env.close()
    return {"timings": timings, "counts": counts, "sizes": sizes}


def _in_child(mode: str, data_dir: Path) -> dict[str, Any]:
    completed = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_recovery", "--child", mode, str(data_dir)],
        check=True,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    result: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


# -- main ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flowfiles", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3, help="recoveries and scans; best kept")
    parser.add_argument(
        "--content-files",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="create the resource-claim files the FlowFiles point at",
    )
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: temp)")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "DATA_DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, data_dir = args.child[0], Path(args.child[1])
        result = child_recover(data_dir) if mode == "recover" else child_scan(data_dir)
        print(json.dumps(result))
        return 0

    base = Path(tempfile.mkdtemp(prefix="flowcore-bench-recovery-", dir=args.dir))
    data_dir = base / "data"
    try:
        started = time.perf_counter()
        live, swapped = build(data_dir, args.flowfiles, args.content_files)
        built = time.perf_counter() - started
        print(
            f"built {live + swapped:,} FlowFiles ({live:,} live, {swapped:,} swapped in "
            f"{swapped // SESSION:,} batches) in {built:.1f} s; rounds={args.rounds} dir={base}"
        )
        recoveries: list[dict[str, Any]] = []
        scans: list[dict[str, Any]] = []
        for _ in range(args.rounds):
            recoveries.append(_in_child("recover", data_dir))
            scans.append(_in_child("scan", data_dir))
    finally:
        shutil.rmtree(base, ignore_errors=True)

    best = min(recoveries, key=lambda r: r["seconds"])
    peak = max(r["peak_rss"] for r in recoveries)
    scan_all = min(sum(s["timings"].values()) for s in scans)
    scan_read = min(s["timings"]["flowfiles"] + s["timings"]["swap_summary"] for s in scans)
    counts, sizes = scans[0]["counts"], scans[0]["sizes"]
    total = live + swapped
    if best["queued"] != total:
        msg = f"recovery found {best['queued']:,} FlowFiles queued, expected {total:,}"
        raise RuntimeError(msg)
    seconds, limit = best["seconds"], scan_all
    print(
        result_line(
            f"recovery {total:,} queued",
            f"{seconds:.2f} s",
            "raw LMDB scan",
            f"{limit:.2f} s",
            limit / seconds,
            f"< {GOAL_SECONDS:.0f} s",
            seconds < GOAL_SECONDS,
        )
    )
    print(
        result_line(
            "recovery peak RSS",
            f"{peak / 1024**2:,.0f} MB",
            "baseline (RSS after imports, before recovery)",
            f"{best['rss_before'] / 1024**2:,.0f} MB",
            best["rss_before"] / peak,
            f"< {GOAL_RSS_BYTES / 1024**3:.1f} GB",
            peak < GOAL_RSS_BYTES,
        )
    )
    print(
        f"  (best of {args.rounds} fresh processes; {best['flowfiles']:,} live + "
        f"{best['swapped']:,} swapped recovered; peak RSS = VmHWM of the recovering "
        "process, the highest over the rounds)"
    )
    detail = ", ".join(
        f"{name} {counts[name]:,} records / {sizes[name] / 1024**2:,.1f} MB"
        for name in sorted(counts)
    )
    print(f"  raw scan of all records: {detail}")
    print(
        f"  context: raw scan of only what recovery reads (live FlowFiles + swap summaries) "
        f"{scan_read:.3f} s (ours/that {scan_read / seconds:.3f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
