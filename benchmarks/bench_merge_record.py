"""Benchmark: MergeRecord, CSV and JSON records merged per second on the durable repositories.

1,000,000 records (100 per input FlowFile; 10,000 FlowFiles) go through an input port of
a Node on the durable repositories (LMDB FlowFile repository, file-system content,
DuckDB provenance) into MergeRecord (Minimum and Maximum Number of Records 10,000, so
bins of 10,000 records). CSV: CSVReader with a header line and an inferred schema,
CSVRecordSetWriter. JSON: newline-delimited JSON in, JsonTreeReader with an inferred
schema, JsonRecordSetWriter (a JSON array). ``original`` is auto-terminated, ``merged``
goes to a stopped funnel, where the merged FlowFiles are counted. The FlowFiles are
enqueued before the clock starts; the figure is records merged per second of
``DeterministicScheduler(node).run_until_idle()`` on a manual clock, after an untimed
warm-up run of two bins (first-use costs paid once per process).

The limit is the strongest honest one, measured in the same run: the same records as one
buffer (one header line), parsed and written with no engine at all, by pyarrow (parse
with its threads, write to memory) and by DuckDB (``COPY (SELECT * FROM read_csv(...))
TO ...`` between two files on tmpfs); the faster of the two is the limit and the line
says which. pyarrow has no JSON writer, so its JSON figure is the parse alone (a bound
on any pyarrow pipeline). Context: DuckDB reading the 10,000 input files themselves.
Goal: 1,000,000 records/s.

    python -m benchmarks.bench_merge_record               # 1,000,000 records, CSV and JSON
    python -m benchmarks.bench_merge_record --records 20000 --formats csv --profile
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.json as pajson

import processors.merge  # registers the types
import processors.record  # noqa: F401
from benchmarks._common import gc_frozen, result_line
from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, EnqueueItem, Node
from flowcore.flow import parse_flow
from flowcore.settings import EngineSettings

HEADER = "id,store,product,quantity,price,ts\n"
_PRODUCTS = ("apple", "bread", "milk", "coffee", "cheese, aged", "tea", "eggs", "rice")
GOAL = 1_000_000
SERVICES: dict[str, dict[str, Any]] = {
    "csv": {
        "reader": {"type": "CSVReader", "properties": {"Treat First Line as Header": "true"}},
        "writer": {"type": "CSVRecordSetWriter"},
    },
    "json": {
        "reader": {"type": "JsonTreeReader"},
        "writer": {"type": "JsonRecordSetWriter"},
    },
}
TMPFS = Path("/dev/shm")


def flow(bin_records: int, fmt: str = "csv") -> dict[str, Any]:
    return {
        "flow": {
            "name": "bench-merge-record",
            "input_ports": ["in"],
            "controller_services": SERVICES[fmt],
            "processors": {
                "merge": {
                    "type": "MergeRecord",
                    "properties": {
                        "Record Reader": "reader",
                        "Record Writer": "writer",
                        "Minimum Number of Records": str(bin_records),
                        "Maximum Number of Records": str(bin_records),
                    },
                    "auto_terminate": ["original", "failure"],
                },
                "sink": {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]},
            },
            "connections": [
                {
                    "from": "in",
                    "to": "merge",
                    "name": "incoming",
                    "back_pressure": {"object_threshold": 0},
                },
                {
                    "from": "merge",
                    "relationships": ["merged"],
                    "to": "sink",
                    "name": "merged",
                    "back_pressure": {"object_threshold": 0},
                },
            ],
        }
    }


def _rows(records: int, per_flowfile: int, seed: int) -> list[list[tuple[Any, ...]]]:
    rng = random.Random(seed)
    chunks: list[list[tuple[Any, ...]]] = []
    for start in range(0, records, per_flowfile):
        chunk = []
        for i in range(start, min(start + per_flowfile, records)):
            chunk.append(
                (
                    i,
                    f"store-{rng.randrange(50):02d}",
                    _PRODUCTS[rng.randrange(len(_PRODUCTS))],
                    rng.randrange(1, 20),
                    rng.randrange(100, 100_000) / 100,
                    f"2024-05-{1 + i % 28:02d}T12:00:00",
                )
            )
        chunks.append(chunk)
    return chunks


def make_inputs(records: int, per_flowfile: int, seed: int, fmt: str = "csv") -> list[bytes]:
    """Contents of ``per_flowfile`` records each: CSV with a header line, or JSON lines."""
    contents: list[bytes] = []
    names = HEADER.strip().split(",")
    for chunk in _rows(records, per_flowfile, seed):
        if fmt == "json":
            lines = [json.dumps(dict(zip(names, row, strict=True))) + "\n" for row in chunk]
        else:
            lines = [HEADER]
            for i, store, product, quantity, price, ts in chunk:
                quoted = f'"{product}"' if "," in product else product
                lines.append(f"{i},{store},{quoted},{quantity},{price:.2f},{ts}\n")
        contents.append("".join(lines).encode())
    return contents


def one_buffer(inputs: list[bytes], fmt: str) -> bytes:
    """All the records as one content: one header line for CSV."""
    if fmt == "csv":
        header = HEADER.encode()
        return header + b"".join(content[len(header) :] for content in inputs)
    return b"".join(inputs)


def run_ours(
    data_dir: Path, inputs: list[bytes], bin_records: int, profile: bool, fmt: str = "csv"
) -> tuple[float, int, int]:
    """Seconds to merge everything, merged FlowFiles, merged records."""
    node = Node.from_flow(
        EngineSettings(data_dir=data_dir), parse_flow(flow(bin_records, fmt)), ManualClock()
    )
    try:
        for start in range(0, len(inputs), 1000):
            node.enqueue(
                "in",
                [EnqueueItem(content, {}) for content in inputs[start : start + 1000]],
            )
        profiler = cProfile.Profile() if profile else None
        with gc_frozen():
            started = time.perf_counter()
            if profiler is not None:
                profiler.enable()
            DeterministicScheduler(node).run_until_idle()
            if profiler is not None:
                profiler.disable()
            elapsed = time.perf_counter() - started
        queue = node.connections["merged"].queue
        merged = queue.size
        counters = node.processors["merge"].binding
        assert counters is not None
        records = counters.stats.counters.get("Records Merged", 0)
        if profiler is not None:
            stats = pstats.Stats(profiler)
            stats.sort_stats("cumulative").print_stats(30)
            stats.sort_stats("tottime").print_stats(25)
    finally:
        node.close()
    return elapsed, merged, records


def run_pyarrow(buffer: bytes, fmt: str) -> tuple[float, int]:
    """Seconds for pyarrow to parse the buffer (its threads on) and, for CSV, write it to
    memory; rows parsed."""
    started = time.perf_counter()
    if fmt == "csv":
        table = pacsv.read_csv(io.BytesIO(buffer))
        out = pa.BufferOutputStream()
        pacsv.write_csv(table, out)
        out.getvalue()
    else:
        table = pajson.read_json(io.BytesIO(buffer))
    return time.perf_counter() - started, table.num_rows


def run_duckdb_buffer(directory: Path, buffer: bytes, fmt: str) -> tuple[float, int]:
    """Seconds for DuckDB to read the buffer (a file on tmpfs) and write one file there."""
    source = directory / f"all.{fmt}"
    source.write_bytes(buffer)
    out = directory / f"out.{fmt}"
    reader = "read_csv" if fmt == "csv" else "read_json"
    options = "(HEADER, DELIMITER ',')" if fmt == "csv" else "(FORMAT JSON)"
    connection = duckdb.connect()
    try:
        started = time.perf_counter()
        connection.execute(f"COPY (SELECT * FROM {reader}('{source}')) TO '{out}' {options}")
        elapsed = time.perf_counter() - started
        row = connection.execute(f"SELECT count(*) FROM {reader}('{out}')").fetchone()
    finally:
        connection.close()
    assert row is not None
    return elapsed, int(row[0])


def run_duckdb_files(directory: Path, inputs: list[bytes]) -> tuple[float, int]:
    """Seconds for DuckDB to read the CSV files and write one CSV file; rows written."""
    files = []
    for number, content in enumerate(inputs):
        path = directory / f"in-{number:06d}.csv"
        path.write_bytes(content)
        files.append(str(path))
    out = directory / "out.csv"
    connection = duckdb.connect()
    try:
        started = time.perf_counter()
        connection.execute(
            f"COPY (SELECT * FROM read_csv({files!r}, header = true)) TO '{out}' "
            "(HEADER, DELIMITER ',')"
        )
        elapsed = time.perf_counter() - started
        row = connection.execute(f"SELECT count(*) FROM read_csv('{out}')").fetchone()
    finally:
        connection.close()
    assert row is not None
    return elapsed, int(row[0])


def bench_format(args: argparse.Namespace, fmt: str, root: Path) -> None:
    inputs = make_inputs(args.records, args.per_flowfile, args.seed, fmt)
    buffer = one_buffer(inputs, fmt)
    scratch = Path(tempfile.mkdtemp(prefix="limit-", dir=TMPFS if TMPFS.is_dir() else root))
    try:
        limits: dict[str, float] = {"pyarrow": float("inf"), "duckdb": float("inf")}
        for _ in range(args.rounds):
            seconds, rows = run_pyarrow(buffer, fmt)
            assert rows == args.records, f"pyarrow read {rows} of {args.records} rows"
            limits["pyarrow"] = min(limits["pyarrow"], seconds)
            seconds, rows = run_duckdb_buffer(scratch, buffer, fmt)
            assert rows == args.records, f"duckdb wrote {rows} of {args.records} rows"
            limits["duckdb"] = min(limits["duckdb"], seconds)
    finally:
        for path in scratch.iterdir():
            path.unlink()
        scratch.rmdir()
    # Warm-up, untimed: two bins through a node of their own, so that the timed run is
    # steady state (first-use costs such as pyarrow importing pandas, ~0.2 s, are paid
    # once per process), as the limits are best of their rounds.
    warm = min(len(inputs), 2 * max(1, args.bin_records // args.per_flowfile))
    run_ours(root / f"warm-{fmt}", inputs[:warm], args.bin_records, False, fmt)
    ours_s, merged, records = run_ours(
        root / f"ours-{fmt}", inputs, args.bin_records, args.profile, fmt
    )
    assert records == args.records, f"merged {records} of {args.records} records"
    files_note = ""
    if fmt == "csv" and args.files:
        (root / "files").mkdir()
        files_s, rows = run_duckdb_files(root / "files", inputs)
        assert rows == args.records
        files_note = f"; duckdb from the {len(inputs):,} files {args.records / files_s:,.0f}/s"
    best = min(limits, key=lambda name: limits[name])
    ours = args.records / ours_s
    limit = args.records / limits[best]
    what = "parse+write" if fmt == "csv" else "parse"
    print(
        f"({fmt}: {args.records:,} records in {len(inputs):,} FlowFiles, {merged} merged "
        f"FlowFiles; ours {ours_s:.2f} s; one buffer: pyarrow {what} "
        f"{args.records / limits['pyarrow']:,.0f}/s, duckdb read+write "
        f"{args.records / limits['duckdb']:,.0f}/s{files_note})"
    )
    print(
        result_line(
            f"merge record {fmt}",
            f"{ours:,.0f} records/s",
            f"{best} one buffer",
            f"{limit:,.0f} records/s",
            ours / limit,
            f">= {GOAL:,} records/s",
            ours >= GOAL,
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--per-flowfile", type=int, default=100)
    parser.add_argument("--bin-records", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3, help="best of, for the limits")
    parser.add_argument("--formats", default="csv,json")
    parser.add_argument(
        "--no-files", dest="files", action="store_false", help="skip DuckDB over the files"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile our run")
    args = parser.parse_args(argv)
    pa.chunked_array([pa.array([1])])  # pyarrow's one-time imports (pandas), outside timing
    with tempfile.TemporaryDirectory(prefix="bench-merge-record-") as directory:
        for fmt in args.formats.split(","):
            bench_format(args, fmt.strip(), Path(directory))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
