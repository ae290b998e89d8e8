"""The FlowFile repository's in-memory twin: every role, in dicts, for tests.

It keeps the contract of the durable repository (atomic commits, event ids in commit
order, swap batches with their summaries, recovery, LOCAL and keyed state, the journal)
without a file or a thread. What it holds lives in a ``MemoryFlowFileStore``: a twin
opened again on the same store is a restart, so tests of recovery run on it too. It is
not durable against a crash of the process, whatever ``durability`` says.
"""

from __future__ import annotations

import bisect
import itertools
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from flowcore.clock import Clock
from flowcore.errors import FlowFileHandlingError, RepositoryError
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
from flowcore.repository.identity import RepositoryIdentity
from flowcore.settings import EngineSettings


@dataclass(slots=True)
class MemoryFlowFileStore:
    """What an in-memory FlowFile repository holds; it outlives the repository's close."""

    live: dict[int, QueuedFlowFile] = field(default_factory=dict)
    swapped: dict[str, tuple[SwapSummary, list[QueuedFlowFile]]] = field(default_factory=dict)
    journal: dict[int, ProvenanceEvent] = field(default_factory=dict)
    state: dict[str, dict[str, str]] = field(default_factory=dict)
    keyed: dict[str, dict[bytes, bytes]] = field(default_factory=dict)
    keyed_order: dict[str, list[bytes]] = field(default_factory=dict)
    """Each component's keyed-state keys, sorted (a scan bisects it, as LMDB's cursor
    seeks, instead of filtering every key)."""
    next_event_id: int = 0
    next_flowfile_id: int = 0
    identity: RepositoryIdentity | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    locations: itertools.count[int] = field(default_factory=itertools.count)


