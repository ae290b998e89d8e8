"""Turn a batch of provenance events into what one DuckDB ``INSERT`` takes: their JSON.

A batch is an Arrow table of two columns: the event id and the event as one JSON text
(msgspec encodes the whole batch in one call; the texts are cut from that one buffer
without copying). DuckDB parses the texts itself (``EVENTS_FROM_JSON_SQL`` in
``schema.py``), on the repository's indexing thread and without the GIL, so the thread
that indexes spends well under a microsecond per event here, where building every
column in Python cost several. The uuid index rows are derived in SQL from the rows just
inserted.

Attribute values longer than ``max_attribute_length`` are truncated here, on write.
NiFi keeps the whole value and truncates when it reads the event back; truncating on
write gives the same answer to every reader and keeps one oversized attribute from
bloating the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import msgspec
import numpy as np
import pyarrow as pa

from flowcore.model.provenance import ProvenanceEvent
from repos.duckdb_provenance.schema import PENDING_ARROW_SCHEMA


@dataclass(frozen=True, slots=True)
class EventBatch:
    """A batch of consecutive events as (event id, JSON text) rows, for one transaction."""

    events: pa.Table
    min_event_id: int
    max_event_id: int

    @property
    def rows(self) -> int:
        return int(self.events.num_rows)


def split_batch(batch: EventBatch, rows: int) -> tuple[EventBatch, EventBatch]:
    """The first ``rows`` events of a batch (0 < rows < batch.rows), and the rest."""
    events = batch.events
    ids = events.column("event_id")
    head = EventBatch(events.slice(0, rows), batch.min_event_id, ids[rows - 1].as_py())
    tail = EventBatch(events.slice(rows), ids[rows].as_py(), batch.max_event_id)
    return head, tail


def merge_batches(batches: Sequence[EventBatch]) -> EventBatch:
    """One batch of consecutive batches (their Arrow chunks are not copied)."""
    if len(batches) == 1:
        return batches[0]
    return EventBatch(
        events=pa.concat_tables([batch.events for batch in batches]),
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


def _json_lines(items: Sequence[object]) -> tuple[bytes, np.ndarray]:
    """The JSON text of each item in one buffer, and the offsets of the texts in it.

    msgspec encodes them as JSON lines in one call; a JSON text never holds a raw newline
    (it is escaped inside strings), so the newlines are exactly the ends of the texts.
    Each text keeps its newline (whitespace after a JSON value). 64-bit offsets: one
    batch's text may exceed 2 GiB in theory.
    """
    data = _ENCODER.encode_lines(items)
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == _NEWLINE)
    offsets = np.zeros(len(ends) + 1, dtype=np.int64)
    offsets[1:] = ends + 1
    return data, offsets


def _json_column(items: Sequence[object]) -> pa.Array:
    """The JSON text of each item, as one Arrow string column (each with its newline)."""
    return _as_column(*_json_lines(items))


def _as_column(data: bytes, offsets: np.ndarray) -> pa.Array:
    count = len(offsets) - 1
    return pa.Array.from_buffers(
        pa.large_string(), count, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def _truncated(event: ProvenanceEvent, max_length: int) -> ProvenanceEvent:
    previous, updated = event.previous_attributes, event.updated_attributes
    if any(v is not None and len(v) > max_length for v in (*previous.values(), *updated.values())):
        return msgspec.structs.replace(
            event,
            previous_attributes=truncate_attributes(previous, max_length),
            updated_attributes=truncate_attributes(updated, max_length),
        )
    return event


def build_batch(events: Sequence[ProvenanceEvent], max_attribute_length: int) -> EventBatch:
    """The batch of ``events`` (which must be non-empty and in event id order)."""
    if not events:
        msg = "cannot build an empty batch"
        raise ValueError(msg)
    data, offsets = _json_lines(events)
    # A value longer than the limit makes its event's text longer than the limit, so the
    # check on the text lengths spares a scan of every value in the batch.
    lengths = np.diff(offsets)
    if int(lengths.max()) > max_attribute_length:
        fixed = [
            _truncated(event, max_attribute_length) if length > max_attribute_length else event
            for event, length in zip(events, lengths.tolist(), strict=True)
        ]
        data, offsets = _json_lines(fixed)
    texts = _as_column(data, offsets)
    ids = pa.array([event.event_id for event in events], pa.int64())
    return EventBatch(
        events=pa.Table.from_arrays([ids, texts], schema=PENDING_ARROW_SCHEMA),
        min_event_id=events[0].event_id,
        max_event_id=events[-1].event_id,
    )
