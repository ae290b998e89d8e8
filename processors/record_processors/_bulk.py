"""Reading the records of several small FlowFiles in one parser call, one trigger at a time.

A record processor that handles FlowFiles one by one (ConvertRecord, PartitionRecord,
SplitRecord) takes a few of them per trigger (``poll``) and asks its reader service to
parse their contents together (``BulkReads``); each FlowFile then gets a reader over its
own records, exactly what ``create_reader`` would have given it (see
``processors.record.bulk``), and is processed, routed and reported as before. A FlowFile
the service cannot vouch for gets a reader of its own, created from its content as
before, with its own errors.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pyarrow as pa

from flowcore.model import FlowFile
from flowcore.session import ProcessSession
from processors.record.api import RecordReader, RecordReaderFactory, source_of
from processors.record.bulk import BulkGroup, BulkRecordReaderFactory

POLL_COUNT = 100
POLL_BYTES = 1 << 20
"""At most this many FlowFiles, or this many content bytes, per trigger (the first FlowFile
is always taken): the contents read in bulk are held in memory together."""


def poll(session: ProcessSession) -> list[FlowFile]:
    """Up to ``POLL_COUNT`` FlowFiles or ``POLL_BYTES`` of content."""
    flowfiles: list[FlowFile] = []
    size = 0
    while len(flowfiles) < POLL_COUNT and size < POLL_BYTES:
        flowfile = session.get()
        if flowfile is None:
            break
        flowfiles.append(flowfile)
        size += flowfile.size
    return flowfiles


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
        self._located: dict[int, BulkGroup] = {}
        if len(flowfiles) > 1 and isinstance(readers, BulkRecordReaderFactory):
            contents: list[bytes] = []
            for flowfile in flowfiles:
                try:
                    contents.append(session.read(flowfile))
                except Exception:
                    contents.append(b"")  # read alone again, and failed there
            bulk = readers.read_bulk(contents, [f.attributes for f in flowfiles])
            self._located = bulk.locate()

    def reader(self, position: int, flowfile: FlowFile) -> RecordReader:
        """The reader of the FlowFile polled at ``position``."""
        group = self._located.get(position)
        if group is None:
            return self._readers.create_reader(
                self._session.stream(flowfile), flowfile.attributes, source_of(flowfile)
            )
        return RecordsReader(group.schema, group.schema_text, group.batch(position))
