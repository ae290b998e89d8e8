"""The provenance repository on DuckDB: batch indexing from the journal, search, lineage.

Events reach DuckDB only through ``index_pending``. Each batch read from the journal
becomes one Arrow table (plus the uuid index rows) and is inserted in one DuckDB
transaction that also moves ``provenance_meta.indexed_through``; the journal is trimmed
only after that commit. A crash between the commit and the trim leaves events in the
journal that DuckDB already holds: the trim is redone when the repository opens, and a
batch never stores an event at or below ``indexed_through``, so nothing is lost or
stored twice.

Threads: one lock serialises the writers (indexing, age-off, close); readers each use a
cursor of their own (a DuckDB connection to the same database) and never wait for a
batch being indexed.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any

import duckdb

from flowcore.clock import Clock
from flowcore.errors import RepositoryError
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository.provenance import (
    LineageGraph,
    ProvenanceJournal,
    ProvenanceQuery,
    ProvenanceRepository,
)
from flowcore.settings import EngineSettings
from flowcore.units import parse_data_size, parse_time_period_ms
from repos.duckdb_provenance.arrow_batch import EventBatch, build_batch
from repos.duckdb_provenance.lineage import (
    LineageEvent,
    build_graph,
    collect_lineage,
)
from repos.duckdb_provenance.query import compile_search
from repos.duckdb_provenance.rows import event_from_row
from repos.duckdb_provenance.schema import (
    CREATE_STATEMENTS,
    EVENTS_TABLE,
    META_TABLE,
    SCHEMA_VERSION,
    SELECT_EVENT_COLUMNS,
    UUIDS_TABLE,
)

logger = logging.getLogger(__name__)

DATABASE_FILE = "provenance.duckdb"

# Most uuids sent to DuckDB in one lineage look-up (each becomes one parameter).
_LINEAGE_CHUNK = 1000
# Size age-off deletes at least this share of the events per round, so that a store just
# over its limit is not shrunk one checkpoint per handful of events.
_MIN_SIZE_CHUNK_FRACTION = 0.01
_MAX_SIZE_ROUNDS = 64


class DuckDbProvenanceRepository(ProvenanceRepository):
    """Provenance events in one DuckDB file under ``settings.provenance_dir``."""

    def __init__(self, settings: EngineSettings, clock: Clock, journal: ProvenanceJournal) -> None:
        self._clock = clock
        self._journal = journal
        provenance = settings.provenance
        self._batch_size = provenance.index_batch_size
        self._max_attribute_length = provenance.max_attribute_length
        self._max_age_ms = parse_time_period_ms(provenance.max_storage_time)
        self._max_size_bytes = parse_data_size(provenance.max_storage_size)
        directory = settings.provenance_dir
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / DATABASE_FILE
        self._write_lock = threading.Lock()
        self._cursor_lock = threading.Lock()
        self._closed = False
        try:
            self._database = duckdb.connect(str(self.path))
        except duckdb.Error as error:
            msg = f"cannot open the provenance database {self.path}: {error}"
            raise RepositoryError(msg) from error
        self._writer = self._database.cursor()
        self._indexed_through = self._open_schema()
        if self._indexed_through >= 0:
            # Finish a trim that a crash after the last commit may have prevented.
            journal.trim_journal(through_event_id=self._indexed_through)

    # -- opening -------------------------------------------------------------------

    def _open_schema(self) -> int:
        writer = self._writer
        writer.begin()
        try:
            for statement in CREATE_STATEMENTS:
                writer.execute(statement)
            row = writer.execute(
                f"SELECT schema_version, indexed_through FROM {META_TABLE} WHERE singleton = 0"
            ).fetchone()
            writer.commit()
        except BaseException:
            writer.rollback()
            raise
        if row is None:  # pragma: no cover - the insert above guarantees the row
            msg = f"{self.path} has no provenance metadata row"
            raise RepositoryError(msg)
        version, indexed_through = row
        if version > SCHEMA_VERSION:
            msg = (
                f"{self.path} has provenance schema version {version}; "
                f"this flowcore reads version {SCHEMA_VERSION} or older"
            )
            raise RepositoryError(msg)
        return int(indexed_through)

    # -- indexing ------------------------------------------------------------------

    def index_pending(self) -> int:
        indexed = 0
        with self._write_lock:
            self._check_open()
            while True:
                after = self._indexed_through
                events = self._journal.read_journal(after_event_id=after, limit=self._batch_size)
                if not events:
                    break
                fresh = events
                if events[0].event_id <= after:
                    # Only a journal not yet trimmed past ``after`` returns these.
                    fresh = [event for event in events if event.event_id > after]
                    if not fresh:
                        self._journal.trim_journal(through_event_id=after)
                        break
                batch = build_batch(fresh, self._max_attribute_length)
                self._store(batch)
                self._indexed_through = batch.max_event_id
                self._journal.trim_journal(through_event_id=batch.max_event_id)
                indexed += len(fresh)
                if len(events) < self._batch_size:
                    break
        return indexed

    def _store(self, batch: EventBatch) -> None:
        """Insert one batch and move ``indexed_through`` in a single transaction."""
        writer = self._writer
        writer.register("pending_events", batch.events)
        writer.register("pending_uuids", batch.uuids)
        try:
            writer.begin()
            try:
                writer.execute(f"INSERT INTO {EVENTS_TABLE} BY NAME SELECT * FROM pending_events")
                writer.execute(f"INSERT INTO {UUIDS_TABLE} BY NAME SELECT * FROM pending_uuids")
                writer.execute(
                    f"UPDATE {META_TABLE} SET indexed_through = ? WHERE singleton = 0",
                    [batch.max_event_id],
                )
                writer.commit()
            except BaseException:
                writer.rollback()
                raise
        except duckdb.Error as error:
            msg = f"indexing provenance events into {self.path} failed: {error}"
            raise RepositoryError(msg) from error
        finally:
            writer.unregister("pending_events")
            writer.unregister("pending_uuids")

    def indexed_through(self) -> int:
        return self._indexed_through

    # -- reading -------------------------------------------------------------------

    @contextmanager
    def _reader(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._cursor_lock:
            self._check_open()
            cursor = self._database.cursor()
        try:
            yield cursor
        finally:
            cursor.close()

    def search(self, query: ProvenanceQuery) -> list[ProvenanceEvent]:
        if query.limit <= 0:
            return []
        compiled = compile_search(query)
        with self._reader() as cursor:
            rows = cursor.execute(compiled.sql, compiled.parameters).fetchall()
        return [event_from_row(row) for row in rows]

    def get_event(self, event_id: int) -> ProvenanceEvent | None:
        with self._reader() as cursor:
            row = cursor.execute(
                f"SELECT {SELECT_EVENT_COLUMNS} FROM {EVENTS_TABLE} WHERE event_id = ?",
                [event_id],
            ).fetchone()
        return None if row is None else event_from_row(row)

    def event_count(self) -> int:
        with self._reader() as cursor:
            row = cursor.execute(f"SELECT count(*) FROM {EVENTS_TABLE}").fetchone()
        return 0 if row is None else int(row[0])

    def lineage(self, flowfile_uuid: str) -> LineageGraph:
        with self._reader() as cursor:

            def fetch_touching(uuids: Collection[str]) -> list[LineageEvent]:
                return _events_touching(cursor, list(uuids))

            collected = collect_lineage(flowfile_uuid, fetch_touching)
        return build_graph(collected.events, collected.uuids)

    # -- age-off -------------------------------------------------------------------

    def age_off(self, now_ms: int) -> int:
        with self._write_lock:
            self._check_open()
            removed = self._delete_events("event_time < ?", [now_ms - self._max_age_ms])
            removed += self._age_off_by_size()
        if removed:
            logger.info("provenance age-off removed %d events", removed)
        return removed

    def _delete_events(self, condition: str, parameters: list[Any]) -> int:
        """Delete the events matching ``condition`` and their uuid rows in one transaction."""
        writer = self._writer
        writer.begin()
        try:
            found = writer.execute(
                f"SELECT count(*) FROM {EVENTS_TABLE} WHERE {condition}", parameters
            ).fetchone()
            count = 0 if found is None else int(found[0])
            if count:
                writer.execute(
                    f"DELETE FROM {UUIDS_TABLE} WHERE event_id IN "
                    f"(SELECT event_id FROM {EVENTS_TABLE} WHERE {condition})",
                    parameters,
                )
                writer.execute(f"DELETE FROM {EVENTS_TABLE} WHERE {condition}", parameters)
            writer.commit()
        except BaseException:
            writer.rollback()
            raise
        return count

    def storage_bytes(self) -> int:
        """Bytes the database uses after a checkpoint: used blocks plus the WAL.

        DuckDB frees space only when a checkpoint rewrites or drops row groups, and
        keeps freed blocks in the file for reuse, so the file's size on disk would not
        fall after a delete; the used blocks do.
        """
        with self._reader() as cursor:
            cursor.execute("CHECKPOINT")
            row = cursor.execute(
                "SELECT block_size, used_blocks FROM pragma_database_size() "
                "WHERE database_name = current_database()"
            ).fetchone()
        if row is None:  # pragma: no cover - the current database is always listed
            return 0
        block_size, used_blocks = row
        wal = self.path.with_name(self.path.name + ".wal")
        wal_bytes = wal.stat().st_size if wal.exists() else 0
        return int(block_size) * int(used_blocks) + wal_bytes

    def _age_off_by_size(self) -> int:
        """Delete the oldest events in chunks until the store fits ``max_storage_size``.

        Each chunk is estimated as count x (excess / used bytes), i.e. from the average
        bytes per event, then the size is measured again after a checkpoint: DuckDB frees
        whole blocks only, so the estimate is checked, not trusted. A round that frees
        nothing doubles the next chunk.
        """
        removed = 0
        size = self.storage_bytes()
        boost = 1.0
        for _ in range(_MAX_SIZE_ROUNDS):
            if size <= self._max_size_bytes:
                break
            count = self._count_events()
            if count == 0:
                break
            share = max((size - self._max_size_bytes) / size, _MIN_SIZE_CHUNK_FRACTION)
            chunk = min(count, math.ceil(count * share * boost))
            threshold = self._oldest_id_after(chunk)
            removed += self._delete_events("event_id <= ?", [threshold])
            new_size = self.storage_bytes()
            boost = boost * 2 if new_size >= size else 1.0
            size = new_size
        return removed

    def _count_events(self) -> int:
        row = self._writer.execute(f"SELECT count(*) FROM {EVENTS_TABLE}").fetchone()
        return 0 if row is None else int(row[0])

    def _oldest_id_after(self, count: int) -> int:
        """The id of the ``count``-th oldest event (``count`` >= 1)."""
        row = self._writer.execute(
            f"SELECT event_id FROM {EVENTS_TABLE} ORDER BY event_id LIMIT 1 OFFSET ?",
            [count - 1],
        ).fetchone()
        if row is None:  # pragma: no cover - callers never ask past the count
            msg = "fewer events than counted"
            raise RepositoryError(msg)
        return int(row[0])

    # -- closing -------------------------------------------------------------------

    def close(self) -> None:
        with self._write_lock, self._cursor_lock:
            if self._closed:
                return
            self._closed = True
            self._writer.close()
            self._database.close()

    def _check_open(self) -> None:
        if self._closed:
            msg = f"the provenance repository at {self.path} is closed"
            raise RepositoryError(msg)


def _events_touching(cursor: duckdb.DuckDBPyConnection, uuids: list[str]) -> list[LineageEvent]:
    """Events whose own, parent or child uuids include one of ``uuids``."""
    found: list[LineageEvent] = []
    for start in range(0, len(uuids), _LINEAGE_CHUNK):
        chunk = uuids[start : start + _LINEAGE_CHUNK]
        placeholders = ", ".join("?" * len(chunk))
        rows = cursor.execute(
            "SELECT event_id, event_time, event_type, flowfile_uuid, parent_uuids, child_uuids "
            f"FROM {EVENTS_TABLE} WHERE event_id IN "
            f"(SELECT event_id FROM {UUIDS_TABLE} WHERE uuid IN ({placeholders}))",
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
        )
    return found
