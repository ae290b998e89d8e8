"""SplitRecord: splits a FlowFile's records into FlowFiles of at most N records each.

Follows NiFi's SplitRecord:

* Properties: Record Reader, Record Writer, Records Per Split (required, positive integer,
  Expression Language evaluated against the FlowFile's attributes; a value below 1 after
  evaluation counts as 1, as NiFi's ``Math.max(1, ...)``).
* Relationships: splits, original, failure.
* Each split is a child of the original (the session reports one FORK of the original
  into its splits) and carries ``record.count``, ``mime.type``, ``fragment.identifier``,
  ``fragment.index``, ``fragment.count``, ``segment.original.filename`` and the writer's
  attributes. ``fragment.index`` is **0-based** as in NiFi's code (its documentation says
  "a one-up number"; SplitText, by contrast, is 1-based). The original gets
  ``fragment.identifier`` and ``fragment.count`` (NiFi's ``copyAttributesToOriginal``).
* Records stream: batches go from the reader into one split's writer at a time (sliced
  without copies at split boundaries); no more than one batch is held.
* Zero records: no split; the original goes to original with ``fragment.count`` 0.
* Failure: a record that cannot be read or written removes every split already made and
  sends the original, unchanged, to failure; the reason is logged (NiFi adds no
  attribute). flowcore also routes to failure when Records Per Split evaluates to a value
  that is not an integer (NiFi throws and rolls the session back, so such a FlowFile
  would stay in the queue forever).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from flowcore.errors import ConfigurationError, repository_fault
from flowcore.model import FlowFile
from flowcore.processor import (
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.record.api import (
    RecordReader,
    RecordSetWriterFactory,
    WriteResult,
    as_reader_factory,
    as_writer_factory,
)
from processors.record.bulk_write import RenderedRecords
from processors.record.serialized import sliced
from processors.record_processors._bulk import BulkReads, CollectedBytes, poll
from processors.record_processors._common import (
    FRAGMENT_COUNT,
    FRAGMENT_ID,
    FRAGMENT_INDEX,
    MIME_TYPE,
    RECORD_COUNT,
    RECORD_FAILURES,
    SEGMENT_ORIGINAL_FILENAME,
    reader_descriptor,
    writer_descriptor,
)

RECORD_READER = reader_descriptor("Record Reader")
RECORD_WRITER = writer_descriptor("Record Writer")
RECORDS_PER_SPLIT = PropertyDescriptor(
    name="Records Per Split",
    display_name="Records Per Split",
    description="Specifies how many records should be written to each 'split' or 'segment' "
    "FlowFile",
    required=True,
    validators=[validators.positive_integer],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)

SPLITS = Relationship(
    "splits",
    "The individual 'segments' of the original FlowFile will be routed to this relationship.",
)
ORIGINAL = Relationship(
    "original",
    "Upon successfully splitting an input FlowFile, the original FlowFile will be sent to "
    "this relationship.",
)
FAILURE = Relationship(
    "failure",
    "If a FlowFile cannot be transformed from the configured input format to the configured "
    "output format, the unchanged FlowFile will be routed to this relationship.",
)


class _PushBack:
    """Batches of a reader, taken a number of records at a time (zero-copy slices)."""

    def __init__(self, batches: Iterator[pa.RecordBatch]) -> None:
        self._batches = batches
        self._current: pa.RecordBatch | None = None

    def has_more(self) -> bool:
        while self._current is None or self._current.num_rows == 0:
            self._current = next(self._batches, None)
            if self._current is None:
                return False
        return True

    def take(self, count: int) -> Iterator[pa.RecordBatch]:
        """Up to ``count`` records, in batches."""
        left = count
        while left > 0 and self.has_more():
            batch = self._current
            assert batch is not None
            if batch.num_rows <= left:
                self._current = None
                left -= batch.num_rows
                yield batch
            else:
                self._current = sliced(batch, left)
                yield sliced(batch, 0, left)
                left = 0


@processor("SplitRecord")
class SplitRecord(Processor):
    description = (
        "Splits up an input FlowFile that is in a record-oriented data format into multiple "
        "smaller FlowFiles"
    )
    tags = ("split", "generic", "schema", "json", "csv", "avro", "log", "logs", "freeform", "text")
    property_descriptors = (RECORD_READER, RECORD_WRITER, RECORDS_PER_SPLIT)
    relationships = (SPLITS, ORIGINAL, FAILURE)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfiles = poll(session)
        if not flowfiles:
            return
        readers = as_reader_factory(context.get_property(RECORD_READER).as_controller_service())
        writers = as_writer_factory(context.get_property(RECORD_WRITER).as_controller_service())
        reads = BulkReads(session, readers, flowfiles)
        for position, original in enumerate(flowfiles):
            self._split_one(context, session, reads, position, original, writers)

    def _split_one(
        self,
        context: ProcessContext,
        session: ProcessSession,
        reads: BulkReads,
        position: int,
        original: FlowFile,
        writers: RecordSetWriterFactory,
    ) -> None:
        try:
            per_split = context.get_property(RECORDS_PER_SPLIT).evaluate(original).as_int()
        except (ValueError, ConfigurationError) as exc:
            self.logger.error(
                "Failed to split %s: Records Per Split is not an integer: %s", original, exc
            )
            session.transfer(original, FAILURE)
            return
        max_records = max(1, per_split or 0)
        fragment_id = str(uuid.uuid4())
        splits: list[FlowFile] = []
        try:
            reader = reads.reader(position, original)
            try:
                schema = writers.writer_schema(reader.schema, original.attributes)
                rendered = reads.rendered(position, writers, schema)
                if rendered is not None:
                    self._split_rendered(
                        session, original, rendered, max_records, fragment_id, splits
                    )
                else:
                    self._split(
                        session,
                        original,
                        reader,
                        writers,
                        schema,
                        max_records,
                        fragment_id,
                        splits,
                    )
            finally:
                reader.close()
        except RECORD_FAILURES as exc:
            if repository_fault(exc) is not None:
                raise  # a full or failing repository: roll back, keep the FlowFile queued
            self.logger.error("Failed to split %s: %s", original, exc)
            for split in splits:
                session.remove(split)
            session.transfer(original, FAILURE)
            return
        count = str(len(splits))
        original = session.put_all_attributes(
            original, {FRAGMENT_ID: fragment_id, FRAGMENT_COUNT: count}
        )
        session.transfer(original, ORIGINAL)
        for split in splits:
            if split.attributes.get(FRAGMENT_COUNT) != count:  # set already when known ahead
                split = session.put_attribute(split, FRAGMENT_COUNT, count)
            session.transfer(split, SPLITS)
        self.logger.info(
            "Successfully split %s into %d FlowFiles, each containing up to %d records",
            original,
            len(splits),
            max_records,
        )

    @staticmethod
    def _split_rendered(
        session: ProcessSession,
        original: FlowFile,
        rendered: tuple[RenderedRecords, int, int],
        max_records: int,
        fragment_id: str,
        splits: list[FlowFile],
    ) -> None:
        """``_split`` for records rendered in one pass with their poll: each split's
        content is a run of the rendered lines (the same bytes as a writer of its own)."""
        records, first, count = rendered
        filename = original.attributes.get("filename", "")
        total = str(-(-count // max_records))
        for index, start in enumerate(range(first, first + count, max_records)):
            split = session.create(original)
            splits.append(split)
            length = min(max_records, first + count - start)
            sink = CollectedBytes()
            result = records.write(start, length, sink, split.attributes)
            split = session.write(split, sink.content())
            splits[-1] = session.put_all_attributes(
                split,
                {**_split_attributes(result, index, fragment_id, filename), FRAGMENT_COUNT: total},
            )

    @staticmethod
    def _split(
        session: ProcessSession,
        original: FlowFile,
        reader: RecordReader,
        writers: RecordSetWriterFactory,
        schema: pa.Schema,
        max_records: int,
        fragment_id: str,
        splits: list[FlowFile],
    ) -> None:
        """Each split written by a writer of its own (``schema``: the writer schema)."""
        records = _PushBack(reader.batches())
        filename = original.attributes.get("filename", "")
        index = 0
        while records.has_more():
            split = session.create(original)
            splits.append(split)
            results: list[WriteResult] = []

            def write(
                sink: Any, split: FlowFile = split, results: list[WriteResult] = results
            ) -> None:
                writer = writers.create_writer(schema, sink, split.attributes)
                try:
                    for batch in records.take(max_records):
                        writer.write_batch(batch)
                    results.append(writer.finish())
                except BaseException:
                    writer.abort()
                    raise

            split = session.write(split, write)
            splits[-1] = split
            result = results[0]
            splits[-1] = session.put_all_attributes(
                split, _split_attributes(result, index, fragment_id, filename)
            )
            index += 1


def _split_attributes(
    result: WriteResult, index: int, fragment_id: str, filename: str
) -> dict[str, str]:
    """The attributes of the split at ``index``, written as ``result`` says."""
    return {
        RECORD_COUNT: str(result.record_count),
        MIME_TYPE: result.mime_type,
        FRAGMENT_INDEX: str(index),
        FRAGMENT_ID: fragment_id,
        SEGMENT_ORIGINAL_FILENAME: filename,
        **result.attributes,
    }
