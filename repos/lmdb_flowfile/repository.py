"""LMDB FlowFile repository: FlowFile records, swap batches, provenance journal and state.

One LMDB environment with named databases:

* ``flowfiles``: FlowFile id -> the FlowFile and the connection it waits in (live set);
* ``swap`` / ``swap_summary``: location -> a swapped-out batch and its summary;
* ``journal``: event id -> provenance event not yet indexed by the provenance repository;
* ``state``: component id -> its LOCAL state map;
* ``keyed_state``: component id, NUL, key -> value (a component's keyed durable store);
* ``meta``: id high-water marks.

A commit is one LMDB write transaction. Concurrent committers share transactions (group
commit): the thread that takes the writer lock writes every request queued so far. LMDB
writes through the OS page cache, so with ``durability=process`` (no fsync) a committed
transaction survives kill -9; ``durability=power`` opens the environment with fsync on
every transaction commit.
"""

from __future__ import annotations

import hashlib
import logging
import operator
import os
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import lmdb

from flowcore.clock import Clock
from flowcore.errors import (
    CommitFailedError,
    FlowFileHandlingError,
    RepositoryError,
    RepositoryFullError,
)
from flowcore.model.flowfile import ResourceClaim
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository.flowfile import (
    CommitReceipt,
    FlowFileRepository,
    KeyedStateItem,
    QueuedFlowFile,
    RecoveredState,
    RepositoryUpdate,
    SwapOut,
    SwapSummary,
    unstorable_text,
)
from flowcore.settings import EngineSettings
from flowcore.units import parse_data_size
from repos.lmdb_flowfile import codec, file_check
from repos.lmdb_flowfile.identity import LmdbIdentity
from repos.lmdb_flowfile.recent_events import RecentEvents

log = logging.getLogger("flowcore.repository.flowfile")
_T = TypeVar("_T")
_NEXT_EVENT_ID = b"next_event_id"


def _keyed_key(component_id: str, key: bytes) -> bytes:
    """A keyed-state key in LMDB: the component id, a NUL, then the component's key.

    LMDB keys hold at most 511 bytes and a component's keys up to 400
    (``MAX_KEYED_STATE_KEY``), so an id longer than 64 bytes is replaced by a marker byte
    and its 32-hex-digit hash: any processor name fits.
    """
    encoded = component_id.encode()
    if len(encoded) > _MAX_PLAIN_COMPONENT_ID:
        encoded = b"\x01" + hashlib.blake2b(encoded, digest_size=16).hexdigest().encode()
    return encoded + b"\x00" + key


_MAX_PLAIN_COMPONENT_ID = 64


_NEXT_FLOWFILE_ID = b"next_flowfile_id"
REPOSITORY = "FlowFile"
# Newest committed events kept in memory for the indexer (see recent_events.py): a few
# index batches' worth.
RECENT_EVENTS = 50_000
_FLOWFILE_ID = operator.attrgetter("flowfile.id")


def _always() -> bool:
    return True


@dataclass(frozen=True, slots=True)
class _SwapWrite:
    """A swap batch encoded outside the writer lock: its location, blob and summary."""

    summary: SwapSummary
    location: bytes
    blob: bytes
    encoded_summary: bytes
    live_keys: list[bytes]


@dataclass(slots=True)
class _Request:
    """One caller's commit, serialised before it waits for the writer lock."""

    update: RepositoryUpdate
    put_keys: list[bytes]
    put_values: list[bytes]
    deletes: list[bytes]
    events: list[bytes]
    state: list[tuple[bytes, bytes]]
    keyed_puts: list[tuple[bytes, bytes]]
    keyed_deletes: list[bytes]
    swaps: list[_SwapWrite]
    max_flowfile_id: int
    done: bool = False
    receipt: CommitReceipt | None = None
    error: BaseException | None = None


def _fail_all(requests: list[_Request], error: BaseException) -> None:
    """Mark ``requests`` done with a ``CommitFailedError`` naming ``error``."""
    for request in requests:
        request.error = CommitFailedError(
            f"the group commit this session shared failed: {type(error).__name__}: {error}",
            repository="FlowFile",
        )
        request.done = True


