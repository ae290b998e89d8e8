"""Benchmark of the DuckDB provenance repository: indexing rate and lineage latency.

Two figures, each beside the goal it is held to:

- indexing: events per second through ``index_pending`` from an in-memory journal of
  pre-built events, next to a raw DuckDB insert of the same rows (the Arrow table built
  beforehand, one ``INSERT ... SELECT`` into a plain table without index) in the same
  run; goal: ratio >= 0.5;
- lineage: median milliseconds of ``lineage(uuid)`` over random FlowFiles in a
  repository of a million events; goal: < 50 ms.

The synthetic flow interleaves many concurrent lineages the way a busy flow does:
RECEIVE, ATTRIBUTES_MODIFIED, FORK into three, per child CONTENT_MODIFIED and ROUTE,
sometimes a CLONE, a JOIN of two children, a REPLAY, then SEND and DROP.

Run: ``python -m benchmarks.bench_provenance [--events N] [--lineage-events M]``.
"""

from __future__ import annotations

import argparse
import bisect
import gc
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pyarrow as pa

from benchmarks._common import event_rows
from flowcore.clock import SystemClock
from flowcore.model.provenance import ContentRef, ProvenanceEvent
from flowcore.settings import EngineSettings, ProvenanceRepositorySettings
from repos.duckdb_provenance import DuckDbProvenanceRepository
from repos.duckdb_provenance.schema import EVENT_COLUMNS

_START_MS = 1_700_000_000_000


class ListJournal:
    """A journal over a list of events sorted by id (trimming only moves a start index)."""

    def __init__(self, events: list[ProvenanceEvent]) -> None:
        self._events = events
        self._ids = [event.event_id for event in events]
        self._start = 0

    def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
        first = max(self._start, bisect.bisect_right(self._ids, after_event_id))
        return self._events[first : first + limit]

    def trim_journal(self, through_event_id: int) -> int:
        end = bisect.bisect_right(self._ids, through_event_id)
        trimmed = max(0, end - self._start)
        self._start = max(self._start, end)
        return trimmed


class StreamJournal:
    """A journal that makes events as they are read, for stores too big to pre-build."""

    def __init__(self, events: Iterator[ProvenanceEvent]) -> None:
        self._events = events
        self._pending: list[ProvenanceEvent] = []

    def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
        self._pending = [e for e in self._pending if e.event_id > after_event_id]
        while len(self._pending) < limit:
            event = next(self._events, None)
            if event is None:
                break
            self._pending.append(event)
        return self._pending[:limit]

    def trim_journal(self, through_event_id: int) -> int:
        before = len(self._pending)
        self._pending = [e for e in self._pending if e.event_id > through_event_id]
        return before - len(self._pending)


