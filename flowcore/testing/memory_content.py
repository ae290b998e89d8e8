"""The content repository's in-memory twin, for tests.

Every content claim gets a resource claim of its own (the durable repository appends
several into one file; the contract allows either), held as bytes in a dict. Claimant
counts, release candidates, release (to an archive, when the settings enable it) and the
archive's age-off by retention period (counted from when a claim was written) follow
the contract; the archive's disk-usage limit does not apply to memory. Like the FlowFile
twin, it keeps its claims in a store that outlives ``close``, so a twin opened again on
the same store is a restart.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from flowcore.clock import Clock
from flowcore.errors import ContentNotFoundError, RepositoryError
from flowcore.model.flowfile import ContentClaim, ResourceClaim
from flowcore.repository.checksum import RunningChecksum, check, checksum_of
from flowcore.repository.content import ContentRepository, ContentWriter
from flowcore.repository.identity import RepositoryIdentity
from flowcore.settings import EngineSettings
from flowcore.units import parse_time_period_ms

CONTAINER = "memory"


@dataclass(slots=True)
class MemoryContentStore:
    """What an in-memory content repository holds; it outlives the repository's close."""

    live: dict[ResourceClaim, bytes] = field(default_factory=dict)
    written_ms: dict[ResourceClaim, int] = field(default_factory=dict)
    """When each claim was written: its age in the archive counts from then."""
    archived: dict[ResourceClaim, tuple[bytes, int]] = field(default_factory=dict)
    """Released claims still readable: their bytes and when they were written."""
    identity: RepositoryIdentity | None = None
    ids: itertools.count[int] = field(default_factory=itertools.count)


