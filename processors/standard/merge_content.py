"""MergeContent: merges many FlowFiles into one, by bin packing or by defragmenting.

Follows NiFi's MergeContent (on its BinFiles). Choices made here:

* Bins work as MergeRecord's do: each trigger polls the input with a polling session and
  migrates every FlowFile into its bin's own session, so a bin's FlowFiles stay owned by
  the processor until the bin is merged (or rolled back to the queue when the processor
  stops). Attribute Strategy uses MergeRecord's ``merged_attributes``.
* A bin completes when it is full (Maximum Number of Entries or Maximum Group Size
  reached: ``merge.reason`` ``MAX_ENTRIES_THRESHOLD_REACHED`` / ``MAX_BYTES_THRESHOLD_REACHED``),
  when it is older than Max Bin Age on the injected clock (``TIMEOUT``), when a new bin is
  needed and Maximum Number of Bins are held (the oldest: ``BIN_MANAGER_FULL``), or, once
  the queue is empty, when it meets both minimums (``MIN_THRESHOLDS_REACHED``). A
  FlowFile that would take a bin over Maximum Group Size starts a new bin (a lone
  FlowFile larger than the maximum is a bin of its own). ``next_wake_ms`` tells the
  scheduler when the oldest bin reaches its Max Bin Age.
* Bin Termination Check ends a FlowFile's bin at once (``BIN_TERMINATION_SIGNAL``), the
  FlowFile placed by FlowFile Insertion Strategy, as NiFi's BinManager.
* Defragment bins by ``fragment.identifier`` (or the Correlation Attribute), complete when
  ``fragment.count`` FlowFiles are present (the count may come on any fragment; an index
  already in the bin starts another bin; a FlowFile without one fails alone, as NiFi's
  Bin) and write them in ``fragment.index`` order. A
  bin with a missing or inconsistent index or count, or one that times out before it is
  complete, goes to failure whole, as in NiFi.
* Formats: Binary Concatenation (Header, Footer, Demarcator as text or read from files),
  FlowFile Stream, v3 (NiFi's FlowFilePackagerV3 bytes, ``application/flowfile-v3``,
  ``.pkg``), TAR (``.tar``, ``tar.permissions`` honoured) and ZIP (``.zip``, Compression
  Level) and Avro (NiFi's AvroMerge, by Metadata Strategy). FlowFile Stream v2 and FlowFile
  Tar v1 are not offered.
* The merged FlowFile is created from its parents (a JOIN without details, as NiFi's
  reporter call); the originals go to ``original`` with ``merge.uuid``. A file that a
  delimiter names and that cannot be read fails the bin to failure instead of losing it.
"""

from __future__ import annotations

import io
import json
import os
import struct
import tarfile
import threading
import time
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath
from typing import IO, Any, ClassVar, cast

import fastavro
import fastavro.write

