"""MergeRecord's configuration: its property descriptors, relationships and named values.

The descriptors follow NiFi's MergeRecord (names, defaults, validators), then the
merging-by-key ones. Also here: the allowable values and completion reasons the
processor compares against, the attribute names it reads and writes, and NiFi's
``Integer.parseInt``-style validation, which the bins reuse for ``fragment.count``.
"""

from __future__ import annotations

import re

from flowcore.processor import (
    ExpressionLanguageScope,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    validators,
)
from processors.merge.mergers.api import PartialUpdateMode, RecordMergeMode
from processors.merge.mergers.spec import MergeEngine
from processors.record.api import RecordReaderFactory, RecordSetWriterFactory

BIN_PACKING = "Bin-Packing Algorithm"
DEFRAGMENT = "Defragment"
KEEP_COMMON = "Keep Only Common Attributes"
KEEP_UNIQUE = "Keep All Unique Attributes"

REASON_FULL = "Bin is full"
REASON_EVICTED = "Maximum number of bins has been exceeded"
REASON_MAX_AGE = "Bin has reached Max Bin Age"
REASON_COMPLETELY_FULL = "Bin is completely full"
REASON_FULL_ENOUGH = "Bin is full enough"

DROP_DELETES = "Drop Deletes"
KEEP_TOMBSTONES = "Keep Tombstones"

MERGE_ENGINE_ATTRIBUTE = "merge.engine"
MERGE_FALLBACK_ATTRIBUTE = "merge.engine.fallback"
RECORDS_IN_ATTRIBUTE = "merge.record.count.in"
DELETES_ATTRIBUTE = "merge.record.deletes"
FAILURE_REASON_ATTRIBUTE = "merge.failure.reason"

FRAGMENT_ID = "fragment.identifier"
FRAGMENT_COUNT = "fragment.count"
MERGE_UUID = "merge.uuid"

JAVA_INT_MAX = 2**31 - 1
_JAVA_INT = re.compile(r"[-+]?\d+")


def java_int(value: str) -> int | None:
    """``Integer.parseInt``: optional sign, digits, 32-bit range; None otherwise."""
    if not _JAVA_INT.fullmatch(value):
        return None
    number = int(value)
    return number if -(2**31) <= number <= JAVA_INT_MAX else None


