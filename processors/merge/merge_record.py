"""MergeRecord: merge the records of many FlowFiles into few, as NiFi's MergeRecord does.

Behaviour follows ``shared/spec/nifi-processors.md`` Part A (NiFi's code, not its
additionalDetails). Where NiFi's code and documentation disagree, this follows the code:

* the default *Maximum Number of Bins* is 10 (the documentation says 5);
* ``fragment.index`` is never read: output order is arrival order;
* in Defragment mode the *first* FlowFile of a bin must carry a valid ``fragment.count``
  (the documentation says "at least one");
* the completion reason is written to ``merge.completion.reason`` (``merge.reason`` is
  MergeContent's).

How it works here. MergeRecord is a session-factory processor (``@TriggerWhenEmpty``, not
``@TriggerSerially``). Each trigger polls the input queue in batches (250 FlowFiles or
250 KB) with a polling session. For each FlowFile a reader is created to learn the schema
and the bin key; the FlowFile is then migrated into its bin's own session, and its records
are streamed through the reader into the bin's record writer at once, so the writer's output
bytes (Minimum/Maximum Bin Size) and the record count are exact after each FlowFile. Bins
hold FlowFile references and one open writer whose sink is the merged FlowFile's content,
open in the content repository (``ProcessSession.open_write``) from the bin's first FlowFile
until the merge: memory does not grow with the number of records in a bin.

The merged FlowFile is created with ``session.create()`` in the bin's session when the bin
gets its writer, before its parents are all known; at the merge the processor reports the
JOIN from all originals itself, so that the one JOIN event carries the details ``Records
Merged due to: <reason>`` (no CREATE event is generated for it); the session gives it the
earliest original's lineage start date, as in NiFi. Failures (A.8): a FlowFile whose reader
cannot be created goes alone to ``failure``; an error while reading its records or writing
them fails the whole bin (every FlowFile in it plus the current one) to ``failure``, and the
merged FlowFile, with its partial content, is removed, so no record is emitted twice.
Stopping rolls every unmerged bin back to the input queue (the rollback discards the open
content).

Each merge adds its record count to the counter ``Records Merged``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import pyarrow as pa

from flowcore.model import FlowFile
from flowcore.processor import (
    ExpressionLanguageScope,
    ProcessContext,
    PropertyDescriptor,
    Relationship,
    Scheduling,
    SessionFactory,
    SessionFactoryProcessor,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from flowcore.session.session import OpenContent
from processors.record.api import (
    RecordReader,
    RecordReaderFactory,
    RecordSetWriter,
    RecordSetWriterFactory,
    as_reader_factory,
    as_writer_factory,
    source_of,
)
from processors.record.schema import schema_fingerprint

BIN_PACKING = "Bin-Packing Algorithm"
DEFRAGMENT = "Defragment"
KEEP_COMMON = "Keep Only Common Attributes"
KEEP_UNIQUE = "Keep All Unique Attributes"

REASON_FULL = "Bin is full"
REASON_EVICTED = "Maximum number of bins has been exceeded"
REASON_MAX_AGE = "Bin has reached Max Bin Age"
REASON_COMPLETELY_FULL = "Bin is completely full"
REASON_FULL_ENOUGH = "Bin is full enough"

FRAGMENT_ID = "fragment.identifier"
FRAGMENT_COUNT = "fragment.count"
MERGE_UUID = "merge.uuid"

POLL_COUNT = 250
POLL_BYTES = 250 * 1024
_FINGERPRINT_CACHE = 256
_JAVA_INT = re.compile(r"[-+]?\d+")
_INT_MAX = 2**31 - 1


def _java_int(value: str) -> int | None:
    """``Integer.parseInt``: optional sign, digits, 32-bit range; None otherwise."""
    if not _JAVA_INT.fullmatch(value):
        return None
    number = int(value)
    return number if -(2**31) <= number <= _INT_MAX else None


def _java_positive_integer(subject: str, value: str) -> ValidationResult:
    """NiFi's POSITIVE_INTEGER_VALIDATOR: a Java int (no surrounding space) above zero."""
    number = _java_int(value)
    if number is None:
        return ValidationResult(subject, False, value, "not a valid integer")
    if number <= 0:
        return ValidationResult(subject, False, value, "not a positive value")
    return ValidationResult(subject, True, value)