class _Lineage:
    """One source FlowFile's story, told one event at a time."""

    def __init__(self, rng: random.Random, serial: int) -> None:
        self.rng = rng
        self.serial = serial
        self.steps = self._steps()

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _attributes(self, flowfile_uuid: str, filename: str) -> dict[str, str]:
        return {
            "uuid": flowfile_uuid,
            "filename": filename,
            "path": "./in/",
            "mime.type": "application/json",
            "kafka.topic": "orders",
            "kafka.partition": str(self.serial % 12),
            "kafka.offset": str(self.serial),
            "record.count": "100",
        }

    def _content(self, size: int) -> ContentRef:
        return ContentRef("default", str(self.serial % 1024), f"{self.serial}-claim", 0, size)

    def _steps(self) -> Iterator[dict[str, object]]:
        source = self._uuid()
        name = f"orders-{self.serial}.json"
        attrs = self._attributes(source, name)
        content = self._content(4096)
        yield {
            "event_type": "RECEIVE",
            "flowfile_uuid": source,
            "component_id": "consume-kafka",
            "component_type": "ConsumeKafka",
            "updated_attributes": dict(attrs),
            "current_content": content,
            "transit_uri": "kafka://broker:9092/orders",
            "size": 4096,
        }
        yield {
            "event_type": "ATTRIBUTES_MODIFIED",
            "flowfile_uuid": source,
            "component_id": "update-attribute",
            "component_type": "UpdateAttribute",
            "previous_attributes": dict(attrs),
            "updated_attributes": {"schema.name": "order"},
            "previous_content": content,
            "current_content": content,
            "size": 4096,
        }
        attrs["schema.name"] = "order"
        children = [self._uuid() for _ in range(3)]
        yield {
            "event_type": "FORK",
            "flowfile_uuid": source,
            "component_id": "split-json",
            "component_type": "SplitJson",
            "parent_uuids": [source],
            "child_uuids": list(children),
            "previous_attributes": dict(attrs),
            "previous_content": content,
            "current_content": content,
            "details": "split into 3",
            "size": 4096,
        }
        yield {
            "event_type": "DROP",
            "flowfile_uuid": source,
            "component_id": "split-json",
            "component_type": "SplitJson",
            "previous_attributes": dict(attrs),
            "details": "Auto-Terminated by original Relationship",
            "size": 4096,
        }
        for index, child in enumerate(children):
            child_attrs = {**attrs, "uuid": child, "fragment.index": str(index)}
            yield {
                "event_type": "CONTENT_MODIFIED",
                "flowfile_uuid": child,
                "component_id": "jolt",
                "component_type": "JoltTransformJSON",
                "previous_attributes": dict(child_attrs),
                "previous_content": self._content(1365),
                "current_content": self._content(1200),
                "size": 1200,
            }
            yield {
                "event_type": "ROUTE",
                "flowfile_uuid": child,
                "component_id": "route-on-attribute",
                "component_type": "RouteOnAttribute",
                "previous_attributes": dict(child_attrs),
                "relationship": "matched" if index < 2 else "unmatched",
                "size": 1200,
            }
        if self.rng.random() < 0.3:
            clone = self._uuid()
            yield {
                "event_type": "CLONE",
                "flowfile_uuid": children[2],
                "component_id": "route-on-attribute",
                "component_type": "RouteOnAttribute",
                "parent_uuids": [children[2]],
                "child_uuids": [clone],
                "previous_attributes": {**attrs, "uuid": children[2]},
                "size": 1200,
            }
            yield {
                "event_type": "DROP",
                "flowfile_uuid": clone,
                "component_id": "log-attribute",
                "component_type": "LogAttribute",
                "previous_attributes": {**attrs, "uuid": clone},
                "size": 1200,
            }
        merged = self._uuid()
        yield {
            "event_type": "JOIN",
            "flowfile_uuid": merged,
            "component_id": "merge-content",
            "component_type": "MergeContent",
            "parent_uuids": children[:2],
            "child_uuids": [merged],
            "updated_attributes": {**attrs, "uuid": merged, "merge.count": "2"},
            "current_content": self._content(2400),
            "details": "Merged 2 FlowFiles",
            "size": 2400,
        }
        for child in children[:2]:
            yield {
                "event_type": "DROP",
                "flowfile_uuid": child,
                "component_id": "merge-content",
                "component_type": "MergeContent",
                "previous_attributes": {**attrs, "uuid": child},
                "details": "Merged into " + merged,
                "size": 1200,
            }
        yield {
            "event_type": "SEND",
            "flowfile_uuid": merged,
            "component_id": "put-s3",
            "component_type": "PutS3Object",
            "previous_attributes": {**attrs, "uuid": merged},
            "transit_uri": f"s3://bucket/orders/{name}",
            "size": 2400,
        }
        if self.rng.random() < 0.1:
            replay = self._uuid()
            yield {
                "event_type": "REPLAY",
                "flowfile_uuid": merged,
                "component_id": "put-s3",
                "component_type": "PutS3Object",
                "parent_uuids": [merged],
                "child_uuids": [replay],
                "previous_attributes": {**attrs, "uuid": merged},
                "size": 2400,
            }
            yield {
                "event_type": "SEND",
                "flowfile_uuid": replay,
                "component_id": "put-s3",
                "component_type": "PutS3Object",
                "previous_attributes": {**attrs, "uuid": replay, "flowfile.replay": "true"},
                "transit_uri": f"s3://bucket/orders/{name}",
                "size": 2400,
            }
        for flowfile in (merged, children[2]):
            yield {
                "event_type": "DROP",
                "flowfile_uuid": flowfile,
                "component_id": "put-s3",
                "component_type": "PutS3Object",
                "previous_attributes": {**attrs, "uuid": flowfile},
                "size": 2400,
            }


def synthetic_events(count: int, seed: int = 7, concurrent: int = 200) -> Iterator[ProvenanceEvent]:
    """``count`` events of ``concurrent`` interleaved lineages, ids 0..count-1."""
    rng = random.Random(seed)
    active = [_Lineage(rng, serial) for serial in range(concurrent)]
    serial = concurrent
    now = _START_MS
    for event_id in range(count):
        slot = rng.randrange(concurrent)
        fields = next(active[slot].steps, None)
        while fields is None:
            active[slot] = _Lineage(rng, serial)
            serial += 1
            fields = next(active[slot].steps, None)
        if event_id % 4 == 0:
            now += 1
        yield ProvenanceEvent(
            event_id=event_id,
            event_time=now,
            entry_date=now,
            lineage_start_date=now,
            **fields,  # type: ignore[arg-type]
        )


