"""Benchmark: ConvertRecord, PartitionRecord and SplitRecord, records per second.

Each processor gets the same 100-record CSV FlowFiles as ``bench_merge_record`` (a header
line, six columns, one quoted value with a comma; 200,000 records by default) through an
input port of a Node on the durable repositories; its outputs go to a stopped funnel and
are counted. The figure is input records per second of
``DeterministicScheduler(node).run_until_idle()``, after an untimed warm-up run of a
few FlowFiles through a node of its own (first-use costs paid once per process).

* convert: CSVReader (header, inferred schema) -> JsonRecordSetWriter (a JSON array);
* partition: by ``/product`` (8 values, so about 8 FlowFiles out per FlowFile in), CSV out;
* split: Records Per Split 10 (10 FlowFiles out per FlowFile in), CSV out.

The limit is the strongest honest one measured in the same run with no engine, the
faster of: pyarrow parsing the contents as one buffer and writing every record once
(partition, split: the outputs' bytes less their header lines; SplitRecord writes its
outputs as cuts of one rendering, so writing each output on its own, the context figure
"per output", is no longer the bound); for convert, whose JSON pyarrow cannot write,
DuckDB reading the one buffer and writing JSON, against pyarrow's parse alone. Goal:
1,000,000 records/s.

    python -m benchmarks.bench_record_processors
    python -m benchmarks.bench_record_processors --processors split --records 20000 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

import processors.record
import processors.record_processors  # noqa: F401 - registers the processors
from benchmarks._common import gc_frozen, result_line
from benchmarks.bench_merge_record import GOAL, TMPFS, make_inputs, one_buffer, run_pyarrow
from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, EnqueueItem, Node
from flowcore.flow import parse_flow
from flowcore.settings import EngineSettings

PROCESSORS: dict[str, dict[str, Any]] = {
    "convert": {
        "type": "ConvertRecord",
        "properties": {"Record Reader": "reader", "Record Writer": "json"},
        "out": ["success"],
        "terminate": ["failure"],
    },
    "partition": {
        "type": "PartitionRecord",
        "properties": {"Record Reader": "reader", "Record Writer": "csv", "product": "/product"},
        "out": ["success"],
        "terminate": ["original", "failure"],
    },
    "split": {
        "type": "SplitRecord",
        "properties": {
            "Record Reader": "reader",
            "Record Writer": "csv",
            "Records Per Split": "10",
        },
        "out": ["splits"],
        "terminate": ["original", "failure"],
    },
}


WARM_UP_FLOWFILES = 100


def flow(name: str) -> dict[str, Any]:
    spec = PROCESSORS[name]
    return {
        "flow": {
            "name": f"bench-{name}-record",
            "input_ports": ["in"],
            "controller_services": {
                "reader": {
                    "type": "CSVReader",
                    "properties": {"Treat First Line as Header": "true"},
                },
                "csv": {"type": "CSVRecordSetWriter"},
                "json": {"type": "JsonRecordSetWriter"},
            },
            "processors": {
                "work": {
                    "type": spec["type"],
                    "properties": spec["properties"],
                    "auto_terminate": spec["terminate"],
                },
                "sink": {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]},
            },
            "connections": [
                {
                    "from": "in",
                    "to": "work",
                    "name": "incoming",
                    "back_pressure": {"object_threshold": 0},
                },
                {
                    "from": "work",
                    "relationships": spec["out"],
                    "to": "sink",
                    "name": "out",
                    "back_pressure": {"object_threshold": 0},
                },
            ],
        }
    }


def run_ours(data_dir: Path, name: str, inputs: list[bytes], profile: bool) -> tuple[float, int]:
    """Seconds to process everything; FlowFiles out."""
    node = Node.from_flow(EngineSettings(data_dir=data_dir), parse_flow(flow(name)), ManualClock())
    try:
        for start in range(0, len(inputs), 1000):
            node.enqueue(
                "in", [EnqueueItem(content, {}) for content in inputs[start : start + 1000]]
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
        out = node.connections["out"].queue.size
        if profiler is not None:
            stats = pstats.Stats(profiler)
            stats.sort_stats("cumulative").print_stats(30)
            stats.sort_stats("tottime").print_stats(25)
    finally:
        node.close()
    return elapsed, out


def _csv(records: pa.Table | pa.RecordBatch) -> bytes:
    out = pa.BufferOutputStream()
    pacsv.write_csv(records, out)
    return bytes(out.getvalue())


def _parse(buffer: bytes) -> pa.Table:
    return pacsv.read_csv(io.BytesIO(buffer))


def limit_partition(buffer: bytes, per_flowfile: int) -> int:
    """Parse once; per input FlowFile, one CSV content per product."""
    table = _parse(buffer)
    outputs = 0
    for start in range(0, table.num_rows, per_flowfile):
        part = table.slice(start, per_flowfile)
        products = part.column("product")
        for value in pc.unique(products).to_pylist():
            _csv(part.filter(pc.equal(products, value)))
            outputs += 1
    return outputs


def limit_split(buffer: bytes, per_flowfile: int, per_split: int = 10) -> int:
    """Parse once; per input FlowFile, one CSV content per 10 records."""
    table = _parse(buffer).combine_chunks()
    outputs = 0
    for start in range(0, table.num_rows, per_flowfile):
        part = table.slice(start, per_flowfile)
        for offset in range(0, part.num_rows, per_split):
            _csv(part.slice(offset, per_split))
            outputs += 1
    return outputs


def limit_convert_duckdb(directory: Path, buffer: bytes) -> int:
    """DuckDB: the one buffer (a file on tmpfs) read and written as JSON."""
    source = directory / "all.csv"
    source.write_bytes(buffer)
    out = directory / "out.json"
    connection = duckdb.connect()
    try:
        connection.execute(f"COPY (SELECT * FROM read_csv('{source}')) TO '{out}' (FORMAT JSON)")
    finally:
        connection.close()
    return 1


def best_limit(
    rounds: int, runs: dict[str, Callable[[], object]], prepare: Callable[[], None] | None = None
) -> dict[str, float]:
    best = {name: float("inf") for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            if prepare is not None:
                prepare()
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def bench(args: argparse.Namespace, name: str, root: Path) -> None:
    inputs = make_inputs(args.records, args.per_flowfile, args.seed, "csv")
    buffer = one_buffer(inputs, "csv")
    scratch = Path(tempfile.mkdtemp(prefix="limit-", dir=TMPFS if TMPFS.is_dir() else root))
    try:
        if name == "convert":
            runs: dict[str, Callable[[], object]] = {
                "pyarrow parse": lambda: _parse(buffer),
                "duckdb": lambda: limit_convert_duckdb(scratch, buffer),
            }
        elif name == "partition":
            runs = {
                "pyarrow one buffer": lambda: run_pyarrow(buffer, "csv"),
                "pyarrow per output": lambda: limit_partition(buffer, args.per_flowfile),
            }
        else:
            runs = {
                "pyarrow one buffer": lambda: run_pyarrow(buffer, "csv"),
                "pyarrow per output": lambda: limit_split(buffer, args.per_flowfile),
            }
        limits = best_limit(args.rounds, runs)
    finally:
        for path in scratch.iterdir():
            path.unlink()
        scratch.rmdir()
    # Warm-up, untimed, through a node of its own (first-use costs paid once per process).
    run_ours(root / f"warm-{name}", name, inputs[:WARM_UP_FLOWFILES], False)
    ours_s, out = run_ours(root / name, name, inputs, args.profile)
    best = min(limits, key=lambda each: limits[each])
    ours = args.records / ours_s
    limit = args.records / limits[best]
    print(
        f"({name}: {args.records:,} records in {len(inputs):,} FlowFiles, {out:,} FlowFiles "
        f"out; ours {ours_s:.2f} s; "
        + ", ".join(f"{each} {args.records / s:,.0f}/s" for each, s in limits.items())
        + ")"
    )
    print(
        result_line(
            f"{name} record",
            f"{ours:,.0f} records/s",
            best,
            f"{limit:,.0f} records/s",
            ours / limit,
            f">= {GOAL:,} records/s",
            ours >= GOAL,
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--per-flowfile", type=int, default=100)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3, help="best of, for the limits")
    parser.add_argument("--processors", default="convert,partition,split")
    parser.add_argument("--profile", action="store_true", help="cProfile our run")
    args = parser.parse_args(argv)
    pa.chunked_array([pa.array([1])])  # pyarrow's one-time imports (pandas), outside timing
    with tempfile.TemporaryDirectory(prefix="bench-record-processors-") as directory:
        for name in args.processors.split(","):
            bench(args, name.strip(), Path(directory))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
