"""Turn rows read from ``provenance_events`` back into ``ProvenanceEvent`` objects.

Rows arrive as tuples in the order of ``schema.EVENT_COLUMNS`` (the ``SELECT`` list is
built from the same tuple), so decoding is positional.
"""

from __future__ import annotations

from typing import Any

import msgspec

from flowcore.model.provenance import ContentRef, ProvenanceEvent
from repos.duckdb_provenance.schema import EVENT_COLUMN_NAMES

_PREVIOUS = msgspec.json.Decoder(dict[str, str])
_UPDATED = msgspec.json.Decoder(dict[str, str | None])

_INDEX = {name: position for position, name in enumerate(EVENT_COLUMN_NAMES)}
_PREVIOUS_CONTENT = _INDEX["previous_content_container"]
_CURRENT_CONTENT = _INDEX["current_content_container"]


def _content(row: tuple[Any, ...], start: int) -> ContentRef | None:
    container = row[start]
    if container is None:
        return None
    return ContentRef(
        container, row[start + 1], row[start + 2], row[start + 3], row[start + 4], row[start + 5]
    )


def event_from_row(row: tuple[Any, ...]) -> ProvenanceEvent:
    """The event stored in one row selected with ``schema.SELECT_EVENT_COLUMNS``."""
    (
        event_id,
        event_time,
        event_type,
        flowfile_uuid,
        component_id,
        component_type,
        entry_date,
        lineage_start_date,
        event_duration,
        parent_uuids,
        child_uuids,
        previous_attributes,
        updated_attributes,
    ) = row[:13]
    (
        details,
        relationship,
        transit_uri,
        source_system_flowfile_id,
        alternate_identifier,
        source_queue_id,
        size,
    ) = row[_CURRENT_CONTENT + 6 :]
    return ProvenanceEvent(
        event_id=event_id,
        event_time=event_time,
        event_type=event_type,
        flowfile_uuid=flowfile_uuid,
        component_id=component_id,
        component_type=component_type,
        entry_date=entry_date,
        lineage_start_date=lineage_start_date,
        event_duration=event_duration,
        parent_uuids=parent_uuids,
        child_uuids=child_uuids,
        previous_attributes=_PREVIOUS.decode(previous_attributes),
        updated_attributes=_UPDATED.decode(updated_attributes),
        previous_content=_content(row, _PREVIOUS_CONTENT),
        current_content=_content(row, _CURRENT_CONTENT),
        details=details,
        relationship=relationship,
        transit_uri=transit_uri,
        source_system_flowfile_id=source_system_flowfile_id,
        alternate_identifier=alternate_identifier,
        source_queue_id=source_queue_id,
        size=size,
    )
