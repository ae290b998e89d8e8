"""Benchmark: FlowFiles per second through a whole flow, beside the physical limit.

The flow, built with ``parse_flow`` and run by ``Node.from_flow``:

    GenerateFlowFile (File Size 1 KB, Batch Size 1000, max_runs N/1000)
      -> UpdateAttribute (seen = ${filename:toUpper()})
      -> PutFile (Directory in a temp dir, Conflict Resolution Strategy replace,
                  success and failure auto-terminated)

with provenance on (CREATE, ATTRIBUTES_MODIFIED, SEND and DROP per FlowFile) and
``durability=process``. Ours is timed from the first trigger until every FlowFile is
written out, every event is indexed in DuckDB (``node.index_provenance()``) and the node
is closed (which checkpoints both repositories), under two schedulers:

* ``DeterministicScheduler(node).run_until_idle()`` (one thread);
* ``ThreadedScheduler`` (``scheduler.threads`` workers, maintenance thread indexing
  provenance every second), stopped once the flow is idle.

The physical limit is the same persistent work done by the cheapest raw means, measured
in the same run and summed as a time:

* raw LMDB: N realistic FlowFile records (encoded beforehand) in 1,000-record write
  transactions, environment opened with the same flags;
* raw files: the same N x 1 KB written twice, as the flow writes them: appended to one
  file with one ``write`` per content (the content repository's job) and as N files of
  1 KB created in one directory (open/write/close, PutFile's output, without its
  temporary file and rename);
* raw DuckDB: one Arrow ``INSERT ... SELECT`` (plus close) of as many event rows as the
  run indexed, shaped like the flow's events, the Arrow table built beforehand.

Context lines: PutFile's own file calls on one thread with no engine; the ceiling of any
multi-process mode (``--processes``: independent nodes at once); and the GIL check, both
schedulers on the flow without PutFile (``--no-gil-check`` skips it), which shows how
much of the threaded scheduler's gap is left when no processor's file calls are there to
overlap.

Run: ``python -m benchmarks.bench_end_to_end [--flowfiles 100000] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from benchmarks import bench_flowfile_repo
from benchmarks._common import (
    KB,
    START_MS,
    event_rows,
    gc_frozen,
    realistic_records,
    result_line,
    sync_disks,
)
from flowcore.clock import SystemClock
from flowcore.engine import DeterministicScheduler, Node, ThreadedScheduler
from flowcore.flow import parse_flow
from flowcore.model.provenance import ContentRef, ProvenanceEvent
from flowcore.settings import EngineSettings
from repos.duckdb_provenance.schema import EVENT_COLUMNS
from repos.lmdb_flowfile import codec

GOAL_RATE = 20_000
BATCH = 1000
EVENTS_PER_FLOWFILE = 4


def flow_definition(flowfiles: int, out_dir: Path, *, put: bool = True) -> dict[str, Any]:
    """The benchmark's flow; without ``put``, UpdateAttribute's success is auto-terminated
    (two hops, no file written by a processor: the GIL check)."""
    processors: dict[str, Any] = {
        "generate": {
            "type": "GenerateFlowFile",
            "properties": {"File Size": "1 KB", "Batch Size": str(BATCH)},
            "schedule": {"max_runs": flowfiles // BATCH},
        },
        "update": {
            "type": "UpdateAttribute",
            "properties": {"seen": "${filename:toUpper()}"},
        },
    }
    connections = [{"from": "generate", "relationships": ["success"], "to": "update"}]
    if put:
        processors["put"] = {
            "type": "PutFile",
            "properties": {"Directory": str(out_dir), "Conflict Resolution Strategy": "replace"},
            "auto_terminate": ["success", "failure"],
        }
        connections.append({"from": "update", "relationships": ["success"], "to": "put"})
    else:
        processors["update"]["auto_terminate"] = ["success"]
    return {
        "flow": {"name": "bench-end-to-end", "processors": processors, "connections": connections}
    }


@dataclass(frozen=True, slots=True)
class FlowRun:
    seconds: float
    files: int
    events: int


def _open_node(work: Path, flowfiles: int, put: bool = True) -> tuple[Node, Path]:
    out_dir = work / "out"
    settings = EngineSettings.model_validate({"data_dir": work / "data", "durability": "process"})
    definition = parse_flow(flow_definition(flowfiles, out_dir, put=put))
    node = Node.from_flow(settings, definition, SystemClock())
    return node, out_dir


def _files(out_dir: Path) -> int:
    return sum(1 for _ in os.scandir(out_dir)) if out_dir.exists() else 0


def _finish(node: Node, started: float) -> tuple[float, int]:
    """Index what is left and close, timed; the indexed event count (not timed)."""
    node.index_provenance()
    seconds = time.perf_counter() - started
    events = node.provenance.event_count()
    closing = time.perf_counter()
    node.close()
    return seconds + time.perf_counter() - closing, events


def run_deterministic(work: Path, flowfiles: int, put: bool = True) -> FlowRun:
    node, out_dir = _open_node(work, flowfiles, put)
    try:
        sync_disks()
        started = time.perf_counter()
        DeterministicScheduler(node).run_until_idle()
        seconds, events = _finish(node, started)
    finally:
        node.close()
    return FlowRun(seconds, _files(out_dir), events)


def run_threaded(work: Path, flowfiles: int, put: bool = True) -> FlowRun:
    node, out_dir = _open_node(work, flowfiles, put)
    generate = node.processors["generate"]
    runs = flowfiles // BATCH
    try:
        sync_disks()
        started = time.perf_counter()
        scheduler = ThreadedScheduler(node)
        scheduler.start()
        try:
            while True:
                time.sleep(0.005)
                if (
                    generate.runs >= runs
                    and all(c.queue.size == 0 for c in node.connections.values())
                    and scheduler.is_idle()
                ):
                    break
        finally:
            scheduler.stop()
        seconds, events = _finish(node, started)
    finally:
        node.close()
    return FlowRun(seconds, _files(out_dir), events)


def _independent_node(work: str, flowfiles: int, barrier: Any, results: Any) -> None:
    """One node of ``run_independent``, in its own process: opened before the barrier,
    run once every node is ready; puts when it finished (``time.monotonic``, one clock
    for every process), the files written and the events indexed."""
    node, out_dir = _open_node(Path(work), flowfiles)
    try:
        barrier.wait()
        DeterministicScheduler(node).run_until_idle()
        node.index_provenance()
        events = node.provenance.event_count()
    finally:
        node.close()
    results.put((time.monotonic(), sum(1 for _ in os.scandir(out_dir)), events))


def run_independent(work: Path, flowfiles: int, processes: int) -> FlowRun:
    """The flow on ``processes`` nodes at once, each in a process of its own with its own
    repositories and an equal share of the FlowFiles: the most any mode that runs one
    flow in several processes (a process per processor group over one LMDB environment,
    say) could reach on this machine, with nothing shared and nothing handed over."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(processes + 1)
    results = context.Queue()
    share = flowfiles // processes
    children = [
        context.Process(
            target=_independent_node, args=(str(work / f"node-{n}"), share, barrier, results)
        )
        for n in range(processes)
    ]
    for child in children:
        child.start()
    try:
        barrier.wait(timeout=300)
        started = time.monotonic()
        finished = [results.get(timeout=600) for _ in children]
    finally:
        for child in children:
            child.join(timeout=60)
    return FlowRun(
        max(end for end, _, _ in finished) - started,
        sum(files for _, files, _ in finished),
        sum(events for _, _, events in finished),
    )


