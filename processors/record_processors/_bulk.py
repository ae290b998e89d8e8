"""Reading the records of several small FlowFiles in one parser call, one trigger at a time.

A record processor that handles FlowFiles one by one (ConvertRecord, PartitionRecord,
SplitRecord) takes a few of them per trigger (``poll``) and asks its reader service to
parse their contents together (``BulkReads``); each FlowFile then gets a reader over its
own records, exactly what ``create_reader`` would have given it (see
``processors.record.bulk``), and is processed, routed and reported as before. A FlowFile
the service cannot vouch for gets a reader of its own, created from its content as
before, with its own errors. Where the writer service can render records in bulk
(``processors.record.bulk_write``), a processor writing each FlowFile's records whole
(ConvertRecord) has a group's records rendered once and cuts each output from that.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa

from flowcore.model import FlowFile
from flowcore.session import ProcessSession
from processors.record.api import (
    BinarySink,
    FlowFileContent,
    RecordReader,
    RecordReaderFactory,
    RecordSetWriterFactory,
    WriteResult,
    source_of,
)
from processors.record.bulk import read_in_bulk
from processors.record.bulk_write import BulkRecordSetWriterFactory, RenderedRecords

POLL_COUNT = 100
POLL_BYTES = 1 << 20
"""At most this many FlowFiles, or this many content bytes, per trigger (the first FlowFile
is always taken): the contents read in bulk are held in memory together."""


_UNSEEN: Any = object()


def poll(session: ProcessSession) -> list[FlowFile]:
    """Up to ``POLL_COUNT`` FlowFiles or ``POLL_BYTES`` of content, as one ``get`` after
    another would take them."""
    return session.get_each(POLL_COUNT, POLL_BYTES)


class RecordsReader:
    """A ``RecordReader`` over records parsed already."""

    def __init__(self, schema: pa.Schema, schema_text: str | None, batch: pa.RecordBatch) -> None:
        self._schema = schema
        self._text = schema_text
        self._batch: pa.RecordBatch | None = batch

    @property
    def schema(self) -> pa.Schema:
        return self._schema

    @property
    def schema_text(self) -> str | None:
        return self._text

    def batches(self) -> Iterator[pa.RecordBatch]:
        batch, self._batch = self._batch, None
        if batch is not None and batch.num_rows:
            yield batch

    def close(self) -> None:
        self._batch = None


class BulkReads:
    """The records of polled FlowFiles, parsed together where the reader service can."""

    def __init__(
        self, session: ProcessSession, readers: RecordReaderFactory, flowfiles: Sequence[FlowFile]
    ) -> None:
        self._session = session
        self._readers = readers
        self._rendered: dict[int, list[tuple[pa.Schema, RenderedRecords | None]]] = {}
        self._writers: tuple[object, BulkRecordSetWriterFactory | None] | None = None
        """The writer service last seen and, if it renders in bulk, it as such (checked
        once per trigger, not per FlowFile)."""
        self._located = read_in_bulk(session, readers, flowfiles)

    def reader(self, position: int, flowfile: FlowFile) -> RecordReader:
        """The reader of the FlowFile polled at ``position``."""
        group = self._located.get(position)
        if group is None:
            return self._readers.create_reader(
                FlowFileContent(self._session, flowfile), flowfile.attributes, source_of(flowfile)
            )
        return RecordsReader(group.schema, group.schema_text, group.batch(position))

    def write_rendered(
        self,
        position: int,
        writers: RecordSetWriterFactory,
        schema: pa.Schema,
        sink: BinarySink,
        attributes: Mapping[str, str],
    ) -> WriteResult | None:
        """Write the records of the FlowFile polled at ``position`` with ``schema`` into
        ``sink`` from its group's records rendered in one pass (done on first use per
        group and schema); None, with nothing written, when they were not read in bulk or
        the writer service cannot render them so."""
        found = self.rendered(position, writers, schema)
        if found is None:
            return None
        rendered, start, length = found
        return rendered.write(start, length, sink, attributes)

    def rendered(
        self, position: int, writers: RecordSetWriterFactory, schema: pa.Schema
    ) -> tuple[RenderedRecords, int, int] | None:
        """The records of the FlowFile polled at ``position`` rendered in one pass with
        its group (done on first use per group and schema), with the first of them and
        their count; None when they were not read in bulk or the writer service cannot
        render them so. Any run of them can be written as an output (SplitRecord)."""
        group = self._located.get(position)
        if group is None:
            return None
        if self._writers is None or self._writers[0] is not writers:
            bulk = writers if isinstance(writers, BulkRecordSetWriterFactory) else None
            self._writers = (writers, bulk)
        renderer = self._writers[1]
        if renderer is None:
            return None
        renders = self._rendered.setdefault(id(group), [])
        rendered = next((r for s, r in renders if s.equals(schema)), _UNSEEN)
        if rendered is _UNSEEN:
            rendered = renderer.render_bulk(schema, group.records)
            renders.append((schema, rendered))
        if rendered is None:
            return None
        start, length = group.slices[position]
        return rendered, start, length


class CollectedBytes:
    """A sink that keeps what a rendering writes, for the session's one-call write of
    whole bytes (no content writer per output: SplitRecord's and PartitionRecord's many
    small outputs)."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[bytes | bytearray | memoryview] = []

    def write(self, data: bytes | bytearray | memoryview, /) -> int:
        self._parts.append(data)
        return len(data)

    def content(self) -> bytes:
        return b"".join(self._parts)
