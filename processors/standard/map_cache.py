"""LmdbMapCacheService: a durable key-value map cache for DetectDuplicate, Wait and Notify.

NiFi's processors use a Distributed Map Cache (a MapCacheClientService talking to a
MapCacheServer). Here the map lives in a small LMDB environment of the service's own,
``<data directory>/map_cache/<service id>/`` unless Persistence Directory names another,
so it survives a restart and is shared by every processor that names the service.

Why its own LMDB, not the processors' keyed state: keyed state belongs to one component,
while Wait and Notify (and several DetectDuplicate instances) must share one map. Each
write is one LMDB write transaction, made durable as the FlowFile repository's are: with
``durability: process`` it reaches the OS at commit (it survives the process being
killed), with ``power`` it is synced to disk. A cache write is not part of the session's
commit; each processor orders the two so that a crash between them is safe (see its
module). ``fetch``/``replace`` give compare-and-set on a revision, as NiFi's
AtomicDistributedMapCacheClient does, and ``remove_if`` compare-and-delete (which NiFi's
Wait approximates with a check before the removal).
"""

from __future__ import annotations

import os
import secrets
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, Protocol, runtime_checkable

import lmdb

from flowcore.processor import (
    ControllerService,
    ProcessContext,
    PropertyDescriptor,
    controller_service,
)

_INITIAL_MAP = 16 * 1024 * 1024
_REVISION = struct.Struct(">Q")

PERSISTENCE_DIRECTORY = PropertyDescriptor(
    name="Persistence Directory",
    display_name="Persistence Directory",
    description="The directory of the cache's LMDB environment. If not specified, the "
    "cache lives under the data directory, in map_cache/<service identifier>.",
)


@runtime_checkable
class MapCache(Protocol):
    """What DetectDuplicate, Wait and Notify need of a map cache (bytes to bytes)."""

    def get(self, key: bytes) -> bytes | None: ...

    def put(self, key: bytes, value: bytes) -> None: ...

    def get_and_put_if_absent(self, key: bytes, value: bytes) -> bytes | None: ...

    def fetch(self, key: bytes) -> tuple[int, bytes] | None: ...

    def replace(self, key: bytes, value: bytes, revision: int | None) -> bool: ...

    def remove(self, key: bytes) -> bool: ...

    def remove_if(self, key: bytes, revision: int) -> bool: ...


class _Environment:
    """One LMDB environment per directory in the process (LMDB forbids opening twice)."""

    _open: ClassVar[dict[str, _Environment]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, path: Path, sync: bool) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self.env = lmdb.open(str(path), map_size=_INITIAL_MAP, max_dbs=1, sync=sync, metasync=sync)
        self.write_lock = threading.Lock()
        self.key = os.path.realpath(path)
        self.users = 0

    @classmethod
    def at(cls, path: Path, sync: bool) -> _Environment:
        """The environment of ``path``, opened if no service holds it; one more user."""
        key = os.path.realpath(path)
        with cls._lock:
            found = cls._open.get(key)
            if found is None:
                found = cls._open[key] = _Environment(path, sync)
            found.users += 1
            return found

    def release(self) -> None:
        """One user fewer; the last one closes the environment."""
        with self._lock:
            self.users -= 1
            if self.users > 0:
                return
            if self._open.get(self.key) is self:
                del self._open[self.key]
        with self.write_lock:
            self.env.close()

    def write(self, work: Callable[[lmdb.Transaction], object]) -> object:
        """One write transaction; the map doubles when full."""
        with self.write_lock:
            while True:
                try:
                    with self.env.begin(write=True) as txn:
                        return work(txn)
                except lmdb.MapFullError:
                    self.env.set_mapsize(self.env.info()["map_size"] * 2)


def _split(stored: bytes) -> tuple[int, bytes]:
    (revision,) = _REVISION.unpack_from(stored)
    return int(revision), stored[_REVISION.size :]


@controller_service("LmdbMapCacheService")
class LmdbMapCacheService(ControllerService):
    """A map cache kept in LMDB on this machine."""

    property_descriptors: ClassVar[tuple[PropertyDescriptor, ...]] = (PERSISTENCE_DIRECTORY,)

    def __init__(self) -> None:
        self._environment: _Environment | None = None

    def on_enabled(self, context: ProcessContext) -> None:
        directory = context.get_property(PERSISTENCE_DIRECTORY).value
        settings = context.settings
        path = (
            Path(directory) if directory else settings.data_dir / "map_cache" / context.component_id
        )
        self._environment = _Environment.at(path, sync=settings.durability == "power")

    def on_disabled(self) -> None:
        """Close the LMDB store (when no other service in the process shares it)."""
        environment, self._environment = self._environment, None
        if environment is not None:
            environment.release()

    @property
    def _env(self) -> _Environment:
        if self._environment is None:
            msg = "the map cache service is not enabled"
            raise RuntimeError(msg)
        return self._environment

    def get(self, key: bytes) -> bytes | None:
        found = self.fetch(key)
        return None if found is None else found[1]

    def fetch(self, key: bytes) -> tuple[int, bytes] | None:
        with self._env.env.begin() as txn:
            stored = txn.get(key)
        return None if stored is None else _split(bytes(stored))

    def put(self, key: bytes, value: bytes) -> None:
        def work(txn: lmdb.Transaction) -> None:
            stored = txn.get(key)
            revision = _first_revision() if stored is None else _split(bytes(stored))[0] + 1
            txn.put(key, _REVISION.pack(revision) + value)

        self._env.write(work)

    def get_and_put_if_absent(self, key: bytes, value: bytes) -> bytes | None:
        def work(txn: lmdb.Transaction) -> bytes | None:
            stored = txn.get(key)
            if stored is not None:
                return _split(bytes(stored))[1]
            txn.put(key, _REVISION.pack(_first_revision()) + value)
            return None

        result = self._env.write(work)
        return result if isinstance(result, bytes) else None

    def replace(self, key: bytes, value: bytes, revision: int | None) -> bool:
        """Write ``value`` if the entry is still at ``revision`` (None: if it is absent)."""

        def work(txn: lmdb.Transaction) -> bool:
            stored = txn.get(key)
            current = None if stored is None else _split(bytes(stored))[0]
            if current != revision:
                return False
            txn.put(
                key, _REVISION.pack(_first_revision() if current is None else current + 1) + value
            )
            return True

        return bool(self._env.write(work))

    def remove(self, key: bytes) -> bool:
        return bool(self._env.write(lambda txn: txn.delete(key)))

    def remove_if(self, key: bytes, revision: int) -> bool:
        """Remove the entry if it is still at ``revision``, in one transaction (a
        compare-and-delete: a check, then a removal, would drop an update made between
        the two)."""

        def work(txn: lmdb.Transaction) -> bool:
            stored = txn.get(key)
            if stored is None or _split(bytes(stored))[0] != revision:
                return False
            return bool(txn.delete(key))

        return bool(self._env.write(work))


def _first_revision() -> int:
    """A new entry's revision: random (63 bits), so that an entry removed and written
    again never comes back at a revision a task read before the removal (starting at 0
    each time, a compare-and-set by that task succeeded on the new entry)."""
    return secrets.randbits(63)
