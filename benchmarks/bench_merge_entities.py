"""Benchmark: MergeEntities, entities merged per second, incremental and bulk.

An index of ``--entities`` entities (default 1,000,000) over three datasets is built
through the processor's bulk path (the first unit of an empty index: three FlowFiles,
one per dataset, in one trigger). Then ``--flowfiles`` FlowFiles of ``--changes`` entity
changes each (default 20 of 1,000: updates that move entities between merged groups,
new entities, deletes) arrive one FlowFile per trigger (Batch Size 1), each committed
with its index writes, output FlowFile and provenance in one LMDB transaction. The
figure is changes applied per second over those triggers.

The limit is measured in the same run: raw ``lmdb`` write transactions, one per FlowFile,
each putting (or deleting) exactly the keys and values that trigger wrote to the keyed
state (recorded while it ran) into a fresh environment, and committing. The ratio says
how much the merge itself (batched index reads, the breadth-first component search,
building and hashing outputs, the session and provenance) costs on top of the bare
writes.

Bulk: three datasets of ``--bulk-per-dataset`` entities each (default 1,000,000) go
through a full rebuild. The connected components of their edge table (one row per
member value on a side of a rule) are computed locally (numpy), on Spark ``local[2]``
(its start-up timed apart; Parquet in and out through a staging directory) and, as the
reference, by DuckDB (``components_duckdb``: min-hooking and pointer jumping as SQL
statements in a loop, on the same edge table); ours is the whole local rebuild (edge
table, components, outputs and index records). ``--quick``: 100,000 per dataset and a
smaller incremental index.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import pstats
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import lmdb
import numpy as np

from benchmarks._common import fmt_rate, rate, result_line
from flowcore.offload import ComputeServices, SparkProvider
from flowcore.session.keyed_state import KeyedState
from flowcore.settings import EngineSettings, SparkSettings
from flowcore.testing import TestRunner
from processors.entities.bulk import assemble, collector_paused, prepare
from processors.entities.bulk_components import (
    components_duckdb,
    components_local,
    components_spark,
    read_components,
    write_edges,
)
from processors.entities.config import parse_config
from processors.entities.model import Change

DATASETS = "A a, B b, C c"
EQUALITY = '[["eq", "a.k", "b.k"], ["eq", "b.m", "c.m"]]'


class WriteCounter:
    """Records the keyed-state writes (keys and values) of each trigger."""

    def __init__(self) -> None:
        self.writes: list[tuple[bytes, bytes | None]] = []

    def install(self) -> None:
        original_put = KeyedState.put
        original_delete = KeyedState.delete
        writes = self.writes

        def put(state: KeyedState, key: bytes, value: bytes) -> None:
            writes.append((key, value))
            original_put(state, key, value)

        def delete(state: KeyedState, key: bytes) -> None:
            writes.append((key, None))
            original_delete(state, key)

        setattr(KeyedState, "put", put)  # noqa: B010  (count, then write)
        setattr(KeyedState, "delete", delete)  # noqa: B010


def initial(entities: int) -> dict[str, list[dict[str, Any]]]:
    """Three datasets: A and B linked on k, B and C on m (groups of about three)."""
    third = entities // 3
    return {
        "A": [{"_id": f"a{i}", "k": i, "name": f"name {i}"} for i in range(entities - 2 * third)],
        "B": [{"_id": f"b{i}", "k": i, "m": f"m{i}", "x": i % 7} for i in range(third)],
        "C": [{"_id": f"c{i}", "m": f"m{i}", "city": f"city {i % 100}"} for i in range(third)],
    }


def changes(rng: random.Random, seq: int, size: int, entities: int) -> tuple[str, list[Any]]:
    dataset = "ABC"[seq % 3]
    third = entities // 3
    out: list[dict[str, Any]] = []
    for _ in range(size):
        roll = rng.random()
        i = rng.randrange(third)
        if roll < 0.1:
            out.append({"_id": f"{dataset.lower()}{i}", "_deleted": True})
        elif roll < 0.3:
            j = entities + rng.randrange(10 * entities)
            out.append({"_id": f"{dataset.lower()}{j}", "k": rng.randrange(third), "m": f"m{j}"})
        else:
            target = rng.randrange(third)
            out.append({"_id": f"{dataset.lower()}{i}", "k": target, "m": f"m{target}",
                        "v": seq})  # fmt: skip
    return dataset, out


def raw_lmdb(path: Path, per_trigger: list[list[tuple[bytes, bytes | None]]]) -> float:
    """Seconds for one write transaction per trigger putting (or deleting) the same keys
    and values the processor wrote, into a fresh environment."""
    env = lmdb.open(str(path), map_size=1 << 34, max_dbs=2, sync=False)
    db = env.open_db(b"keyed")
    started = time.perf_counter()
    for writes in per_trigger:
        with env.begin(write=True) as txn:
            for key, value in writes:
                if value is None:
                    txn.delete(key, db=db)
                else:
                    txn.put(key, value, db=db)
    elapsed = time.perf_counter() - started
    env.close()
    return elapsed


def bulk_datasets(per_dataset: int) -> dict[str, list[dict[str, Any]]]:
    """Three datasets of ``per_dataset`` entities, A-B on k and B-C on m (groups of three)."""
    return {
        "A": [{"_id": f"a{i}", "k": i, "name": f"name {i}"} for i in range(per_dataset)],
        "B": [{"_id": f"b{i}", "k": i, "m": f"m{i}", "x": i % 7} for i in range(per_dataset)],
        "C": [
            {"_id": f"c{i}", "m": f"m{i}", "city": f"city {i % 100}"} for i in range(per_dataset)
        ],
    }


def bench_bulk(per_dataset: int, root: Path, spark: bool) -> None:
    """The bulk rebuild: local vs Spark ``local[2]``, DuckDB's components as the reference."""
    config = parse_config({"datasets": DATASETS, "equality": EQUALITY})
    datasets = bulk_datasets(per_dataset)
    changes = [Change(name, entity) for name, entities in datasets.items() for entity in entities]
    del datasets
    total = len(changes)
    gc.collect()
    gc.freeze()
    with collector_paused():  # as the processor's bulk path does
        started = time.perf_counter()
        prepared = prepare(config, changes)
        edges = prepared.edge_table()
        prepared_s = time.perf_counter() - started
        started = time.perf_counter()
        labels = components_local(edges, total)
        local_cc = time.perf_counter() - started
        started = time.perf_counter()
        built = assemble(config, prepared, labels)
        assembled = time.perf_counter() - started
    ours = prepared_s + local_cc + assembled
    outputs = len(built.result.emitted)
    del built
    gc.collect()
    print(f"bulk: {total:,} entities, {edges.num_rows:,} edge rows, {outputs:,} merged entities")
    print(f"bulk local: edge table {prepared_s:.1f} s, components (numpy) {local_cc:.1f} s, "
          f"outputs and index records {assembled:.1f} s: {ours:.1f} s")  # fmt: skip
    started = time.perf_counter()
    reference = components_duckdb(edges, total)
    duck = time.perf_counter() - started
    assert np.array_equal(reference, labels), "DuckDB and numpy agree"
    print(f"bulk DuckDB components (reference): {duck:.1f} s")
    print(
        result_line(
            "merge entities bulk components",
            fmt_rate(total / local_cc, "entities/s"),
            "DuckDB components",
            fmt_rate(total / duck, "entities/s"),
            duck / local_cc,
        )
    )
    print(
        result_line(
            "merge entities bulk rebuild",
            fmt_rate(total / ours, "entities/s"),
            "DuckDB components alone",
            fmt_rate(total / duck, "entities/s"),
            duck / ours,
        )
    )
    if not spark:
        return
    settings = EngineSettings(
        data_dir=root / "spark-node",
        spark=SparkSettings(master="local[2]", config={"spark.sql.shuffle.partitions": "8"}),
    )
    compute = ComputeServices(settings)
    started = time.perf_counter()
    session = compute.spark_session()
    startup = time.perf_counter() - started
    try:
        started = time.perf_counter()
        with compute.staging_job("bench-merge-entities") as directory:
            path = write_edges(edges, directory / "edges.parquet")
            out = components_spark(session, path, directory / "labels", total)
            on_spark = read_components(out, total)
        spark_cc = time.perf_counter() - started
    finally:
        SparkProvider.stop_all()
    assert np.array_equal(on_spark, labels), "Spark and numpy agree"
    print(f"bulk Spark local[2]: start-up {startup:.1f} s (apart), components {spark_cc:.1f} s "
          f"(Parquet in and out included); rebuild on Spark "
          f"{prepared_s + spark_cc + assembled:.1f} s")  # fmt: skip
    print(
        result_line(
            "merge entities bulk components on Spark",
            fmt_rate(total / spark_cc, "entities/s"),
            "DuckDB components",
            fmt_rate(total / duck, "entities/s"),
            duck / spark_cc,
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=1_000_000)
    parser.add_argument("--flowfiles", type=int, default=20)
    parser.add_argument("--changes", type=int, default=1_000)
    parser.add_argument("--bulk-per-dataset", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="100,000 per dataset")
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--only", choices=("incremental", "bulk"), default=None)
    parser.add_argument(
        "--profile",
        metavar="FILE",
        default=None,
        help="cProfile the incremental triggers into FILE (pstats) and print the top 30",
    )
    args = parser.parse_args()
    if args.quick:
        args.bulk_per_dataset = 100_000
        args.entities = min(args.entities, 100_000)
    if args.only != "incremental":
        with tempfile.TemporaryDirectory(prefix="bench-merge-entities-bulk-") as tmp:
            bench_bulk(args.bulk_per_dataset, Path(tmp), not args.no_spark)
        gc.unfreeze()
        gc.collect()
    if args.only == "bulk":
        return
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="bench-merge-entities-") as tmp:
        root = Path(tmp)
        with TestRunner("MergeEntities", data_dir=root / "data", repositories="durable") as runner:
            runner.set_property("Datasets", DATASETS)
            runner.set_property("Equality", EQUALITY)
            runner.set_property("Batch Size", "3")
            runner.set_relationship_auto_terminated("original")
            started = time.perf_counter()
            for name, entities in initial(args.entities).items():
                runner.enqueue(json.dumps(entities), {"dataset": name})
            loaded = time.perf_counter()
            runner.run()
            built = time.perf_counter() - loaded
            runner.clear_transfer_state()
            print(f"bulk load of {args.entities:,} entities: {built:.1f} s "
                  f"({time.perf_counter() - started:.1f} s with enqueueing)")  # fmt: skip

            runner.set_property("Batch Size", "1")
            units = [
                changes(rng, seq, args.changes, args.entities) for seq in range(args.flowfiles)
            ]
            for name, entities in units:
                runner.enqueue(json.dumps(entities), {"dataset": name})
            counter = WriteCounter()
            counter.install()
            per_trigger: list[list[tuple[bytes, bytes | None]]] = []
            seconds = 0.0
            profiler = cProfile.Profile() if args.profile else None
            for _ in units:
                mark = len(counter.writes)
                if profiler is not None:
                    profiler.enable()
                started = time.perf_counter()
                runner.run(stop_on_finish=False)
                seconds += time.perf_counter() - started
                if profiler is not None:
                    profiler.disable()
                per_trigger.append(counter.writes[mark:])
            if profiler is not None:
                profiler.dump_stats(args.profile)
                pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
            runner.stop()
            emitted = sum(
                len(json.loads(f.content)) for f in runner.get_flowfiles_for_relationship("merged")
            )
            assert not runner.get_flowfiles_for_relationship("failure")
        total = args.flowfiles * args.changes
        writes = sum(len(s) for s in per_trigger)
        print(f"incremental: {total:,} changes in {args.flowfiles} FlowFiles, {seconds:.2f} s; "
              f"{emitted:,} entities emitted; {writes:,} keyed-state writes")  # fmt: skip
        raw = raw_lmdb(root / "raw", per_trigger)
        ours = rate(total, seconds)
        limit = rate(total, raw)
        print(
            result_line(
                "merge entities incremental",
                fmt_rate(ours, "changes/s"),
                "raw LMDB commits of the same keys",
                fmt_rate(limit, "changes/s"),
                ours / limit,
            )
        )


if __name__ == "__main__":
    main()
