"""PartitionRecord: groups a FlowFile's records by the values of RecordPaths.

Follows NiFi's PartitionRecord:

* Properties: Record Reader, Record Writer (names ``record-reader``/``record-writer``,
  as NiFi); at least one user-defined property, each a RecordPath (Expression Language
  evaluated against the incoming FlowFile's attributes). Without one, validation says
  "'User-defined Properties' is invalid because At least one RecordPath must be added to
  this processor by adding a user-defined property".
* RecordPaths: NiFi's whole language (``record_path``). Records are alike when every
  path selects the same values. A path that selects no field (not in the schema) gives
  every record "no value". A path selecting an array, a map, a record or several values
  partitions by them without adding an attribute, as NiFi.
* One FlowFile per distinct combination of values (null is a value of its own) goes to
  success, a child of the original (one FORK event); the original goes to original
  unchanged. Each child has an attribute per user-defined property whose value is the
  partition's value as a string (absent when the value is null or nothing is selected,
  as NiFi), plus ``record.count``, ``mime.type``, the writer's attributes,
  ``fragment.identifier``, ``fragment.index`` (0-based, as NiFi's code),
  ``fragment.count`` and ``segment.original.filename``.
* Order: partitions are numbered in the order of their first record (NiFi uses a hash
  map, so its order is unspecified). Records keep their relative order in a partition.
* Values as strings: Arrow's cast to string (``true``/``false``, ``2024-01-31``,
  ``1.5``; a whole float is ``1``, where Java writes ``1.0``).
* Zero records: no child; the original goes to original.
* Failure: a record that cannot be read or written removes every child and sends the
  original, unchanged, to failure; the reason is logged (NiFi adds no attribute). A
  RecordPath that does not compile after Expression Language also goes to failure.

Streaming: batches are grouped with Arrow (``Table.group_by`` over the key columns and a
row-index column, aggregated to lists of row indices; then ``RecordBatch.take``). Child
paths give their key columns with Arrow compute; other paths are evaluated per record
in Python and give a text key column. Each partition has its own writer from
the first batch on, written incrementally straight into the content repository: each
child's content is opened with ``session.open_write`` and is its writer's sink, and is
closed once the writer has finished (aborted on failure). Nothing is spooled or copied;
memory does not grow with the number of records.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from flowcore.errors import ConfigurationError, repository_fault
from flowcore.model import FlowFile
from flowcore.processor import (
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
)
from flowcore.session import ProcessSession
from flowcore.session.session import OpenContent
from processors.record.api import (
    RecordReader,
    RecordSetWriter,
    RecordSetWriterFactory,
    WriteResult,
    as_reader_factory,
    as_writer_factory,
)
from processors.record.bulk_write import RenderedRecords, RenderedRows, renders_rows
from processors.record.serialized import sliced, taken
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
from processors.record_processors.record_path import (
    RecordPath,
    RecordPathError,
    compile_record_path,
    record_path_validator,
)

RECORD_READER = reader_descriptor("record-reader")
RECORD_WRITER = writer_descriptor("record-writer")

SUCCESS = Relationship(
    "success", "FlowFiles that are successfully partitioned will be routed to this relationship"
)
ORIGINAL = Relationship(
    "original",
    "Once all records in an incoming FlowFile have been partitioned, the original FlowFile "
    "is routed to this relationship.",
)
FAILURE = Relationship(
    "failure",
    "If a FlowFile cannot be partitioned from the configured input format to the configured "
    "output format, the unchanged FlowFile will be routed to this relationship",
)

_ROW = "__flowcore_row"
_TEXT_ROW = "__flowcore_first"


@dataclass(slots=True)
class _Partition:
    child: FlowFile
    attributes: dict[str, str]
    content: OpenContent | None
    """The child's content, open for writing until the writer has finished."""
    writer: RecordSetWriter | None
    written: WriteResult | None = None
    """The child's content written whole already (cut from its poll's rendering)."""


