"""Benchmark: the filesystem content repository beside raw file appends of the same bytes.

Two workloads, each run through the repository and as raw appends in the same process,
on the same file system, with the same payload, in alternating rounds (best round kept):

* 1 KB contents, reported in contents per second;
* 1 MB contents, reported in MB/s.

How the comparison is kept fair:

* Per content, the repository does what a session commit does: ``write`` (the bytes are
  handed to the OS when the write returns) then ``flush([resource], fsync)``.
* The raw side opens one file with ``open(path, "ab", buffering=0)`` so that every
  ``write`` reaches the OS too, which is the guarantee the repository gives; a
  Python-buffered raw append would defer the system calls and is printed only as a
  reference line.
* ``--durability power``: the repository flushes with ``fsync=True`` after every content;
  the raw side calls ``os.fsync`` after every write.
* ``--durability process``: no per-content fsync on either side; both fsync everything
  once at the end, inside the timed section (the repository through ``flush`` over every
  resource claim it wrote), so both runs end with the same bytes durable.

* Each timed run starts after ``os.sync()``, so neither inherits the other's writeback.
* The repository runs in steady state: its 1024 section directories already exist (they
  are made lazily, once in a repository's life). It still creates a new file every 50 KB
  (NiFi's appendable size); the raw side has one file, no naming and no bookkeeping. The
  cost of creating a file on the file system under test is printed for context, and so
  are raw appends that start a new file every 50 KB as the layout does (1 KB,
  ``process`` only): on a file system where creating a file is slow, that line, not the
  one-file append, is what the layout allows.
* File creation on the reference VM's ext4 varies from ~20 us to ~500 us per file with
  the file system's recent history (files just deleted by earlier rounds or runs make it
  slower): compare figures of one run only. ``--dir`` chooses the file system.

Run: ``python -m benchmarks.bench_content --durability process --count 50000``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import NamedTuple

from flowcore.clock import SystemClock
from flowcore.model.flowfile import ResourceClaim
from flowcore.settings import ContentRepositorySettings, EngineSettings
from flowcore.units import parse_data_size
from repos.filesystem_content import FileSystemContentRepository
from repos.filesystem_content.whole_fs_sync import WholeFileSystemSync

KB = 1024
MB = 1024 * 1024
GOAL_RATIO = 0.7


class Timing(NamedTuple):
    """Seconds for the write loop alone and for the whole run (final fsync included)."""

    writes: float
    total: float


def run_repository(
    root: Path, payload: bytes, count: int, power: bool, max_appendable: str
) -> Timing:
    """Write ``count`` contents through the repository, durable at the end."""
    settings = EngineSettings(
        data_dir=root,
        durability="power" if power else "process",
        content=ContentRepositorySettings(
            containers=[root / "content"], max_appendable_size=max_appendable
        ),
    )
    for section in range(settings.content.sections):
        (root / "content" / str(section)).mkdir(parents=True, exist_ok=True)
    os.sync()
    repo = FileSystemContentRepository(settings, SystemClock())
    written: set[ResourceClaim] = set()
    start = time.perf_counter()
    for _ in range(count):
        resource = repo.write(payload).resource
        repo.flush((resource,), power)
        written.add(resource)
    writes = time.perf_counter() - start
    if not power:
        repo.flush(written, True)
    total = time.perf_counter() - start
    repo.close()
    return Timing(writes, total)


def run_raw(root: Path, payload: bytes, count: int, power: bool, buffered: bool = False) -> Timing:
    """Append the same bytes to one plain file, durable at the end."""
    root.mkdir(parents=True, exist_ok=True)
    os.sync()
    start = time.perf_counter()
    with open(root / "raw.bin", "ab", buffering=-1 if buffered else 0) as file:
        fd = file.fileno()
        for _ in range(count):
            file.write(payload)
            if power:
                os.fsync(fd)
        file.flush()
        writes = time.perf_counter() - start
        if not power:
            os.fsync(fd)
    return Timing(writes, time.perf_counter() - start)


def run_raw_claim_files(root: Path, payload: bytes, count: int, max_appendable: int) -> Timing:
    """Raw appends that start a new file every ``max_appendable`` bytes, as the claim
    layout does, made durable at the end with one ``syncfs`` where the file system takes
    it (as the repository's final flush does), else an fsync per file."""
    root.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC
    os.sync()
    start = time.perf_counter()
    fd, length, files = -1, max_appendable, 0
    for _ in range(count):
        if length >= max_appendable:
            if fd >= 0:
                os.close(fd)
            fd, length = os.open(root / f"claim-{files}", flags, 0o644), 0
            files += 1
        length += os.write(fd, payload)
    writes = time.perf_counter() - start
    os.close(fd)
    whole_fs = WholeFileSystemSync.from_libc()
    if not (whole_fs.available and whole_fs.sync([str(root)])):
        for number in range(files):
            descriptor = os.open(root / f"claim-{number}", os.O_RDONLY)
            os.fsync(descriptor)
            os.close(descriptor)
    return Timing(writes, time.perf_counter() - start)


def file_create_micros(root: Path, count: int = 200) -> float:
    """Microseconds to create (and close) one empty file in ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    os.sync()
    start = time.perf_counter()
    for n in range(count):
        os.close(os.open(root / f"f{n}", flags, 0o644))
    return (time.perf_counter() - start) / count * 1e6


def best_of(
    rounds: int, base: Path, runs: dict[str, Callable[[Path], Timing]]
) -> dict[str, Timing]:
    """The shortest times of each run over ``rounds`` rounds, the runs alternating."""
    best = {name: Timing(float("inf"), float("inf")) for name in runs}
    for round_number in range(rounds):
        names = list(runs) if round_number % 2 == 0 else list(reversed(runs))
        for name in names:
            workdir = Path(tempfile.mkdtemp(prefix=f"bench-{name}-", dir=base))
            try:
                timing = runs[name](workdir)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
            best[name] = Timing(
                min(best[name].writes, timing.writes), min(best[name].total, timing.total)
            )
    return best


def compare(label: str, count: int, unit_bytes: int, times: dict[str, Timing], power: bool) -> None:
    """Print ours against raw: per second for 1 KB contents, MB/s for larger ones."""

    def rate(seconds: float) -> str:
        if unit_bytes < MB:
            return f"{count / seconds:,.0f}/s"
        return f"{count * unit_bytes / MB / seconds:,.1f} MB/s"

    ours, raw = times["ours"], times["raw"]
    ratio = raw.total / ours.total
    print(
        f"content {label}: ours {rate(ours.total)} | raw append {rate(raw.total)} "
        f"| ratio {ratio:.2f} | goal >= {GOAL_RATIO} of raw: "
        f"{'met' if ratio >= GOAL_RATIO else 'MISSED'}"
    )
    if not power:
        print(
            f"  write loop only (before the final fsync): ours {rate(ours.writes)} "
            f"| raw append {rate(raw.writes)} | ratio {raw.writes / ours.writes:.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--durability", choices=("process", "power"), default="process")
    parser.add_argument("--count", type=int, default=50_000, help="1 KB contents to write")
    parser.add_argument("--large-count", type=int, default=200, help="1 MB contents to write")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; best kept")
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: temp)")
    parser.add_argument(
        "--max-appendable", default="50 KB", help="the repository's max_appendable_size"
    )
    args = parser.parse_args(argv)
    power = args.durability == "power"
    base = Path(tempfile.mkdtemp(prefix="flowcore-bench-content-", dir=args.dir))
    small, large = os.urandom(KB), os.urandom(MB)
    print(
        f"durability={args.durability} count={args.count} large_count={args.large_count} "
        f"rounds={args.rounds} max_appendable={args.max_appendable!r} dir={base}"
    )
    try:
        create_us = file_create_micros(base / "create-probe")
        print(f"context: creating one file here takes {create_us:,.0f} us")
        workloads = (("1 KB", small, args.count), ("1 MB", large, args.large_count))
        for label, payload, count in workloads:
            runs: dict[str, Callable[[Path], Timing]] = {
                "ours": partial(
                    run_repository,
                    payload=payload,
                    count=count,
                    power=power,
                    max_appendable=args.max_appendable,
                ),
                "raw": partial(run_raw, payload=payload, count=count, power=power),
            }
            compare(label, count, len(payload), best_of(args.rounds, base, runs), power)
            if label == "1 KB" and not power:
                claim_files_run = partial(
                    run_raw_claim_files,
                    payload=payload,
                    count=count,
                    max_appendable=parse_data_size(args.max_appendable),
                )
                claim_files = best_of(args.rounds, base, {"files": claim_files_run})["files"]
                print(
                    f"  context: raw appends starting a new file every {args.max_appendable} "
                    f"(the claim layout's files, without our bookkeeping) "
                    f"{count / claim_files.total:,.0f}/s"
                )
                buffered_run = partial(
                    run_raw, payload=payload, count=count, power=False, buffered=True
                )
                buffered = best_of(args.rounds, base, {"buffered": buffered_run})["buffered"]
                print(
                    f"  reference, not comparable: raw append through Python's buffer "
                    f"{count / buffered.total:,.0f}/s"
                )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
