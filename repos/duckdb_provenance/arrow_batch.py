"""Turn a batch of provenance events into Arrow tables, one column at a time.

A batch becomes two tables: the event rows and the (uuid, event id) rows of the uuid
index. Each column is one list comprehension converted by Arrow in C; the attribute
maps are JSON-encoded by msgspec straight into one Arrow buffer; the uuid rows are
derived from the parent and child list columns with Arrow compute. Nothing is done row
by row in SQL: DuckDB receives each table in one ``INSERT ... SELECT``.

Attribute values longer than ``max_attribute_length`` are truncated here, on write.
NiFi keeps the whole value and truncates when it reads the event back; truncating on
write gives the same answer to every reader and keeps one oversized attribute from
bloating the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from flowcore.model.provenance import ContentRef, ProvenanceEvent
from repos.duckdb_provenance.schema import EVENTS_ARROW_SCHEMA, UUIDS_ARROW_SCHEMA


@dataclass(frozen=True, slots=True)
class EventBatch:
    """The Arrow form of a batch of events, ready for one DuckDB transaction."""

    events: pa.Table
    uuids: pa.Table
    min_event_id: int
    max_event_id: int

    @property
    def rows(self) -> int:
        return int(self.events.num_rows)


def split_batch(batch: EventBatch, rows: int) -> tuple[EventBatch, EventBatch]:
    """The first ``rows`` events of a batch (0 < rows < batch.rows), and the rest."""
    events = batch.events
    cut = events.column("event_id")[rows - 1].as_py()
    first = pc.less_equal(batch.uuids.column("event_id"), cut)
    head = EventBatch(
        events=events.slice(0, rows),
        uuids=batch.uuids.filter(first),
        min_event_id=batch.min_event_id,
        max_event_id=cut,
    )
    tail = EventBatch(
        events=events.slice(rows),
        uuids=batch.uuids.filter(pc.invert(first)),
        min_event_id=events.column("event_id")[rows].as_py(),
        max_event_id=batch.max_event_id,
    )
    return head, tail


def merge_batches(batches: Sequence[EventBatch]) -> EventBatch:
    """One batch of consecutive batches (their Arrow chunks are not copied)."""
    if len(batches) == 1:
        return batches[0]
    return EventBatch(
        events=pa.concat_tables([batch.events for batch in batches]),
        uuids=pa.concat_tables([batch.uuids for batch in batches]),
        min_event_id=batches[0].min_event_id,
        max_event_id=batches[-1].max_event_id,
    )


_ENCODER = msgspec.json.Encoder()
_NEWLINE = ord("\n")


def truncate_attributes(
    attributes: Mapping[str, str | None], max_length: int
) -> dict[str, str | None]:
    """A copy with every value cut to ``max_length`` characters (``None`` stays ``None``)."""
    return {
        name: value[:max_length] if value is not None and len(value) > max_length else value
        for name, value in attributes.items()
    }


def _json_column(maps: Sequence[Mapping[str, str | None]]) -> pa.Array:
    """The JSON text of each map, as one Arrow string column.

    msgspec encodes the whole batch as JSON lines in one call; a JSON text never holds a
    raw newline (it is escaped inside strings), so the newlines are exactly the ends of
    the texts: they become the offsets, and one slice kernel drops them. 64-bit offsets:
    one batch's attribute text may exceed 2 GiB in theory.
    """
    data = _ENCODER.encode_lines(maps)
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == _NEWLINE)
    offsets = np.zeros(len(ends) + 1, dtype=np.int64)
    offsets[1:] = ends + 1
    with_newlines = pa.Array.from_buffers(
        pa.large_string(), len(maps), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )
    return pc.utf8_slice_codeunits(with_newlines, 0, -1)


def _attributes_column(maps: Sequence[Mapping[str, str | None]], max_length: int) -> pa.Array:
    column = _json_column(maps)
    # A value longer than the limit makes its JSON text longer than the limit, so the
    # check on the encoded lengths spares a scan of every value in the batch.
    longest = pc.max(pc.binary_length(column)).as_py()
    if longest is None or longest <= max_length:
        return column
    lengths = pc.binary_length(column).to_pylist()
    fixed = list(maps)
    for index, length in enumerate(lengths):
        if length > max_length:
            attributes = maps[index]
            if any(v is not None and len(v) > max_length for v in attributes.values()):
                fixed[index] = truncate_attributes(attributes, max_length)
    return _json_column(fixed)


_CONTENT_REF = pa.struct(
    [
        ("container", pa.string()),
        ("section", pa.string()),
        ("identifier", pa.string()),
        ("offset", pa.int64()),
        ("size", pa.int64()),
        ("checksum", pa.uint64()),
    ]
)
_CONTENT_REF_FIELDS = attrgetter("container", "section", "identifier", "offset", "size", "checksum")


def _content_columns(refs: list[ContentRef | None]) -> list[pa.Array]:
    """The six columns of a content reference, null where the event has none.

    Each reference becomes one tuple (one C call), converted as a struct and split into
    its fields: one pass over the events instead of five.
    """
    count = len(refs)
    if refs.count(None) == count:
        return [pa.nulls(count, field.type) for field in _CONTENT_REF]
    fields = _CONTENT_REF_FIELDS
    column = pa.array([None if r is None else fields(r) for r in refs], _CONTENT_REF)
    return list(column.flatten())


def _related(
    lists: pa.Array, event_ids: pa.Array, flowfile_uuids: pa.Array
) -> tuple[pa.Array, pa.Array]:
    """The uuids of a list column that differ from their event's own uuid, with event ids."""
    values = lists.flatten()
    owners = pc.list_parent_indices(lists)
    keep = pc.not_equal(values, pc.take(flowfile_uuids, owners))
    return values.filter(keep), pc.take(event_ids, owners).filter(keep)


