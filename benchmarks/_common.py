"""Helpers shared by the benchmarks: best-of rounds, realistic FlowFiles, result lines.

Every benchmark prints its headline figures as one line each, in the form

    ``<name>: ours <figure> | <limit label> <figure> | ratio <r> | goal <goal>: met``

``benchmarks.__main__`` parses exactly these lines to build its summary table, so the
form is part of the interface (the colleagues' ``bench_content`` and ``bench_provenance``
print the same form without the goal part).
"""

from __future__ import annotations

import gc
import os
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import duckdb
import pyarrow as pa

from flowcore.model.flowfile import ContentClaim, FlowFile, ResourceClaim
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository.flowfile import QueuedFlowFile
from repos.duckdb_provenance.arrow_batch import build_batch
from repos.duckdb_provenance.schema import (
    CATALOG,
    CREATE_STATEMENTS,
    EVENTS_TABLE,
    INSERT_EVENTS_FROM_JSON,
)

KB = 1024
START_MS = 1_700_000_000_000
CLAIM_SIZE = 50 * KB  # the content repository's default max appendable size
# Spreads consecutive ids over the 128-bit space (an odd multiplier is a bijection).
_UUID_MULTIPLIER = 0x9E3779B97F4A7C15F39CC0605CEDC835
_UUID_MASK = (1 << 128) - 1


def rate(count: float, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def fmt_rate(value: float, unit: str) -> str:
    return f"{value:,.0f} {unit}"


def result_line(
    name: str,
    ours: str,
    limit_label: str,
    limit: str,
    ratio: float,
    goal: str | None = None,
    met: bool | None = None,
) -> str:
    """The one-line form ``benchmarks.__main__`` parses (see the module docstring)."""
    line = f"{name}: ours {ours} | {limit_label} {limit} | ratio {ratio:.2f}"
    if goal is not None:
        line += f" | goal {goal}: {'met' if met else 'MISSED'}"
    return line


def sync_disks() -> None:
    """Flush dirty pages so that no run inherits the previous run's writeback."""
    os.sync()


@contextmanager
def gc_frozen() -> Iterator[None]:
    """Keep pre-built benchmark inputs out of the collector's generations while timing.

    The inputs stand in for data a real node receives over time; without this the
    collector would rescan hundreds of thousands of pre-built objects on every pass,
    a cost that neither side of the comparison would pay in production.
    """
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def best_of(rounds: int, runs: dict[str, Callable[[], float]]) -> dict[str, float]:
    """Shortest seconds of each run over ``rounds`` rounds, the order alternating."""
    best = {name: float("inf") for name in runs}
    for number in range(rounds):
        names = list(runs) if number % 2 == 0 else list(reversed(runs))
        for name in names:
            best[name] = min(best[name], runs[name]())
    return best


def realistic_flowfile(flowfile_id: int, size: int = KB, now_ms: int = START_MS) -> FlowFile:
    """A FlowFile as GenerateFlowFile + a few processors leave it: 6 attributes, a claim.

    Contents of ``size`` bytes are packed into 50 KB resource claims, as the content
    repository packs them, so that neighbouring FlowFiles share a resource claim.
    """
    per_claim = max(1, CLAIM_SIZE // max(size, 1))
    claim_number = flowfile_id // per_claim
    resource = ResourceClaim("0", str(claim_number % 1024), f"{now_ms}-{claim_number}")
    scrambled = ((flowfile_id + 1) * _UUID_MULTIPLIER) & _UUID_MASK
    flowfile_uuid = str(uuid.UUID(int=scrambled, version=4))
    return FlowFile(
        id=flowfile_id,
        attributes={
            "uuid": flowfile_uuid,
            "filename": flowfile_uuid,
            "path": "./",
            "mime.type": "application/octet-stream",
            "source.system": "bench-generator",
            "record.index": str(flowfile_id),
        },
        claim=ContentClaim(resource, (flowfile_id % per_claim) * size, size),
        claim_offset=0,
        size=size,
        entry_date=now_ms + flowfile_id // 1000,
        lineage_start_date=now_ms + flowfile_id // 1000,
    )


def realistic_records(queue: str, first_id: int, count: int) -> list[QueuedFlowFile]:
    """``count`` queued FlowFiles with consecutive ids and sequence numbers."""
    return [
        QueuedFlowFile(queue, seq, realistic_flowfile(seq))
        for seq in range(first_id, first_id + count)
    ]


class Stopwatch:
    """``with Stopwatch() as sw: ...`` then ``sw.seconds``."""

    seconds: float = 0.0

    def __enter__(self) -> Stopwatch:
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start


def event_rows(events: Sequence[ProvenanceEvent]) -> pa.Table:
    """The provenance store's event rows of ``events`` as a columnar Arrow table (one
    column per event column), for a raw-insert limit: built outside any timing, by
    DuckDB from the same JSON the store takes, in an in-memory database."""
    connection = duckdb.connect()
    try:
        connection.execute(f"ATTACH ':memory:' AS {CATALOG}")
        connection.execute(CREATE_STATEMENTS[0])  # the events table
        connection.register("pending_events", build_batch(events, 1 << 30).events)
        connection.execute(INSERT_EVENTS_FROM_JSON)
        table: pa.Table = connection.sql(
            f"SELECT * FROM {EVENTS_TABLE} ORDER BY event_id"
        ).to_arrow_table()
    finally:
        connection.close()
    return table