class _RowIndex:
    """0..n-1 as an Arrow array, grown as needed and sliced (no Python list per record)."""

    def __init__(self) -> None:
        self._indices: pa.Array | None = None
        """Made at the first call: most FlowFiles are grouped by one column's codes and
        never need it (an empty Arrow array costs microseconds to make)."""

    def __call__(self, size: int) -> pa.Array:
        indices = self._indices
        if indices is None or len(indices) < size:
            grown = max(size, 0 if indices is None else 2 * len(indices))
            ones = pa.repeat(pa.scalar(1, pa.int64()), grown)
            indices = self._indices = pc.subtract(pc.cumulative_sum(ones), 1)
        return indices.slice(0, size)


@dataclass(slots=True)
class _Groups:
    """A batch's records grouped by key, groups in order of first appearance: the rows
    ``order[bounds[g]:bounds[g + 1]]`` (in their order) have ``keys[g]``."""

    keys: list[tuple[Any, ...]]
    order: pa.Array
    bounds: list[int]
    first_rows: pa.Array
    single: bool


def _keyed_groups(
    batch: pa.RecordBatch, paths: dict[str, RecordPath], row_index: _RowIndex
) -> tuple[_Groups, list[dict[str, str]]]:
    """The batch's records grouped by the values of the RecordPaths, and per group its
    attributes: each RecordPath's name and value (as text), when it has one."""
    names = list(paths)
    keyed = [paths[name].partition_keys(batch) for name in names]
    groups = _groups([keys for keys, _ in keyed], row_index)
    key_texts = [texts.take(groups.first_rows).to_pylist() for _, texts in keyed]
    attributes = [
        {name: text for name, text in zip(names, texts, strict=True) if text is not None}
        for texts in zip(*key_texts, strict=True)
    ]
    return groups, attributes


def _groups(keys: list[pa.Array], row_index: _RowIndex) -> _Groups:
    """Group the records by their key columns (equal when every column is equal; nulls
    equal one another): by dictionary codes for one plain column, else Arrow's group-by."""
    if len(keys) == 1 and not pa.types.is_nested(keys[0].type):
        try:
            return _groups_by_codes(keys[0])
        except pa.ArrowNotImplementedError:
            pass
    return _groups_by_table(keys, row_index)


def _groups_by_codes(keys: pa.Array) -> _Groups:
    """One key column: its dictionary codes (given in order of first appearance), the rows
    sorted by code, stably."""
    encoded = pc.dictionary_encode(keys, null_encoding="encode")
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    values = encoded.dictionary.to_pylist()
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes, minlength=len(values))
    bounds = np.concatenate(([0], np.cumsum(counts)))
    firsts = order[bounds[:-1]]
    return _Groups(
        keys=[(value,) for value in values],
        order=pa.array(order),
        bounds=bounds.tolist(),
        first_rows=pa.array(firsts),
        single=len(values) == 1,
    )


def _groups_by_table(keys: list[pa.Array], row_index: _RowIndex) -> _Groups:
    """Any key columns: Arrow's group-by, each group's rows as a list."""
    size = len(keys[0])
    columns = [f"k{i}" for i in range(len(keys))]
    table = pa.table({**dict(zip(columns, keys, strict=True)), _ROW: row_index(size)})
    firsts = (
        table.append_column(_TEXT_ROW, row_index(size))
        .group_by(columns, use_threads=False)
        .aggregate([(_ROW, "list"), (_TEXT_ROW, "min")])
        .sort_by(f"{_TEXT_ROW}_min")  # groups in order of first appearance
    )
    key_values = [firsts.column(c).to_pylist() for c in columns]
    rows = firsts.column(f"{_ROW}_list").combine_chunks()
    offsets = rows.offsets.to_pylist()
    return _Groups(
        keys=list(zip(*key_values, strict=True)),
        order=rows.flatten(),
        bounds=[offset - offsets[0] for offset in offsets],
        first_rows=firsts.column(f"{_TEXT_ROW}_min"),
        single=firsts.num_rows == 1,
    )