RECORD_READER = PropertyDescriptor(
    name="Record Reader",
    display_name="Record Reader",
    description="Specifies the Controller Service to use for reading incoming data",
    required=True,
    controller_service=True,
)
RECORD_WRITER = PropertyDescriptor(
    name="Record Writer",
    display_name="Record Writer",
    description="Specifies the Controller Service to use for writing out the records",
    required=True,
    controller_service=True,
)
MERGE_STRATEGY = PropertyDescriptor(
    name="Merge Strategy",
    display_name="Merge Strategy",
    description="Specifies the algorithm used to merge records. The 'Defragment' algorithm "
    "combines fragments that are associated by attributes back into a single cohesive "
    "FlowFile. The 'Bin-Packing Algorithm' generates a FlowFile populated by arbitrarily "
    "chosen FlowFiles",
    required=True,
    default=BIN_PACKING,
    allowable_values=(BIN_PACKING, DEFRAGMENT),
)
CORRELATION_ATTRIBUTE = PropertyDescriptor(
    name="Correlation Attribute Name",
    display_name="Correlation Attribute Name",
    description="If specified, two FlowFiles will be binned together only if they have the "
    "same value for this Attribute. If not specified, FlowFiles are bundled by the order in "
    "which they are pulled from the queue.",
    validators=(validators.attribute_name,),
)
ATTRIBUTE_STRATEGY = PropertyDescriptor(
    name="Attribute Strategy",
    display_name="Attribute Strategy",
    description="Determines which FlowFile attributes should be added to the bundle.",
    required=True,
    default=KEEP_COMMON,
    allowable_values=(KEEP_COMMON, KEEP_UNIQUE),
)
MIN_RECORDS = PropertyDescriptor(
    name="Minimum Number of Records",
    display_name="Minimum Number of Records",
    description="The minimum number of records to include in a bin",
    required=True,
    default="1",
    validators=(_java_positive_integer,),
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
)
MAX_RECORDS = PropertyDescriptor(
    name="Maximum Number of Records",
    display_name="Maximum Number of Records",
    description="The maximum number of Records to include in a bin. This is a 'soft limit'.",
    required=False,
    default="1000",
    validators=(_java_positive_integer,),
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
)
MIN_SIZE = PropertyDescriptor(
    name="Minimum Bin Size",
    display_name="Minimum Bin Size",
    description="The minimum size of for the bin",
    required=True,
    default="0 B",
    validators=(validators.data_size,),
)
MAX_SIZE = PropertyDescriptor(
    name="Maximum Bin Size",
    display_name="Maximum Bin Size",
    description="The maximum size for the bundle. If not specified, there is no maximum. "
    "This is a 'soft limit'.",
    validators=(validators.data_size,),
)
MAX_BIN_AGE = PropertyDescriptor(
    name="Max Bin Age",
    display_name="Max Bin Age",
    description="The maximum age of a Bin that will trigger a Bin to be complete. Expected "
    "format is <duration> <time unit> where <duration> is a positive integer and time unit "
    "is one of seconds, minutes, hours",
    validators=(validators.time_period,),
)
MAX_BIN_COUNT = PropertyDescriptor(
    name="Maximum Number of Bins",
    display_name="Maximum Number of Bins",
    description="Specifies the maximum number of bins that can be held in memory at any "
    "one time. This number should not be smaller than the maximum number of concurrent "
    "threads for this Processor, or the bins that are created will often consist only of "
    "a single incoming FlowFile.",
    required=True,
    default="10",
    validators=(_java_positive_integer,),
)

REL_MERGED = Relationship("merged", "The FlowFile containing the merged records")
REL_ORIGINAL = Relationship("original", "The FlowFiles that were used to create the bundle")
REL_FAILURE = Relationship(
    "failure",
    "If the bundle cannot be created, all FlowFiles that would have been used to created "
    "the bundle will be transferred to failure",
)


