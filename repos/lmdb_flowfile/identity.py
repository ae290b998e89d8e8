"""The data directory's identity in the LMDB FlowFile repository, and its start-up probe.

The identity is one JSON value under ``identity`` in the ``meta`` database. ``probe``
reads it, the event id counters and whether anything is stored, through a read-only
environment opened only after ``file_check`` found ``data.mdb`` sound, so a damaged or
missing file is reported rather than mapped or created.
"""

from __future__ import annotations

from typing import Any

import lmdb

from flowcore.errors import RepositoryDamagedError, RepositoryError, RepositoryFullError
from flowcore.repository.identity import RepositoryIdentity, RepositoryProbe
from flowcore.settings import EngineSettings
from flowcore.units import parse_data_size
from repos.lmdb_flowfile import codec, file_check

IDENTITY_KEY = b"identity"
# The counters' keys in ``meta``, as the repository writes them.
NEXT_EVENT_ID = b"next_event_id"
NEXT_FLOWFILE_ID = b"next_flowfile_id"
MAX_DBS = 8
# The databases whose entries are data a user would lose.
_DATA_DATABASES = (b"flowfiles", b"swap_summary", b"journal", b"state", b"keyed_state")


class LmdbIdentity:
    """``probe``, ``write_identity`` and ``restart_event_ids`` of the LMDB repository."""

    _env: Any
    _meta: Any

    @classmethod
    def probe(cls, settings: EngineSettings) -> list[RepositoryProbe]:
        directory = settings.flowfile_repository_dir
        data_file = directory / file_check.DATA_FILE
        files = (data_file, directory / file_check.LOCK_FILE)

        def found(**fields: Any) -> list[RepositoryProbe]:
            return [RepositoryProbe("FlowFile", data_file, files=files, **fields)]

        try:
            state = file_check.inspect(data_file)
        except ValueError as exc:
            return found(damaged=str(exc))
        except OSError as exc:
            return found(damaged=f"it cannot be read ({exc})")
        if not state.exists or state.empty:
            return found(missing=True)
        map_size = parse_data_size(settings.flowfile_repository.map_size)
        file_check.check_before_open(directory, map_size, settings.data_dir)
        try:
            env = lmdb.open(
                str(directory), readonly=True, max_dbs=MAX_DBS, lock=True, readahead=False
            )
        except lmdb.Error as exc:
            return _open_failed(found, exc, directory, settings)
        try:
            with env.begin() as txn:
                return found(**_read(env, txn))
        except lmdb.Error as exc:
            return _open_failed(found, exc, directory, settings)
        finally:
            env.close()

    def write_identity(self, identity: RepositoryIdentity, *, durable: bool) -> None:
        try:
            with self._env.begin(write=True) as txn:
                txn.put(IDENTITY_KEY, identity.encode(), db=self._meta)
            if durable:
                self._env.sync(True)
        except lmdb.MapFullError as exc:
            msg = (
                "cannot record the data directory's identity: the FlowFile repository is "
                f"full; raise {file_check.MAP_SIZE_SETTING}"
            )
            raise RepositoryFullError(
                msg, repository="FlowFile", setting=file_check.MAP_SIZE_SETTING
            ) from exc
        except lmdb.Error as exc:
            msg = f"cannot record the data directory's identity in the FlowFile repository: {exc}"
            raise RepositoryError(msg, repository="FlowFile") from exc

    @classmethod
    def restart_event_ids(cls, settings: EngineSettings, next_event_id: int) -> int:
        directory = settings.flowfile_repository_dir
        map_size = parse_data_size(settings.flowfile_repository.map_size)
        file_check.check_before_open(directory, map_size, settings.data_dir)
        with file_check.open_errors(directory, settings.data_dir):
            env = lmdb.open(str(directory), map_size=map_size, max_dbs=MAX_DBS, lock=True)
            try:
                journal = env.open_db(b"journal")
                meta = env.open_db(b"meta")
                dropped = 0
                with env.begin(write=True) as txn:
                    cursor = txn.cursor(db=journal)
                    positioned = cursor.first()
                    while positioned and codec.key_id(cursor.key()) < next_event_id:
                        dropped += 1
                        positioned = cursor.delete() and bool(cursor.key())
                    counter = txn.get(NEXT_EVENT_ID, db=meta)
                    current = 0 if counter is None else codec.key_id(counter)
                    last = txn.cursor(db=journal)
                    after_journal = codec.key_id(last.key()) + 1 if last.last() else 0
                    chosen = max(next_event_id, current, after_journal)
                    txn.put(NEXT_EVENT_ID, codec.id_key(chosen), db=meta)
                env.sync(True)
            finally:
                env.close()
        return dropped


def _read(env: Any, txn: Any) -> dict[str, Any]:
    """Identity, event id counters and whether data is stored, from a read transaction."""
    names = {bytes(key) for key, _ in txn.cursor()}
    dbs = {name: env.open_db(name, txn=txn, create=False) for name in names}
    meta = dbs.get(b"meta")
    identity: RepositoryIdentity | None = None
    counters = {NEXT_EVENT_ID: 0, NEXT_FLOWFILE_ID: 0}
    if meta is not None:
        raw = txn.get(IDENTITY_KEY, db=meta)
        if raw is not None:
            try:
                identity = RepositoryIdentity.decode(bytes(raw))
            except ValueError as exc:
                return {"damaged": f"its identity record is unreadable ({exc})"}
        for key in counters:
            value = txn.get(key, db=meta)
            if value is not None:
                counters[key] = codec.key_id(bytes(value))
    next_event_id = counters[NEXT_EVENT_ID]
    journal_start = None
    journal = dbs.get(b"journal")
    if journal is not None:
        cursor = txn.cursor(db=journal)
        if cursor.last():
            next_event_id = max(next_event_id, codec.key_id(bytes(cursor.key())) + 1)
            cursor.first()
            journal_start = codec.key_id(bytes(cursor.key()))
    holds_data = any(counters.values()) or any(
        txn.stat(dbs[name])["entries"] for name in _DATA_DATABASES if name in dbs
    )
    return {
        "identity": identity,
        "holds_data": holds_data,
        "next_event_id": next_event_id,
        "journal_start": next_event_id if journal_start is None else journal_start,
    }


def _open_failed(
    found: Any, exc: lmdb.Error, directory: Any, settings: EngineSettings
) -> list[RepositoryProbe]:
    error = file_check.open_failure(directory, exc, settings.data_dir)
    if not isinstance(error, RepositoryDamagedError):
        raise error from exc
    result: list[RepositoryProbe] = found(damaged=f"LMDB reports {exc}")
    return result