@processor("PartitionRecord")
class PartitionRecord(Processor):
    description = (
        "Receives Record-oriented data (i.e., data that can be read by the configured Record "
        "Reader) and evaluates one or more RecordPaths against the each record in the "
        'incoming FlowFile. Each record is then grouped with other "like records" and a '
        'FlowFile is created for each group of "like records." What it means for two '
        'records to be "like records" is determined by user-defined properties. The user '
        "is required to enter at least one user-defined property whose value is a "
        "RecordPath. Two records are considered alike if they have the same value for all "
        "configured RecordPaths. Because we know that all records in a given output "
        "FlowFile have the same value for the fields that are specified by the RecordPath, "
        "an attribute is added for each field."
    )
    tags = (
        "record",
        "partition",
        "recordpath",
        "rpath",
        "segment",
        "split",
        "group",
        "bin",
        "organize",
    )
    property_descriptors = (RECORD_READER, RECORD_WRITER)
    relationships = (SUCCESS, ORIGINAL, FAILURE)
    supports_dynamic_properties = True

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="A RecordPath that points to a field in the Record.",
            dynamic=True,
            expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
            validators=[record_path_validator],
        )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        if not context.dynamic_properties():
            return [
                ValidationResult(
                    "User-defined Properties",
                    False,
                    None,
                    "At least one RecordPath must be added to this processor by adding a "
                    "user-defined property",
                )
            ]
        return []

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfiles = poll(session)
        if not flowfiles:
            return
        readers = as_reader_factory(context.get_property(RECORD_READER).as_controller_service())
        writers = as_writer_factory(context.get_property(RECORD_WRITER).as_controller_service())
        reads = BulkReads(session, readers, flowfiles)
        for position, flowfile in enumerate(flowfiles):
            self._partition_one(context, session, reads, position, flowfile, writers)

    def _partition_one(
        self,
        context: ProcessContext,
        session: ProcessSession,
        reads: BulkReads,
        position: int,
        flowfile: FlowFile,
        writers: RecordSetWriterFactory,
    ) -> None:
        try:
            paths = {
                name: compile_record_path(context.get_property(name).evaluate(flowfile).as_str())
                for name in context.dynamic_properties()
            }
        except (RecordPathError, ConfigurationError) as exc:
            self.logger.error(
                "Failed to compile RecordPath for %s; routing to failure: %s", flowfile, exc
            )
            session.transfer(flowfile, FAILURE)
            return

        partitions: dict[tuple[Any, ...], _Partition] = {}
        try:
            reader = reads.reader(position, flowfile)
            try:
                schema = writers.writer_schema(reader.schema, flowfile.attributes)
                found = reads.rendered(position, writers, schema)
                if found is not None and renders_rows(type(found[0])):
                    self._partition_rendered(session, flowfile, reader, found, paths, partitions)
                else:
                    self._partition(session, flowfile, reader, writers, schema, paths, partitions)
            finally:
                reader.close()
            children = self._finish(session, flowfile, partitions)
        except RECORD_FAILURES as exc:
            if repository_fault(exc) is not None:
                raise  # a full or failing repository: roll back, keep the FlowFile queued
            self._discard(session, partitions)
            self.logger.error("Failed to partition %s: %s", flowfile, exc)
            session.transfer(flowfile, FAILURE)
            return
        except BaseException:
            self._discard(session, partitions, remove=False)
            raise
        for child in children:
            session.transfer(child, SUCCESS)
        session.transfer(flowfile, ORIGINAL)

    @staticmethod
    def _discard(
        session: ProcessSession, partitions: dict[tuple[Any, ...], _Partition], remove: bool = True
    ) -> None:
        """Abort every writer and open content; remove the children (unless the session is
        about to be rolled back anyway, which aborts open content too)."""
        for partition in partitions.values():
            if partition.content is not None:
                try:
                    if partition.writer is not None:
                        partition.writer.abort()
                except RECORD_FAILURES:
                    pass
                partition.content.abort()
                partition.content = None
            if remove:
                session.remove(partition.child)

    @staticmethod
    def _partition(
        session: ProcessSession,
        flowfile: FlowFile,
        reader: RecordReader,
        writers: RecordSetWriterFactory,
        schema: pa.Schema,
        paths: dict[str, RecordPath],
        partitions: dict[tuple[Any, ...], _Partition],
    ) -> None:
        """Each partition written by a writer of its own (``schema``: the writer schema)."""
        row_index = _RowIndex()

        def partition_for(key: tuple[Any, ...], attributes: dict[str, str]) -> _Partition:
            found = partitions.get(key)
            if found is None:
                child = session.create(flowfile)
                content = session.open_write(child)
                try:
                    writer = writers.create_writer(schema, content, child.attributes)
                except BaseException:
                    content.abort()
                    session.remove(child)
                    raise
                found = _Partition(child, attributes, content, writer)
                partitions[key] = found
            return found

        for batch in reader.batches():
            if batch.num_rows == 0:
                continue
            groups, attributes = _keyed_groups(batch, paths, row_index)
            ordered = batch if groups.single else taken(batch, groups.order)
            bounds = groups.bounds
            for group, key in enumerate(groups.keys):
                writer = partition_for(key, attributes[group]).writer
                assert writer is not None  # every partition here has a writer
                start, end = bounds[group], bounds[group + 1]
                writer.write_batch(
                    ordered if groups.single else sliced(ordered, start, end - start)
                )

    @staticmethod
    def _partition_rendered(
        session: ProcessSession,
        flowfile: FlowFile,
        reader: RecordReader,
        found: tuple[RenderedRecords, int, int],
        paths: dict[str, RecordPath],
        partitions: dict[tuple[Any, ...], _Partition],
    ) -> None:
        """``_partition`` for records rendered in one pass with their poll (one batch):
        each partition's content is its records' lines taken from the rendering, the
        same bytes as a writer of its own."""
        rendered = cast("RenderedRows", found[0])  # the caller checked it renders rows
        first = found[1]
        batches = [batch for batch in reader.batches() if batch.num_rows]
        if not batches:
            return
        [batch] = batches  # records read in bulk come as one batch
        groups, attributes = _keyed_groups(batch, paths, _RowIndex())
        ordered = rendered.reordered(pc.add(groups.order, pa.scalar(first, pa.int64())))
        for group, key in enumerate(groups.keys):
            start, end = groups.bounds[group], groups.bounds[group + 1]
            child = session.create(flowfile)
            partition = partitions[key] = _Partition(child, attributes[group], None, None)
            sink = CollectedBytes()
            written = ordered.write(start, end - start, sink, child.attributes)
            partition.child = session.write(child, sink.content())
            partition.written = written

    @staticmethod
    def _finish(
        session: ProcessSession,
        flowfile: FlowFile,
        partitions: dict[tuple[Any, ...], _Partition],
    ) -> list[FlowFile]:
        fragment_id = str(uuid.uuid4())
        count = str(len(partitions))
        filename = flowfile.attributes.get("filename", "")
        children: list[FlowFile] = []
        for index, partition in enumerate(partitions.values()):
            if partition.written is not None:
                result, child = partition.written, partition.child
            else:
                assert partition.writer is not None and partition.content is not None
                result = partition.writer.finish()
                content = partition.content
                partition.content = None
                child = content.close()
            partition.child = child
            child = session.put_all_attributes(
                child,
                {
                    **partition.attributes,
                    **result.attributes,
                    RECORD_COUNT: str(result.record_count),
                    MIME_TYPE: result.mime_type,
                    FRAGMENT_INDEX: str(index),
                    FRAGMENT_ID: fragment_id,
                    FRAGMENT_COUNT: count,
                    SEGMENT_ORIGINAL_FILENAME: filename,
                },
            )
            partition.child = child
            children.append(child)
        return children
