"""Commit preparation: a session's ledger turned into the changes the commit path makes.

Each FlowFile kept in the flow gets its destination (its relationship's connections, a
copy for every connection but the last, with its CLONE event; back to its source queue;
or auto-terminated, with a DROP), then the taken, put, deleted and released entries in
the order the FlowFiles were transferred, then every provenance event (``EventBuilder``).
"""

from __future__ import annotations

from flowcore.errors import FlowFileHandlingError
from flowcore.model.flowfile import CoreAttribute
from flowcore.model.provenance import ProvenanceEventType
from flowcore.repository.flowfile import QueuedFlowFile
from flowcore.session.binding import ComponentBinding
from flowcore.session.commit import SessionChanges
from flowcore.session.content_errors import mark_damaged
from flowcore.session.events import EventBuilder
from flowcore.session.ledger import SessionLedger
from flowcore.session.records import SessionRecord, describe
from flowcore.session.reporter import ReportedEvent
from flowcore.session.services import SessionServices
from flowcore.session.uuids import random_uuid

T = ProvenanceEventType
_UUID: str = CoreAttribute.UUID.value


class CommitPlanner:
    """Plans one component's session commits (see the module doc)."""

    __slots__ = ("_binding", "_content", "_events", "_services")

    def __init__(
        self, binding: ComponentBinding, services: SessionServices, events: EventBuilder
    ) -> None:
        self._binding = binding
        self._services = services
        self._content = services.content
        self._events = events

    def plan(self, ledger: SessionLedger, now: int) -> SessionChanges:
        """The session's changes for the commit path, with every provenance event.

        Raises ``FlowFileHandlingError`` for a FlowFile left without a destination."""
        records = ledger.records
        self._inherit_lineage_from_reported_joins(ledger)
        if ledger.content_missing:
            mark_damaged(records, ledger.content_missing)
        binding = self._binding
        changes = SessionChanges(
            binding=binding,
            state=ledger.state,
            keyed_state=ledger.keyed.take_changes() if ledger.keyed is not None else {},
            counters=ledger.counters,
        )
        destinations = ledger.destinations
        auto_drops = ledger.auto_drops
        clone_events = ledger.clone_events
        for record in list(records.values()):
            if record.removed:
                continue
            if record.to_source:
                assert record.source is not None
                destinations[record.current.id] = [record.source]
                continue
            if record.relationship is None:
                msg = f"{describe(record.current)} was not transferred to any relationship"
                raise FlowFileHandlingError(msg)
            if record.relationship in binding.auto_terminated:
                record.removed = record.auto_terminated = True
                auto_drops.append(record)
                continue
            queues = binding.outgoing.get(record.relationship, [])
            if not queues:
                msg = (
                    f"{describe(record.current)} was transferred to relationship "
                    f"'{record.relationship}', which has no connection and is not "
                    "auto-terminated"
                )
                raise FlowFileHandlingError(msg)
            destinations[record.current.id] = [queues[-1]]
            for queue in queues[:-1]:
                copy = self._clone_for_connection(records, record, now)
                destinations[copy.current.id] = [queue]
                clone_events.append(
                    ReportedEvent(T.CLONE, record.current, now, children=[copy.current.uuid])
                )
        # Destination queues receive FlowFiles in the order they were transferred.
        in_transfer_order = sorted(records.values(), key=lambda r: r.transfer_seq)
        for record in in_transfer_order:
            current = record.current
            if record.taken is not None:
                assert record.source is not None
                changes.taken.setdefault(record.source, []).append(record.taken)
                changes.flowfiles_in += 1
                changes.bytes_in += record.taken.flowfile.size
            original_claim = record.original.claim if record.original is not None else None
            if record.removed:
                if record.original is not None:
                    changes.deletes.append(current.id)
                    if original_claim is not None:
                        changes.released.append(original_claim.resource)
                if record.owns_claim and current.claim is not None:
                    changes.released.append(current.claim.resource)
                continue
            if original_claim is not None and current.claim != original_claim:
                changes.released.append(original_claim.resource)
            for queue in destinations[current.id]:
                changes.puts.append((queue, QueuedFlowFile(queue.name, queue.next_seq(), current)))
            if not record.to_source:
                changes.flowfiles_out += 1
                changes.bytes_out += current.size
        changes.written = set(ledger.written)
        changes.events = self._events.build(now, ledger)
        return changes

    def _inherit_lineage_from_reported_joins(self, ledger: SessionLedger) -> None:
        """A FlowFile created here and reported as a JOIN child starts its lineage with its
        earliest parent, as ``create(parents)`` would (MergeRecord creates the merged
        FlowFile before it knows all of its parents)."""
        joins = [e for e in ledger.reported if e.event_type is T.JOIN and e.parents]
        if not joins:
            return
        records = ledger.records
        by_uuid = {r.current.uuid: r.current for r in records.values()}
        for event in joins:
            child = records.get(event.flowfile.id)
            if child is None or child.original is not None:
                continue
            starts = [by_uuid[u].lineage_start_date for u in event.parents if u in by_uuid]
            if starts and min(starts) < child.current.lineage_start_date:
                child.current = child.current.with_changes(lineage_start_date=min(starts))

    def _clone_for_connection(
        self, records: dict[int, SessionRecord], record: SessionRecord, now: int
    ) -> SessionRecord:
        current = record.current
        attributes = dict(current.attributes)
        attributes[_UUID] = random_uuid()
        copy = current.with_changes(id=self._services.ids.next(), attributes=attributes)
        if copy.claim is not None:
            self._content.increment(copy.claim.resource)
        clone = SessionRecord(
            original=None,
            current=copy,
            relationship=record.relationship,
            owns_claim=copy.claim is not None,
            entered_ms=now,
            transfer_seq=record.transfer_seq,
        )
        records[copy.id] = clone
        return clone