class _BinFailed(Exception):
    """The bin must be failed: all its FlowFiles go to failure."""


class _Content:
    """Content of a FlowFile read through whichever session holds it when reading starts."""

    def __init__(self, session: ProcessSession, flowfile: FlowFile) -> None:
        self.session = session
        self.flowfile = flowfile

    def __iter__(self) -> Iterator[bytes]:
        yield from self.session.stream(self.flowfile)


@dataclass(slots=True)
class _Thresholds:
    min_records: int
    max_records: int | None
    min_bytes: int
    max_bytes: int | None
    max_age_ms: int | None
    max_age_text: str


@dataclass(slots=True, eq=False)
class _Bin:
    key: str | None
    session: ProcessSession
    created_ms: int
    thresholds: _Thresholds
    defragment: bool
    flowfiles: list[FlowFile] = field(default_factory=list)
    writer: RecordSetWriter | None = None
    merged: FlowFile | None = None
    content: OpenContent | None = None
    record_count: int = 0
    fragment_count: int | None = None
    closed: bool = False

    @property
    def bytes_written(self) -> int:
        return 0 if self.writer is None else self.writer.bytes_written

    def full_enough(self) -> bool:
        if self.defragment:
            return self.fragment_count is not None and len(self.flowfiles) == self.fragment_count
        t = self.thresholds
        return (
            bool(self.flowfiles)
            and self.record_count >= t.min_records
            and self.bytes_written >= t.min_bytes
        )

    def full(self) -> bool:
        if not self.full_enough():
            return False
        if self.defragment:
            return True
        t = self.thresholds
        return (t.max_records is not None and self.record_count >= t.max_records) or (
            t.max_bytes is not None and self.bytes_written >= t.max_bytes
        )

    def expired(self, now_ms: int) -> bool:
        max_age = self.thresholds.max_age_ms
        return max_age is not None and now_ms - self.created_ms > max_age

    def validate_fragments(self) -> bool:
        """A.9: every member's fragment.count parses and agrees; at least one has it."""
        expected: int | None = None
        for flowfile in self.flowfiles:
            text = flowfile.attributes.get(FRAGMENT_COUNT)
            if text is None:
                continue
            number = _java_int(text)
            if number is None:
                return False
            if expected is not None and number != expected:
                return False
            expected = number
        if expected is None:
            return False
        self.fragment_count = expected
        return True

    def discard_output(self, remove: bool) -> None:
        """Give up the writer and the open content; with ``remove`` drop the merged FlowFile."""
        if self.writer is not None:
            try:
                self.writer.abort()
            except Exception:
                pass
            self.writer = None
        if self.content is not None:
            self.content.abort()
            self.content = None
        if remove and self.merged is not None:
            self.session.remove(self.merged)
        self.merged = None


def _merged_attributes(flowfiles: Sequence[FlowFile], strategy: str) -> dict[str, str]:
    """A.5 step 1: inherited attributes by Attribute Strategy, ``uuid`` excluded."""
    maps = [f.attributes for f in flowfiles]
    result: dict[str, str] = {}
    if strategy == KEEP_UNIQUE:
        conflicting: set[str] = set()
        for attributes in maps:
            for key, value in attributes.items():
                if key in conflicting:
                    continue
                if key in result and result[key] != value:
                    conflicting.add(key)
                    del result[key]
                else:
                    result[key] = value
    else:
        first, *rest = maps
        result = {k: v for k, v in first.items() if all(m.get(k) == v for m in rest)}
    result.pop("uuid", None)
    return result