# -- the physical limit -------------------------------------------------------------------


def flow_events(flowfiles: int) -> list[ProvenanceEvent]:
    """Events shaped like the flow's: CREATE, ATTRIBUTES_MODIFIED, SEND, DROP per FlowFile."""
    events: list[ProvenanceEvent] = []
    event_id = 0
    for n in range(flowfiles):
        flowfile_uuid = str(uuid.UUID(int=n * 7919 + 1, version=4))
        now = START_MS + n // 100
        base = {"uuid": flowfile_uuid, "filename": flowfile_uuid, "path": "./"}
        seen = {**base, "seen": flowfile_uuid.upper()}
        content = ContentRef("0", str(n // 50 % 1024), f"{START_MS}-{n // 50}", n % 50 * KB, KB)
        common: dict[str, Any] = {
            "event_time": now,
            "flowfile_uuid": flowfile_uuid,
            "entry_date": now,
            "lineage_start_date": now,
            "current_content": content,
            "size": KB,
        }
        for fields in (
            {
                "event_type": "CREATE",
                "component_id": "generate",
                "component_type": "GenerateFlowFile",
                "updated_attributes": dict(base),
            },
            {
                "event_type": "ATTRIBUTES_MODIFIED",
                "component_id": "update",
                "component_type": "UpdateAttribute",
                "previous_attributes": base,
                "updated_attributes": {"seen": seen["seen"]},
                "previous_content": content,
                "source_queue_id": "generate.success->update",
            },
            {
                "event_type": "SEND",
                "component_id": "put",
                "component_type": "PutFile",
                "previous_attributes": seen,
                "previous_content": content,
                "transit_uri": f"file:///tmp/out/{flowfile_uuid}",
                "source_queue_id": "update.success->put",
            },
            {
                "event_type": "DROP",
                "component_id": "put",
                "component_type": "PutFile",
                "previous_attributes": seen,
                "previous_content": content,
                "details": "Auto-Terminated by success Relationship",
                "source_queue_id": "update.success->put",
            },
        ):
            events.append(ProvenanceEvent(event_id=event_id, **common, **fields))
            event_id += 1
    return events


def raw_duckdb(work: Path, table: pa.Table) -> float:
    """One Arrow insert of ``table`` into a plain table, and the close (as bench_provenance)."""
    raw = duckdb.connect(str(work / "raw.duckdb"))
    columns = ", ".join(f"{c.name} {c.sql_type}" for c in EVENT_COLUMNS)
    raw.execute(f"CREATE TABLE plain ({columns})")
    raw.register("arrow_rows", table)
    sync_disks()
    started = time.perf_counter()
    raw.execute("INSERT INTO plain SELECT * FROM arrow_rows")
    raw.close()
    return time.perf_counter() - started


def raw_append(work: Path, payload: bytes, count: int) -> float:
    sync_disks()
    started = time.perf_counter()
    with open(work / "append.bin", "ab", buffering=0) as file:
        for _ in range(count):
            file.write(payload)
    return time.perf_counter() - started


def raw_files(work: Path, payload: bytes, names: list[str]) -> float:
    directory = work / "files"
    directory.mkdir()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    sync_disks()
    started = time.perf_counter()
    for name in names:
        descriptor = os.open(os.path.join(directory, name), flags, 0o644)
        try:
            os.write(descriptor, payload)
        finally:
            os.close(descriptor)
    return time.perf_counter() - started


def raw_delivery(work: Path, payload: bytes, names: list[str]) -> float:
    """The file calls PutFile must make per FlowFile, with no engine: the target looked
    up (the conflict check), a temporary file created exclusively, written and closed,
    then renamed over the target (NiFi writes a dot file and renames it)."""
    directory = work / "delivered"
    directory.mkdir()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
    join = os.path.join
    sync_disks()
    started = time.perf_counter()
    for name in names:
        target = join(directory, name)
        temporary = join(directory, f".flowcore-{name}.partial")
        try:
            os.lstat(target)
        except FileNotFoundError:
            pass
        descriptor = os.open(temporary, flags, 0o666)
        try:
            os.write(descriptor, payload)
        finally:
            os.close(descriptor)
        os.replace(temporary, target)
    return time.perf_counter() - started


@dataclass(frozen=True, slots=True)
class LimitParts:
    lmdb: float
    append: float
    files: float
    duckdb: float
    delivery: float  # context: PutFile's own file calls (not part of the limit)

    @property
    def total(self) -> float:
        return self.lmdb + self.append + self.files + self.duckdb


def _fresh(base: Path, run: Callable[[Path], float]) -> float:
    work = Path(tempfile.mkdtemp(prefix="e2e-raw-", dir=base))
    try:
        return run(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure_limit(base: Path, flowfiles: int, events: int, rounds: int) -> LimitParts:
    records = realistic_records("generate.success->update", 0, flowfiles)
    encoded = [(codec.id_key(r.flowfile.id), codec.encode(r)) for r in records]
    batches = [encoded[start : start + BATCH] for start in range(0, len(encoded), BATCH)]
    del records
    table = event_rows(flow_events(max(1, events // EVENTS_PER_FLOWFILE)))
    if table.num_rows < events:  # pad to the exact count the run indexed
        table = pa.concat_tables([table, table.slice(0, events - table.num_rows)])
    table = table.slice(0, events)
    payload = os.urandom(KB)
    names = [str(uuid.uuid4()) for _ in range(flowfiles)]
    best = LimitParts(*(float("inf"),) * 5)
    with gc_frozen():
        for _ in range(rounds):
            best = LimitParts(
                min(
                    best.lmdb,
                    _fresh(base, lambda d: bench_flowfile_repo.run_raw(d, batches, "process")),
                ),
                min(best.append, _fresh(base, lambda d: raw_append(d, payload, flowfiles))),
                min(best.files, _fresh(base, lambda d: raw_files(d, payload, names))),
                min(best.duckdb, _fresh(base, lambda d: raw_duckdb(d, table))),
                min(best.delivery, _fresh(base, lambda d: raw_delivery(d, payload, names))),
            )
    return best


# -- main ---------------------------------------------------------------------------------


def _without_put(run: Callable[[Path, int, bool], FlowRun]) -> Callable[[Path, int], FlowRun]:
    return lambda work, flowfiles: run(work, flowfiles, False)


def _best_run(
    base: Path,
    flowfiles: int,
    rounds: int,
    run: Callable[[Path, int], FlowRun],
    expected_files: int | None = None,
) -> FlowRun:
    best: FlowRun | None = None
    for _ in range(rounds):
        work = Path(tempfile.mkdtemp(prefix="e2e-", dir=base))
        try:
            result = run(work, flowfiles)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        expected = flowfiles if expected_files is None else expected_files
        if result.files != expected:
            msg = f"the flow wrote {result.files} files, expected {expected}"
            raise RuntimeError(msg)
        if best is None or result.seconds < best.seconds:
            best = result
    assert best is not None
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flowfiles", type=int, default=100_000, help="multiple of 1000")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each; best kept")
    parser.add_argument(
        "--threaded-rounds", type=int, default=None, help="rounds of the threaded variant"
    )
    parser.add_argument(
        "--threaded",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also run the flow under the ThreadedScheduler",
    )
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: temp)")
    parser.add_argument(
        "--processes",
        type=int,
        default=2,
        help="independent nodes run at once for the multi-process ceiling (0: skip)",
    )
    parser.add_argument(
        "--gil-check",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also run both schedulers on the flow without PutFile (no file calls to overlap)",
    )
    args = parser.parse_args(argv)
    flowfiles = max(BATCH * max(1, args.processes), args.flowfiles // BATCH * BATCH)
    if args.processes > 1:  # each node's share a whole number of GenerateFlowFile runs
        flowfiles = flowfiles // (BATCH * args.processes) * BATCH * args.processes
    threaded_rounds = args.threaded_rounds or args.rounds
    base = Path(tempfile.mkdtemp(prefix="flowcore-bench-e2e-", dir=args.dir))
    print(f"flowfiles={flowfiles:,} rounds={args.rounds} dir={base}")
    try:
        ours = _best_run(base, flowfiles, args.rounds, run_deterministic)
        threaded = None
        if args.threaded:
            threaded = _best_run(base, flowfiles, threaded_rounds, run_threaded)
        independent = None
        if args.processes > 1:
            independent = _best_run(
                base,
                flowfiles,
                threaded_rounds,
                lambda work, count: run_independent(work, count, args.processes),
            )
        gil_check: tuple[FlowRun, FlowRun] | None = None
        if args.gil_check and args.threaded:
            gil_check = (
                _best_run(base, flowfiles, args.rounds, _without_put(run_deterministic), 0),
                _best_run(base, flowfiles, threaded_rounds, _without_put(run_threaded), 0),
            )
        limit = measure_limit(base, flowfiles, ours.events, args.rounds)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    limit_rate = flowfiles / limit.total
    goal = f">= {GOAL_RATE:,} FlowFiles/s"
    for label, run in (("deterministic", ours), ("threaded", threaded)):
        if run is None:
            continue
        rate = flowfiles / run.seconds
        print(
            result_line(
                f"end to end {label}",
                f"{rate:,.0f} FlowFiles/s",
                "raw limit",
                f"{limit_rate:,.0f} FlowFiles/s",
                rate / limit_rate,
                goal,
                rate >= GOAL_RATE,
            )
        )
        print(
            f"  ({flowfiles:,} FlowFiles in {run.seconds:.2f} s, {run.events:,} events indexed, "
            f"best of {args.rounds if label == 'deterministic' else threaded_rounds})"
        )
    print(
        f"  raw limit {limit.total:.2f} s = LMDB {flowfiles:,} records in 1,000-record txns "
        f"{limit.lmdb:.2f} s + append {flowfiles:,} x 1 KB {limit.append:.2f} s + "
        f"{flowfiles:,} files of 1 KB {limit.files:.2f} s + DuckDB Arrow insert of "
        f"{ours.events:,} rows {limit.duckdb:.2f} s"
    )
    without_files = limit.lmdb + limit.append + limit.duckdb
    print(
        f"  raw limit without the N output files: {flowfiles / without_files:,.0f} FlowFiles/s; "
        f"creating files here: {flowfiles / limit.files:,.0f} files/s"
    )
    # DuckDB inserts on the provenance repository's own thread, beside the flow's thread.
    floor = limit.lmdb + limit.append + limit.delivery
    budget = 1e6 / GOAL_RATE - floor / flowfiles * 1e6
    print(
        f"  one thread, PutFile's own file calls (lookup, temporary file, write, close, "
        f"rename) {limit.delivery / flowfiles * 1e6:.1f} us per FlowFile; with the LMDB and "
        f"append parts, the flow thread's floor is {flowfiles / floor:,.0f} FlowFiles/s "
        f"(DuckDB inserts on its own thread), which leaves {budget:.1f} us per FlowFile "
        f"at the goal for all Python work: three hops, four events, their indexing"
    )
    if gil_check is not None:
        alone, shared = (flowfiles / run.seconds for run in gil_check)
        print(
            f"  GIL check, the flow without PutFile (two hops, no file written by a processor): "
            f"deterministic {alone:,.0f} FlowFiles/s, threaded {shared:,.0f} FlowFiles/s "
            f"(threaded / deterministic {shared / alone:.2f}; with nothing left to overlap "
            f"but the repositories' own calls, worker threads only hand the GIL over)"
        )
    if independent is not None:
        rate = flowfiles / independent.seconds
        print(
            f"  ceiling of any multi-process mode: {args.processes} independent nodes at once "
            f"(spawned processes, own repositories, {flowfiles // args.processes:,} FlowFiles "
            f"each) {rate:,.0f} FlowFiles/s together ({rate / limit_rate:.2f} of the raw "
            f"limit; goal {GOAL_RATE:,}: {'reached' if rate >= GOAL_RATE else 'not reached'} "
            f"even with nothing handed between processes)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
