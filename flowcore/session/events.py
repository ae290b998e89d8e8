"""Provenance events of a committing session, built as NiFi builds them.

At commit the session's ledger (``SessionLedger``) is read here: framework FORKs
(children that live or were auto-terminated) and JOINs (unless the processor reported
the JOIN itself, with its details), then the processor's reported events (spurious
ROUTEs back to the source dropped), then generated CREATE / CONTENT_MODIFIED /
ATTRIBUTES_MODIFIED for FlowFiles no other event covers, then CLONEs for extra
connections, and auto-terminate DROPs last.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from flowcore.model.flowfile import FlowFile
from flowcore.model.provenance import ContentRef, ProvenanceEvent, ProvenanceEventType
from flowcore.queue.queue import FlowFileQueue
from flowcore.session.binding import ComponentBinding
from flowcore.session.ledger import SessionLedger
from flowcore.session.records import SessionRecord
from flowcore.session.reporter import ReportedEvent

T = ProvenanceEventType
_CREATION_TYPES = frozenset({T.CREATE, T.FORK, T.CLONE, T.JOIN, T.RECEIVE, T.FETCH})
_SELF_AS_PARENT = frozenset({T.FORK, T.CLONE})
_NO_TYPES: frozenset[ProvenanceEventType] = frozenset()
# Event type names as plain strings (an enum member's ``.value`` is a descriptor call).
_TYPE_NAMES: dict[T, str] = {member: member.value for member in T}
_CREATE = _TYPE_NAMES[T.CREATE]
_CONTENT_MODIFIED = _TYPE_NAMES[T.CONTENT_MODIFIED]
_ATTRIBUTES_MODIFIED = _TYPE_NAMES[T.ATTRIBUTES_MODIFIED]
_DROP = _TYPE_NAMES[T.DROP]


class EventBuilder:
    """Turns one component's session bookkeeping into provenance events."""

    __slots__ = ("_binding",)

    def __init__(self, binding: ComponentBinding) -> None:
        self._binding = binding

    def build(self, now: int, ledger: SessionLedger) -> list[ProvenanceEvent]:
        """Every event of a committing session, in NiFi's order (see the module doc).

        Reads the ledger once the commit planner has given each FlowFile its destination."""
        records = ledger.records
        forks = ledger.forks
        joins = ledger.joins
        reported_events = ledger.reported
        destinations = ledger.destinations
        clone_events = ledger.clone_events
        auto_drops = ledger.auto_drops
        by_id = {r.current.id: r for r in records.values()}
        framework: list[ReportedEvent] = []
        for parent_id, children in forks.items():
            live = [
                by_id[c].current.uuid
                for c in children
                if not by_id[c].removed or by_id[c].auto_terminated
            ]
            if live:
                framework.append(
                    ReportedEvent(T.FORK, by_id[parent_id].current, now, children=live)
                )
        # A JOIN the processor reported itself (with its details) replaces the framework's.
        reported_joins = {e.flowfile.id for e in reported_events if e.event_type is T.JOIN}
        for child_id, parents in joins:
            if child_id in reported_joins:
                continue
            framework.append(
                ReportedEvent(
                    T.JOIN, by_id[child_id].current, now, parents=[p.uuid for p in parents]
                )
            )
        reported = [
            e
            for e in reported_events
            if e.event_type is not T.ROUTE or not _is_spurious_route(e, by_id, destinations)
        ]
        ordered = framework + reported
        types_by_uuid: dict[str, set[ProvenanceEventType]] = {}
        for event in ordered + clone_events:
            types_by_uuid.setdefault(event.uuid, set()).add(event.event_type)
            for child in event.children:
                types_by_uuid.setdefault(child, set()).add(event.event_type)
        # Generated events and auto-terminate DROPs have nothing but their type (and a
        # DROP its details) of their own: they are built here straight from the record,
        # and a record's attribute delta and content references are worked out once for
        # all its events (an auto-terminated FlowFile whose attributes changed has two).
        generated: list[tuple[str, SessionRecord]] = []
        for record in records.values():
            if record.removed and not record.auto_terminated:
                continue
            current = record.current
            seen = types_by_uuid.get(current.uuid, _NO_TYPES)
            original = record.original
            if original is None:
                if not seen & _CREATION_TYPES:
                    generated.append((_CREATE, record))
                continue
            content_changed = (
                (current.claim is not original.claim and current.claim != original.claim)
                or current.claim_offset != original.claim_offset
                or current.size != original.size
            )
            if content_changed and T.CONTENT_MODIFIED not in seen:
                generated.append((_CONTENT_MODIFIED, record))
                seen = seen | {T.CONTENT_MODIFIED}
            if not seen and current.attributes != original.attributes:
                generated.append((_ATTRIBUTES_MODIFIED, record))
        events = [self._of_reported(e, by_id, now) for e in ordered]
        templates: dict[int, ProvenanceEvent] = {}
        for type_name, record in generated:
            events.append(self._plain(type_name, record, now, None, templates))
        events.extend(self._of_reported(e, by_id, now) for e in clone_events)
        for record in auto_drops:
            details = f"Auto-Terminated by {record.relationship} Relationship"
            events.append(self._plain(_DROP, record, now, details, templates))
        return events

    def _plain(
        self,
        type_name: str,
        record: SessionRecord,
        now: int,
        details: str | None,
        templates: dict[int, ProvenanceEvent],
    ) -> ProvenanceEvent:
        """An event of the record's final FlowFile at ``now`` with nothing of its own but
        its type and ``details``: what ``event`` gives for a ``ReportedEvent`` of just that
        type (and details). The first one of a record is built whole; the next ones
        copy it (same attribute delta, content references and duration) with their own
        type and details."""
        flowfile = record.current
        template = templates.get(flowfile.id)
        if template is not None:
            return msgspec.structs.replace(template, event_type=type_name, details=details)
        event = self._core(type_name, flowfile, flowfile.uuid, record, now, now - record.entered_ms)
        if details is not None:
            event.details = details
        templates[flowfile.id] = event
        return event

    def _of_reported(
        self, reported: ReportedEvent, by_id: Mapping[int, SessionRecord], now: int
    ) -> ProvenanceEvent:
        """The event of a reported (or framework) event, as frozen when it was."""
        if reported.frozen is not None:
            return reported.frozen
        found = by_id.get(reported.flowfile.id)
        final = found.current if found is not None else reported.flowfile
        return self.event(reported, final, found, reported.time_ms, now)

    def event(
        self,
        reported: ReportedEvent,
        flowfile: FlowFile,
        record: SessionRecord | None,
        time_ms: int,
        commit_ms: int | None = None,
    ) -> ProvenanceEvent:
        """One event, with the attribute delta and content references NiFi records."""
        duration = reported.duration_ms
        if duration < 0 and record is not None and commit_ms is not None:
            duration = commit_ms - record.entered_ms
        event_type = reported.event_type
        # A REPLAY is an event of the FlowFile replayed (its parent), as in NiFi.
        replayed = event_type is T.REPLAY and reported.parents
        event = self._core(
            _TYPE_NAMES[event_type],
            flowfile,
            reported.parents[0] if replayed else flowfile.uuid,
            record,
            time_ms,
            duration,
        )
        # Only the fields most events set go through the constructor (``_core``): msgspec
        # matches keyword arguments by name, and the rarely set ones, passed as None or
        # empty every time, cost more than the rest together. They are set here when
        # present.
        if reported.parents:
            event.parent_uuids = list(reported.parents)
        elif event_type in _SELF_AS_PARENT:
            event.parent_uuids = [flowfile.uuid]
        if reported.children:
            event.child_uuids = list(reported.children)
        elif event_type is T.JOIN:
            event.child_uuids = [flowfile.uuid]
        if reported.details is not None:
            event.details = reported.details
        if reported.relationship is not None:
            event.relationship = reported.relationship
        if reported.transit_uri is not None:
            event.transit_uri = reported.transit_uri
        if reported.source_system_flowfile_id is not None:
            event.source_system_flowfile_id = reported.source_system_flowfile_id
        if reported.alternate_identifier is not None:
            event.alternate_identifier = reported.alternate_identifier
        return event

    def _core(
        self,
        type_name: str,
        flowfile: FlowFile,
        flowfile_uuid: str,
        record: SessionRecord | None,
        time_ms: int,
        duration: int,
    ) -> ProvenanceEvent:
        """An event with the fields every event has: the FlowFile's attribute delta since
        the session took it, its content references, where it came from."""
        original = record.original if record is not None else None
        # Attribute maps are never mutated once in a FlowFile, so events share them.
        previous = original.attributes if original is not None else {}
        current = flowfile.attributes
        updated: dict[str, str | None]
        if current is previous:
            updated = {}
        else:
            updated = {k: v for k, v in current.items() if previous.get(k) != v}
            for key in previous:
                if key not in current:
                    updated[key] = None
        source = record.source.name if record is not None and record.source else None
        current_content = _content_ref(flowfile)
        if (
            original is not None
            and original.claim is flowfile.claim
            and original.claim_offset == flowfile.claim_offset
            and original.size == flowfile.size
        ):
            previous_content = current_content  # the same bytes: one (immutable) reference
        else:
            previous_content = _content_ref(original)
        return ProvenanceEvent(
            event_time=time_ms,
            event_type=type_name,
            flowfile_uuid=flowfile_uuid,
            component_id=self._binding.component_id,
            component_type=self._binding.component_type,
            entry_date=flowfile.entry_date,
            lineage_start_date=flowfile.lineage_start_date,
            event_duration=duration,
            previous_attributes=previous,
            updated_attributes=updated,
            previous_content=previous_content,
            current_content=current_content,
            source_queue_id=source,
            size=flowfile.size,
        )


def _is_spurious_route(
    event: ReportedEvent,
    by_id: Mapping[int, SessionRecord],
    destinations: Mapping[int, list[FlowFileQueue]],
) -> bool:
    if event.event_type is not T.ROUTE:
        return False
    record = by_id.get(event.flowfile.id)
    if record is None or record.source is None:
        return False
    return destinations.get(event.flowfile.id) == [record.source]


def _content_ref(flowfile: FlowFile | None) -> ContentRef | None:
    if flowfile is None or flowfile.claim is None:
        return None
    claim = flowfile.claim
    resource = claim.resource
    whole = flowfile.claim_offset == 0 and flowfile.size == claim.length
    return ContentRef(
        resource.container,
        resource.section,
        resource.id,
        claim.offset + flowfile.claim_offset,
        flowfile.size,
        claim.checksum if whole else None,
    )
