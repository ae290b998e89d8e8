"""Benchmark: latest-by-key merge with deletes, local engine and Spark against DuckDB SQL.

A bin of N change records (key ``id`` over N/4 keys, event-time ordering field ``ts`` in
random order, operation ``op`` with 10 % deletes, two payload columns) arrives as FlowFile
tables of 100,000 records. It is merged by key with EVENT_TIME_ORDERING, deletes dropped:

* ``local``: ``merge_locally`` (the engine's process, Arrow and DuckDB);
* ``spark local[2]``: ``merge_on_spark`` on an embedded ``local[2]`` session, staging
  included; the session's start-up is timed apart and printed;
* the limit, ``DuckDB SQL``: one query over the same records as one Parquet file, latest
  row per key by (ts, row number), deletes dropped, rows in first-arrival order, to Arrow.

Figures are records merged per second, best of ``--rounds``. ``--crossover`` also merges
a range of sizes on both engines and prints where Spark starts to pay (if it does).

    python -m benchmarks.bench_merge_by_key                    # 1,000,000 and 10,000,000
    python -m benchmarks.bench_merge_by_key --sizes 100000,1000000 --rounds 1
    python -m benchmarks.bench_merge_by_key --crossover --sizes 1000000
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from benchmarks._common import best_of, fmt_rate, rate, result_line
from flowcore.offload import ComputeServices, SparkProvider
from flowcore.settings import EngineSettings, SparkSettings
from processors.merge.mergers import DeleteMarkers, KeyedMergeSpec, RecordMergeMode
from processors.merge.mergers import merge_locally as merge_local
from processors.merge.mergers.spark_engine import merge_on_spark

PER_FLOWFILE = 100_000
SPEC = KeyedMergeSpec(
    key_fields=("id",),
    ordering_fields=("ts",),
    mode=RecordMergeMode.EVENT_TIME_ORDERING,
    delete_markers=DeleteMarkers(operation_field="op"),
)
LIMIT_SQL = """
SELECT * EXCLUDE (file_row_number, first_arrival) FROM (
    SELECT *, min(file_row_number) OVER (PARTITION BY id) AS first_arrival
    FROM read_parquet({source}, file_row_number = true)
    QUALIFY row_number() OVER (PARTITION BY id ORDER BY ts DESC, file_row_number DESC) = 1
) WHERE op <> 'D' ORDER BY first_arrival
"""


def change_stream(records: int, seed: int) -> list[pa.Table]:
    """The bin as FlowFile tables of PER_FLOWFILE records."""
    rng = np.random.default_rng(seed)
    ops = np.where(rng.random(records) < 0.1, "D", np.where(rng.random(records) < 0.3, "I", "U"))
    table = pa.table(
        {
            "id": rng.integers(0, max(1, records // 4), records),
            "ts": rng.integers(0, 1_000_000_000, records),
            "op": pa.array(ops),
            "status": pa.array(rng.choice(["new", "paid", "shipped", "returned"], records)),
            "amount": rng.random(records) * 100,
        }
    )
    return [table.slice(start, PER_FLOWFILE) for start in range(0, records, PER_FLOWFILE)]


def timed(function: Callable[[], object]) -> Callable[[], float]:
    def run() -> float:
        started = time.perf_counter()
        function()
        return time.perf_counter() - started

    return run


def start_spark(directory: Path, master: str) -> tuple[ComputeServices, float]:
    config = {"spark.driver.memory": "6g", "spark.sql.shuffle.partitions": "4"}
    spark = SparkSettings(master=master, config=config)
    compute = ComputeServices(EngineSettings(data_dir=directory, spark=spark))
    started = time.perf_counter()
    compute.spark_session()
    return compute, time.perf_counter() - started


def measure(compute: ComputeServices, directory: Path, records: int, rounds: int) -> None:
    parts = change_stream(records, seed=records)
    source = directory / f"changes-{records}.parquet"
    pq.write_table(pa.concat_tables(parts), source)
    connection = duckdb.connect()
    local = merge_local(parts, SPEC)
    spark = merge_on_spark(compute, parts, SPEC)
    query = LIMIT_SQL.format(source="'" + str(source).replace("'", "''") + "'")
    limit = connection.sql(query).to_arrow_table()
    assert spark.table.equals(local.table), "the engines disagree"
    assert limit.num_rows == local.table.num_rows, "the limit query merges differently"
    best = best_of(
        rounds,
        {
            "local": timed(lambda: merge_local(parts, SPEC)),
            "spark": timed(lambda: merge_on_spark(compute, parts, SPEC)),
            "duckdb": timed(lambda: connection.sql(query).to_arrow_table()),
        },
    )
    connection.close()
    limit_rate = rate(records, best["duckdb"])
    label, limit_text = "DuckDB SQL", fmt_rate(limit_rate, "records/s")
    local_rate = rate(records, best["local"])
    spark_rate = rate(records, best["spark"])
    print(
        f"{records:,} records -> {local.records_out:,} keys ({local.deletes:,} deleted): "
        f"local {best['local']:.2f} s, spark {best['spark']:.2f} s, "
        f"DuckDB {best['duckdb']:.2f} s"
    )
    print(
        result_line(
            f"merge by key {records:,} local",
            fmt_rate(local_rate, "records/s"),
            label,
            limit_text,
            local_rate / limit_rate,
            ">= 0.5 of DuckDB",
            local_rate / limit_rate >= 0.5,
        )
    )
    print(
        result_line(
            f"merge by key {records:,} spark local[2]",
            fmt_rate(spark_rate, "records/s"),
            label,
            limit_text,
            spark_rate / limit_rate,
        )
    )


def crossover(compute: ComputeServices, sizes: list[int]) -> None:
    """Both engines over a range of sizes: where (if anywhere) Spark beats local."""
    found = None
    for records in sizes:
        parts = change_stream(records, seed=records)
        best = best_of(
            2,
            {
                "local": timed(lambda: merge_local(parts, SPEC)),  # noqa: B023
                "spark": timed(lambda: merge_on_spark(compute, parts, SPEC)),  # noqa: B023
            },
        )
        ratio = best["local"] / best["spark"]
        print(
            f"crossover {records:>12,} records: local {best['local']:7.2f} s, "
            f"spark {best['spark']:7.2f} s, spark/local speed {ratio:.2f}"
        )
        if ratio > 1 and found is None:
            found = records
    if found is None:
        print("crossover: Spark never beat the local engine at these sizes")
    else:
        print(f"crossover: Spark pays from about {found:,} records")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000000,10000000", help="comma-separated")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--crossover", action="store_true", help="also search the crossover")
    parser.add_argument(
        "--crossover-sizes", default="100000,300000,1000000,3000000,10000000,20000000"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-merge-by-key-") as tmp:
        directory = Path(tmp)
        compute, startup = start_spark(directory, args.master)
        print(f"spark {args.master} start-up: {startup:.1f} s (not in the figures below)")
        try:
            for records in (int(size) for size in args.sizes.split(",")):
                measure(compute, directory, records, args.rounds)
            if args.crossover:
                crossover(compute, [int(size) for size in args.crossover_sizes.split(",")])
        finally:
            SparkProvider.stop_all()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
