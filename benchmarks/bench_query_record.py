"""Benchmark: QueryRecord, records queried per second, beside DuckDB on the same Arrow table.

``--flowfiles`` FlowFiles of ``--records`` records each (Parquet content: id, store,
product, quantity, price) are enqueued to QueryRecord (ParquetReader,
ParquetRecordSetWriter; one query, ``SQL`` below) in a TestRunner on the durable
repositories, before the clock starts. The figure is input records per second of the
runner's triggers (read, query, write, commit).

The limit is measured in the same run on the same data: DuckDB running the same SQL on
the same records as an Arrow table (registered, as QueryRecord registers it), once per
FlowFile's table, fetching the result as Arrow: the query alone, with no FlowFile,
reader, writer or repository. The figure is best of ``--rounds`` rounds, alternating.

    python -m benchmarks.bench_query_record                  # 20 x 50,000 records
    python -m benchmarks.bench_query_record --flowfiles 4 --records 10000 --rounds 1
"""

from __future__ import annotations

import argparse
import io
import random
import tempfile
import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

import processors.record
import processors.record_processors  # noqa: F401  (registers QueryRecord)
from benchmarks._common import best_of, fmt_rate, rate, result_line
from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner

SQL = (
    "SELECT id, store, quantity * price AS total FROM FLOWFILE "
    "WHERE quantity > 5 AND product <> 'tea'"
)
_PRODUCTS = ("apple", "bread", "milk", "coffee", "cheese", "tea", "eggs", "rice")


def make_table(records: int, seed: int) -> pa.Table:
    rng = random.Random(seed)
    return pa.table(
        {
            "id": pa.array(range(records), pa.int64()),
            "store": [f"store-{rng.randrange(50):02d}" for _ in range(records)],
            "product": [_PRODUCTS[rng.randrange(len(_PRODUCTS))] for _ in range(records)],
            "quantity": pa.array([rng.randrange(1, 20) for _ in range(records)], pa.int32()),
            "price": [rng.randrange(100, 100_000) / 100 for _ in range(records)],
        }
    )


def to_parquet(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def run_ours(data_dir: Path, content: bytes, flowfiles: int) -> float:
    runner = TestRunner(
        "QueryRecord", settings=EngineSettings(data_dir=data_dir), repositories="durable"
    )
    try:
        runner.add_controller_service("reader", "ParquetReader", {})
        runner.add_controller_service("writer", "ParquetRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.set_property("selected", SQL)
        for relationship in ("selected", "original", "failure"):
            runner.set_relationship_auto_terminated(relationship)
        for _ in range(flowfiles):
            runner.enqueue(content)
        started = time.perf_counter()
        runner.run(flowfiles)
        elapsed = time.perf_counter() - started
        assert runner.queue_size == 0
    finally:
        runner.close()
    return elapsed


def run_duckdb(table: pa.Table, flowfiles: int) -> float:
    connection = duckdb.connect(":memory:")
    try:
        started = time.perf_counter()
        for _ in range(flowfiles):
            connection.register("FLOWFILE", table)
            result = connection.sql(SQL)
            assert result is not None
            reader = result.to_arrow_reader(65_536)
            for _batch in reader:
                pass
            connection.unregister("FLOWFILE")
        return time.perf_counter() - started
    finally:
        connection.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flowfiles", type=int, default=20)
    parser.add_argument("--records", type=int, default=50_000, help="records per FlowFile")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    table = make_table(args.records, args.seed)
    content = to_parquet(table)
    total = args.flowfiles * args.records
    with tempfile.TemporaryDirectory(prefix="bench-query-record-") as tmp:
        counter = iter(range(1_000_000))
        best = best_of(
            args.rounds,
            {
                "ours": lambda: run_ours(
                    Path(tmp) / f"run-{next(counter)}", content, args.flowfiles
                ),
                "duckdb": lambda: run_duckdb(table, args.flowfiles),
            },
        )
    ours, limit = rate(total, best["ours"]), rate(total, best["duckdb"])
    print(
        f"{args.flowfiles} FlowFiles x {args.records:,} records (Parquet), SQL: {SQL}",
        flush=True,
    )
    print(
        result_line(
            "query record",
            fmt_rate(ours, "records/s"),
            "DuckDB same SQL on the Arrow table",
            fmt_rate(limit, "records/s"),
            ours / limit if limit else 0.0,
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
