"""Run every benchmark (``python -m benchmarks``, what ``make bench`` runs) and summarise.

Each benchmark runs in its own child process (``python -m benchmarks.bench_<name>``) so
that none inherits another's heap, threads or page-cache pressure; its output is shown
as it comes and its headline lines (``<name>: ours X | <limit> Y | ratio Z [| goal G:
met]``) are collected into one table at the end.

    python -m benchmarks                  # default sizes, about 10 minutes in all
    python -m benchmarks --quick          # tiny sizes: a smoke test of every benchmark
    python -m benchmarks --only recovery  # one benchmark (repeatable, or comma-separated)

The exit status is 1 if a benchmark failed to run; a missed goal is a result, not a
failure.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table


@dataclass(frozen=True, slots=True)
class Benchmark:
    module: str
    full: tuple[str, ...]
    quick: tuple[str, ...]
    # Goals of the colleagues' benchmarks, whose lines carry no goal: name -> (text, min ratio)
    goals: tuple[tuple[str, str, float], ...] = ()


BENCHMARKS: dict[str, Benchmark] = {
    "content": Benchmark(
        "benchmarks.bench_content",
        (),
        ("--count", "2000", "--large-count", "10", "--rounds", "1"),
    ),
    "provenance": Benchmark(
        "benchmarks.bench_provenance",
        (),
        ("--events", "5000", "--lineage-events", "20000", "--samples", "10", "--repeats", "1"),
        goals=(("provenance index", ">= 0.5 of raw", 0.5),),
    ),
    "flowfile_repo": Benchmark(
        "benchmarks.bench_flowfile_repo",
        ("--no-context",),
        ("--scale", "0.01", "--rounds", "1"),
    ),
    "end_to_end": Benchmark(
        "benchmarks.bench_end_to_end",
        ("--flowfiles", "100000", "--rounds", "3", "--threaded-rounds", "2"),
        ("--flowfiles", "2000", "--rounds", "1"),
    ),
    "recovery": Benchmark(
        "benchmarks.bench_recovery",
        (),
        ("--flowfiles", "40000", "--rounds", "1", "--no-content-files"),
    ),
    "merge_record": Benchmark(
        "benchmarks.bench_merge_record", (), ("--records", "20000", "--rounds", "1")
    ),
    "record_processors": Benchmark(
        "benchmarks.bench_record_processors", (), ("--records", "20000", "--rounds", "1")
    ),
    "merge_by_key": Benchmark(
        "benchmarks.bench_merge_by_key", (), ("--sizes", "100000,1000000", "--rounds", "1")
    ),
    "enforce_order": Benchmark(
        "benchmarks.bench_enforce_order", (), ("--groups", "20", "--size", "20")
    ),
    "api": Benchmark("benchmarks.bench_api", (), ("--quick",)),
    "merge_entities": Benchmark("benchmarks.bench_merge_entities", (), ("--quick",)),
    "el": Benchmark("benchmarks.bench_el", (), ("--flowfiles", "2000", "--rounds", "1")),
    "query_record": Benchmark(
        "benchmarks.bench_query_record",
        (),
        ("--flowfiles", "4", "--records", "10000", "--rounds", "1"),
    ),
}

_ALIASES = {name.replace("_", "-"): name for name in BENCHMARKS} | {
    "flowfile": "flowfile_repo",
    "e2e": "end_to_end",
}

RESULT = re.compile(
    r"^(?P<name>[^:\s][^:]*): ours (?P<ours>.+?) \| (?P<limit_label>.+?) (?P<limit>[\d,.]+ ?\S*) "
    r"\| ratio (?P<ratio>[\d.]+)(?: \| goal (?P<goal>.+): (?P<met>met|MISSED))?\s*$"
)
LINEAGE = re.compile(
    r"^provenance lineage: median (?P<median>[\d.]+) ms .*goal median < (?P<goal>[\d.]+) ms"
)


@dataclass(frozen=True, slots=True)
class Row:
    benchmark: str
    name: str
    ours: str
    limit: str
    ratio: str
    goal: str
    met: bool | None


def parse(benchmark: str, lines: list[str], spec: Benchmark) -> list[Row]:
    rows: list[Row] = []
    for line in lines:
        match = RESULT.match(line)
        if match is not None:
            goal, met = match["goal"], None if match["met"] is None else match["met"] == "met"
            ratio = float(match["ratio"])
            for name, text, minimum in spec.goals:
                if match["name"] == name:
                    goal, met = text, ratio >= minimum
            rows.append(
                Row(
                    benchmark,
                    match["name"],
                    match["ours"],
                    f"{match['limit_label']} {match['limit']}",
                    f"{ratio:.2f}",
                    goal or "-",
                    met,
                )
            )
            continue
        lineage = LINEAGE.match(line)
        if lineage is not None:
            median, limit = float(lineage["median"]), float(lineage["goal"])
            rows.append(
                Row(
                    benchmark,
                    "provenance lineage",
                    f"median {median:.1f} ms",
                    "-",
                    "-",
                    f"median < {limit:g} ms",
                    median < limit,
                )
            )
    return rows


def run(name: str, spec: Benchmark, quick: bool) -> tuple[list[str], int, float]:
    """Run one benchmark in a child process, echoing its output; (lines, status, seconds)."""
    args = spec.quick if quick else spec.full
    command = [sys.executable, "-u", "-m", spec.module, *args]
    print(f"\n=== {name}: {' '.join(command[1:])}", flush=True)
    started = time.perf_counter()
    lines: list[str] = []
    with subprocess.Popen(
        command,
        cwd=Path(__file__).resolve().parent.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    ) as child:
        assert child.stdout is not None
        for line in child.stdout:
            print(line, end="", flush=True)
            lines.append(line.rstrip("\n"))
        status = child.wait()
    seconds = time.perf_counter() - started
    print(f"=== {name}: {'done' if status == 0 else f'FAILED ({status})'} in {seconds:.1f} s")
    return lines, status, seconds


def _selected(only: list[str]) -> list[str]:
    if not only:
        return list(BENCHMARKS)
    names: list[str] = []
    for item in only:
        for part in item.split(","):
            key = part.strip().lower()
            name = key if key in BENCHMARKS else _ALIASES.get(key)
            if name is None:
                known = ", ".join(BENCHMARKS)
                raise SystemExit(f"unknown benchmark '{part}' (known: {known})")
            if name not in names:
                names.append(name)
    return names


def summary(rows: list[Row], timings: dict[str, tuple[int, float]], quick: bool) -> Table:
    title = "flowcore benchmarks" + (" (--quick: tiny sizes, not figures)" if quick else "")
    table = Table(title=title, show_lines=False)
    for column in ("benchmark", "figure", "ours", "physical limit (same run)", "ratio", "goal"):
        table.add_column(column, overflow="fold")
    table.add_column("met?", justify="center")
    for row in rows:
        met = "-" if row.met is None else ("[green]yes[/]" if row.met else "[red]NO[/]")
        table.add_row(row.benchmark, row.name, row.ours, row.limit, row.ratio, row.goal, met)
    for name, (status, _seconds) in timings.items():
        if status != 0:
            table.add_row(name, "[red]benchmark failed[/]", "", "", "", "", "[red]-[/]")
    total = sum(seconds for _, seconds in timings.values())
    table.caption = (
        "run times: "
        + ", ".join(f"{name} {seconds:.0f} s" for name, (_, seconds) in timings.items())
        + f"; total {total:.0f} s"
    )
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help=f"run only this benchmark (repeatable or comma-separated): {', '.join(BENCHMARKS)}",
    )
    args = parser.parse_args(argv)
    names = _selected(args.only)
    rows: list[Row] = []
    timings: dict[str, tuple[int, float]] = {}
    for name in names:
        spec = BENCHMARKS[name]
        lines, status, seconds = run(name, spec, args.quick)
        timings[name] = (status, seconds)
        rows.extend(parse(name, lines, spec))
    console = Console(width=max(Console().width, 150))
    console.print()
    console.print(summary(rows, timings, args.quick))
    return 1 if any(status != 0 for status, _ in timings.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
