"""The provenance repository's in-memory twin, for tests.

It indexes from the FlowFile repository's journal exactly as the contract says (store,
then trim), answers searches with the same criteria (a uuid also finds the events naming
it as a parent or child; attributes compare with the effective value; newest first),
looks events up and builds lineage with the shared ``flowcore.repository.lineage``.
Attribute values are cut to ``max_attribute_length`` as the durable repository stores
them. Age-off removes events older than ``max_storage_time``; the size limit does not
apply to memory. Events live in a store that outlives ``close``.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from dataclasses import dataclass, field

import msgspec

from flowcore.clock import Clock
from flowcore.errors import RepositoryError
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository.identity import RepositoryIdentity
from flowcore.repository.lineage import LineageEvent, build_graph, collect_lineage
from flowcore.repository.provenance import (
    LineageGraph,
    ProvenanceJournal,
    ProvenanceQuery,
    ProvenanceRepository,
)
from flowcore.settings import EngineSettings
from flowcore.units import parse_time_period_ms


@dataclass(slots=True)
class MemoryProvenanceStore:
    """What an in-memory provenance repository holds; it outlives the repository's close."""

    events: dict[int, ProvenanceEvent] = field(default_factory=dict)
    indexed_through: int = -1
    identity: RepositoryIdentity | None = None


class InMemoryProvenanceRepository(ProvenanceRepository):
    """``ProvenanceRepository`` in memory, indexing from ``journal``."""

    def __init__(
        self,
        settings: EngineSettings,
        clock: Clock,
        journal: ProvenanceJournal,
        store: MemoryProvenanceStore | None = None,
    ) -> None:
        provenance = settings.provenance
        self._journal = journal
        self._batch = provenance.index_batch_size
        self._max_attribute_length = provenance.max_attribute_length
        self._max_age_ms = parse_time_period_ms(provenance.max_storage_time)
        self.store = store if store is not None else MemoryProvenanceStore()
        self._lock = threading.Lock()
        self._index_lock = threading.Lock()
        self._closed = False
        if self.store.indexed_through >= 0:
            # Finish a trim that a stop after the last index may have prevented.
            journal.trim_journal(self.store.indexed_through)

    def write_identity(self, identity: RepositoryIdentity, *, durable: bool) -> None:
        self.store.identity = identity

    def index_pending(self, *, wait: bool = True) -> int:  # always finishes before returning
        """Store each batch, then trim the journal through it (never the other way round);
        events at or below ``indexed_through`` are never stored twice."""
        indexed = 0
        with self._index_lock:
            while True:
                self._check_open()
                batch = self._journal.read_journal(self.store.indexed_through, self._batch)
                fresh = [e for e in batch if e.event_id > self.store.indexed_through]
                if not fresh:
                    return indexed
                with self._lock:
                    for event in fresh:
                        self.store.events[event.event_id] = self._stored(event)
                    self.store.indexed_through = max(e.event_id for e in fresh)
                indexed += len(fresh)
                self._journal.trim_journal(self.store.indexed_through)

    def _stored(self, event: ProvenanceEvent) -> ProvenanceEvent:
        limit = self._max_attribute_length
        return msgspec.structs.replace(
            event,
            previous_attributes={k: _cut(v, limit) for k, v in event.previous_attributes.items()},
            updated_attributes={
                k: None if v is None else _cut(v, limit)
                for k, v in event.updated_attributes.items()
            },
        )

    def indexed_through(self) -> int:
        return self.store.indexed_through

    def search(self, query: ProvenanceQuery) -> list[ProvenanceEvent]:
        self._check_open()
        if query.limit <= 0:
            return []
        with self._lock:
            events = sorted(self.store.events.items(), reverse=True)
        found: list[ProvenanceEvent] = []
        for event_id, event in events:
            if query.before_event_id is not None and event_id >= query.before_event_id:
                continue
            if _matches(event, query):
                found.append(msgspec.structs.replace(event))
                if len(found) >= query.limit:
                    break
        return found

    def get_event(self, event_id: int) -> ProvenanceEvent | None:
        with self._lock:
            event = self.store.events.get(event_id)
        return None if event is None else msgspec.structs.replace(event)

    def lineage(self, flowfile_uuid: str) -> LineageGraph:
        with self._lock:
            events = list(self.store.events.values())

        def touching(uuids: Collection[str]) -> list[LineageEvent]:
            wanted = set(uuids)
            return [
                LineageEvent(
                    event_id=e.event_id,
                    event_time=e.event_time,
                    event_type=e.event_type,
                    flowfile_uuid=e.flowfile_uuid,
                    parent_uuids=tuple(e.parent_uuids),
                    child_uuids=tuple(e.child_uuids),
                )
                for e in events
                if e.flowfile_uuid in wanted
                or not wanted.isdisjoint(e.parent_uuids)
                or not wanted.isdisjoint(e.child_uuids)
            ]

        collected = collect_lineage(flowfile_uuid, touching)
        return build_graph(collected.events, collected.uuids)

    def age_off(self, now_ms: int) -> int:
        oldest = now_ms - self._max_age_ms
        with self._lock:
            doomed = [i for i, e in self.store.events.items() if e.event_time < oldest]
            for event_id in doomed:
                del self.store.events[event_id]
        return len(doomed)

    def event_count(self) -> int:
        with self._lock:
            return len(self.store.events)

    def close(self) -> None:
        """Refuse work from now on; the events stay in the store."""
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            msg = "the provenance repository is closed"
            raise RepositoryError(msg, repository="provenance")


def _cut(value: str, limit: int) -> str:
    return value[:limit] if len(value) > limit else value


def _matches(event: ProvenanceEvent, query: ProvenanceQuery) -> bool:
    uuid = query.flowfile_uuid
    if uuid is not None and not (
        event.flowfile_uuid == uuid or uuid in event.parent_uuids or uuid in event.child_uuids
    ):
        return False
    if query.event_type is not None and event.event_type != str(query.event_type).upper():
        return False
    if query.component_id is not None and event.component_id != query.component_id:
        return False
    if query.start_ms is not None and event.event_time < query.start_ms:
        return False
    if query.end_ms is not None and event.event_time > query.end_ms:
        return False
    if query.details is not None and (
        event.details is None or query.details.lower() not in event.details.lower()
    ):
        return False
    for name, value in query.attributes.items():
        if name in event.updated_attributes:
            effective = event.updated_attributes[name]
        else:
            effective = event.previous_attributes.get(name)
        if effective != value:
            return False
    return True
