"""MergeRecord: merge the records of many FlowFiles into few, as NiFi's MergeRecord does.

Behaviour follows NiFi's MergeRecord code rather than its additional documentation, so
that flows moved from NiFi merge the same way. Where the two disagree, this follows the
code:

* the default *Maximum Number of Bins* is 10 (the documentation says 5);
* ``fragment.index`` is never read: output order is arrival order;
* in Defragment mode the *first* FlowFile of a bin must carry a valid ``fragment.count``
  (the documentation says "at least one");
* the completion reason is written to ``merge.completion.reason`` (``merge.reason`` is
  MergeContent's).

How it works here. MergeRecord is a session-factory processor (``@TriggerWhenEmpty``, not
``@TriggerSerially``). Each trigger polls the input queue in batches (250 FlowFiles or
250 KB) with a polling session. When the reader service can (``BulkRecordReaderFactory``),
the batch's contents are parsed in one call and each FlowFile's records are a slice of the
result, with the schema it would infer alone; the others get a reader each, created to
learn the schema and the bin key. The FlowFile is then migrated into its bin's own
session, and its records go into the bin's record writer, which holds them and writes
many FlowFiles' records in one call; it is flushed after each FlowFile once the bin has
its minimum records when a size threshold needs the written bytes (as NiFi flushes). Bins
hold FlowFile references and one open writer whose sink is the merged FlowFile's content,
open in the content repository (``ProcessSession.open_write``) from the bin's first FlowFile
until the merge: memory grows with at most 65,536 held records and a poll's contents, not
with the number of records in a bin.

The merged FlowFile is created with ``session.create()`` in the bin's session when the bin
gets its writer, before its parents are all known; at the merge the processor reports the
JOIN from all originals itself, so that the one JOIN event carries the details ``Records
Merged due to: <reason>`` (no CREATE event is generated for it); the session gives it the
earliest original's lineage start date, as in NiFi. Failures: a FlowFile whose reader
cannot be created goes alone to ``failure`` (with ``merge.failure.reason``); an error while
reading its records or writing them fails the whole bin (every FlowFile in it plus the
current one) to ``failure``, and the merged FlowFile, with its partial content, is
removed, so no record is emitted twice; so does a writer that cannot write the records
it held, at the merge. A repository fault (a full content disk, a FlowFile repository
that refuses the commit) is never the data's fault: the bin it meets is given up whole (its
partial output released, its session rolled back, so its FlowFiles return to the input
queue, penalized) and the error propagates, so nothing goes to failure
(docs/failure-modes.md).
Stopping rolls every unmerged bin back to the input queue (the rollback discards the open
content).

Each merge adds its record count to the counter ``Records Merged``.

Merging by key: to keep only the latest version of each record (upserts and deletes
from a change feed), with *Record Key Field(s)* set, bins are keyed by the correlation
attribute only, each FlowFile's records are buffered as an Arrow table, and the merge keeps
one record per key after every update and delete (``processors.merge.mergers``, Hudi
RFC-101 rules), on the local engine or on Spark. See ``docs/processors/merge_record.md``
("Merging by key") and ``docs/record-mergers.md``.

This module holds the processor: polling, binning, completing and writing the merged
FlowFiles. Its property descriptors, relationships and named values are in
``processors.merge.properties``; the bins in ``processors.merge.bins``; the by-key
configuration, its validation and the engine run (with Spark's fallback) in
``processors.merge.keyed``. The names other code used from here are re-exported.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any, ClassVar

import pyarrow as pa

from flowcore.errors import repository_fault
from flowcore.model import FlowFile
from flowcore.processor import (
    ProcessContext,
    PropertyDescriptor,
    Relationship,
    Scheduling,
    SessionFactory,
    SessionFactoryProcessor,
    ValidationResult,
    processor,
)
from flowcore.session import ProcessSession
from processors.merge.bins import (
    FRAGMENTS_INCONSISTENT,
    Bin,
    BinFailed,
    BinThresholds,
    merged_attributes,
)
from processors.merge.keyed import keyed_spec, merge_by_key, validate_keyed
from processors.merge.mergers.local_engine import key_problem
from processors.merge.mergers.spec import KeyedMergeSpec
from processors.merge.properties import (
    ATTRIBUTE_STRATEGY,
    CORRELATION_ATTRIBUTE,
    DEFRAGMENT,
    DELETES_ATTRIBUTE,
    FAILURE_REASON_ATTRIBUTE,
    FRAGMENT_ID,
    JAVA_INT_MAX,
    KEYED_PROPERTIES,
    MAX_BIN_AGE,
    MAX_BIN_COUNT,
    MAX_RECORDS,
    MAX_SIZE,
    MERGE_ENGINE_ATTRIBUTE,
    MERGE_FALLBACK_ATTRIBUTE,
    MERGE_STRATEGY,
    MERGE_UUID,
    MIN_RECORDS,
    MIN_SIZE,
    REASON_COMPLETELY_FULL,
    REASON_EVICTED,
    REASON_FULL,
    REASON_FULL_ENOUGH,
    REASON_MAX_AGE,
    RECORD_READER,
    RECORD_WRITER,
    RECORDS_IN_ATTRIBUTE,
    REL_FAILURE,
    REL_MERGED,
    REL_ORIGINAL,
    java_int,
)
from processors.record.api import (
    FlowFileContent,
    RecordReaderFactory,
    RecordSetWriterFactory,
    WriteResult,
    as_reader_factory,
    as_writer_factory,
    source_of,
)
from processors.record.bulk import read_in_bulk
from processors.record.schema import conform, schema_fingerprint

POLL_COUNT = 250
POLL_BYTES = 250 * 1024
_FINGERPRINT_CACHE = 256


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
        *KEYED_PROPERTIES,
    )
    relationships: ClassVar[Sequence[Relationship]] = (REL_MERGED, REL_ORIGINAL, REL_FAILURE)
    scheduling: ClassVar[Scheduling] = Scheduling(trigger_when_empty=True, input_required=True)

    def __init__(self) -> None:
        super().__init__()
        self._bins: list[Bin] = []
        self._one_task = threading.Lock()
        """Held by the task that is binning: concurrent tasks share the bins, so a second
        task waits for the first (each one drains the queue) rather than interleave."""
        self._fingerprints: dict[pa.Schema, str] = {}
        self._last_schema: tuple[pa.Schema | None, str] = (None, "")
        """The schema object last binned and its key (compared by identity: cheaper than
        hashing a schema)."""
        # Read once per trigger: Merge Strategy is Defragment; Correlation Attribute Name.
        self._defragment = False
        self._correlation: str | None = None

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
        results.extend(validate_keyed(context))
        return results

    @staticmethod
    def _evaluated_int(context: ProcessContext, descriptor: PropertyDescriptor) -> int | None:
        value = context.get_property(descriptor).evaluate().value
        if value is None or value == "":
            return None
        return java_int(value)

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
        with self._one_task:
            self._trigger(context, factory)

    def _trigger(self, context: ProcessContext, factory: SessionFactory) -> None:
        self._defragment = context.get_property(MERGE_STRATEGY).as_str() == DEFRAGMENT
        self._correlation = context.get_property(CORRELATION_ATTRIBUTE).value or None
        readers = as_reader_factory(context.get_property(RECORD_READER).as_controller_service())
        writers = as_writer_factory(context.get_property(RECORD_WRITER).as_controller_service())
        spec = keyed_spec(context)
        polled_any = False
        session = factory.create_session()
        while True:
            batch = self._poll(session)
            if not batch:
                break
            polled_any = True
            try:
                if spec is not None:
                    for flowfile in batch:
                        self._bin_keyed(context, factory, session, readers, writers, flowfile, spec)
                else:
                    self._bin_batch(context, factory, session, readers, writers, batch)
            except BaseException as exc:
                try:
                    self._settle_all()
                finally:
                    session.rollback(penalize=repository_fault(exc) is not None)
                raise
            self._settle_all()
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
        """Up to 250 FlowFiles or 250 KB (the first is always taken), in queue order."""
        return session.get_batch(POLL_COUNT, max_bytes=POLL_BYTES)

    def _settle_all(self) -> None:
        """Every bin's FlowFiles in its own session (before the polling session ends)."""
        for each in self._bins:
            each.settle()

    def _complete_expired(self, context: ProcessContext) -> None:
        now = context.now_ms()
        for each in [b for b in self._bins if b.expired(now)]:
            self._complete(context, each, REASON_MAX_AGE)

    # -- binning --------------------------------------------------------------------------

    def _thresholds(self, context: ProcessContext, defragment: bool) -> BinThresholds:
        min_records = self._evaluated_int(context, MIN_RECORDS)
        max_records = self._evaluated_int(context, MAX_RECORDS)
        max_age = context.get_property(MAX_BIN_AGE)
        return BinThresholds(
            min_records=JAVA_INT_MAX if defragment else (min_records or 1),
            max_records=max_records,
            min_bytes=context.get_property(MIN_SIZE).as_data_size() or 0,
            max_bytes=context.get_property(MAX_SIZE).as_data_size(),
            max_age_ms=max_age.as_time_period_ms(),
            max_age_text=max_age.as_str(),
        )

    def _bin_key(
        self,
        context: ProcessContext,
        defragment: bool,
        schema: pa.Schema,
        schema_text: str | None,
        flowfile: FlowFile,
    ) -> str | None:
        attributes = flowfile.attributes
        if defragment:
            return attributes.get(FRAGMENT_ID)
        key = schema_text
        if key is None and schema is self._last_schema[0]:
            key = self._last_schema[1]  # a bulk read gives many FlowFiles one schema object
        if key is None:
            # NiFi's key: the schema's text; computed once per distinct schema.
            key = self._fingerprints.get(schema)
            if key is None:
                if len(self._fingerprints) >= _FINGERPRINT_CACHE:
                    self._fingerprints.clear()
                key = self._fingerprints[schema] = schema_fingerprint(schema)
            self._last_schema = (schema, key)
        correlation = self._correlation
        if correlation:
            value = attributes.get(correlation)
            if value is not None:
                key += value
        return key

    def _bin_batch(
        self,
        context: ProcessContext,
        factory: SessionFactory,
        session: ProcessSession,
        readers: RecordReaderFactory,
        writers: RecordSetWriterFactory,
        batch: list[FlowFile],
    ) -> None:
        """Bin a polled batch in arrival order; the records of the FlowFiles the reader
        service can read in bulk come from one parse, the others are read one by one."""
        located = read_in_bulk(session, readers, batch)
        for position, flowfile in enumerate(batch):
            group = located.get(position)
            if group is None:
                self._bin_flowfile(context, factory, session, readers, writers, flowfile)
                continue
            records = group.batch(position)
            placed = self._place(
                context,
                factory,
                session,
                writers,
                flowfile,
                group.schema,
                group.schema_text,
                partial(list, [records]),
                None,
            )
            if placed is not None:
                self._after_add(context, *placed)

    def _bin_flowfile(
        self,
        context: ProcessContext,
        factory: SessionFactory,
        session: ProcessSession,
        readers: RecordReaderFactory,
        writers: RecordSetWriterFactory,
        flowfile: FlowFile,
    ) -> None:
        content = FlowFileContent(session, flowfile)
        try:
            reader = readers.create_reader(content, flowfile.attributes, source_of(flowfile))
        except Exception as exc:
            if repository_fault(exc) is not None:
                raise
            self._fail_one(session, flowfile, f"cannot read records: {exc}")
            return
        try:
            placed = self._place(
                context,
                factory,
                session,
                writers,
                flowfile,
                reader.schema,
                reader.schema_text,
                reader.batches,
                content,
            )
        finally:
            reader.close()
        if placed is not None:
            self._after_add(context, *placed)

    def _place(
        self,
        context: ProcessContext,
        factory: SessionFactory,
        session: ProcessSession,
        writers: RecordSetWriterFactory,
        flowfile: FlowFile,
        schema: pa.Schema,
        schema_text: str | None,
        batches: Callable[[], Iterable[pa.RecordBatch]],
        content: FlowFileContent | None,
    ) -> tuple[Bin, bool] | None:
        """Put the FlowFile and its records into its bin: the bin and whether it is new, or
        None when the FlowFile (or its whole bin) went to failure."""
        defragment = self._defragment
        try:
            key = self._bin_key(context, defragment, schema, schema_text, flowfile)
        except Exception as exc:
            self._fail_one(session, flowfile, f"cannot bin: {exc}")
            return None
        target = self._open_bin(key)
        new = target is None
        if target is None:
            target = self._new_bin(context, factory, key, defragment)
        if content is None:  # records already read: migrated with others (``settle``)
            if target.arrivals_from is not session:
                target.settle()
                target.arrivals_from = session
            target.arrivals.append(flowfile)
        else:
            target.settle()  # the bin's session keeps the arrival order
            session.migrate(target.session, [flowfile])
            content.session = target.session
        try:
            self._add(target, writers, schema, batches, flowfile)
        except BinFailed:
            self._fail(target, FRAGMENTS_INCONSISTENT)
            return None
        except Exception as exc:
            if repository_fault(exc) is not None:
                self._give_back(target)
                raise
            if flowfile not in target.flowfiles:
                target.flowfiles.append(flowfile)
            self.logger.error(
                "failed to add %s to a bin: %s; routing the bin's %d FlowFiles to failure",
                source_of(flowfile),
                exc,
                len(target.flowfiles),
            )
            self._fail(target, f"cannot add {source_of(flowfile)}: {type(exc).__name__}: {exc}")
            return None
        return target, new

    def _open_bin(self, key: str | None) -> Bin | None:
        """The bin still taking FlowFiles for ``key``, if any."""
        return next((b for b in self._bins if b.key == key and not b.closed), None)

    def _new_bin(
        self,
        context: ProcessContext,
        factory: SessionFactory,
        key: str | None,
        defragment: bool,
        *,
        spec: KeyedMergeSpec | None = None,
        writers: RecordSetWriterFactory | None = None,
    ) -> Bin:
        """A bin with a session of its own (added to the bins by ``_after_add``)."""
        return Bin(
            key=key,
            session=factory.create_session(),
            created_ms=context.now_ms(),
            thresholds=self._thresholds(context, defragment),
            defragment=defragment,
            spec=spec,
            writers=writers,
        )

    def _after_add(self, context: ProcessContext, target: Bin, new: bool) -> None:
        """Register a new bin; complete it if full or old, or evict the oldest bin."""
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

    def _fail_one(self, session: ProcessSession, flowfile: FlowFile, reason: str) -> None:
        """One FlowFile to failure with the reason in ``merge.failure.reason``."""
        self.logger.error("cannot bin %s: %s; routing to failure", source_of(flowfile), reason)
        flowfile = session.put_attribute(flowfile, FAILURE_REASON_ATTRIBUTE, reason)
        session.transfer(flowfile, REL_FAILURE)

    def _bin_keyed(
        self,
        context: ProcessContext,
        factory: SessionFactory,
        session: ProcessSession,
        readers: RecordReaderFactory,
        writers: RecordSetWriterFactory,
        flowfile: FlowFile,
        spec: KeyedMergeSpec,
    ) -> None:
        """Merging by key: read the FlowFile's records into a table and buffer it in a bin.

        The records are read before the FlowFile joins a bin, so a FlowFile that cannot be
        read, lacks a key or brings a conflicting field type fails alone.
        """
        defragment = context.get_property(MERGE_STRATEGY).as_str() == DEFRAGMENT
        try:
            reader = readers.create_reader(
                FlowFileContent(session, flowfile), flowfile.attributes, source_of(flowfile)
            )
            try:
                table = pa.Table.from_batches(list(reader.batches()), schema=reader.schema)
            finally:
                reader.close()
        except Exception as exc:
            if repository_fault(exc) is not None:
                raise
            self._fail_one(session, flowfile, f"cannot read records: {exc}")
            return
        if defragment:
            key = flowfile.attributes.get(FRAGMENT_ID)
        else:
            correlation = context.get_property(CORRELATION_ATTRIBUTE).value
            key = flowfile.attributes.get(correlation, "") if correlation else ""
        target = self._open_bin(key)
        problem = key_problem(table, spec.key_fields)
        if problem is None and target is not None:
            problem = target.union.conflict(table)
        if problem is not None:
            self._fail_one(session, flowfile, problem)
            return
        new = target is None
        if target is None:
            target = self._new_bin(context, factory, key, defragment, spec=spec, writers=writers)
        session.migrate(target.session, [flowfile])
        target.union.add(table)
        target.parts.append(table)
        target.record_count += table.num_rows
        target.input_bytes += flowfile.size
        target.flowfiles.append(flowfile)
        if target.defragment and not target.validate_fragments():
            if new:
                self._bins.append(target)
            self._fail(target, FRAGMENTS_INCONSISTENT)
            return
        self._after_add(context, target, new)

    @staticmethod
    def _add(
        target: Bin,
        writers: RecordSetWriterFactory,
        schema: pa.Schema,
        batches: Callable[[], Iterable[pa.RecordBatch]],
        flowfile: FlowFile,
    ) -> None:
        if target.writer is None:
            session = target.session
            if target.merged is None:
                target.merged = session.create()
                target.content = session.open_write(target.merged)
            assert target.content is not None
            written = writers.writer_schema(schema, flowfile.attributes)
            target.writer = writers.create_writer(written, target.content, flowfile.attributes)
        writer = target.writer
        count = 0
        for batch in batches():
            writer.write_batch(batch)
            count += batch.num_rows
        target.record_count += count
        target.flowfiles.append(flowfile)
        if target.defragment and not target.validate_fragments():
            raise BinFailed
        if target.record_count >= target.thresholds.min_records and target.counts_bytes:
            # NiFi flushes here so that the bytes written count towards the size
            # thresholds; without one, the writer writes when it holds enough records.
            writer.flush()

    # -- completion -----------------------------------------------------------------------

    def _remove(self, target: Bin) -> None:
        target.closed = True
        if target in self._bins:
            self._bins.remove(target)

    def _give_back(self, target: Bin) -> None:
        """Discard the bin after a repository fault: its partial output is released and
        its session rolled back, so its FlowFiles return to the input queue, penalized
        (as the framework does after a processor error); nothing goes to failure."""
        self._remove(target)
        try:
            target.settle()
            target.discard_output(remove=False)
        finally:
            target.session.rollback(penalize=True)

    def _fail(self, target: Bin, reason: str | None = None) -> None:
        """Every FlowFile of the bin to failure (with ``merge.failure.reason`` if given);
        the partial output discarded."""
        self._remove(target)
        target.settle()
        target.discard_output(remove=True)
        for flowfile in target.flowfiles:
            if reason is not None:
                flowfile = target.session.put_attribute(flowfile, FAILURE_REASON_ATTRIBUTE, reason)
            target.session.transfer(flowfile, REL_FAILURE)
        try:
            target.session.commit()
        except BaseException:
            target.session.rollback(penalize=True)
            raise

    def _complete(self, context: ProcessContext, target: Bin, reason: str) -> None:
        target.settle()
        if target.defragment and not target.validate_fragments():
            self._fail(target, FRAGMENTS_INCONSISTENT)
            return
        if target.defragment and len(target.flowfiles) != target.fragment_count:
            self._fail(
                target,
                f"the bin holds {len(target.flowfiles)} of its {target.fragment_count} fragments",
            )
            return
        self._remove(target)
        try:
            if target.spec is not None:
                self._merge_keyed(context, target, target.spec, reason)
            else:
                self._merge(context, target, reason)
        except BaseException:
            self._give_back(target)
            raise

    def _merge(self, context: ProcessContext, target: Bin, reason: str) -> None:
        writer, content, merged = target.writer, target.content, target.merged
        assert writer is not None and content is not None and merged is not None
        try:
            result = writer.finish()
        except Exception as exc:  # records the writer held and cannot represent
            if repository_fault(exc) is not None:
                raise
            self.logger.error("cannot write the merged records of a bin: %s", exc)
            self._fail(target, f"cannot write the merged records: {type(exc).__name__}: {exc}")
            return
        target.writer = None
        merged = content.close()
        target.content = None
        self._emit(context, target, merged, result, reason, {})
        target.merged = None

    def _emit(
        self,
        context: ProcessContext,
        target: Bin,
        merged: FlowFile,
        result: WriteResult,
        reason: str,
        extra: dict[str, str],
    ) -> None:
        """The merged FlowFile's attributes, the JOIN with its reason, routing, commit."""
        session = target.session
        attributes = merged_attributes(
            target.flowfiles, context.get_property(ATTRIBUTE_STRATEGY).as_str()
        )
        attributes.update(result.attributes)
        attributes["record.count"] = str(result.record_count)
        attributes["mime.type"] = result.mime_type
        attributes["merge.count"] = str(len(target.flowfiles))
        attributes["merge.bin.age"] = str(context.now_ms() - target.created_ms)
        attributes["merge.completion.reason"] = reason
        attributes.update(extra)
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

    # -- merging by key -------------------------------------------------------------------

    def _merge_keyed(
        self, context: ProcessContext, target: Bin, spec: KeyedMergeSpec, reason: str
    ) -> None:
        """Write one record per key into the merged FlowFile; JOIN, attributes, transfer."""
        outcome = merge_by_key(context, target, spec, self.logger)
        if outcome.merged is None:
            self._fail(target, outcome.failure or "merge failed")
            return
        result = outcome.merged
        session, writers = target.session, target.writers
        assert writers is not None
        first = target.flowfiles[0].attributes
        written: list[WriteResult] = []

        def write(sink: Any) -> None:
            # The writer's schema may come from attributes (``${avro.schema}``): a bad one
            # fails the bin with its reason below, rather than rolling back for ever.
            schema = writers.writer_schema(result.table.schema, first)
            writer = writers.create_writer(schema, sink, first)
            try:
                for batch in result.table.to_batches():
                    writer.write_batch(conform(batch, schema))
                written.append(writer.finish())
            except BaseException:
                writer.abort()
                raise

        created = session.create()
        try:
            merged = session.write(created, write)
        except Exception as exc:  # records the writer cannot represent: the bin fails
            if repository_fault(exc) is not None:
                raise
            session.remove(created)
            self.logger.error("cannot write the merged records of a bin: %s", exc)
            self._fail(target, f"cannot write the merged records: {type(exc).__name__}: {exc}")
            return
        extra = {
            MERGE_ENGINE_ATTRIBUTE: result.engine,
            RECORDS_IN_ATTRIBUTE: str(result.records_in),
            DELETES_ATTRIBUTE: str(result.deletes),
        }
        if outcome.fallback is not None:
            extra[MERGE_FALLBACK_ATTRIBUTE] = outcome.fallback
        self._emit(context, target, merged, written[0], reason, extra)