def _settings(data_dir: Path, batch_size: int) -> EngineSettings:
    return EngineSettings(
        data_dir=data_dir,
        provenance=ProvenanceRepositorySettings(index_batch_size=batch_size),
    )


def _index_once(prebuilt: list[ProvenanceEvent], batch_size: int, directory: Path) -> float:
    """Seconds to index ``prebuilt`` and close (the close checkpoints the last rows)."""
    repository = DuckDbProvenanceRepository(
        _settings(directory, batch_size), SystemClock(), ListJournal(prebuilt)
    )
    started = time.perf_counter()
    indexed = repository.index_pending()
    repository.close()
    seconds = time.perf_counter() - started
    assert indexed == len(prebuilt), f"indexed {indexed} of {len(prebuilt)}"
    return seconds


def _raw_insert_once(table: pa.Table, path: Path) -> float:
    """Seconds for one Arrow insert of ``table`` into a plain table, and the close."""
    raw = duckdb.connect(str(path))
    columns = ", ".join(f"{c.name} {c.sql_type}" for c in EVENT_COLUMNS)
    raw.execute(f"CREATE TABLE plain ({columns})")
    raw.register("arrow_rows", table)
    started = time.perf_counter()
    raw.execute("INSERT INTO plain SELECT * FROM arrow_rows")
    raw.close()
    return time.perf_counter() - started


def bench_index(events: int, batch_size: int, repeats: int, work: Path) -> None:
    prebuilt = list(synthetic_events(events))
    table = event_rows(prebuilt)
    # The pre-built events stand in for a journal kept outside the Python heap: keep the
    # garbage collector from rescanning them for every batch.
    gc.collect()
    gc.freeze()
    try:
        ours = min(
            _index_once(prebuilt, batch_size, work / f"ours-{run}") for run in range(repeats)
        )
        raw = min(_raw_insert_once(table, work / f"raw-{run}.duckdb") for run in range(repeats))
    finally:
        gc.unfreeze()
    ours_rate = events / ours
    raw_rate = events / raw
    print(
        f"provenance index: ours {ours_rate:,.0f} events/s | "
        f"raw duckdb arrow insert {raw_rate:,.0f} rows/s | ratio {ours_rate / raw_rate:.2f}"
    )
    print(
        f"  ({events:,} events, index batch {batch_size:,}, best of {repeats}; ours = "
        "index_pending + close, raw = one INSERT of the pre-built Arrow table + close; "
        "goal ratio >= 0.5)"
    )


def bench_lineage(events: int, samples: int, work: Path) -> None:
    repository = DuckDbProvenanceRepository(
        _settings(work / "lineage", 100_000), SystemClock(), StreamJournal(synthetic_events(events))
    )
    started = time.perf_counter()
    repository.index_pending()
    build_seconds = time.perf_counter() - started
    rng = random.Random(11)
    picks = rng.sample(range(events), samples)
    timings: list[float] = []
    sizes: list[int] = []
    for event_id in picks:
        event = repository.get_event(event_id)
        assert event is not None
        started = time.perf_counter()
        graph = repository.lineage(event.flowfile_uuid)
        timings.append((time.perf_counter() - started) * 1000)
        sizes.append(len(graph.nodes))
    repository.close()
    print(
        f"provenance lineage: median {statistics.median(timings):.1f} ms | "
        f"p90 {statistics.quantiles(timings, n=10)[-1]:.1f} ms | "
        f"max {max(timings):.1f} ms over {samples} random FlowFiles "
        f"(median {statistics.median(sizes):.0f} nodes) in {events:,} events "
        f"(built in {build_seconds:.1f} s; goal median < 50 ms)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000, help="events for the index run")
    parser.add_argument(
        "--lineage-events", type=int, default=1_000_000, help="events in the lineage store"
    )
    parser.add_argument("--batch-size", type=int, default=10_000, help="index batch size")
    parser.add_argument("--samples", type=int, default=50, help="lineage look-ups to time")
    parser.add_argument("--repeats", type=int, default=3, help="index runs; the best counts")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-provenance-") as tmp:
        work = Path(tmp)
        bench_index(args.events, args.batch_size, args.repeats, work)
        bench_lineage(args.lineage_events, args.samples, work)


if __name__ == "__main__":
    main()