class LmdbFlowFileRepository(LmdbIdentity, FlowFileRepository):
    """The write-ahead log of FlowFile state, in LMDB."""

    def __init__(self, settings: EngineSettings, clock: Clock) -> None:
        self._settings = settings
        self._clock = clock
        self._durability: Literal["process", "power"] = settings.durability
        path = settings.flowfile_repository_dir
        path.mkdir(parents=True, exist_ok=True)
        power = self._durability == "power"
        max_map_size = parse_data_size(settings.flowfile_repository.max_map_size)
        # A truncated data.mdb would be mapped and kill the process with SIGBUS.
        found = file_check.check_before_open(path, max_map_size, settings.data_dir)
        # The map may have grown past map_size before: open at least as large as the data.
        map_size = max(parse_data_size(settings.flowfile_repository.map_size), found.used_bytes)
        with file_check.open_errors(path, settings.data_dir):
            self._env = lmdb.open(
                str(path),
                map_size=map_size,
                max_dbs=8,
                sync=power,
                metasync=power,
                readahead=False,
                lock=True,
            )
            try:
                self._flowfiles = self._env.open_db(b"flowfiles")
                self._swap = self._env.open_db(b"swap")
                self._swap_summary = self._env.open_db(b"swap_summary")
                self._journal = self._env.open_db(b"journal")
                self._state = self._env.open_db(b"state")
                self._keyed = self._env.open_db(b"keyed_state")
                self._meta = self._env.open_db(b"meta")
            except BaseException:
                self._env.close()  # a damaged file must not stay open in this process
                raise
        self._map = _MapSize(
            self._env,
            max_map_size,
            parse_data_size(settings.flowfile_repository.removal_reserve),
        )
        self._write_lock = threading.Lock()
        self._pending_lock = threading.Lock()
        self._pending: list[_Request] = []
        self._recent = RecentEvents(RECENT_EVENTS)
        with file_check.open_errors(path, settings.data_dir), self._env.begin() as txn:
            self._next_event_id = self._read_counter(txn, _NEXT_EVENT_ID)
            self._next_flowfile_id = self._read_counter(txn, _NEXT_FLOWFILE_ID)
            last_event = txn.cursor(db=self._journal)
            if last_event.last():
                self._next_event_id = max(self._next_event_id, codec.key_id(last_event.key()) + 1)

    @property
    def durability(self) -> Literal["process", "power"]:
        return self._durability

    # -- commit ---------------------------------------------------------------------------

    def commit(self, update: RepositoryUpdate) -> CommitReceipt:
        """Write one session's changes; concurrent callers share a transaction."""
        try:
            request = self._serialise(update)
        except UnicodeEncodeError as exc:  # nothing is written: refused whole
            reason = unstorable_text(update) or f"text that is not valid Unicode: {exc}"
            msg = f"cannot store the session's changes: {reason}"
            raise FlowFileHandlingError(msg) from exc
        with self._pending_lock:
            self._pending.append(request)
        with self._write_lock:
            # Followers wait on the lock; the leader before them may have written theirs.
            if not request.done:
                with self._pending_lock:
                    batch, self._pending = self._pending, []
                self._write_group(batch)
        if request.error is not None:
            raise request.error
        assert request.receipt is not None
        return request.receipt

    def _serialise(self, update: RepositoryUpdate) -> _Request:
        """Encode outside the writer lock, so that concurrent sessions encode in parallel."""
        encode, id_key = codec.encode, codec.id_key
        # Values first: encoding brings each record into the CPU cache, where the key
        # pass then finds it. Keys and values stay two lists (zipped lazily under the
        # writer lock) and ``id_key`` is struct's C function: at 1,000 FlowFiles per
        # session the per-record tuples and Python frames cost more than the LMDB puts.
        put_values = list(map(encode, update.puts))
        put_keys = list(map(id_key, map(_FLOWFILE_ID, update.puts)))
        keyed = [(_keyed_key(c, b""), changes) for c, changes in update.keyed_state.items()]
        return _Request(
            update=update,
            put_keys=put_keys,
            put_values=put_values,
            deletes=list(map(id_key, update.deletes)),
            events=list(map(encode, update.events)),
            state=[(c.encode(), encode(s)) for c, s in update.state.items()],
            keyed_puts=sorted(
                (head + k, v)
                for head, changes in keyed
                for k, v in changes.items()
                if v is not None
            ),
            keyed_deletes=[
                head + k for head, changes in keyed for k, v in changes.items() if v is None
            ],
            swaps=[_encode_swap(swap) for swap in update.swap_outs],
            # Big-endian keys sort as their ids do.
            max_flowfile_id=codec.key_id(max(put_keys)) if put_keys else -1,
        )

    def _write_group(self, batch: list[_Request]) -> None:
        """Write the batch's requests in one transaction; each request ends done, with its
        receipt or its error. An error that is not the repository's refusal fails every
        request of the batch not yet written: the leader raises it, the others a
        ``CommitFailedError`` naming it (else they would find their request neither done
        nor written)."""
        try:
            self._write(batch)
        except CommitFailedError as exc:
            if len(batch) == 1:
                batch[0].error = exc
                batch[0].done = True
                return
            # One request may be the cause (too big for the map): give each its own chance.
            for position, request in enumerate(batch):
                try:
                    self._write([request])
                except CommitFailedError as single:
                    request.error = single
                    request.done = True
                except BaseException as other:
                    _fail_all(batch[position:], other)
                    raise
        except BaseException as other:
            _fail_all(batch, other)
            raise

    def _write(self, batch: list[_Request]) -> None:
        next_event, next_flowfile, receipts = self._map.write(
            lambda txn: self._write_txn_body(txn, batch),
            lambda: all(request.update.only_removes() for request in batch),
            "commit",
        )
        self._next_event_id = next_event
        self._next_flowfile_id = next_flowfile
        for request, receipt in zip(batch, receipts, strict=True):
            for event_id, event in zip(receipt.event_ids, request.update.events, strict=True):
                event.event_id = event_id
        self._recent.add([event for request in batch for event in request.update.events])
        for request, receipt in zip(batch, receipts, strict=True):
            request.receipt = receipt
            request.done = True

    def _write_txn_body(
        self, txn: Any, batch: list[_Request]
    ) -> tuple[int, int, list[CommitReceipt]]:
        """Everything one group commit writes, inside its transaction."""
        next_event = self._next_event_id
        next_flowfile = self._next_flowfile_id
        receipts: list[CommitReceipt] = []
        put = txn.put
        records = txn.cursor(db=self._flowfiles)
        journal = txn.cursor(db=self._journal)
        # Bound cursor methods: a call with ``db=`` parses its keywords each time.
        find, remove = records.set_key, records.delete
        for request in batch:
            for key in request.deletes:
                if find(key):
                    remove()
            if request.put_keys:
                records.putmulti(zip(request.put_keys, request.put_values, strict=True))
            for swap in request.swaps:
                put(swap.location, swap.blob, db=self._swap)
                put(swap.location, swap.encoded_summary, db=self._swap_summary)
                for key in swap.live_keys:
                    if find(key):
                        remove()
                next_flowfile = max(next_flowfile, swap.summary.max_flowfile_id + 1)
            ids = range(next_event, next_event + len(request.events))
            if request.events:
                keys = map(codec.id_key, ids)
                journal.putmulti(zip(keys, request.events, strict=True), append=True)
            next_event += len(request.events)
            receipts.append(
                CommitReceipt(event_ids=ids, swapped=[swap.summary for swap in request.swaps])
                if request.swaps
                else CommitReceipt(event_ids=ids)
            )
            for key, value in request.state:
                put(key, value, db=self._state)
            for key in request.keyed_deletes:
                txn.delete(key, db=self._keyed)
            if request.keyed_puts:
                txn.cursor(db=self._keyed).putmulti(request.keyed_puts)
            next_flowfile = max(next_flowfile, request.max_flowfile_id + 1)
        put(_NEXT_EVENT_ID, codec.id_key(next_event), db=self._meta)
        put(_NEXT_FLOWFILE_ID, codec.id_key(next_flowfile), db=self._meta)
        return next_event, next_flowfile, receipts

    # -- recovery -------------------------------------------------------------------------

    @file_check.damage_as_error
    def recover(self) -> RecoveredState:
        queues: dict[str, list[QueuedFlowFile]] = {}
        swapped: dict[str, list[SwapSummary]] = {}
        references: Counter[ResourceClaim] = Counter()
        next_seq: dict[str, int] = {}
        max_id = -1
        with self._map.reading(), self._env.begin(buffers=True) as txn:
            for _key, value in txn.cursor(db=self._flowfiles):
                record = codec.decode_record(value)
                queues.setdefault(record.queue, []).append(record)
                claim = record.flowfile.claim
                if claim is not None:
                    references[claim.resource] += 1
                max_id = max(max_id, record.flowfile.id)
                next_seq[record.queue] = max(next_seq.get(record.queue, 0), record.seq + 1)
            for _key, value in txn.cursor(db=self._swap_summary):
                summary = codec.decode_summary(value)
                swapped.setdefault(summary.queue, []).append(summary)
                for resource, count in summary.resource_claims:
                    references[resource] += count
                max_id = max(max_id, summary.max_flowfile_id)
                next_seq[summary.queue] = max(next_seq.get(summary.queue, 0), summary.max_seq + 1)
        for records in queues.values():
            records.sort(key=lambda r: r.seq)
        for summaries in swapped.values():
            summaries.sort(key=lambda s: s.min_seq)
        return RecoveredState(
            queues=queues,
            swapped=swapped,
            next_flowfile_id=max(self._next_flowfile_id, max_id + 1),
            next_event_id=self._next_event_id,
            claim_references=references,
            next_seq=next_seq,
        )

    # -- swap -----------------------------------------------------------------------------

    def swap_in(self, summary: SwapSummary) -> list[QueuedFlowFile]:
        location = summary.location.encode()

        def body(txn: Any) -> list[QueuedFlowFile]:
            blob = txn.get(location, db=self._swap)
            if blob is None:
                msg = f"swap location {summary.location} is unknown"
                raise RepositoryError(msg)
            records = codec.decode_records(blob)
            for record in records:
                txn.put(codec.id_key(record.flowfile.id), codec.encode(record), db=self._flowfiles)
            txn.delete(location, db=self._swap)
            txn.delete(location, db=self._swap_summary)
            return records

        # Moving a batch back takes about the room it frees: allowed into the reserve.
        with self._write_lock:
            return self._map.write(body, _always, "swap in")

    def read_swapped(self, summary: SwapSummary) -> list[QueuedFlowFile]:
        with self._map.reading(), self._env.begin() as txn:
            blob = txn.get(summary.location.encode(), db=self._swap)
        if blob is None:
            msg = f"swap location {summary.location} is unknown"
            raise RepositoryError(msg)
        return codec.decode_records(blob)

    # -- state, sync, journal -------------------------------------------------------------

    def load_state(self, component_id: str) -> dict[str, str]:
        with self._map.reading(), self._env.begin() as txn:
            value = txn.get(component_id.encode(), db=self._state)
        return {} if value is None else codec.decode_state(value)

    def load_keyed(self, component_id: str, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        found: dict[bytes, bytes] = {}
        head = _keyed_key(component_id, b"")
        with self._map.reading(), self._env.begin(db=self._keyed) as txn:
            get = txn.get
            for key in keys:
                value = get(head + key)
                if value is not None:
                    found[key] = value
        return found

    def scan_keyed(
        self, component_id: str, prefix: bytes, after: bytes | None, limit: int
    ) -> list[KeyedStateItem]:
        head = _keyed_key(component_id, b"")
        start = head + (prefix if after is None or after < prefix else after)
        full_prefix = head + prefix
        items: list[KeyedStateItem] = []
        with self._map.reading(), self._env.begin(db=self._keyed) as txn:
            cursor = txn.cursor()
            if not cursor.set_range(start):
                return items
            for key, value in cursor:
                if not key.startswith(full_prefix) or len(items) >= limit:
                    break
                short = key[len(head) :]
                if after is not None and short <= after:
                    continue
                items.append(KeyedStateItem(short, value))
        return items

    def sync(self) -> None:
        self._env.sync(True)

    def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
        recent = self._recent.read(after_event_id, limit)
        if recent is not None:
            return recent
        return self._read_stored_journal(after_event_id, limit)

    def _read_stored_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
        """``read_journal`` from LMDB alone."""
        events: list[ProvenanceEvent] = []
        with self._map.reading(), self._env.begin(buffers=True) as txn:
            cursor = txn.cursor(db=self._journal)
            if not cursor.set_range(codec.id_key(max(after_event_id + 1, 0))):
                return events
            for key, value in cursor:
                event = codec.decode_event(value)
                event.event_id = codec.key_id(bytes(key))
                events.append(event)
                if len(events) >= limit:
                    break
        return events

    def trim_journal(self, through_event_id: int) -> int:
        if through_event_id < 0:
            return 0

        # Big-endian keys compare as their ids do: no decoding per event.
        last = codec.id_key(through_event_id)

        def body(txn: Any) -> int:
            cursor = txn.cursor(db=self._journal)
            if cursor.last() and cursor.key() <= last:
                # Everything journaled is indexed (the usual case): empty the database
                # in one call, which frees its pages instead of deleting key by key.
                removed: int = txn.stat(self._journal)["entries"]
                txn.drop(self._journal, delete=False)
                return removed
            removed = 0
            key, delete = cursor.key, cursor.delete
            positioned = cursor.first()
            while positioned and key() <= last:
                removed += 1
                positioned = delete() and bool(key())
            return removed

        with self._write_lock:
            removed = self._map.write(body, _always, "trim the provenance journal")
        self._recent.trim(through_event_id)
        return removed

    def journal_size(self) -> int:
        with self._map.reading(), self._env.begin() as txn:
            entries: int = txn.stat(self._journal)["entries"]
        return entries

    def close(self) -> None:
        with self._write_lock:
            self._env.close()

    # -- helpers --------------------------------------------------------------------------

    def _read_counter(self, txn: Any, key: bytes) -> int:
        value = txn.get(key, db=self._meta)
        return 0 if value is None else codec.key_id(value)


def _encode_swap(swap: SwapOut) -> _SwapWrite:
    """A swap batch's summary (kept apart so recovery never reads the batch) and blob."""
    records = swap.records
    if not records:
        msg = "a swap batch cannot be empty"
        raise ValueError(msg)
    claims: Counter[ResourceClaim] = Counter()
    for record in records:
        if record.flowfile.claim is not None:
            claims[record.flowfile.claim.resource] += 1
    summary = SwapSummary(
        queue=swap.queue,
        location=f"{swap.queue}/{records[0].seq:020d}-{uuid.uuid4().hex[:12]}",
        count=len(records),
        total_bytes=sum(r.flowfile.size for r in records),
        max_flowfile_id=max(r.flowfile.id for r in records),
        min_seq=min(r.seq for r in records),
        max_seq=max(r.seq for r in records),
        resource_claims=list(claims.items()),
    )
    return _SwapWrite(
        summary=summary,
        location=summary.location.encode(),
        blob=codec.encode(list(records)),
        encoded_summary=codec.encode(summary),
        # Deleting a key that was never live (put by the same update) is a no-op.
        live_keys=[codec.id_key(r.flowfile.id) for r in records],
    )


class _MapSize:
    """The LMDB map: grows on its own when full, keeps a reserve for removals.

    A write that finds the map full doubles it (up to ``max_map_size`` less the reserve)
    and tries again. At that ceiling only writes that remove (``only_removes``, journal
    trims, swap-ins) may use the reserve, so that a full repository can still be
    drained; anything else fails with ``RepositoryFullError`` and writes nothing.
    LMDB allows a resize only while this process has no transaction open: readers share
    the map through ``reading`` and a resize waits for them (writers hold the writer
    lock already).
    """

    def __init__(self, env: Any, max_size: int, reserve: int) -> None:
        self._env = env
        self._max: int = max(max_size, int(env.info()["map_size"]))
        self._reserve = min(reserve, self._max // 4)
        self._cond = threading.Condition()
        self._readers = 0
        self._resizing = False
        self._in_reserve = False

    @property
    def ceiling(self) -> int:
        """The size ordinary writes may grow the map to."""
        return self._max - self._reserve

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._cond:
            while self._resizing:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    def write(self, body: Callable[[Any], _T], removal_only: Callable[[], bool], what: str) -> _T:
        """Run ``body`` in one write transaction (the caller holds the writer lock).

        ``removal_only`` is asked only when the map is full (it costs a pass over the
        update, which the common path does not pay).
        """
        while True:
            try:
                with self._env.begin(write=True) as txn:
                    result = body(txn)
                if self._in_reserve:
                    self._in_reserve = False
                    self._resize(self.ceiling)  # give the reserve back
                return result
            except lmdb.MapFullError as exc:
                if not self._grow(removal_only()):
                    raise self._full(what) from exc
            except lmdb.MapResizedError:
                # Another process grew the map: adopt its size.
                self._resize(0)
            except lmdb.Error as exc:
                if _no_room(self._env.path(), exc):
                    raise _disk_full(self._env.path(), what, exc) from exc
                msg = f"cannot {what} in the FlowFile repository: {exc}; nothing was written"
                raise CommitFailedError(msg, repository=REPOSITORY) from exc

    def _grow(self, removal_only: bool) -> bool:
        current = int(self._env.info()["map_size"])
        if current < self.ceiling:
            self._resize(min(max(current * 2, current + 1), self.ceiling))
            log.info("FlowFile repository map grown to %d bytes", self._env.info()["map_size"])
            return True
        if removal_only and current < self._max:
            self._resize(self._max)
            self._in_reserve = True
            log.warning("FlowFile repository map full: a removal uses the reserve")
            return True
        return False

    def _resize(self, size: int) -> None:
        with self._cond:
            self._resizing = True
            while self._readers:
                self._cond.wait()
            try:
                self._env.set_mapsize(size)
            finally:
                self._resizing = False
                self._cond.notify_all()

    def _full(self, what: str) -> RepositoryFullError:
        size = self._env.info()["map_size"]
        return RepositoryFullError(
            f"cannot {what}: the FlowFile repository is full (LMDB map {size} bytes, "
            f"the most flowfile_repository.max_map_size allows less its removal reserve); "
            "nothing was written. Raise flowfile_repository.max_map_size or let the flow "
            "drain",
            repository=REPOSITORY,
            setting="flowfile_repository.max_map_size",
        )


# Less free space than this under the repository after a failed write: the disk is full.
_NO_ROOM_BYTES = 1024 * 1024


def _no_room(path: str, error: lmdb.Error) -> bool:
    """True when a failed LMDB write is a full disk: ENOSPC, or the I/O error LMDB gives
    for a write the disk cut short, with (next to) no space left under ``path``."""
    if isinstance(error, lmdb.DiskError):
        return True
    try:
        stats = os.statvfs(path)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < _NO_ROOM_BYTES


def _disk_full(path: object, what: str, error: lmdb.Error) -> RepositoryFullError:
    """LMDB could not write its file: the disk under the repository is full (ENOSPC)."""
    msg = (
        f"cannot {what}: the FlowFile repository is full (out of disk space: {error}); "
        f"nothing was committed: free space under {path} or move data_dir to a larger disk"
    )
    return RepositoryFullError(msg, repository=REPOSITORY, setting="data_dir")