class InMemoryFlowFileRepository(FlowFileRepository):
    """``FlowFileRepository`` in memory: write-ahead log, swap store, state stores, journal."""

    def __init__(
        self,
        settings: EngineSettings,
        clock: Clock,
        store: MemoryFlowFileStore | None = None,
    ) -> None:
        self._durability: Literal["process", "power"] = settings.durability
        self.store = store if store is not None else MemoryFlowFileStore()
        self._closed = False

    @property
    def durability(self) -> Literal["process", "power"]:
        return self._durability

    def write_identity(self, identity: RepositoryIdentity, *, durable: bool) -> None:
        self.store.identity = identity

    # -- write-ahead log -------------------------------------------------------------

    def commit(self, update: RepositoryUpdate) -> CommitReceipt:
        """Check the whole update first, then apply it under one lock: all or nothing."""
        unstorable = unstorable_text(update)
        if unstorable is not None:  # as the durable repository refuses it
            msg = f"cannot store the session's changes: {unstorable}"
            raise FlowFileHandlingError(msg)
        batches = [_batch(swap) for swap in update.swap_outs]
        store = self.store
        with store.lock:
            self._check_open()
            for ident in update.deletes:
                store.live.pop(ident, None)
            for record in update.puts:
                store.live[record.flowfile.id] = record
            highest = max((r.flowfile.id for r in update.puts), default=-1)
            summaries: list[SwapSummary] = []
            for swap, (records, claims) in zip(update.swap_outs, batches, strict=True):
                summary = SwapSummary(
                    queue=swap.queue,
                    location=f"{swap.queue}/{next(store.locations)}",
                    count=len(records),
                    total_bytes=sum(r.flowfile.size for r in records),
                    max_flowfile_id=max(r.flowfile.id for r in records),
                    min_seq=min(r.seq for r in records),
                    max_seq=max(r.seq for r in records),
                    resource_claims=list(claims.items()),
                )
                for record in records:
                    store.live.pop(record.flowfile.id, None)
                store.swapped[summary.location] = (summary, records)
                summaries.append(summary)
                highest = max(highest, summary.max_flowfile_id)
            ids = range(store.next_event_id, store.next_event_id + len(update.events))
            for event_id, event in zip(ids, update.events, strict=True):
                event.event_id = event_id
                store.journal[event_id] = msgspec.structs.replace(event)
            store.next_event_id += len(update.events)
            for component, values in update.state.items():
                store.state[component] = dict(values)
            for component, changes in update.keyed_state.items():
                keyed = store.keyed.setdefault(component, {})
                order = store.keyed_order.setdefault(component, [])
                for key, value in changes.items():
                    if value is None:
                        if keyed.pop(key, None) is not None:
                            del order[bisect.bisect_left(order, key)]
                    else:
                        if key not in keyed:
                            bisect.insort(order, key)
                        keyed[key] = value
            store.next_flowfile_id = max(store.next_flowfile_id, highest + 1)
        return CommitReceipt(event_ids=ids, swapped=summaries)

    def recover(self) -> RecoveredState:
        queues: dict[str, list[QueuedFlowFile]] = {}
        swapped: dict[str, list[SwapSummary]] = {}
        references: Counter[ResourceClaim] = Counter()
        next_seq: dict[str, int] = {}
        store = self.store
        with store.lock:
            max_id = -1
            for record in store.live.values():
                queues.setdefault(record.queue, []).append(record)
                if record.flowfile.claim is not None:
                    references[record.flowfile.claim.resource] += 1
                max_id = max(max_id, record.flowfile.id)
                next_seq[record.queue] = max(next_seq.get(record.queue, 0), record.seq + 1)
            for summary, _ in store.swapped.values():
                swapped.setdefault(summary.queue, []).append(summary)
                for resource, count in summary.resource_claims:
                    references[resource] += count
                max_id = max(max_id, summary.max_flowfile_id)
                next_seq[summary.queue] = max(next_seq.get(summary.queue, 0), summary.max_seq + 1)
            next_flowfile_id = max(store.next_flowfile_id, max_id + 1)
            next_event_id = store.next_event_id
        for records in queues.values():
            records.sort(key=lambda r: r.seq)
        for summaries in swapped.values():
            summaries.sort(key=lambda s: s.min_seq)
        return RecoveredState(
            queues=queues,
            swapped=swapped,
            next_flowfile_id=next_flowfile_id,
            next_event_id=next_event_id,
            claim_references=references,
            next_seq=next_seq,
        )

    def sync(self) -> None:
        """Nothing to do: memory is as durable as it gets."""

    # -- swap store ------------------------------------------------------------------

    def swap_in(self, summary: SwapSummary) -> list[QueuedFlowFile]:
        store = self.store
        with store.lock:
            found = store.swapped.pop(summary.location, None)
            if found is None:
                raise _unknown_location(summary)
            records = found[1]
            for record in records:
                store.live[record.flowfile.id] = record
        return list(records)

    def read_swapped(self, summary: SwapSummary) -> list[QueuedFlowFile]:
        with self.store.lock:
            found = self.store.swapped.get(summary.location)
        if found is None:
            raise _unknown_location(summary)
        return list(found[1])

    # -- processor state and keyed state ---------------------------------------------

    def load_state(self, component_id: str) -> dict[str, str]:
        with self.store.lock:
            return dict(self.store.state.get(component_id, {}))

    def load_keyed(self, component_id: str, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        with self.store.lock:
            keyed = self.store.keyed.get(component_id, {})
            return {key: keyed[key] for key in keys if key in keyed}

    def scan_keyed(
        self, component_id: str, prefix: bytes, after: bytes | None, limit: int
    ) -> list[KeyedStateItem]:
        with self.store.lock:
            keyed = self.store.keyed.get(component_id, {})
            order = self.store.keyed_order.get(component_id, [])
            start = bisect.bisect_left(order, prefix)
            if after is not None:
                start = max(start, bisect.bisect_right(order, after))
            found: list[KeyedStateItem] = []
            for index in range(start, len(order)):
                key = order[index]
                if len(found) >= limit or not key.startswith(prefix):
                    break
                found.append(KeyedStateItem(key, keyed[key]))
            return found

    # -- provenance journal ----------------------------------------------------------

    def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
        with self.store.lock:
            ids = sorted(i for i in self.store.journal if i > after_event_id)[:limit]
            return [msgspec.structs.replace(self.store.journal[i]) for i in ids]

    def trim_journal(self, through_event_id: int) -> int:
        with self.store.lock:
            doomed = [i for i in self.store.journal if i <= through_event_id]
            for event_id in doomed:
                del self.store.journal[event_id]
        return len(doomed)

    def journal_size(self) -> int:
        with self.store.lock:
            return len(self.store.journal)

    def close(self) -> None:
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            msg = "the FlowFile repository is closed"
            raise RepositoryError(msg)


def _batch(swap: SwapOut) -> tuple[list[QueuedFlowFile], Counter[ResourceClaim]]:
    """A swap batch's records (in queue order) and the claims they reference."""
    if not swap.records:
        msg = "a swap batch cannot be empty"
        raise ValueError(msg)
    claims: Counter[ResourceClaim] = Counter()
    for record in swap.records:
        if record.flowfile.claim is not None:
            claims[record.flowfile.claim.resource] += 1
    return list(swap.records), claims


def _unknown_location(summary: SwapSummary) -> RepositoryError:
    return RepositoryError(f"swap location {summary.location} is unknown")
