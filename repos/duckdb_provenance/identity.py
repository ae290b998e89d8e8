"""The data directory's identity in the DuckDB provenance repository, its start-up probe,
and DuckDB's open errors as flowcore errors.

The identity lives in two columns of ``provenance_meta`` (``node_id``, ``generation``),
added the first time it is written. ``probe`` opens the file read-only (DuckDB replays
its WAL in memory and writes nothing), so a missing file is reported rather than created
and a damaged one rather than half-opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from flowcore.errors import (
    RepositoryDamagedError,
    RepositoryError,
    RepositoryFullError,
    RepositoryUnavailableError,
)
from flowcore.repository.identity import RepositoryIdentity, RepositoryProbe
from flowcore.settings import EngineSettings
from repos.duckdb_provenance.schema import EVENTS_TABLE, META_TABLE
from repos.duckdb_provenance.store import ROW_GROUP_ROWS, ProvenanceStore

DATABASE_FILE = "provenance.duckdb"
_IN_USE = ("Could not set lock", "Conflicting lock", "Unique file handle conflict")


def database_files(settings: EngineSettings) -> tuple[Path, Path]:
    """The database file and its write-ahead log."""
    path = settings.provenance_dir / DATABASE_FILE
    return path, path.with_name(path.name + ".wal")


def open_failure(path: Path, error: duckdb.Error, data_dir: Path) -> RepositoryError:
    """The flowcore error for a DuckDB error raised while the database is opened."""
    text = str(error)
    if isinstance(error, duckdb.ResourceInUseException) or any(m in text for m in _IN_USE):
        return RepositoryUnavailableError(
            f"cannot open the provenance database {path}: it is in use by another "
            f"process or node ({text})",
            repository="provenance",
        )
    if "No space left" in text:
        return RepositoryFullError(
            f"cannot open the provenance database {path}: the disk is full ({text}); "
            "free space on it",
            repository="provenance",
        )
    return RepositoryDamagedError(
        f"cannot open the provenance database {path}: it is damaged ({text}). Nothing was "
        f"changed; restore it from a backup, or run 'flowcore repair --data-dir {data_dir}' "
        "to see what it would do, then again with --yes to do it",
        repository="provenance",
    )


def open_store(settings: EngineSettings, row_group_rows: int) -> ProvenanceStore:
    """``ProvenanceStore`` on the repository's file, damage reported as such."""
    path = database_files(settings)[0]
    try:
        return ProvenanceStore(path, row_group_rows)
    except duckdb.Error as error:
        raise open_failure(path, error, settings.data_dir) from error
    except RepositoryError as error:
        if isinstance(error.__cause__, duckdb.Error):
            raise open_failure(path, error.__cause__, settings.data_dir) from error
        raise


class DuckDbIdentity:
    """``probe``, ``write_identity`` and ``restart_at`` of the DuckDB repository."""

    _store: ProvenanceStore
    _write_lock: Any

    @classmethod
    def probe(cls, settings: EngineSettings) -> list[RepositoryProbe]:
        path, wal = database_files(settings)

        def found(**fields: Any) -> list[RepositoryProbe]:
            return [RepositoryProbe("provenance", path, files=(path, wal), **fields)]

        try:
            if path.stat().st_size == 0:
                return found(missing=True)
        except FileNotFoundError:
            return found(missing=True)
        try:
            with duckdb.connect(str(path), read_only=True) as database:
                return found(**_read(database))
        except duckdb.Error as error:
            failure = open_failure(path, error, settings.data_dir)
            if isinstance(failure, RepositoryDamagedError):
                return found(damaged=f"DuckDB reports {error}")
            raise failure from error

    def write_identity(self, identity: RepositoryIdentity, *, durable: bool) -> None:
        # A DuckDB commit always syncs its WAL: ``durable`` changes nothing here.
        with self._write_lock:
            self._store.run_in_transaction(
                [
                    (f"ALTER TABLE {META_TABLE} ADD COLUMN IF NOT EXISTS node_id VARCHAR", []),
                    (f"ALTER TABLE {META_TABLE} ADD COLUMN IF NOT EXISTS generation BIGINT", []),
                    (
                        f"UPDATE {META_TABLE} SET node_id = ?, generation = ? WHERE singleton = 0",
                        [identity.node_id, identity.generation],
                    ),
                ]
            )

    @classmethod
    def restart_at(cls, settings: EngineSettings, event_id: int) -> None:
        settings.provenance_dir.mkdir(parents=True, exist_ok=True)
        store = open_store(settings, getattr(cls, "row_group_rows", ROW_GROUP_ROWS))
        try:
            row = store.fetch_one(f"SELECT count(*) FROM {EVENTS_TABLE}")
            if row is not None and row[0]:
                msg = f"{store.path} holds {row[0]} events: it is not restarted"
                raise RepositoryError(msg, repository="provenance")
            store.run_in_transaction(
                [
                    (
                        f"UPDATE {META_TABLE} SET indexed_through = ? WHERE singleton = 0",
                        [event_id - 1],
                    )
                ]
            )
            store.indexed_through = event_id - 1
        finally:
            store.close()


def _read(database: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """Identity and ``indexed_through`` from a read-only connection to the file."""
    tables = {
        row[0] for row in database.execute("SELECT table_name FROM duckdb_tables()").fetchall()
    }
    if "provenance_meta" not in tables:
        # Created but its schema never committed: nothing was ever stored.
        return {"indexed_through": -1}
    cursor = database.execute("SELECT * FROM provenance_meta WHERE singleton = 0")
    names = [column[0] for column in cursor.description or []]
    row = cursor.fetchone()
    meta = dict(zip(names, row, strict=True)) if row is not None else {}
    indexed_through = int(meta.get("indexed_through", -1))
    identity = None
    if meta.get("node_id") is not None and meta.get("generation") is not None:
        identity = RepositoryIdentity(str(meta["node_id"]), int(meta["generation"]))
    return {
        "identity": identity,
        "holds_data": indexed_through >= 0,
        "indexed_through": indexed_through,
    }