@processor("MergeRecord")
class MergeRecord(SessionFactoryProcessor):
    """Merges the records of like FlowFiles into bins and writes each bin as one FlowFile."""

    description: ClassVar[str] = (
        "This Processor merges together multiple record-oriented FlowFiles into a single "
        "FlowFile that contains all of the Records of the input FlowFiles."
    )
    tags: ClassVar[Sequence[str]] = ("merge", "record", "content", "correlation", "stream")
    property_descriptors: ClassVar[Sequence[PropertyDescriptor]] = (
        RECORD_READER,
        RECORD_WRITER,
        MERGE_STRATEGY,
        CORRELATION_ATTRIBUTE,
        ATTRIBUTE_STRATEGY,
        MIN_RECORDS,
        MAX_RECORDS,
        MIN_SIZE,
        MAX_SIZE,
        MAX_BIN_AGE,
        MAX_BIN_COUNT,
    )
    relationships: ClassVar[Sequence[Relationship]] = (REL_MERGED, REL_ORIGINAL, REL_FAILURE)
    scheduling: ClassVar[Scheduling] = Scheduling(trigger_when_empty=True, input_required=True)

    def __init__(self) -> None:
        super().__init__()
        self._bins: list[_Bin] = []
        self._fingerprints: dict[pa.Schema, str] = {}

    # -- validation -----------------------------------------------------------------------

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        results: list[ValidationResult] = []
        min_records = self._evaluated_int(context, MIN_RECORDS)
        max_records = self._evaluated_int(context, MAX_RECORDS)
        min_label, max_label = MIN_RECORDS.label, MAX_RECORDS.label
        if min_records is not None and max_records is not None and max_records < min_records:
            results.append(
                ValidationResult(
                    "Max Records",
                    False,
                    explanation=f"<{max_label}> property cannot be smaller than "
                    f"<{min_label}> property",
                )
            )
        if min_records is not None and min_records <= 0:
            results.append(
                ValidationResult(
                    "Min Records",
                    False,
                    explanation=f"<{min_label}> property cannot be negative or zero",
                )
            )
        if max_records is not None and max_records <= 0:
            results.append(
                ValidationResult(
                    "Max Records",
                    False,
                    explanation=f"<{max_label}> property cannot be negative or zero",
                )
            )
        min_size = context.get_property(MIN_SIZE).as_data_size()
        max_size = context.get_property(MAX_SIZE).as_data_size()
        if min_size is not None and max_size is not None and max_size < min_size:
            results.append(
                ValidationResult(
                    "Max Size",
                    False,
                    explanation=f"<{MAX_SIZE.label}> property cannot be smaller than "
                    f"<{MIN_SIZE.label}> property",
                )
            )
        return results

    @staticmethod
    def _evaluated_int(context: ProcessContext, descriptor: PropertyDescriptor) -> int | None:
        value = context.get_property(descriptor).evaluate().value
        if value is None or value == "":
            return None
        return _java_int(value)

    # -- lifecycle ------------------------------------------------------------------------

    def on_scheduled(self, context: ProcessContext) -> None:
        self._bins = []

    def next_wake_ms(self, now_ms: int) -> int | None:
        """When the oldest bin with a Max Bin Age becomes due (strictly older than it)."""
        due = [
            b.created_ms + b.thresholds.max_age_ms + 1
            for b in self._bins
            if b.thresholds.max_age_ms is not None
        ]
        return min(due) if due else None

    def on_stopped(self, context: ProcessContext) -> None:
        """Roll every unmerged bin back: its FlowFiles return to the input queue."""
        bins, self._bins = self._bins, []
        for each in bins:
            each.closed = True
            each.discard_output(remove=False)
            each.session.rollback()

    # -- triggering -----------------------------------------------------------------------

    def on_trigger_with_factory(self, context: ProcessContext, factory: SessionFactory) -> None:
        readers = as_reader_factory(context.get_property(RECORD_READER).as_controller_service())
        writers = as_writer_factory(context.get_property(RECORD_WRITER).as_controller_service())
        polled_any = False
        session = factory.create_session()
        while True:
            batch = self._poll(session)
            if not batch:
                break
            polled_any = True
            try:
                for flowfile in batch:
                    self._bin_flowfile(context, factory, session, readers, writers, flowfile)
            except BaseException:
                session.rollback()
                raise
            session.commit()
            self._complete_expired(context)
        self._complete_expired(context)
        if polled_any:
            for each in [b for b in self._bins if b.full()]:
                self._complete(context, each, REASON_COMPLETELY_FULL)
        else:
            for each in [b for b in self._bins if b.full_enough()]:
                self._complete(context, each, REASON_FULL_ENOUGH)
            context.yield_processor()

    @staticmethod
    def _poll(session: ProcessSession) -> list[FlowFile]:
        """Up to 250 FlowFiles or 250 KB (the first is always taken)."""
        batch: list[FlowFile] = []
        size = 0
        while len(batch) < POLL_COUNT and size < POLL_BYTES:
            flowfile = session.get()
            if flowfile is None:
                break
            batch.append(flowfile)
            size += flowfile.size
        return batch

    def _complete_expired(self, context: ProcessContext) -> None:
        now = context.now_ms()
        for each in [b for b in self._bins if b.expired(now)]:
            self._complete(context, each, REASON_MAX_AGE)

    # -- binning --------------------------------------------------------------------------

    def _thresholds(self, context: ProcessContext, defragment: bool) -> _Thresholds:
        min_records = self._evaluated_int(context, MIN_RECORDS)
        max_records = self._evaluated_int(context, MAX_RECORDS)
        max_age = context.get_property(MAX_BIN_AGE)
        return _Thresholds(
            min_records=_INT_MAX if defragment else (min_records or 1),
            max_records=max_records,
            min_bytes=context.get_property(MIN_SIZE).as_data_size() or 0,
            max_bytes=context.get_property(MAX_SIZE).as_data_size(),
            max_age_ms=max_age.as_time_period_ms(),
            max_age_text=max_age.as_str(),
        )

    def _bin_key(
        self, context: ProcessContext, defragment: bool, reader: RecordReader, flowfile: FlowFile
    ) -> str | None:
        attributes = flowfile.attributes
        if defragment:
            return attributes.get(FRAGMENT_ID)
        key = reader.schema_text
        if key is None:
            # NiFi's key: the schema's text; computed once per distinct schema.
            schema = reader.schema
            key = self._fingerprints.get(schema)
            if key is None:
                if len(self._fingerprints) >= _FINGERPRINT_CACHE:
                    self._fingerprints.clear()
                key = self._fingerprints[schema] = schema_fingerprint(schema)
        correlation = context.get_property(CORRELATION_ATTRIBUTE).value
        if correlation:
            value = attributes.get(correlation)
            if value is not None:
                key += value
        return key

    def _bin_flowfile(
        self,
        context: ProcessContext,
        factory: SessionFactory,
        session: ProcessSession,
        readers: RecordReaderFactory,
        writers: RecordSetWriterFactory,
        flowfile: FlowFile,
    ) -> None:
        defragment = context.get_property(MERGE_STRATEGY).as_str() == DEFRAGMENT
        content = _Content(session, flowfile)
        try:
            reader = readers.create_reader(content, flowfile.attributes, source_of(flowfile))
        except Exception as exc:
            self.logger.error("failed to bin %s: %s; routing to failure", source_of(flowfile), exc)
            session.transfer(flowfile, REL_FAILURE)
            return
        try:
            try:
                key = self._bin_key(context, defragment, reader, flowfile)
            except Exception as exc:
                self.logger.error(
                    "failed to bin %s: %s; routing to failure", source_of(flowfile), exc
                )
                session.transfer(flowfile, REL_FAILURE)
                return
            target = next((b for b in self._bins if b.key == key and not b.closed), None)
            new = target is None
            if target is None:
                target = _Bin(
                    key=key,
                    session=factory.create_session(),
                    created_ms=context.now_ms(),
                    thresholds=self._thresholds(context, defragment),
                    defragment=defragment,
                )
            session.migrate(target.session, [flowfile])
            content.session = target.session
            try:
                self._add(target, writers, reader, flowfile)
            except _BinFailed:
                self._fail(target)
                return
            except Exception as exc:
                self.logger.error(
                    "failed to add %s to a bin: %s; routing the bin's %d FlowFiles to failure",
                    source_of(flowfile),
                    exc,
                    len(target.flowfiles) + 1,
                )
                if flowfile not in target.flowfiles:
                    target.flowfiles.append(flowfile)
                self._fail(target)
                return
        finally:
            reader.close()
        if new:
            self._bins.append(target)
        if target.full():
            self._complete(context, target, REASON_FULL)
        elif target.expired(context.now_ms()):
            self._complete(context, target, f"Bin is older than {target.thresholds.max_age_text}")
        elif new:
            max_bins = context.get_property(MAX_BIN_COUNT).as_int() or 1
            if len(self._bins) > max_bins:
                oldest = min(self._bins, key=lambda b: b.created_ms)
                self._complete(context, oldest, REASON_EVICTED)

    @staticmethod
    def _add(
        target: _Bin,
        writers: RecordSetWriterFactory,
        reader: RecordReader,
        flowfile: FlowFile,
    ) -> None:
        if target.writer is None:
            session = target.session
            if target.merged is None:
                target.merged = session.create()
                target.content = session.open_write(target.merged)
            assert target.content is not None
            schema = writers.writer_schema(reader.schema, flowfile.attributes)
            target.writer = writers.create_writer(schema, target.content, flowfile.attributes)
        writer = target.writer
        count = 0
        for batch in reader.batches():
            writer.write_batch(batch)
            count += batch.num_rows
        target.record_count += count
        target.flowfiles.append(flowfile)
        if target.defragment and not target.validate_fragments():
            raise _BinFailed
        if target.record_count >= target.thresholds.min_records:
            writer.flush()

    # -- completion -----------------------------------------------------------------------

    def _remove(self, target: _Bin) -> None:
        target.closed = True
        if target in self._bins:
            self._bins.remove(target)

    def _fail(self, target: _Bin) -> None:
        """Every FlowFile of the bin to failure, unchanged; the partial output discarded."""
        self._remove(target)
        target.discard_output(remove=True)
        for flowfile in target.flowfiles:
            target.session.transfer(flowfile, REL_FAILURE)
        target.session.commit()

    def _complete(self, context: ProcessContext, target: _Bin, reason: str) -> None:
        if target.defragment and (
            not target.validate_fragments() or len(target.flowfiles) != target.fragment_count
        ):
            self._fail(target)
            return
        self._remove(target)
        session = target.session
        try:
            self._merge(context, target, reason)
        except BaseException:
            target.discard_output(remove=False)
            session.rollback(penalize=True)
            raise

    def _merge(self, context: ProcessContext, target: _Bin, reason: str) -> None:
        session = target.session
        writer, content, merged = target.writer, target.content, target.merged
        assert writer is not None and content is not None and merged is not None
        result = writer.finish()
        target.writer = None
        merged = content.close()
        target.content = None
        attributes = _merged_attributes(
            target.flowfiles, context.get_property(ATTRIBUTE_STRATEGY).as_str()
        )
        attributes.update(result.attributes)
        attributes["record.count"] = str(result.record_count)
        attributes["mime.type"] = result.mime_type
        attributes["merge.count"] = str(len(target.flowfiles))
        attributes["merge.bin.age"] = str(context.now_ms() - target.created_ms)
        attributes["merge.completion.reason"] = reason
        merged = session.put_all_attributes(merged, attributes)
        originals = [
            session.put_attribute(flowfile, MERGE_UUID, merged.attributes["uuid"])
            for flowfile in target.flowfiles
        ]
        session.provenance.join(originals, merged, details=f"Records Merged due to: {reason}")
        session.transfer(merged, REL_MERGED)
        for flowfile in originals:
            session.transfer(flowfile, REL_ORIGINAL)
        session.adjust_counter("Records Merged", result.record_count)
        session.commit()
        target.merged = None


__all__ = [
    "ATTRIBUTE_STRATEGY",
    "CORRELATION_ATTRIBUTE",
    "MAX_BIN_AGE",
    "MAX_BIN_COUNT",
    "MAX_RECORDS",
    "MAX_SIZE",
    "MERGE_STRATEGY",
    "MIN_RECORDS",
    "MIN_SIZE",
    "RECORD_READER",
    "RECORD_WRITER",
    "REL_FAILURE",
    "REL_MERGED",
    "REL_ORIGINAL",
    "MergeRecord",
]