def _java_positive_integer(subject: str, value: str) -> ValidationResult:
    """NiFi's POSITIVE_INTEGER_VALIDATOR: a Java int (no surrounding space) above zero."""
    number = java_int(value)
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
    controller_service=RecordReaderFactory,
)
RECORD_WRITER = PropertyDescriptor(
    name="Record Writer",
    display_name="Record Writer",
    description="Specifies the Controller Service to use for writing out the records",
    required=True,
    controller_service=RecordSetWriterFactory,
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

# -- merging by key -----------------------------------------------------------------------

RECORD_KEY_FIELDS = PropertyDescriptor(
    name="Record Key Field(s)",
    display_name="Record Key Field(s)",
    description="Comma-separated names of the fields that identify a record. When set, a "
    "merged bin holds one record per key: the result of every update and delete of the bin, "
    "in the order in which each key first arrived. When not set, records are concatenated.",
)
ORDERING_FIELDS = PropertyDescriptor(
    name="Ordering Field(s)",
    display_name="Ordering Field(s)",
    description="Comma-separated names of the fields whose values order the versions of a "
    "record (event time); several fields compare lexicographically. A null value is the "
    "default ordering value.",
)
RECORD_MERGE_MODE = PropertyDescriptor(
    name="Record Merge Mode",
    display_name="Record Merge Mode",
    description="How the version of a record that stands is chosen. COMMIT_TIME_ORDERING: "
    "the last to arrive. EVENT_TIME_ORDERING: the highest ordering value, ties to the last "
    "to arrive. CUSTOM: the Custom Record Merger Class decides. When not set: "
    "EVENT_TIME_ORDERING if Ordering Field(s) is set, else COMMIT_TIME_ORDERING.",
    allowable_values=tuple(m.value for m in RecordMergeMode),
)
CUSTOM_MERGER_CLASS = PropertyDescriptor(
    name="Custom Record Merger Class",
    display_name="Custom Record Merger Class",
    description="The RecordMerger subclass used by the CUSTOM mode, as module:Class or "
    "module.Class. Its module must be allowed by the engine setting "
    "record_mergers.allowed_custom_modules.",
)
OPERATION_FIELD = PropertyDescriptor(
    name="Operation Field",
    display_name="Operation Field",
    description="A field holding the record's operation: I (insert), U (update after), "
    "-U (update before) or D (delete). D and -U make the record a delete.",
)
IS_DELETED_FIELD = PropertyDescriptor(
    name="Is Deleted Field",
    display_name="Is Deleted Field",
    description="A boolean field (as Hudi's _hoodie_is_deleted) that is true for deletes.",
)
DELETE_MARKER_FIELD = PropertyDescriptor(
    name="Delete Marker Field",
    display_name="Delete Marker Field",
    description="A field that marks deletes with the Delete Marker Value (both must be set).",
)
DELETE_MARKER_VALUE = PropertyDescriptor(
    name="Delete Marker Value",
    display_name="Delete Marker Value",
    description="The value of the Delete Marker Field (compared as a string) that marks a "
    "delete (both must be set).",
)
PARTIAL_UPDATE_MODE = PropertyDescriptor(
    name="Partial Update Mode",
    display_name="Partial Update Mode",
    description="Which fields of the winning version are filled from the other one: NONE; "
    "KEEP_VALUES (fields absent from its schema); FILL_DEFAULTS (absent fields take the "
    "schema default); IGNORE_DEFAULTS (fields equal to the schema default); IGNORE_MARKERS "
    "(fields equal to the Partial Update Marker). Deletes are never partially merged.",
    required=True,
    default=PartialUpdateMode.NONE.value,
    allowable_values=tuple(m.value for m in PartialUpdateMode),
)
PARTIAL_UPDATE_MARKER = PropertyDescriptor(
    name="Partial Update Marker",
    display_name="Partial Update Marker",
    description="The placeholder value that means 'unavailable' for IGNORE_MARKERS (for "
    "example Debezium's __debezium_unavailable_value).",
)
DELETE_HANDLING = PropertyDescriptor(
    name="Delete Handling",
    display_name="Delete Handling",
    description="What becomes of a key whose last state is a delete: dropped from the merged "
    "FlowFile, or kept as a tombstone record (its last data, with its delete marker).",
    required=True,
    default=DROP_DELETES,
    allowable_values=(DROP_DELETES, KEEP_TOMBSTONES),
)
MERGE_ENGINE = PropertyDescriptor(
    name="Merge Engine",
    display_name="Merge Engine",
    description="Where a bin is merged by key: local (in this process), spark, or auto "
    "(spark when the bin reaches the engine's offload thresholds in records or bytes).",
    required=True,
    default=MergeEngine.AUTO.value,
    allowable_values=tuple(e.value for e in MergeEngine),
)

KEYED_PROPERTIES = (
    RECORD_KEY_FIELDS,
    ORDERING_FIELDS,
    RECORD_MERGE_MODE,
    CUSTOM_MERGER_CLASS,
    OPERATION_FIELD,
    IS_DELETED_FIELD,
    DELETE_MARKER_FIELD,
    DELETE_MARKER_VALUE,
    PARTIAL_UPDATE_MODE,
    PARTIAL_UPDATE_MARKER,
    DELETE_HANDLING,
    MERGE_ENGINE,
)

REL_MERGED = Relationship("merged", "The FlowFile containing the merged records")
REL_ORIGINAL = Relationship("original", "The FlowFiles that were used to create the bundle")
REL_FAILURE = Relationship(
    "failure",
    "If the bundle cannot be created, all FlowFiles that would have been used to created "
    "the bundle will be transferred to failure",
)
