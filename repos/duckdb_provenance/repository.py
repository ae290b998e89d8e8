"""The provenance repository on DuckDB: batch indexing from the journal, search, lineage.

Events reach DuckDB only through ``index_pending``. Each batch read from the journal
becomes one Arrow table of JSON texts (``arrow_batch.py``), parsed by DuckDB into the
event rows (and their uuid index rows) in a DuckDB transaction that also moves
``provenance_meta.indexed_through``; the journal is trimmed only after that commit. A
transaction holds one batch, or several consecutive ones when a large backlog is pending
(see ``indexing.py``). A crash between the commit and the trim leaves events in the
journal that DuckDB already holds: the trim is redone when the repository opens, and an
event at or below ``indexed_through`` is never stored again, so nothing is lost or
stored twice.

Indexing overlaps two stages: while one batch is inserted and committed on the
repository's indexing thread (DuckDB releases the GIL), the calling thread reads and
builds the next ones. Reading ahead is safe because the journal is read by id and only
trimmed through ids that are committed. ``index_pending(wait=False)`` returns while the
last transaction is still being stored: a scheduler between passes gets on with the flow
while DuckDB inserts and commits (without the GIL); the next call, or any other writer
(age-off, close), first waits for it and trims the journal after its commit.

Threads: one lock serialises the writers (indexing, age-off, close); readers use cursors
of their own and never wait for a batch being indexed, except that a transaction left in
the background by ``index_pending(wait=False)`` is finished before a read.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from typing import ClassVar

import duckdb

from flowcore.clock import Clock
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository.lineage import LineageEvent, build_graph, collect_lineage
from flowcore.repository.provenance import (
    LineageGraph,
    ProvenanceJournal,
    ProvenanceQuery,
    ProvenanceRepository,
)
from flowcore.settings import EngineSettings
from flowcore.units import parse_data_size, parse_time_period_ms
from repos.duckdb_provenance.age_off import age_off_by_size, age_off_by_time
from repos.duckdb_provenance.identity import DuckDbIdentity, open_store
from repos.duckdb_provenance.indexing import IndexingPlan, IndexRun
from repos.duckdb_provenance.query import compile_search
from repos.duckdb_provenance.rows import event_from_row
from repos.duckdb_provenance.schema import (
    EVENTS_TABLE,
    SELECT_EVENT_COLUMNS,
    UUIDS_TABLE,
    uuid_key_sql,
)
from repos.duckdb_provenance.store import ROW_GROUP_ROWS

logger = logging.getLogger(__name__)

# Most uuids sent to DuckDB in one lineage look-up (each becomes one parameter).
_LINEAGE_CHUNK = 1000
# Row groups of events per transaction when a large backlog is indexed (see indexing.py).
BULK_ROW_GROUPS = 2


class DuckDbProvenanceRepository(DuckDbIdentity, ProvenanceRepository):
    """Provenance events in ``settings.provenance_dir / "provenance.duckdb"``."""

    #: Rows per DuckDB row group for new databases: the unit in which deleted events
    #: give their space back, so also the granularity of size-based age-off.
    row_group_rows: ClassVar[int] = ROW_GROUP_ROWS

    def __init__(self, settings: EngineSettings, clock: Clock, journal: ProvenanceJournal) -> None:
        self._clock = clock  # unused so far: age_off is given its time by the caller
        self._journal = journal
        provenance = settings.provenance
        self._max_age_ms = parse_time_period_ms(provenance.max_storage_time)
        self._max_size_bytes = parse_data_size(provenance.max_storage_size)
        directory = settings.provenance_dir
        directory.mkdir(parents=True, exist_ok=True)
        self._write_lock = threading.Lock()
        self._store = open_store(settings, self.row_group_rows)
        self._plan = IndexingPlan(
            batch_size=provenance.index_batch_size,
            max_attribute_length=provenance.max_attribute_length,
            bulk_from=self.row_group_rows,
            bulk_rows=BULK_ROW_GROUPS * self.row_group_rows,
            group_rows=max(1, self.row_group_rows // 4),
            max_group_rows=max(1, self.row_group_rows // 2),
        )
        self._indexer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="provenance-index")
        self._tail: IndexRun | None = None  # see index_pending(wait=False)
        if self._store.indexed_through >= 0:
            # Finish a trim that a crash after the last commit may have prevented.
            try:
                journal.trim_journal(through_event_id=self._store.indexed_through)
            except BaseException:
                self.close()
                raise

    @property
    def path(self) -> str:
        """The database file."""
        return str(self._store.path)

    # -- indexing ------------------------------------------------------------------

    def index_pending(self, *, wait: bool = True) -> int:
        with self._write_lock:
            tail = self._tail
            if (
                not wait
                and tail is not None
                and self._journal.journal_size() - tail.rows_in_flight < self._plan.batch_size
            ):
                return 0  # less than a batch beyond the transaction still in the background
            indexed = self._finish_tail()
            self._store.ensure_open()
            run = IndexRun(self._store, self._journal, self._indexer, self._plan)
            indexed += run.run(wait)
            if run.unsettled:
                self._tail = run
            return indexed

    def _finish_tail(self) -> int:
        """Settle the transaction an ``index_pending(wait=False)`` left in the background
        (the caller holds the write lock); how many events it stored and trimmed."""
        tail, self._tail = self._tail, None
        return 0 if tail is None else tail.finish()

    def _settle_for_reading(self) -> None:
        """Readers see no transaction half-way: one left in the background by
        ``index_pending(wait=False)`` is finished first (only a deterministic run leaves
        one, so what it reads does not depend on the indexing thread's timing). A failure
        is logged: its events stay journaled and the next ``index_pending`` stores them."""
        if self._tail is None:
            return
        with self._write_lock:
            try:
                self._finish_tail()
            except Exception as error:
                logger.warning("provenance indexing in progress failed: %s", error)

    def indexed_through(self) -> int:
        self._settle_for_reading()
        return self._store.indexed_through

    # -- reading -------------------------------------------------------------------

    def search(self, query: ProvenanceQuery) -> list[ProvenanceEvent]:
        self._settle_for_reading()
        if query.limit <= 0:
            return []
        compiled = compile_search(query)
        with self._store.reader() as cursor:
            rows = cursor.execute(compiled.sql, compiled.parameters).fetchall()
        return [event_from_row(row) for row in rows]

    def get_event(self, event_id: int) -> ProvenanceEvent | None:
        self._settle_for_reading()
        row = self._store.fetch_one(
            f"SELECT {SELECT_EVENT_COLUMNS} FROM {EVENTS_TABLE} WHERE event_id = ?", [event_id]
        )
        return None if row is None else event_from_row(row)

    def event_count(self) -> int:
        self._settle_for_reading()
        row = self._store.fetch_one(f"SELECT count(*) FROM {EVENTS_TABLE}")
        return 0 if row is None else int(row[0])

    def lineage(self, flowfile_uuid: str) -> LineageGraph:
        self._settle_for_reading()
        with self._store.reader() as cursor:

            def fetch_touching(uuids: Collection[str]) -> list[LineageEvent]:
                return _events_touching(cursor, list(uuids))

            collected = collect_lineage(flowfile_uuid, fetch_touching)
        return build_graph(collected.events, collected.uuids)

    # -- age-off -------------------------------------------------------------------

    def age_off(self, now_ms: int) -> int:
        with self._write_lock:
            self._finish_tail()
            removed = age_off_by_time(self._store, now_ms - self._max_age_ms)
            removed += age_off_by_size(self._store, self._max_size_bytes)
        if removed:
            logger.info("provenance age-off removed %d events", removed)
        return removed

    def storage_bytes(self) -> int:
        """Bytes the database uses (after a checkpoint), as size age-off measures them."""
        with self._write_lock:
            self._finish_tail()
            return self._store.used_bytes()

    # -- closing -------------------------------------------------------------------

    def close(self) -> None:
        with self._write_lock:
            try:
                self._finish_tail()
            except Exception as error:  # its events stay journaled: indexed after a restart
                logger.warning("provenance indexing in progress at close failed: %s", error)
            finally:
                self._indexer.shutdown(wait=True)
                self._store.close()


def _events_touching(cursor: duckdb.DuckDBPyConnection, uuids: list[str]) -> list[LineageEvent]:
    """Events whose own, parent or child uuids include one of ``uuids``.

    The key table narrows the events down; the uuids of each row are then checked, since
    two uuids may share a key.
    """
    found: list[LineageEvent] = []
    for start in range(0, len(uuids), _LINEAGE_CHUNK):
        chunk = uuids[start : start + _LINEAGE_CHUNK]
        wanted = set(chunk)
        keys = ", ".join([uuid_key_sql("?")] * len(chunk))
        rows = cursor.execute(
            "SELECT event_id, event_time, event_type, flowfile_uuid, parent_uuids, child_uuids "
            f"FROM {EVENTS_TABLE} WHERE event_id IN "
            f"(SELECT event_id FROM {UUIDS_TABLE} WHERE uuid_key IN ({keys}))",
            chunk,
        ).fetchall()
        found.extend(
            LineageEvent(
                event_id=row[0],
                event_time=row[1],
                event_type=row[2],
                flowfile_uuid=row[3],
                parent_uuids=tuple(row[4]),
                child_uuids=tuple(row[5]),
            )
            for row in rows
            if row[3] in wanted or not wanted.isdisjoint(row[4]) or not wanted.isdisjoint(row[5])
        )
    return found