class InMemoryContentRepository(ContentRepository):
    """``ContentRepository`` in memory."""

    def __init__(
        self, settings: EngineSettings, clock: Clock, store: MemoryContentStore | None = None
    ) -> None:
        self._clock = clock
        content = settings.content
        self._archive = content.archive_enabled
        self._retention_ms = parse_time_period_ms(content.archive_max_retention_period)
        self.store = store if store is not None else MemoryContentStore()
        self._lock = threading.Lock()
        self._counts: dict[ResourceClaim, int] = {}
        self._writing: set[ResourceClaim] = set()
        self._candidates: dict[ResourceClaim, None] = {}
        self._closed = False

    def write_identity(self, identity: RepositoryIdentity, *, durable: bool) -> None:
        self.store.identity = identity

    # -- writing ---------------------------------------------------------------------

    def create_writer(self) -> ContentWriter:
        self._check_open()
        with self._lock:
            resource = ResourceClaim(CONTAINER, "0", str(next(self.store.ids)))
            self._writing.add(resource)
        return _MemoryWriter(self, resource)

    def _finish(self, resource: ResourceClaim, data: bytes | None) -> None:
        """A writer closed (``data``: its bytes, counted once) or aborted (None)."""
        with self._lock:
            self._writing.discard(resource)
            if data is None:
                return
            self.store.live[resource] = data
            self.store.written_ms[resource] = self._clock.now_ms()
            self._counts[resource] = self._counts.get(resource, 0) + 1

    def flush(self, resources: Iterable[ResourceClaim], fsync: bool) -> None:
        """Nothing to do: a closed writer's bytes are already where reads find them."""

    # -- reading ---------------------------------------------------------------------

    def read(self, claim: ContentClaim, offset: int = 0, length: int = -1) -> bytes:
        if length == -1:
            length = claim.length - offset
        if offset < 0 or length < 0 or offset + length > claim.length:
            msg = (
                f"range offset={offset} length={length} is outside content claim "
                f"{claim.resource} of {claim.length} bytes"
            )
            raise ValueError(msg)
        data = self._bytes_of(claim)
        start = claim.offset + offset
        if len(data) < claim.offset + claim.length:
            msg = f"content claim {claim.resource} is torn: {len(data)} bytes left"
            raise ContentNotFoundError(msg)
        part = data[start : start + length]
        if offset == 0 and length == claim.length:
            check(claim, checksum_of(part))
        return part

    def exists(self, claim: ContentClaim) -> bool:
        try:
            data = self._bytes_of(claim)
        except ContentNotFoundError:
            return False
        return len(data) >= claim.offset + claim.length

    def _bytes_of(self, claim: ContentClaim) -> bytes:
        resource = claim.resource
        with self._lock:
            data = self.store.live.get(resource)
            if data is None and resource in self.store.archived:
                data = self.store.archived[resource][0]
        if data is None:
            msg = f"content claim {resource} not found"
            raise ContentNotFoundError(msg)
        return data

    # -- claimant counts and release -------------------------------------------------

    def increment(self, resource: ResourceClaim, amount: int = 1) -> int:
        if amount < 0:
            msg = f"cannot increment a claimant count by {amount}"
            raise ValueError(msg)
        with self._lock:
            value = self._counts.get(resource, 0) + amount
            if value:
                self._counts[resource] = value
                self._candidates.pop(resource, None)
            return value

    def decrement(self, resource: ResourceClaim, amount: int = 1) -> int:
        if amount < 0:
            msg = f"cannot decrement a claimant count by {amount}"
            raise ValueError(msg)
        with self._lock:
            value = max(self._counts.get(resource, 0) - amount, 0)
            if value:
                self._counts[resource] = value
            else:
                self._counts.pop(resource, None)
                if amount and resource not in self._writing:
                    self._candidates[resource] = None
            return value

    def claimant_count(self, resource: ResourceClaim) -> int:
        with self._lock:
            return self._counts.get(resource, 0)

    def take_release_candidates(self) -> list[ResourceClaim]:
        with self._lock:
            taken = list(self._candidates)
            self._candidates.clear()
        return taken

    def release(self, resources: Iterable[ResourceClaim]) -> int:
        released = 0
        with self._lock:
            for resource in resources:
                if self._counts.get(resource, 0) or resource in self._writing:
                    continue
                data = self.store.live.pop(resource, None)
                if data is None:
                    continue
                written = self.store.written_ms.pop(resource, 0)
                if self._archive:
                    self.store.archived[resource] = (data, written)
                released += 1
        return released

    # -- recovery and archive --------------------------------------------------------

    def recover(self, references: Mapping[ResourceClaim, int]) -> int:
        with self._lock:
            self._counts = {r: c for r, c in references.items() if c > 0}
            self._candidates.clear()
            orphans = [r for r in self.store.live if r not in self._counts]
        return self.release(orphans)

    def cleanup_archive(self, now_ms: int) -> int:
        with self._lock:
            expired = [  # never one a claimant holds again (a replayed FlowFile)
                resource
                for resource, (_, written) in self.store.archived.items()
                if now_ms - written > self._retention_ms and not self._counts.get(resource)
            ]
            for resource in expired:
                del self.store.archived[resource]
        return len(expired)

    def close(self) -> None:
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            msg = "the content repository is closed"
            raise RepositoryError(msg)


class _MemoryWriter(ContentWriter):
    """Collects one content's bytes and its checksum as they come."""

    def __init__(self, owner: InMemoryContentRepository, resource: ResourceClaim) -> None:
        self._owner = owner
        self._resource = resource
        self._parts: list[bytes] = []
        self._written = 0
        self._checksum = RunningChecksum()
        self._done = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._done:
            msg = "the content writer is closed"
            raise RepositoryError(msg)
        chunk = bytes(data)
        self._parts.append(chunk)
        self._checksum.update(chunk)
        self._written += len(chunk)

    @property
    def bytes_written(self) -> int:
        return self._written

    def close(self) -> ContentClaim:
        if self._done:
            msg = "the content writer is closed"
            raise RepositoryError(msg)
        self._done = True
        self._owner._finish(self._resource, b"".join(self._parts))
        return ContentClaim(self._resource, 0, self._written, self._checksum.value)

    def abort(self) -> None:
        if not self._done:
            self._done = True
            self._owner._finish(self._resource, None)
