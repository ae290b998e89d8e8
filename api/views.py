"""Engine values as the API shows them: provenance events, content references, times."""

from __future__ import annotations

from datetime import UTC, datetime

from api.models import ContentRefModel, ProvenanceEventModel
from flowcore.engine.node import Node
from flowcore.model.flowfile import ContentClaim, ResourceClaim
from flowcore.model.provenance import ContentRef, ProvenanceEvent


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


def content_ref(ref: ContentRef | None) -> ContentRefModel | None:
    if ref is None:
        return None
    return ContentRefModel(
        container=ref.container,
        section=ref.section,
        identifier=ref.identifier,
        offset=ref.offset,
        size=ref.size,
    )


def claim(ref: ContentRef) -> ContentClaim:
    return ContentClaim(
        ResourceClaim(ref.container, ref.section, ref.identifier),
        ref.offset,
        ref.size,
        ref.checksum,
    )


def event_model(event: ProvenanceEvent) -> ProvenanceEventModel:
    return ProvenanceEventModel(
        event_id=event.event_id,
        event_time=event.event_time,
        event_type=event.event_type,
        flowfile_uuid=event.flowfile_uuid,
        component_id=event.component_id,
        component_type=event.component_type,
        entry_date=event.entry_date,
        lineage_start_date=event.lineage_start_date,
        event_duration=event.event_duration,
        parent_uuids=list(event.parent_uuids),
        child_uuids=list(event.child_uuids),
        attributes=event.attributes,
        previous_attributes=dict(event.previous_attributes),
        updated_attributes=dict(event.updated_attributes),
        input_content=content_ref(event.previous_content),
        output_content=content_ref(event.current_content),
        details=event.details,
        relationship=event.relationship,
        transit_uri=event.transit_uri,
        source_queue_id=event.source_queue_id,
        size=event.size,
    )


def not_indexed_note(node: Node) -> str:
    """What a miss may be owed to: events journaled and not yet indexed (a GET reads
    what is indexed and never indexes unless asked to with ``wait_for_index``)."""
    provenance = node.status_view.provenance()
    if provenance is None or provenance.not_indexed == 0:
        return ""
    return (
        f" ({provenance.not_indexed} provenance events are not yet indexed; "
        "ask with wait_for_index=true to index them first)"
    )
