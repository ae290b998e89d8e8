"""Benchmark: MergeRecord, CSV records merged per second on the durable repositories.

1,000,000 CSV records (100 per input FlowFile, with a header line; 10,000 FlowFiles) go
through an input port of a Node on the durable repositories (LMDB FlowFile repository,
file-system content, DuckDB provenance) into MergeRecord (CSVReader with a header line and
an inferred schema, CSVRecordSetWriter; Minimum and Maximum Number of Records 10,000, so
bins of 10,000 records). ``original`` is auto-terminated, ``merged`` goes to a stopped
funnel, where the merged FlowFiles are counted. The FlowFiles are enqueued before the
clock starts; the figure is records merged per second of
``DeterministicScheduler(node).run_until_idle()`` on a manual clock.

The limit is measured in the same run on the same machine: DuckDB reading the same data
from the same 10,000 CSV files and writing it as one CSV file
(``COPY (SELECT * FROM read_csv([...])) TO 'out.csv'``), the cost of parsing plus writing
with no engine at all. Goal: 0.5 of DuckDB or better.

    python -m benchmarks.bench_merge_record               # 1,000,000 records
    python -m benchmarks.bench_merge_record --records 20000 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

import processors.merge  # registers the types
import processors.record  # noqa: F401
from benchmarks._common import result_line
from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, EnqueueItem, Node
from flowcore.flow import parse_flow
from flowcore.settings import EngineSettings

HEADER = "id,store,product,quantity,price,ts\n"
_PRODUCTS = ("apple", "bread", "milk", "coffee", "cheese, aged", "tea", "eggs", "rice")


def flow(bin_records: int) -> dict[str, Any]:
    return {
        "flow": {
            "name": "bench-merge-record",
            "input_ports": ["in"],
            "controller_services": {
                "reader": {
                    "type": "CSVReader",
                    "properties": {"Treat First Line as Header": "true"},
                },
                "writer": {"type": "CSVRecordSetWriter"},
            },
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


def make_inputs(records: int, per_flowfile: int, seed: int) -> list[bytes]:
    """CSV contents of ``per_flowfile`` records each, with a header line."""
    rng = random.Random(seed)
    contents: list[bytes] = []
    for start in range(0, records, per_flowfile):
        lines = [HEADER]
        for i in range(start, min(start + per_flowfile, records)):
            product = _PRODUCTS[rng.randrange(len(_PRODUCTS))]
            quoted = f'"{product}"' if "," in product else product
            lines.append(
                f"{i},store-{rng.randrange(50):02d},{quoted},{rng.randrange(1, 20)},"
                f"{rng.randrange(100, 100_000) / 100:.2f},2024-05-{1 + i % 28:02d}T12:00:00\n"
            )
        contents.append("".join(lines).encode())
    return contents


def run_ours(
    data_dir: Path, inputs: list[bytes], bin_records: int, profile: bool
) -> tuple[float, int, int]:
    """Seconds to merge everything, merged FlowFiles, merged records."""
    node = Node.from_flow(
        EngineSettings(data_dir=data_dir), parse_flow(flow(bin_records)), ManualClock()
    )
    try:
        for start in range(0, len(inputs), 1000):
            node.enqueue(
                "in",
                [EnqueueItem(content, {}) for content in inputs[start : start + 1000]],
            )
        profiler = cProfile.Profile() if profile else None
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


def run_duckdb(directory: Path, inputs: list[bytes]) -> tuple[float, int]:
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--per-flowfile", type=int, default=100)
    parser.add_argument("--bin-records", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile our run")
    args = parser.parse_args(argv)
    inputs = make_inputs(args.records, args.per_flowfile, args.seed)
    with tempfile.TemporaryDirectory(prefix="bench-merge-record-") as directory:
        root = Path(directory)
        (root / "duckdb").mkdir()
        limit_s, rows = run_duckdb(root / "duckdb", inputs)
        assert rows == args.records, f"duckdb wrote {rows} of {args.records} rows"
        ours_s, merged, records = run_ours(root / "ours", inputs, args.bin_records, args.profile)
        assert records == args.records, f"merged {records} of {args.records} records"
    ours = args.records / ours_s
    limit = args.records / limit_s
    ratio = ours / limit
    print(
        f"({args.records:,} records in {len(inputs):,} FlowFiles, {merged} merged FlowFiles; "
        f"ours {ours_s:.2f} s, duckdb {limit_s:.2f} s)"
    )
    print(
        result_line(
            "merge record",
            f"{ours:,.0f} records/s",
            "duckdb csv read+write",
            f"{limit:,.0f} records/s",
            ratio,
            ">= 0.5 of DuckDB",
            ratio >= 0.5,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