from flowcore.model import FlowFile
from flowcore.processor import (
    AllowableValue,
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
from processors.merge.bins import merged_attributes
from processors.merge.properties import (
    FAILURE_REASON_ATTRIBUTE,
    KEEP_COMMON,
    KEEP_UNIQUE,
    java_int,
)
from processors.standard._support import Writer

BIN_PACKING = "Bin-Packing Algorithm"
DEFRAGMENT = "Defragment"
FORMAT_CONCAT = "Binary Concatenation"
FORMAT_FLOWFILE_V3 = "FlowFile Stream, v3"
FORMAT_TAR = "TAR"
FORMAT_ZIP = "ZIP"
FORMAT_AVRO = "Avro"
AVRO_MIME = "application/avro-binary"
METADATA_USE_FIRST = "Use First Metadata"
METADATA_ALL_COMMON = "Keep Only Common Metadata"
METADATA_IGNORE = "Ignore Metadata"
METADATA_DO_NOT_MERGE = "Do Not Merge Uncommon Metadata"
DELIMITER_NONE = "Do Not Use Delimiters"
DELIMITER_FILENAME = "Filename"
DELIMITER_TEXT = "Text"

FLOWFILE_V3_MAGIC = b"NiFiFF3"
FLOWFILE_V3_MIME = "application/flowfile-v3"

REASON_MAX_BYTES = "MAX_BYTES_THRESHOLD_REACHED"
REASON_MAX_ENTRIES = "MAX_ENTRIES_THRESHOLD_REACHED"
REASON_MIN_THRESHOLDS = "MIN_THRESHOLDS_REACHED"
REASON_TIMEOUT = "TIMEOUT"
REASON_BIN_MANAGER_FULL = "BIN_MANAGER_FULL"
REASON_TERMINATION = "BIN_TERMINATION_SIGNAL"
LAST_IN_BIN = "Last in Bin"
FIRST_IN_NEW_BIN = "First in New Bin"
ISOLATED = "Isolated"

FRAGMENT_ID = "fragment.identifier"
FRAGMENT_INDEX = "fragment.index"
FRAGMENT_COUNT = "fragment.count"
SEGMENT_ORIGINAL_FILENAME = "segment.original.filename"
_POLL_COUNT = 1000


def _positive_int(subject: str, value: str) -> ValidationResult:
    number = java_int(value.strip())
    if number is None or number <= 0:
        return ValidationResult(subject, False, value, "not a positive integer")
    return ValidationResult(subject, True, value)


MERGE_STRATEGY = PropertyDescriptor(
    name="Merge Strategy",
    display_name="Merge Strategy",
    description="Specifies the algorithm used to merge content. The 'Defragment' algorithm "
    "combines fragments that are associated by attributes back into a single cohesive "
    "FlowFile. The 'Bin-Packing Algorithm' generates a FlowFile populated by arbitrarily "
    "chosen FlowFiles",
    required=True,
    default=BIN_PACKING,
    allowable_values=(BIN_PACKING, DEFRAGMENT),
)
MERGE_FORMAT = PropertyDescriptor(
    name="Merge Format",
    display_name="Merge Format",
    description="Determines the format that will be used to merge the content.",
    required=True,
    default=FORMAT_CONCAT,
    allowable_values=(FORMAT_TAR, FORMAT_ZIP, FORMAT_FLOWFILE_V3, FORMAT_CONCAT, FORMAT_AVRO),
)
METADATA_STRATEGY = PropertyDescriptor(
    name="mergecontent-metadata-strategy",
    display_name="Metadata Strategy",
    description="For FlowFiles whose input format supports metadata (Avro, e.g.), this "
    "property determines which metadata should be added to the bundle. If 'Use First "
    "Metadata' is selected, the metadata keys/values from the first FlowFile to be bundled "
    "will be used. If 'Keep Only Common Metadata' is selected, only the metadata that exists "
    "on all FlowFiles in the bundle, with the same value, will be preserved. If 'Ignore "
    "Metadata' is selected, no metadata is transferred to the outgoing bundled FlowFile. If "
    "'Do Not Merge Uncommon Metadata' is selected, any FlowFile whose metadata values do not "
    "match those of the first bundled FlowFile will not be merged. Applies to the Avro "
    "Merge Format.",
    required=True,
    default=METADATA_DO_NOT_MERGE,
    allowable_values=(
        METADATA_USE_FIRST,
        METADATA_ALL_COMMON,
        METADATA_IGNORE,
        METADATA_DO_NOT_MERGE,
    ),
)
ATTRIBUTE_STRATEGY = PropertyDescriptor(
    name="Attribute Strategy",
    display_name="Attribute Strategy",
    description="Determines which FlowFile attributes should be added to the bundle. If "
    "'Keep All Unique Attributes' is selected, any attribute on any FlowFile that gets "
    "bundled will be kept unless its value conflicts with the value from another FlowFile. "
    "If 'Keep Only Common Attributes' is selected, only the attributes that exist on all "
    "FlowFiles in the bundle, with the same value, will be preserved.",
    required=True,
    default=KEEP_COMMON,
    allowable_values=(KEEP_COMMON, KEEP_UNIQUE),
)
CORRELATION_ATTRIBUTE = PropertyDescriptor(
    name="Correlation Attribute Name",
    display_name="Correlation Attribute Name",
    description="If specified, like FlowFiles will be binned together, where 'like "
    "FlowFiles' means FlowFiles that have the same value for this Attribute. If not "
    "specified, FlowFiles are bundled by the order in which they are pulled from the queue.",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.attribute_name],
)
MIN_ENTRIES = PropertyDescriptor(
    name="Minimum Number of Entries",
    display_name="Minimum Number of Entries",
    description="The minimum number of files to include in a bundle",
    required=True,
    default="1",
    validators=(_positive_int,),
)
MAX_ENTRIES = PropertyDescriptor(
    name="Maximum Number of Entries",
    display_name="Maximum Number of Entries",
    description="The maximum number of files to include in a bundle",
    default="1000",
    validators=(_positive_int,),
)
MIN_SIZE = PropertyDescriptor(
    name="Minimum Group Size",
    display_name="Minimum Group Size",
    description="The minimum size for the bundle",
    required=True,
    default="0 B",
    validators=(validators.data_size,),
)
MAX_SIZE = PropertyDescriptor(
    name="Maximum Group Size",
    display_name="Maximum Group Size",
    description="The maximum size for the bundle. If not specified, there is no maximum.",
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
    name="Maximum number of Bins",
    display_name="Maximum Number of Bins",
    description="Specifies the maximum number of bins that can be held in memory at any one time",
    required=True,
    default="5",
    validators=(_positive_int,),
)
DELIMITER_STRATEGY = PropertyDescriptor(
    name="Delimiter Strategy",
    display_name="Delimiter Strategy",
    description="Determines if Header, Footer, and Demarcator should point to files "
    "containing the respective content, or if the values of the properties should be used "
    "as the content.",
    required=True,
    default=DELIMITER_NONE,
    allowable_values=(
        AllowableValue(DELIMITER_NONE, DELIMITER_NONE),
        AllowableValue(DELIMITER_FILENAME, DELIMITER_FILENAME),
        AllowableValue(DELIMITER_TEXT, DELIMITER_TEXT),
    ),
)
HEADER = PropertyDescriptor(
    name="Header File",
    display_name="Header",
    description="Filename or text specifying the header to use. If not specified, no header "
    "is supplied.",
    validators=(validators.non_empty,),
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
FOOTER = PropertyDescriptor(
    name="Footer File",
    display_name="Footer",
    description="Filename or text specifying the footer to use. If not specified, no footer "
    "is supplied.",
    validators=(validators.non_empty,),
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
DEMARCATOR = PropertyDescriptor(
    name="Demarcator File",
    display_name="Demarcator",
    description="Filename or text specifying the demarcator to use. If not specified, no "
    "demarcator is supplied.",
    validators=(validators.non_empty,),
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
COMPRESSION_LEVEL = PropertyDescriptor(
    name="Compression Level",
    display_name="Compression Level",
    description="Specifies the compression level to use when using the Zip Merge Format; if "
    "not using the Zip Merge Format, this value is ignored",
    required=True,
    default="1",
    allowable_values=tuple(str(n) for n in range(10)),
)
KEEP_PATH = PropertyDescriptor(
    name="Keep Path",
    display_name="Keep Path",
    description="If using the Zip or Tar Merge Format, specifies whether or not the "
    "FlowFiles' paths should be included in their entry names.",
    required=True,
    default="false",
    allowable_values=("true", "false"),
)
TAR_MODIFIED_TIME = PropertyDescriptor(
    name="Tar Modified Time",
    display_name="Tar Modified Time",
    description="If using the Tar Merge Format, specifies if the Tar entry should store the "
    "modified timestamp either by expression (e.g. ${file.lastModifiedTime} or static "
    "value, both of which must match the ISO8601 format 'yyyy-MM-dd'T'HH:mm:ssZ'.",
    default="${file.lastModifiedTime}",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.non_empty],
)

BIN_TERMINATION_CHECK = PropertyDescriptor(
    name="Bin Termination Check",
    display_name="Bin Termination Check",
    description="Specifies an Expression Language Expression that is to be evaluated against "
    "each FlowFile. If the result of the expression is 'true', the bin that the FlowFile "
    "corresponds to will be terminated, even if the bin has not met the minimum number of "
    "entries or minimum size. Note that if the FlowFile that triggers the termination of the "
    "bin is itself larger than the Maximum Bin Size, it will be placed into its own bin "
    "without triggering the termination of any other bin. When using this property, it is "
    "recommended to use Prioritizers in the flow's connections to ensure that the ordering "
    "is as desired. Applies to the Bin-Packing Algorithm.",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.boolean_expression],
)
FLOWFILE_INSERTION_STRATEGY = PropertyDescriptor(
    name="FlowFile Insertion Strategy",
    display_name="FlowFile Insertion Strategy",
    description="If a given FlowFile terminates the bin based on the <Bin Termination Check> "
    "property, specifies where the FlowFile should be included in the bin.",
    required=True,
    default=LAST_IN_BIN,
    allowable_values=(
        AllowableValue(
            LAST_IN_BIN, LAST_IN_BIN, "Insert the FlowFile at the end of the Bin that is terminated"
        ),
        AllowableValue(
            FIRST_IN_NEW_BIN,
            FIRST_IN_NEW_BIN,
            "Insert the FlowFile at the beginning of a newly created Bin",
        ),
        AllowableValue(
            ISOLATED,
            ISOLATED,
            "Insert the FlowFile into a new Bin and terminate the Bin immediately with the "
            "FlowFile as the only content",
        ),
    ),
)

REL_MERGED = Relationship("merged", "The FlowFile containing the merged content")
REL_ORIGINAL = Relationship(
    "original",
    "The FlowFiles that were used to create the bundle",
)
REL_FAILURE = Relationship(
    "failure",
    "If the bundle cannot be created, all FlowFiles that would have been used to created "
    "the bundle will be transferred to failure",
)


class MergeFailed(Exception):
    """The bin cannot be merged; its FlowFiles go to failure."""


@dataclass(slots=True, eq=False)
class ContentBin:
    """FlowFiles of one group waiting in their own session to be merged."""

    group: str | None
    session: ProcessSession
    created_ms: int
    flowfiles: list[FlowFile] = field(default_factory=list)
    size: int = 0
    indexes: set[str] = field(default_factory=set)
    """Defragment: the ``fragment.index`` values in the bin (each once, as NiFi's Bin)."""
    expected: int | None = None
    """Defragment: the ``fragment.count`` of the last FlowFile that carried a number."""

    def add(self, flowfile: FlowFile) -> None:
        self.flowfiles.append(flowfile)
        self.size += flowfile.size
        index = flowfile.attributes.get(FRAGMENT_INDEX)
        if index:
            self.indexes.add(index)
        count = flowfile.attributes.get(FRAGMENT_COUNT, "")
        if count.isascii() and count.isdigit():
            self.expected = java_int(count)


@dataclass(frozen=True, slots=True)
class _Limits:
    defragment: bool
    min_entries: int
    max_entries: int | None
    min_bytes: int
    max_bytes: int | None
    max_age_ms: int | None

    def accepts(self, target: ContentBin, flowfile: FlowFile) -> bool:
        if self.defragment:
            # NiFi's Bin: a bin holding its fragment count takes no more; an index that is
            # missing or already in the bin starts another bin
            if target.expected is not None and len(target.flowfiles) >= target.expected:
                return False
            index = flowfile.attributes.get(FRAGMENT_INDEX)
            return bool(index) and index not in target.indexes
        if not target.flowfiles:
            return True
        if self.max_entries is not None and len(target.flowfiles) >= self.max_entries:
            return False
        return self.max_bytes is None or target.size + flowfile.size <= self.max_bytes

    def full_reason(self, target: ContentBin) -> str | None:
        if self.defragment:
            if target.expected is not None and len(target.flowfiles) >= target.expected:
                return REASON_MAX_ENTRIES
            return None
        if self.max_bytes is not None and target.size >= self.max_bytes:
            return REASON_MAX_BYTES
        if self.max_entries is not None and len(target.flowfiles) >= self.max_entries:
            return REASON_MAX_ENTRIES
        return None

    def full_enough(self, target: ContentBin) -> bool:
        if self.defragment:
            return self.full_reason(target) is not None
        return len(target.flowfiles) >= self.min_entries and target.size >= self.min_bytes

    def expired(self, target: ContentBin, now_ms: int) -> bool:
        return self.max_age_ms is not None and now_ms - target.created_ms > self.max_age_ms


@processor("MergeContent")
class MergeContent(SessionFactoryProcessor):
    """Merges a group of FlowFiles together based on a user-defined strategy."""

    description: ClassVar[str] = (
        "Merges a Group of FlowFiles together based on a user-defined strategy and packages "
        "them into a single FlowFile."
    )
    tags: ClassVar[Sequence[str]] = (
        "merge",
        "content",
        "correlation",
        "tar",
        "zip",
        "stream",
        "concatenation",
        "archive",
        "flowfile-stream",
        "flowfile-stream-v3",
    )
    property_descriptors: ClassVar[Sequence[PropertyDescriptor]] = (
        MERGE_STRATEGY,
        MERGE_FORMAT,
        ATTRIBUTE_STRATEGY,
        CORRELATION_ATTRIBUTE,
        METADATA_STRATEGY,
        MIN_ENTRIES,
        MAX_ENTRIES,
        MIN_SIZE,
        MAX_SIZE,
        MAX_BIN_AGE,
        MAX_BIN_COUNT,
        DELIMITER_STRATEGY,
        HEADER,
        FOOTER,
        DEMARCATOR,
        COMPRESSION_LEVEL,
        KEEP_PATH,
        TAR_MODIFIED_TIME,
        BIN_TERMINATION_CHECK,
        FLOWFILE_INSERTION_STRATEGY,
    )
    relationships: ClassVar[Sequence[Relationship]] = (REL_ORIGINAL, REL_FAILURE, REL_MERGED)
    scheduling: ClassVar[Scheduling] = Scheduling(trigger_when_empty=True, input_required=True)

    def __init__(self) -> None:
        super().__init__()
        self._bins: list[ContentBin] = []
        self._one_task = threading.Lock()
        """Held by the task that is binning: concurrent tasks share the bins, so a second
        task waits for the first (each one drains the queue) rather than interleave."""
        self._max_age_ms: int | None = None

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        results: list[ValidationResult] = []
        min_entries = java_int(context.get_property(MIN_ENTRIES).as_str())
        max_entries = java_int(context.get_property(MAX_ENTRIES).as_str() or "0")
        if min_entries and max_entries and max_entries < min_entries:
            results.append(
                ValidationResult(
                    MAX_ENTRIES.label,
                    False,
                    explanation=f"<{MAX_ENTRIES.label}> property cannot be smaller than "
                    f"<{MIN_ENTRIES.label}> property",
                )
            )
        min_size = context.get_property(MIN_SIZE).as_data_size()
        max_size = context.get_property(MAX_SIZE).as_data_size()
        if min_size is not None and max_size is not None and max_size < min_size:
            results.append(
                ValidationResult(
                    MAX_SIZE.label,
                    False,
                    explanation=f"<{MAX_SIZE.label}> property cannot be smaller than "
                    f"<{MIN_SIZE.label}> property",
                )
            )
        strategy = context.get_property(DELIMITER_STRATEGY).as_str()
        if strategy == DELIMITER_FILENAME:
            for descriptor in (HEADER, FOOTER, DEMARCATOR):
                value = context.get_property(descriptor).value
                if value and "$" not in value and not os.path.isfile(value):
                    results.append(
                        ValidationResult(
                            descriptor.label, False, value, "File " + value + " does not exist"
                        )
                    )
        return results

    # -- lifecycle ------------------------------------------------------------------------

    def on_scheduled(self, context: ProcessContext) -> None:
        self._bins = []
        self._max_age_ms = context.get_property(MAX_BIN_AGE).as_time_period_ms()

    def next_wake_ms(self, now_ms: int) -> int | None:
        """When the oldest bin becomes older than Max Bin Age (strictly, as NiFi)."""
        if self._max_age_ms is None or not self._bins:
            return None
        return min(b.created_ms for b in self._bins) + self._max_age_ms + 1

    def on_stopped(self, context: ProcessContext) -> None:
        """Unmerged bins go back to the input queue."""
        bins, self._bins = self._bins, []
        for each in bins:
            each.session.rollback()

    # -- triggering -----------------------------------------------------------------------

    def _limits(self, context: ProcessContext) -> _Limits:
        defragment = context.get_property(MERGE_STRATEGY).as_str() == DEFRAGMENT
        return _Limits(
            defragment=defragment,
            min_entries=context.get_property(MIN_ENTRIES).as_int() or 1,
            max_entries=context.get_property(MAX_ENTRIES).as_int(),
            min_bytes=context.get_property(MIN_SIZE).as_data_size() or 0,
            max_bytes=context.get_property(MAX_SIZE).as_data_size(),
            max_age_ms=context.get_property(MAX_BIN_AGE).as_time_period_ms(),
        )

    def on_trigger_with_factory(self, context: ProcessContext, factory: SessionFactory) -> None:
        with self._one_task:
            self._trigger(context, factory)

    def _trigger(self, context: ProcessContext, factory: SessionFactory) -> None:
        limits = self._limits(context)
        self._max_age_ms = limits.max_age_ms
        session = factory.create_session()
        polled = 0
        try:
            while polled < _POLL_COUNT:
                flowfile = session.get()
                if flowfile is None:
                    break
                polled += 1
                self._bin(context, factory, session, limits, flowfile)
        except BaseException:
            session.rollback()
            raise
        session.commit()
        now = context.now_ms()
        for each in list(self._bins):
            reason = limits.full_reason(each)
            if reason is None and limits.expired(each, now):
                reason = REASON_TIMEOUT
            if reason is None and polled == 0 and limits.full_enough(each):
                reason = REASON_MIN_THRESHOLDS
            if reason is not None:
                self._complete(context, each, reason, limits)
        if polled == 0:
            context.yield_processor()

    def _group(self, context: ProcessContext, flowfile: FlowFile, defragment: bool) -> str | None:
        name = context.get_property(CORRELATION_ATTRIBUTE).evaluate(flowfile).value
        group = flowfile.attributes.get(name) if name else None
        if group is None and defragment:
            group = flowfile.attributes.get(FRAGMENT_ID)
        return group

    def _bin(
        self,
        context: ProcessContext,
        factory: SessionFactory,
        session: ProcessSession,
        limits: _Limits,
        flowfile: FlowFile,
    ) -> None:
        group = self._group(context, flowfile, limits.defragment)
        insertion = self._terminates(context, flowfile, limits)
        if insertion is not None:
            self._bin_terminating(context, factory, session, limits, flowfile, group, insertion)
            return
        target = next(
            (b for b in self._bins if b.group == group and limits.accepts(b, flowfile)), None
        )
        if target is None and limits.defragment and not flowfile.attributes.get(FRAGMENT_INDEX):
            # no bin of its group can take it: a bin of its own, merged (so failed) at
            # once, outside the bins counted against the maximum, as NiFi's BinFiles does
            alone = ContentBin(group, factory.create_session(), context.now_ms())
            session.migrate(alone.session, [flowfile])
            alone.add(flowfile)
            self._bins.append(alone)
            self._complete(context, alone, REASON_MAX_ENTRIES, limits)
            return
        if target is None:
            max_bins = context.get_property(MAX_BIN_COUNT).as_int() or 5
            if len(self._bins) >= max_bins:
                oldest = min(self._bins, key=lambda b: b.created_ms)
                self._complete(context, oldest, REASON_BIN_MANAGER_FULL, limits)
            target = ContentBin(group, factory.create_session(), context.now_ms())
            self._bins.append(target)
        session.migrate(target.session, [flowfile])
        target.add(flowfile)

    @staticmethod
    def _terminates(context: ProcessContext, flowfile: FlowFile, limits: _Limits) -> str | None:
        """The FlowFile Insertion Strategy if the FlowFile ends its bin (Bin Termination
        Check true; bin packing only; never a FlowFile too large for any bin, as NiFi)."""
        check = context.get_property(BIN_TERMINATION_CHECK)
        if limits.defragment or not check.is_set:
            return None
        if limits.max_bytes is not None and flowfile.size > limits.max_bytes:
            return None
        if not check.evaluate(flowfile).as_bool():
            return None
        return context.get_property(FLOWFILE_INSERTION_STRATEGY).as_str()

    def _bin_terminating(
        self,
        context: ProcessContext,
        factory: SessionFactory,
        session: ProcessSession,
        limits: _Limits,
        flowfile: FlowFile,
        group: str | None,
        insertion: str,
    ) -> None:
        """NiFi's BinManager with a termination signal: Last in Bin ends the first bin of
        the group that takes the FlowFile (or a new one with it); First in New Bin ends the
        group's first bin and starts a new one with it; Isolated ends the group's first bin
        and merges the FlowFile alone. An ended bin is merged at once."""
        if insertion == LAST_IN_BIN:
            target = next(
                (b for b in self._bins if b.group == group and limits.accepts(b, flowfile)), None
            )
            if target is None:
                target = ContentBin(group, factory.create_session(), context.now_ms())
                self._bins.append(target)
            session.migrate(target.session, [flowfile])
            target.add(flowfile)
            self._complete(context, target, REASON_TERMINATION, limits)
            return
        ended = next((b for b in self._bins if b.group == group), None)
        if ended is not None:
            self._complete(context, ended, REASON_TERMINATION, limits)
        if insertion == ISOLATED:
            alone = ContentBin(group, factory.create_session(), context.now_ms())
            self._bins.append(alone)
            session.migrate(alone.session, [flowfile])
            alone.add(flowfile)
            self._complete(context, alone, REASON_TERMINATION, limits)
            return
        max_bins = context.get_property(MAX_BIN_COUNT).as_int() or 5
        if len(self._bins) >= max_bins:
            oldest = min(self._bins, key=lambda b: b.created_ms)
            self._complete(context, oldest, REASON_BIN_MANAGER_FULL, limits)
        target = ContentBin(group, factory.create_session(), context.now_ms())
        self._bins.append(target)
        session.migrate(target.session, [flowfile])
        target.add(flowfile)

    # -- merging --------------------------------------------------------------------------

    def _fail(self, target: ContentBin, message: str) -> None:
        self.logger.error("%s; routing %d FlowFiles to failure", message, len(target.flowfiles))
        session = target.session
        for flowfile in target.flowfiles:
            flowfile = session.put_attribute(flowfile, FAILURE_REASON_ATTRIBUTE, message)
            session.transfer(flowfile, REL_FAILURE)
        session.commit()

    def _complete(
        self, context: ProcessContext, target: ContentBin, reason: str, limits: _Limits
    ) -> None:
        self._bins.remove(target)
        try:
            self._merge_bin(context, target, reason, limits)
        except BaseException:
            # Taken out of the bins: unless committed, its FlowFiles go back to their queue.
            target.session.rollback(penalize=True)
            raise

    def _merge_bin(
        self, context: ProcessContext, target: ContentBin, reason: str, limits: _Limits
    ) -> None:
        contents = list(target.flowfiles)
        if limits.defragment:
            problem = _defragment_problem(contents)
            if problem is not None:
                self._fail(target, problem)
                return
            contents.sort(key=lambda f: java_int(f.attributes[FRAGMENT_INDEX]) or 0)
        session = target.session
        unmerged: list[FlowFile] = []
        try:
            merged = self._merge(context, session, contents, unmerged)
        except MergeFailed as exc:
            self._fail(target, str(exc))
            return
        attributes = merged_attributes(contents, context.get_property(ATTRIBUTE_STRATEGY).as_str())
        attributes["filename"] = merged.attributes["filename"]
        attributes["mime.type"] = merged.attributes["mime.type"]
        attributes["merge.count"] = str(len(contents))
        attributes["merge.bin.age"] = str(context.now_ms() - target.created_ms)
        attributes["merge.reason"] = reason
        merged = session.put_all_attributes(merged, attributes)
        if unmerged and context.get_property(MERGE_FORMAT).as_str() == FORMAT_AVRO:
            # NiFi's AvroMerge joins only the files it merged (a ZIP all of the bin's).
            left_out = {flowfile.id for flowfile in unmerged}
            session.provenance.join([f for f in contents if f.id not in left_out], merged)
        session.transfer(merged, REL_MERGED)
        merge_uuid = merged.attributes["uuid"]
        for flowfile in unmerged:  # left out of the bundle: a copy goes to failure (NiFi)
            self.logger.error(
                "%s was left out of the merged FlowFile; routing a copy to failure", flowfile
            )
            session.transfer(session.clone(flowfile), REL_FAILURE)
        for flowfile in target.flowfiles:
            session.transfer(
                session.put_attribute(flowfile, "merge.uuid", merge_uuid), REL_ORIGINAL
            )
        self.logger.info("Merged %d FlowFiles. Reason for merging: %s", len(contents), reason)
        session.commit()

    def _merge(
        self,
        context: ProcessContext,
        session: ProcessSession,
        contents: list[FlowFile],
        unmerged: list[FlowFile],
    ) -> FlowFile:
        merge_format = context.get_property(MERGE_FORMAT).as_str()
        bundle = session.create(contents)
        filename = _bundle_filename(contents)
        try:
            if merge_format == FORMAT_CONCAT:
                header, demarcator, footer = (
                    _delimiter(context, contents[0], d) for d in (HEADER, DEMARCATOR, FOOTER)
                )
                bundle = session.write(
                    bundle,
                    lambda out: _concatenate(session, contents, header, demarcator, footer, out),
                )
                mime = _common_mime_type(contents)
            elif merge_format == FORMAT_FLOWFILE_V3:
                bundle = session.write(bundle, lambda out: _package_v3(session, contents, out))
                filename, mime = filename + ".pkg", FLOWFILE_V3_MIME
            elif merge_format == FORMAT_TAR:
                keep = context.get_property(KEEP_PATH).as_bool()
                bundle = session.write(
                    bundle, lambda out: _tar(context, session, contents, keep, out)
                )
                filename, mime = filename + ".tar", "application/tar"
            elif merge_format == FORMAT_AVRO:
                strategy = context.get_property(METADATA_STRATEGY).as_str()
                bundle = session.write(
                    bundle, lambda out: _avro(session, contents, strategy, out, unmerged)
                )
                mime = AVRO_MIME
            else:
                keep = context.get_property(KEEP_PATH).as_bool()
                level = context.get_property(COMPRESSION_LEVEL).as_int() or 0
                bundle = session.write(
                    bundle, lambda out: _zip(session, contents, keep, level, out, unmerged)
                )
                filename, mime = filename + ".zip", "application/zip"
        except MergeFailed:
            session.remove(bundle)
            raise
        return session.put_all_attributes(bundle, {"filename": filename, "mime.type": mime})


def _defragment_problem(contents: list[FlowFile]) -> str | None:
    """NiFi's defragment checks, in its words."""
    decided: str | None = None
    identifier = None
    for flowfile in contents:
        index = flowfile.attributes.get(FRAGMENT_INDEX)
        if index is None or java_int(index) is None:
            return (
                f"Cannot Defragment {flowfile.attributes.get('uuid')} because it does not have "
                f"an integer value for the {FRAGMENT_INDEX} attribute"
            )
        identifier = flowfile.attributes.get(FRAGMENT_ID)
        count = flowfile.attributes.get(FRAGMENT_COUNT)
        if count is not None:
            if java_int(count) is None:
                return (
                    f"Cannot Defragment {flowfile.attributes.get('uuid')} because it does not "
                    f"have an integer value for the {FRAGMENT_COUNT} attribute"
                )
            if decided is None:
                decided = count
            elif decided != count:
                return (
                    f"Cannot Defragment {flowfile.attributes.get('uuid')} because it is grouped "
                    f"with another FlowFile, and the two have differing values for the "
                    f"{FRAGMENT_COUNT} attribute: {decided} and {count}"
                )
    if decided is None:
        return (
            f"Cannot Defragment FlowFiles with Fragment Identifier {identifier} because no "
            f"FlowFile arrived with the {FRAGMENT_COUNT} attribute and the expected number of "
            "fragments is unknown"
        )
    expected = java_int(decided) or 0
    if len(contents) < expected:
        return (
            f"Cannot Defragment FlowFiles with Fragment Identifier {identifier} because the "
            f"expected number of fragments is {decided} but found only {len(contents)} fragments"
        )
    if len(contents) > expected:
        return (
            f"Cannot Defragment FlowFiles with Fragment Identifier {identifier} because the "
            f"expected number of fragments is {decided} but found {len(contents)} fragments "
            "for this identifier"
        )
    return None


def _bundle_filename(contents: list[FlowFile]) -> str:
    first = contents[0].attributes
    if len(contents) == 1:
        return first.get("filename", first.get("uuid", ""))
    return first.get(SEGMENT_ORIGINAL_FILENAME) or str(time.monotonic_ns())


def _common_mime_type(contents: list[FlowFile]) -> str:
    types = {f.attributes.get("mime.type") for f in contents}
    only = types.pop() if len(types) == 1 else None
    return only or "application/octet-stream"


def _delimiter(
    context: ProcessContext, first: FlowFile, descriptor: PropertyDescriptor
) -> bytes | None:
    strategy = context.get_property(DELIMITER_STRATEGY).as_str()
    if strategy == DELIMITER_NONE:
        return None
    value = context.get_property(descriptor).evaluate(first).value
    if value is None:
        return None
    if strategy == DELIMITER_TEXT:
        return value.encode("utf-8")
    try:
        with open(value, "rb") as handle:
            return handle.read()
    except OSError as exc:
        msg = f"cannot read the {descriptor.label} file {value}: {exc}"
        raise MergeFailed(msg) from exc


def _concatenate(
    session: ProcessSession,
    contents: list[FlowFile],
    header: bytes | None,
    demarcator: bytes | None,
    footer: bytes | None,
    out: Writer,
) -> None:
    if header:
        out.write(header)
    for position, flowfile in enumerate(contents):
        if position and demarcator:
            out.write(demarcator)
        for chunk in session.stream(flowfile):
            out.write(chunk)
    if footer:
        out.write(footer)


def _v3_length(length: int) -> bytes:
    if length < 0xFFFF:
        return struct.pack(">H", length)
    return b"\xff\xff" + struct.pack(">I", length)


def package_v3_header(attributes: dict[str, str], size: int) -> bytes:
    """The bytes FlowFilePackagerV3 writes before a FlowFile's content."""
    parts = [FLOWFILE_V3_MAGIC, _v3_length(len(attributes))]
    for key, value in attributes.items():
        for text in (key, value):
            encoded = text.encode("utf-8")
            parts.append(_v3_length(len(encoded)))
            parts.append(encoded)
    parts.append(struct.pack(">q", size))
    return b"".join(parts)


def unpackage_v3(data: bytes) -> Iterator[tuple[dict[str, str], bytes]]:
    """Each FlowFile (attributes, content) of a FlowFile Stream v3."""
    view = memoryview(data)
    position = 0

    def length() -> int:
        nonlocal position
        (value,) = struct.unpack_from(">H", view, position)
        position += 2
        if value == 0xFFFF:
            (value,) = struct.unpack_from(">I", view, position)
            position += 4
        return int(value)

    def text() -> str:
        nonlocal position
        size = length()
        value = bytes(view[position : position + size]).decode("utf-8")
        position += size
        return value

    while position < len(view):
        if bytes(view[position : position + 7]) != FLOWFILE_V3_MAGIC:
            msg = f"no FlowFile Stream v3 header at byte {position}"
            raise ValueError(msg)
        position += 7
        attributes = {}
        for _ in range(length()):
            key = text()
            attributes[key] = text()
        (size,) = struct.unpack_from(">q", view, position)
        position += 8
        yield attributes, bytes(view[position : position + size])
        position += size


def _package_v3(session: ProcessSession, contents: list[FlowFile], out: Writer) -> None:
    for flowfile in contents:
        out.write(package_v3_header(dict(flowfile.attributes), flowfile.size))
        for chunk in session.stream(flowfile):
            out.write(chunk)


def _entry_name(flowfile: FlowFile, keep_path: bool) -> str:
    name = flowfile.attributes.get("filename", flowfile.attributes.get("uuid", "entry"))
    if not keep_path:
        return name
    parts = [p for p in PurePosixPath(flowfile.attributes.get("path", "")).parts if p != "/"]
    if parts and parts[0] == ".":
        parts = parts[1:]
    return "/".join([*parts, name])


class _ChunkReader(io.RawIOBase):
    """A FlowFile's content as a file object, read chunk by chunk."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._pending = memoryview(b"")  # a view: taking a part copies nothing

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._pending:
            try:
                self._pending = memoryview(next(self._chunks))
            except StopIteration:
                return 0
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


class _Sink(io.RawIOBase):
    """A content writer as a write-only, unseekable file object (for tarfile and zipfile)."""

    def __init__(self, out: Writer) -> None:
        self._out = out

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        self._out.write(bytes(data))
        return len(data)


def _tar(
    context: ProcessContext,
    session: ProcessSession,
    contents: list[FlowFile],
    keep_path: bool,
    out: Writer,
) -> None:
    with tarfile.open(fileobj=_Sink(out), mode="w|", format=tarfile.GNU_FORMAT) as archive:
        for flowfile in contents:
            entry = tarfile.TarInfo(_entry_name(flowfile, keep_path))
            entry.size = flowfile.size
            permissions = flowfile.attributes.get("tar.permissions")
            if permissions and len(permissions) == 3 and all(c in "01234567" for c in permissions):
                entry.mode = int(permissions, 8)
            modified = context.get_property(TAR_MODIFIED_TIME).evaluate(flowfile).value
            if modified:
                try:
                    entry.mtime = int(datetime.fromisoformat(modified).timestamp())
                except ValueError:
                    pass
            # tarfile takes a short read for the end of the data: buffered reads are whole.
            reader = io.BufferedReader(_ChunkReader(session.stream(flowfile)))
            archive.addfile(entry, reader)


def _zip(
    session: ProcessSession,
    contents: list[FlowFile],
    keep_path: bool,
    level: int,
    out: Writer,
    unmerged: list[FlowFile],
) -> None:
    """Write the entries; a FlowFile whose entry name is taken already is left out
    (``unmerged``), as NiFi's ZipException on a duplicate entry."""
    method = zipfile.ZIP_DEFLATED if level else zipfile.ZIP_STORED
    names: set[str] = set()
    with zipfile.ZipFile(
        _Sink(out), "w", compression=method, compresslevel=level or None
    ) as archive:
        for flowfile in contents:
            name = _entry_name(flowfile, keep_path)
            if name in names:
                unmerged.append(flowfile)
                continue
            names.add(name)
            with archive.open(name, "w") as entry:
                for chunk in session.stream(flowfile):
                    entry.write(chunk)


def _avro(
    session: ProcessSession,
    contents: list[FlowFile],
    strategy: str,
    out: Writer,
    unmerged: list[FlowFile],
) -> None:
    """NiFi's AvroMerge: the records of Avro data files in one data file with the first
    file's schema, codec and (by the Metadata Strategy) metadata. A file whose schema or
    codec differs, or whose metadata differs under Do Not Merge Uncommon Metadata (or under
    Keep Only Common Metadata, for a key the first file has), is left out (``unmerged``);
    a FlowFile that is not an Avro data file fails the bin."""
    writer: fastavro.write.Writer | None = None
    sink = cast("IO[bytes]", _Sink(out))  # fastavro writes whole blocks: no buffer needed
    schema: Any = None
    codec = ""
    metadata: dict[str, str] = {}
    for flowfile in contents:
        try:
            reader = fastavro.reader(io.BytesIO(session.read(flowfile)))
        except (ValueError, EOFError, TypeError) as exc:
            msg = f"{flowfile.attributes.get('uuid')} is not an Avro data file: {exc}"
            raise MergeFailed(msg) from exc
        header = reader.metadata
        this_schema = json.loads(header.get("avro.schema", "null"))
        this_codec = header.get("avro.codec") or "null"
        own = {k: v for k, v in header.items() if not k.startswith("avro.")}
        if writer is None:
            schema, codec = this_schema, this_codec
            metadata = {} if strategy == METADATA_IGNORE else own
            writer = fastavro.write.Writer(
                sink, fastavro.parse_schema(schema), codec=codec, metadata=metadata
            )
        else:
            differs = this_schema != schema or this_codec != codec
            if strategy in (METADATA_DO_NOT_MERGE, METADATA_ALL_COMMON):
                for key, value in own.items():
                    first = metadata.get(key)
                    if value != first and (strategy != METADATA_ALL_COMMON or first is not None):
                        differs = True
            if differs:
                unmerged.append(flowfile)
                continue
        try:
            for record in reader:
                writer.write(record)
        except (ValueError, EOFError, TypeError) as exc:
            msg = f"{flowfile.attributes.get('uuid')} is not an Avro data file: {exc}"
            raise MergeFailed(msg) from exc
    if writer is not None:
        writer.flush()


__all__ = ["MergeContent", "package_v3_header", "unpackage_v3"]