def _uuid_rows(
    event_ids: pa.Array, flowfile_uuids: pa.Array, parents: pa.Array, children: pa.Array
) -> pa.Table:
    """(uuid, event id) for each event's own uuid and each other parent and child uuid."""
    parent_uuids, parent_ids = _related(parents, event_ids, flowfile_uuids)
    child_uuids, child_ids = _related(children, event_ids, flowfile_uuids)
    return pa.Table.from_arrays(
        [
            pa.concat_arrays([flowfile_uuids, parent_uuids, child_uuids]),
            pa.concat_arrays([event_ids, parent_ids, child_ids]),
        ],
        schema=UUIDS_ARROW_SCHEMA,
    )


def build_batch(events: Sequence[ProvenanceEvent], max_attribute_length: int) -> EventBatch:
    """Arrow tables for ``events`` (which must be non-empty and in event id order)."""
    if not events:
        msg = "cannot build an empty batch"
        raise ValueError(msg)
    event_ids = pa.array([e.event_id for e in events], pa.int64())
    flowfile_uuids = pa.array([e.flowfile_uuid for e in events], pa.string())
    parents = pa.array([e.parent_uuids for e in events], pa.list_(pa.string()))
    children = pa.array([e.child_uuids for e in events], pa.list_(pa.string()))
    columns: list[pa.Array] = [
        event_ids,
        pa.array([e.event_time for e in events], pa.int64()),
        pa.array([e.event_type for e in events], pa.string()),
        flowfile_uuids,
        pa.array([e.component_id for e in events], pa.string()),
        pa.array([e.component_type for e in events], pa.string()),
        pa.array([e.entry_date for e in events], pa.int64()),
        pa.array([e.lineage_start_date for e in events], pa.int64()),
        pa.array([e.event_duration for e in events], pa.int64()),
        parents,
        children,
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
        uuids=_uuid_rows(event_ids, flowfile_uuids, parents, children),
        min_event_id=pc.min(event_ids).as_py(),
        max_event_id=pc.max(event_ids).as_py(),
    )
