"""The DuckDB database file: schema, batch transactions, deletes, checkpoints, cursors.

Write path: ``begin``, one or more ``append`` (events and their uuid rows), ``commit``
(which also moves ``indexed_through``): one transaction. A transaction below one row
group of events is committed to DuckDB's WAL. Checkpoints, which compress those rows
into the database file, are taken by this class every ``CHECKPOINT_ROW_GROUPS`` row groups
of them rather than by DuckDB's default 16 MiB WAL threshold: DuckDB rewrites the last,
partly filled row group at every checkpoint, so checkpointing every few batches
re-compressed the same rows over and over (measured: checkpoints took 60-75 % of
indexing time). Two row groups per checkpoint bounds that waste to at most one row
group in two, at the price of up to two row groups of events waiting in the WAL
(replayed by DuckDB if the process stops before the next checkpoint). A transaction of
a row group or more (bulk indexing of a backlog) is written by DuckDB straight into the
database file, whole row groups at a time; its rows never pass through the WAL and do
not count towards the next checkpoint.

The file is attached to an in-memory DuckDB under ``schema.CATALOG`` because only
``ATTACH`` takes the row group size.

Reads use a fresh cursor (a connection to the same database) per call, so they run
while a batch is being written, from any thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from flowcore.errors import RepositoryError, RepositoryUnavailableError
from repos.duckdb_provenance.arrow_batch import EventBatch
from repos.duckdb_provenance.schema import (
    CATALOG,
    CREATE_STATEMENTS,
    EVENTS_TABLE,
    INSERT_EVENTS_FROM_JSON,
    INSERT_UUID_KEYS_BETWEEN,
    META_TABLE,
    REBUILD_UUID_KEYS,
    SCHEMA_VERSION,
    UUID_KEY_INDEX,
    UUID_KEY_PROBE_TEXT,
    UUIDS_TABLE,
    uuid_key_sql,
)

logger = logging.getLogger(__name__)

# Rows per DuckDB row group (DuckDB's default). Space is reclaimed after deletes a row
# group at a time, so this is also the granularity of size-based age-off.
ROW_GROUP_ROWS = 122_880
CHECKPOINT_ROW_GROUPS = 2
# DuckDB's own automatic checkpoint only as a backstop (e.g. checkpoints that kept
# failing while readers held transactions open).
_WAL_BACKSTOP = "1GB"
# A bulk transaction writes each row group to the file as soon as it is full (DuckDB's
# default buffers five and writes them all at the commit): the compression of one row
# group then overlaps with the building of the next batches instead of following it.
_WRITE_BUFFER_ROW_GROUPS = 1
_PROBE_KEY = uuid_key_sql(repr(UUID_KEY_PROBE_TEXT))
REPOSITORY = "provenance"
STORAGE_SETTING = "provenance.max_storage_size"
# DuckDB errors that come from the file rather than the statement: a file that cannot be
# written or read, a block that fails its checksum (DuckDB raises the base class).
_STORAGE_ERRORS = (
    duckdb.IOException,
    duckdb.FatalException,
    duckdb.InternalException,
    duckdb.OutOfMemoryException,
)


def _storage_failure(error: duckdb.Error) -> bool:
    """True when ``error`` says the database file failed, not the SQL or its values."""
    return type(error) is duckdb.Error or isinstance(error, _STORAGE_ERRORS)


class ProvenanceStore:
    """One DuckDB database file holding the provenance tables.

    Not thread-safe for writers: the repository serialises ``insert``, ``delete_events``
    and ``close`` (the insert may run on its indexing thread). ``reader`` is safe from
    any thread.
    """

    def __init__(self, path: Path, row_group_rows: int = ROW_GROUP_ROWS) -> None:
        self.path = path
        self._cursor_lock = threading.Lock()
        self._closed = False
        self._rows_since_checkpoint = 0
        self._row_group_rows = row_group_rows
        self._checkpoint_rows = CHECKPOINT_ROW_GROUPS * row_group_rows
        self._in_transaction = False
        self._failed: BaseException | None = None
        self._pending_through = -1
        self._pending_rows = 0
        quoted = str(path).replace("'", "''")
        self._database = duckdb.connect(
            config={
                "wal_autocheckpoint": _WAL_BACKSTOP,
                "write_buffer_row_group_count": _WRITE_BUFFER_ROW_GROUPS,
            }
        )
        try:
            self._database.execute(
                f"ATTACH '{quoted}' AS {CATALOG} (ROW_GROUP_SIZE {int(row_group_rows)})"
            )
        except duckdb.Error as error:
            self._database.close()
            msg = f"cannot open the provenance database {path}: {error}"
            raise RepositoryError(msg) from error
        self._writer = self._database.cursor()
        try:
            self.indexed_through = self._open_schema()
        except BaseException:
            self._writer.close()
            self._database.close()
            raise

    def _open_schema(self) -> int:
        """Create missing tables, upgrade an older file; return ``indexed_through``.

        Version 1 kept the uuid text in ``provenance_event_uuids``; version 2 keeps its
        64-bit key. The key table is rebuilt from the events table when the file is
        version 1 or when DuckDB's ``hash`` no longer gives the stored probe key.
        """
        writer = self._writer
        with self._transaction():
            version = self._stored_version()
            if version is not None and version > SCHEMA_VERSION:
                msg = (
                    f"{self.path} holds provenance schema version {version}; "
                    f"this flowcore reads version {SCHEMA_VERSION} or older"
                )
                raise RepositoryError(msg)
            if version == 1:
                writer.execute(f"DROP TABLE {UUIDS_TABLE}")
                writer.execute(f"ALTER TABLE {META_TABLE} ADD COLUMN uuid_key_probe UBIGINT")
            for statement in CREATE_STATEMENTS:
                writer.execute(statement)
            row = writer.execute(
                f"SELECT indexed_through, uuid_key_probe = {_PROBE_KEY} FROM {META_TABLE} "
                "WHERE singleton = 0"
            ).fetchone()
            if row is None:  # pragma: no cover - CREATE_STATEMENTS insert the row
                msg = f"{self.path} has no provenance metadata row"
                raise RepositoryError(msg)
            indexed_through, probe_matches = row
            if version is not None and (version < SCHEMA_VERSION or not probe_matches):
                self._rebuild_uuid_keys(version)
        return int(indexed_through)

    def _stored_version(self) -> int | None:
        """The schema version of an existing file, None for a new one."""
        exists = self._writer.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND table_name = ?",
            [CATALOG, META_TABLE.rsplit(".", 1)[1]],
        ).fetchone()
        if exists is None or not exists[0]:
            return None
        row = self._writer.execute(
            f"SELECT schema_version FROM {META_TABLE} WHERE singleton = 0"
        ).fetchone()
        return None if row is None else int(row[0])

    def _rebuild_uuid_keys(self, version: int) -> None:
        """Recompute every uuid key from the events (inside the opening transaction)."""
        writer = self._writer
        writer.execute(f"DROP INDEX {CATALOG}.main.{UUID_KEY_INDEX}")
        writer.execute(f"DELETE FROM {UUIDS_TABLE}")
        writer.execute(REBUILD_UUID_KEYS)
        writer.execute(f"CREATE INDEX {UUID_KEY_INDEX} ON {UUIDS_TABLE} (uuid_key)")
        writer.execute(
            f"UPDATE {META_TABLE} SET schema_version = ?, uuid_key_probe = {_PROBE_KEY} "
            "WHERE singleton = 0",
            [SCHEMA_VERSION],
        )
        why = "upgraded from version 1" if version == 1 else "DuckDB's hash function changed"
        logger.warning("provenance uuid keys of %s rebuilt from its events (%s)", self.path, why)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        writer = self._writer
        writer.begin()
        try:
            yield
            writer.commit()
        except BaseException:
            writer.rollback()
            raise

    # -- writing -------------------------------------------------------------------

    def run_in_transaction(self, statements: Sequence[tuple[str, list[Any]]]) -> None:
        """Run fixed SQL statements in one transaction (the identity, a repair)."""
        self.ensure_open()
        with self._transaction():
            for sql, parameters in statements:
                self._writer.execute(sql, parameters)

    def insert(self, batch: EventBatch) -> None:
        """Store a batch and move ``indexed_through`` to its highest id, atomically."""
        self.begin()
        self.append(batch)
        self.commit()

    def begin(self) -> None:
        """Open the transaction that the following ``append`` calls write into."""
        if self._in_transaction:
            msg = "a provenance indexing transaction is already open"
            raise RepositoryError(msg)
        try:
            self._writer.begin()
        except duckdb.Error as error:
            raise self._failure(error) from error
        self._in_transaction = True
        self._failed = None
        self._pending_through = self.indexed_through
        self._pending_rows = 0

    def append(self, batch: EventBatch) -> None:
        """Insert a batch (events and uuid rows) into the open transaction.

        A failure rolls the whole transaction back at once; the ``append`` and ``commit``
        calls that follow then fail too, without touching the database.
        """
        self._check_usable()
        if batch.min_event_id <= self._pending_through:
            msg = (
                f"batch starts at event {batch.min_event_id}, at or below event "
                f"{self._pending_through} that is already indexed"
            )
            self._abandon(RepositoryError(msg))
            raise RepositoryError(msg)
        writer = self._writer
        try:
            writer.register("pending_events", batch.events)
            writer.execute(INSERT_EVENTS_FROM_JSON)
            writer.execute(
                INSERT_UUID_KEYS_BETWEEN,
                {"first": batch.min_event_id, "last": batch.max_event_id},
            )
        except duckdb.Error as error:
            self._abandon(error)
            raise self._failure(error) from error
        except BaseException as error:
            self._abandon(error)
            raise
        finally:
            writer.unregister("pending_events")
        self._pending_through = batch.max_event_id
        self._pending_rows += batch.events.num_rows

    def commit(self) -> int:
        """Move ``indexed_through`` to the last event appended and commit; returns it."""
        self._check_usable()
        through = self._pending_through
        try:
            self._writer.execute(
                f"UPDATE {META_TABLE} SET indexed_through = ? WHERE singleton = 0", [through]
            )
            self._writer.commit()
        except duckdb.Error as error:
            self._abandon(error)
            raise self._failure(error) from error
        except BaseException as error:
            self._abandon(error)
            raise
        self._in_transaction = False
        self.indexed_through = through
        if self._pending_rows < self._row_group_rows:
            # Only rows that went through the WAL: DuckDB writes a transaction of a row
            # group or more straight into the database file.
            self._rows_since_checkpoint += self._pending_rows
        if self._rows_since_checkpoint >= self._checkpoint_rows:
            self.checkpoint()
        return through

    def rollback(self) -> None:
        """Give up the open transaction, if any (nothing of it is stored)."""
        if self._in_transaction:
            self._abandon(None)
        self._failed = None

    def _check_usable(self) -> None:
        if self._failed is not None:
            msg = f"the provenance indexing transaction was rolled back: {self._failed}"
            raise RepositoryError(msg)
        if not self._in_transaction:
            msg = "no provenance indexing transaction is open"
            raise RepositoryError(msg)

    def _abandon(self, error: BaseException | None) -> None:
        """Roll the open transaction back; later appends and the commit then fail."""
        self._failed = error if error is not None else RepositoryError("abandoned")
        if self._in_transaction:
            self._in_transaction = False
            try:
                self._writer.rollback()
            except duckdb.TransactionException as ended:
                logger.debug("provenance transaction already ended by DuckDB: %s", ended)
            except duckdb.Error as rollback_error:
                logger.warning("provenance rollback failed: %s", rollback_error)
        self._pending_through = self.indexed_through
        self._pending_rows = 0

    def _failure(self, error: duckdb.Error) -> RepositoryError:
        """Indexing could not write: nothing was indexed, the events wait in the journal."""
        msg = (
            f"the provenance repository cannot index: writing {self.path} (or its WAL) "
            f"failed: {error}; the events wait in the journal and are indexed once "
            f"{self.path.parent} is writable and has free space (or lower {STORAGE_SETTING})"
        )
        return RepositoryUnavailableError(msg, repository=REPOSITORY, setting=STORAGE_SETTING)

    def _read_failure(self, error: duckdb.Error) -> RepositoryError:
        msg = (
            f"the provenance repository cannot be read: {error}; if {self.path} is "
            "damaged, stop flowcore and move it aside (docs/failure-modes.md)"
        )
        return RepositoryUnavailableError(msg, repository=REPOSITORY)

    def checkpoint(self) -> bool:
        """Write the WAL into the database file; False if DuckDB could not do it now.

        A checkpoint that cannot write (a full disk) is only logged: the rows it would
        have moved are committed in the WAL already, and the next checkpoint retries.
        """
        try:
            self._writer.execute(f"CHECKPOINT {CATALOG}")
        except duckdb.TransactionException as error:
            logger.debug("provenance checkpoint postponed: %s", error)
            return False
        except duckdb.Error as error:
            if not _storage_failure(error):
                raise
            logger.warning("provenance checkpoint of %s failed: %s", self.path, error)
            return False
        self._rows_since_checkpoint = 0
        return True

    def delete_events(self, condition: str, parameters: list[Any]) -> int:
        """Delete the events matching ``condition`` (fixed SQL) and their uuid rows."""
        writer = self._writer
        with self._transaction():
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
        return count

    # -- reading -------------------------------------------------------------------

    @contextmanager
    def reader(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor of its own for the calling thread, closed afterwards."""
        with self._cursor_lock:
            self.ensure_open()
            cursor = self._database.cursor()
        try:
            yield cursor
        except duckdb.Error as error:
            if _storage_failure(error):
                raise self._read_failure(error) from error
            raise
        finally:
            cursor.close()

    def fetch_one(self, sql: str, parameters: list[Any] | None = None) -> tuple[Any, ...] | None:
        with self.reader() as cursor:
            row: tuple[Any, ...] | None = cursor.execute(sql, parameters or []).fetchone()
        return row

    def used_bytes(self) -> int:
        """Bytes in use after a checkpoint: used blocks plus whatever the WAL still holds.

        DuckDB frees space only when a checkpoint drops or rewrites row groups and keeps
        freed blocks in the file for reuse, so the file's size on disk does not fall
        after a delete; the count of used blocks does.
        """
        self.checkpoint()
        row = self.fetch_one(
            "SELECT block_size, used_blocks FROM pragma_database_size() WHERE database_name = ?",
            [CATALOG],
        )
        used = 0 if row is None else int(row[0]) * int(row[1])
        wal = self.path.with_name(self.path.name + ".wal")
        return used + (wal.stat().st_size if wal.exists() else 0)

    # -- closing -------------------------------------------------------------------

    def close(self) -> None:
        """Checkpoint and close; later calls do nothing."""
        with self._cursor_lock:
            if self._closed:
                return
            self._closed = True
        try:
            self.checkpoint()
        finally:
            self._writer.close()
            self._database.close()
            # Release the native handles now: a closed store may stay referenced long after
            # (by an application object, a test module), and DuckDB's bindings report every
            # connection object still alive at interpreter exit as leaked.
            del self._writer
            del self._database

    def ensure_open(self) -> None:
        """Raise ``RepositoryError`` once the store is closed."""
        if self._closed:
            msg = f"the provenance repository at {self.path} is closed"
            raise RepositoryError(msg)
