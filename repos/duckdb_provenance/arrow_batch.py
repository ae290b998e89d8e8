"""Turn a batch of provenance events into Arrow tables, one column at a time.

A batch becomes two tables: the event rows and the (uuid, event id) rows of the uuid
index. Every column is built from a Python list in one comprehension and converted by
Arrow in C; nothing is done row by row in SQL, so DuckDB receives the whole batch in one
``INSERT ... SELECT`` over the Arrow table.

Attribute values longer than ``max_attribute_length`` are truncated here, on write.
NiFi keeps the whole value and truncates when it reads the event back; truncating on
write gives the same answer to every reader and keeps one oversized attribute from
bloating the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import msgspec
import pyarrow as pa

from flowcore.model.provenance import ContentRef, ProvenanceEvent
from repos.duckdb_provenance.schema import EVENTS_ARROW_SCHEMA, UUIDS_ARROW_SCHEMA


@dataclass(frozen=True, slots=True)
class EventBatch:
    """The Arrow form of a batch of events, ready for one DuckDB transaction."""

    events: pa.Table
    uuids: pa.Table
    max_event_id: int


_ENCODE = msgspec.json.Encoder().encode


def truncate_attributes(
    attributes: Mapping[str, str | None], max_length: int
) -> dict[str, str | None]:
    """A copy with every value cut to ``max_length`` characters (``None`` stays ``None``)."""
    return {
        name: value[:max_length] if value is not None and len(value) > max_length else value
        for name, value in attributes.items()
    }


def _attributes_column(maps: Sequence[Mapping[str, str | None]], max_length: int) -> pa.Array:
    encoded = [_ENCODE(attributes) for attributes in maps]
    # A value longer than the limit makes its JSON text longer than the limit, so the
    # quick check on the encoded lengths spares the scan of every value in the batch.
    if encoded and max(map(len, encoded)) > max_length:
        for index, raw in enumerate(encoded):
            if len(raw) > max_length:
                attributes = maps[index]
                if any(v is not None and len(v) > max_length for v in attributes.values()):
                    encoded[index] = _ENCODE(truncate_attributes(attributes, max_length))
    return pa.array(encoded, pa.binary()).cast(pa.string())


def _content_columns(refs: list[ContentRef | None]) -> list[pa.Array]:
    count = len(refs)
    if refs.count(None) == count:
        return [
            pa.nulls(count, pa.string()),
            pa.nulls(count, pa.string()),
            pa.nulls(count, pa.string()),
            pa.nulls(count, pa.int64()),
            pa.nulls(count, pa.int64()),
        ]
    return [
        pa.array([r.container if r is not None else None for r in refs], pa.string()),
        pa.array([r.section if r is not None else None for r in refs], pa.string()),
        pa.array([r.identifier if r is not None else None for r in refs], pa.string()),
        pa.array([r.offset if r is not None else None for r in refs], pa.int64()),
        pa.array([r.size if r is not None else None for r in refs], pa.int64()),
    ]


def _uuid_rows(
    events: Sequence[ProvenanceEvent], event_ids: list[int], flowfile_uuids: list[str]
) -> pa.Table:
    """(uuid, event id) for each event's own uuid and each distinct parent and child."""
    uuids = list(flowfile_uuids)
    ids = list(event_ids)
    for event in events:
        if event.parent_uuids or event.child_uuids:
            own = event.flowfile_uuid
            related = {*event.parent_uuids, *event.child_uuids}
            related.discard(own)
            uuids.extend(related)
            ids.extend([event.event_id] * len(related))
    return pa.Table.from_arrays(
        [pa.array(uuids, pa.string()), pa.array(ids, pa.int64())], schema=UUIDS_ARROW_SCHEMA
    )


def build_batch(events: Sequence[ProvenanceEvent], max_attribute_length: int) -> EventBatch:
    """Arrow tables for ``events`` (which must be non-empty and in event id order)."""
    if not events:
        msg = "cannot build an empty batch"
        raise ValueError(msg)
    event_ids = [e.event_id for e in events]
    flowfile_uuids = [e.flowfile_uuid for e in events]
    columns: list[pa.Array] = [
        pa.array(event_ids, pa.int64()),
        pa.array([e.event_time for e in events], pa.int64()),
        pa.array([e.event_type for e in events], pa.string()),
        pa.array(flowfile_uuids, pa.string()),
        pa.array([e.component_id for e in events], pa.string()),
        pa.array([e.component_type for e in events], pa.string()),
        pa.array([e.entry_date for e in events], pa.int64()),
        pa.array([e.lineage_start_date for e in events], pa.int64()),
        pa.array([e.event_duration for e in events], pa.int64()),
        pa.array([e.parent_uuids for e in events], pa.list_(pa.string())),
        pa.array([e.child_uuids for e in events], pa.list_(pa.string())),
        _attributes_column([e.previous_attributes for e in events], max_attribute_length),
        _attributes_column([e.updated_attributes for e in events], max_attribute_length),
        *_content_columns([e.previous_content for e in events]),
        *_content_columns([e.current_content for e in events]),
        pa.array([e.details for e in events], pa.string()),
        pa.array([e.relationship for e in events], pa.string()),
        pa.array([e.transit_uri for e in events], pa.string()),
        pa.array([e.source_system_flowfile_id for e in events], pa.string()),
        pa.array([e.alternate_identifier for e in events], pa.string()),
        pa.array([e.source_queue_id for e in events], pa.string()),
        pa.array([e.size for e in events], pa.int64()),
    ]
    table = pa.Table.from_arrays(columns, schema=EVENTS_ARROW_SCHEMA)
    return EventBatch(
        events=table,
        uuids=_uuid_rows(events, event_ids, flowfile_uuids),
        max_event_id=max(event_ids),
    )
