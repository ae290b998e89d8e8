"""ValidateRecord: splits a FlowFile's records into those valid against a schema and the rest.

Follows NiFi's ValidateRecord (details and deviations in docs/processors/validate_record.md):

* Properties: Record Reader, Record Writer, Record Writer for Invalid Records, Schema
  Access Strategy (Use Reader's Schema, or Use 'Schema Text' Property), Schema Text, Allow
  Extra Fields (true), Strict Type Checking (true), Force Types From Reader Schema
  (false), Validation Details Attribute Name, Maximum Validation Details Length (1024).
* Per record: a field of the schema that is not nullable and has no value is *missing*;
  a column that is not in the schema holding a value is *extra* (invalid unless Allow
  Extra Fields); a value whose type is not the schema's is *invalid*: with Strict Type
  Checking any value of another type (integers may widen, as NiFi allows) is invalid,
  without it a value that converts to the schema's type is valid.
* Valid records go, written with the validation schema by the Record Writer, to
  ``valid``; invalid ones, written with the read schema by the invalid-records writer
  (else the Record Writer), to ``invalid``, with the reasons as the ROUTE event's details
  and, when named, in the Validation Details attribute (cut to the maximum length). Both
  are children of the original (FORK), which is then removed, as NiFi does; with no
  records nothing is written and the original is removed.
* ``record.count``, ``mime.type`` and the writer's attributes on each child.
* Failure (unreadable records, a schema that does not parse, a value the writer cannot
  write): the children are removed and the original goes to ``failure`` unchanged.

Records are checked column by column with Arrow compute (a Python loop runs only over the
values of a column whose type differs and that Strict Type Checking does not settle).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import pyarrow as pa
import pyarrow.compute as pc

from flowcore.errors import repository_fault
from flowcore.model import FlowFile
from flowcore.processor import (
    AllowableValue,
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from flowcore.session.session import OpenContent
from processors.record import _common as common
from processors.record.api import (
    RETYPED_METADATA,
    FlowFileContent,
    MalformedRecordError,
    RecordReader,
    RecordReaderFactory,
    RecordSetWriter,
    RecordSetWriterFactory,
    SchemaError,
    SchemaNotFoundError,
    SchemaRegistry,
    as_reader_factory,
    as_writer_factory,
    source_of,
)
from processors.record.schema import AVRO_DEFAULT_METADATA, avro_to_arrow, conform
from processors.record.serialized import filtered
from processors.record_processors._common import RECORD_FAILURES

READER_SCHEMA = AllowableValue(
    "reader-schema",
    "Use Reader's Schema",
    "The schema to validate the data against is determined by asking the configured Record "
    "Reader for its schema",
)
SCHEMA_NAME_PROPERTY = AllowableValue(
    "schema-name",
    "Use 'Schema Name' Property",
    "The name of the Schema to use is specified by the 'Schema Name' Property. The value of "
    "this property is used to lookup the Schema in the configured Schema Registry service.",
)
SCHEMA_TEXT_PROPERTY = AllowableValue(
    "schema-text-property",
    "Use 'Schema Text' Property",
    "The text of the Schema itself is specified by the 'Schema Text' Property.",
)

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
    description="Specifies the Controller Service to use for writing out the records. "
    "Regardless of the Controller Service schema access configuration, the schema that is "
    "used to validate record is used to write the valid results.",
    required=True,
)
INVALID_RECORD_WRITER = PropertyDescriptor(
    name="Record Writer for Invalid Records",
    display_name="Record Writer for Invalid Records",
    description="If specified, this Controller Service will be used to write out any records "
    'that are invalid. If not specified, the writer specified by the "Record Writer" '
    "property will be used with the schema used to read the input records.",
    required=False,
    controller_service=RecordSetWriterFactory,
)
SCHEMA_ACCESS_STRATEGY = PropertyDescriptor(
    name="Schema Access Strategy",
    display_name="Schema Access Strategy",
    description="Specifies how to obtain the schema that should be used to validate records",
    default=READER_SCHEMA.value,
    required=True,
    allowable_values=[READER_SCHEMA, SCHEMA_NAME_PROPERTY, SCHEMA_TEXT_PROPERTY],
)
# NiFi's ValidateRecord names its registry properties by their display names.
SCHEMA_REGISTRY, SCHEMA_NAME, SCHEMA_VERSION, SCHEMA_BRANCH = REGISTRY_PROPERTIES = tuple(
    replace(descriptor, name=descriptor.display_name) for descriptor in common.REGISTRY_PROPERTIES
)
SCHEMA_TEXT = PropertyDescriptor(
    name="Schema Text",
    display_name="Schema Text",
    description="The text of an Avro-formatted Schema",
    default="${avro.schema}",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
ALLOW_EXTRA_FIELDS = PropertyDescriptor(
    name="Allow Extra Fields",
    display_name="Allow Extra Fields",
    description="If the incoming data has fields that are not present in the schema, this "
    "property determines whether or not the Record is valid. If true, the Record is still "
    "valid. If false, the Record will be invalid due to the extra fields.",
    default="true",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)
STRICT_TYPE_CHECKING = PropertyDescriptor(
    name="Strict Type Checking",
    display_name="Strict Type Checking",
    description="If the incoming data has a Record where a field is not of the correct type, "
    "this property determines how to handle the Record. If true, the Record will be "
    "considered invalid. If false, the Record will be considered valid and the field will be "
    "coerced into the correct type (if possible).",
    default="true",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)
COERCE_TYPES = PropertyDescriptor(
    name="Force Types From Reader Schema",
    display_name="Force Types From Reader Schema",
    description="If enabled, the processor will coerce every field to the type specified in "
    "the Reader's schema. flowcore's readers always give values of their schema's types.",
    default="false",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)
VALIDATION_DETAILS_ATTRIBUTE_NAME = PropertyDescriptor(
    name="Validation Details Attribute Name",
    display_name="Validation Details Attribute Name",
    description="If specified, when a validation error occurs, this attribute name will be "
    "used to leave the details. The number of characters will be limited by the property "
    "'Maximum Validation Details Length'.",
    required=False,
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.attribute_name],
)
MAX_VALIDATION_DETAILS_LENGTH = PropertyDescriptor(
    name="Maximum Validation Details Length",
    display_name="Maximum Validation Details Length",
    description="Specifies the maximum number of characters that validation details value "
    "can have. Any characters beyond the max will be truncated. This property is only used "
    "if 'Validation Details Attribute Name' is set",
    default="1024",
    required=False,
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.positive_integer],
)

VALIDATION_FAILURES: tuple[type[BaseException], ...] = (*RECORD_FAILURES, SchemaError)
"""A schema that does not parse fails the FlowFile as bad records do."""

VALID = Relationship(
    "valid", "Records that are valid according to the schema will be routed to this relationship"
)
INVALID = Relationship(
    "invalid",
    "Records that are not valid according to the schema will be routed to this relationship",
)
FAILURE = Relationship(
    "failure",
    "If the records cannot be read, validated, or written, for any reason, the original "
    "FlowFile will be routed to this relationship",
)


@dataclass(slots=True)
class _Problems:
    """The reasons records were invalid, each name once, in the order first seen."""

    missing: dict[str, None] = field(default_factory=dict)
    extra: dict[str, None] = field(default_factory=dict)
    invalid: dict[str, None] = field(default_factory=dict)

    def details(self) -> str:
        """NiFi's explanation text (its ROUTE details and the details attribute), word for
        word: fields named by their paths (``/id``), and each part after the missing
        fields' preceded by "; ", even when it is the first (NiFi's builder is never
        empty by then)."""
        text = "Records in this FlowFile were invalid for the following reasons: "
        if self.missing:
            text += f"The following {len(self.missing)} fields were missing: "
            text += _listed(self.missing)
        if self.extra:
            text += f"; The following {len(self.extra)} fields were present in the Record "
            text += f"but not in the schema: {_listed(self.extra)}"
        if self.invalid:
            text += f"; The following {len(self.invalid)} fields had values whose type did "
            text += f"not match the schema: {_listed(self.invalid)}"
        return text


def _listed(names: Mapping[str, None]) -> str:
    return "[" + ", ".join(f"/{name}" for name in names) + "]"


@dataclass(slots=True)
class _Output:
    child: FlowFile
    content: OpenContent | None
    writer: RecordSetWriter


def _widens(source: pa.DataType, target: pa.DataType) -> bool:
    """Values of ``source`` are acceptable, unchanged, where ``target`` is wanted."""
    t = pa.types
    if source.equals(target) or t.is_null(source):
        return True
    if t.is_integer(source) and t.is_integer(target):
        return bool(target.bit_width >= source.bit_width)
    if t.is_integer(source) and t.is_floating(target):
        return True
    if t.is_floating(source) and t.is_floating(target):
        return bool(target.bit_width >= source.bit_width)
    if t.is_string(source) or t.is_large_string(source):
        return bool(t.is_string(target) or t.is_large_string(target))
    return bool(t.is_timestamp(source) and t.is_timestamp(target))


def _same_family(source: pa.DataType, target: pa.DataType) -> bool:
    """Integers for integers, floats for floats: a value is of the right type when it fits
    (an inferred ``long`` holding 1 is a valid ``int``)."""
    t = pa.types
    return bool(
        (t.is_integer(source) and t.is_integer(target))
        or (t.is_floating(source) and t.is_floating(target))
    )


def _convertible(values: pa.Array, target: pa.DataType) -> pa.Array:
    """Per value: does it convert to ``target`` (nulls count as convertible)."""
    try:
        values.cast(target, safe=True)
        return pa.array([True] * len(values), pa.bool_())
    except (pa.ArrowException, ValueError, TypeError):
        pass
    flags = []
    for value in values:
        if not value.is_valid:
            flags.append(True)
            continue
        try:
            pa.array([value.as_py()], values.type).cast(target, safe=True)
            flags.append(True)
        except (pa.ArrowException, ValueError, TypeError, OverflowError):
            flags.append(False)
    return pa.array(flags, pa.bool_())


def _converted(
    batch: pa.RecordBatch, typed: pa.Schema, problems: _Problems, strict: bool
) -> tuple[pa.RecordBatch, pa.Array]:
    """``batch`` (read as text) with each column of ``typed`` converted to its type, a
    value that does not convert made null; and per record, whether one did not (the
    field is then named among those whose values did not match the schema)."""
    unconverted = pa.array([False] * batch.num_rows, pa.bool_())
    if strict:
        # values written as another kind (a number in a text map), converted by the
        # reader: not of their field's type
        metadata = batch.schema.metadata or {}
        retyped = json.loads(metadata.get(RETYPED_METADATA, b"{}"))
        for name, rows in retyped.items():
            problems.invalid[name] = None
            flags = [False] * batch.num_rows
            for row in rows:
                flags[row] = True
            unconverted = pc.or_(unconverted, pa.array(flags, pa.bool_()))
    columns = []
    fields = []
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        index = typed.get_field_index(name)
        target = typed.field(index) if index >= 0 else None
        if target is None or target.type.equals(column.type):
            columns.append(column)
            fields.append(batch.schema.field(name))
            continue
        ok = _convertible(column, target.type)
        failed = pc.and_(pc.invert(ok), pc.is_valid(column))
        if pc.any(failed).as_py():
            problems.invalid[name] = None
            unconverted = pc.or_(unconverted, failed)
        kept = pc.if_else(ok, column, pa.scalar(None, column.type))
        columns.append(kept.cast(target.type))
        fields.append(target)
    return pa.RecordBatch.from_arrays(columns, schema=pa.schema(fields)), unconverted


def _validate_converted(
    batch: pa.RecordBatch,
    unconverted: pa.Array,
    schema: pa.Schema,
    allow_extra: bool,
    strict: bool,
    problems: _Problems,
) -> pa.Array:
    """``validate_batch`` over the records whose values all converted; the others are
    invalid already (their value is not of its field's type)."""
    converted = pc.invert(unconverted)
    rows = pc.indices_nonzero(converted)
    valid = validate_batch(batch.filter(converted), schema, allow_extra, strict, problems)
    flags = [False] * batch.num_rows
    for row, ok in zip(rows.to_pylist(), valid.to_pylist(), strict=True):
        flags[row] = bool(ok)
    return pa.array(flags, pa.bool_())


def _has_default(target: pa.Field) -> bool:
    """Whether the field has an Avro default other than null: NiFi's validator does not
    count such a field missing when it has no value (the default is its value)."""
    metadata = target.metadata or {}
    text = metadata.get(AVRO_DEFAULT_METADATA)
    return text is not None and json.loads(text) is not None


def validate_batch(
    batch: pa.RecordBatch,
    schema: pa.Schema,
    allow_extra: bool,
    strict: bool,
    problems: _Problems,
) -> pa.Array:
    """A Boolean per record: valid against ``schema``; reasons of the invalid into
    ``problems``."""
    valid = pa.array([True] * batch.num_rows, pa.bool_())
    names = batch.schema.names
    for target in schema:
        if target.name not in names:
            if not target.nullable and not _has_default(target):
                if batch.num_rows:
                    problems.missing[target.name] = None
                valid = pa.array([False] * batch.num_rows, pa.bool_())
            continue
        column = batch.column(target.name)
        present = pc.is_valid(column)
        if not target.nullable and not _has_default(target):
            missing = pc.invert(present)
            if pc.any(missing).as_py():
                problems.missing[target.name] = None
                valid = pc.and_(valid, present)
        if _widens(column.type, target.type):
            continue
        if strict and not _same_family(column.type, target.type):
            ok = pc.invert(present)
        else:
            ok = _convertible(column, target.type)
        if not pc.all(ok).as_py():
            problems.invalid[target.name] = None
            valid = pc.and_(valid, ok)
    if not allow_extra:
        wanted = set(schema.names)
        for name in names:
            if name in wanted:
                continue
            absent = pc.is_null(batch.column(name))
            if not pc.all(absent).as_py():
                problems.extra[name] = None
                valid = pc.and_(valid, absent)
    return valid


@processor("ValidateRecord")
class ValidateRecord(Processor):
    description = (
        "Validates the Records of an incoming FlowFile against a given schema. All records "
        'that adhere to the schema are routed to the "valid" relationship while records that '
        'do not adhere to the schema are routed to the "invalid" relationship. It is '
        "therefore possible for a single incoming FlowFile to be split into two individual "
        "FlowFiles if some records are valid according to the schema and others are not. Any "
        'FlowFile that is routed to the "invalid" relationship will emit a ROUTE Provenance '
        "Event with the Details field populated to explain why records were invalid."
    )
    tags = ("record", "schema", "validate")
    property_descriptors = (
        RECORD_READER,
        RECORD_WRITER,
        INVALID_RECORD_WRITER,
        SCHEMA_ACCESS_STRATEGY,
        SCHEMA_REGISTRY,
        SCHEMA_NAME,
        SCHEMA_VERSION,
        SCHEMA_BRANCH,
        SCHEMA_TEXT,
        ALLOW_EXTRA_FIELDS,
        STRICT_TYPE_CHECKING,
        COERCE_TYPES,
        VALIDATION_DETAILS_ATTRIBUTE_NAME,
        MAX_VALIDATION_DETAILS_LENGTH,
    )
    relationships = (VALID, INVALID, FAILURE)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        readers = as_reader_factory(context.get_property(RECORD_READER).as_controller_service())
        valid_writers = as_writer_factory(
            context.get_property(RECORD_WRITER).as_controller_service()
        )
        invalid_property = context.get_property(INVALID_RECORD_WRITER)
        invalid_writers = (
            as_writer_factory(invalid_property.as_controller_service())
            if invalid_property.is_set
            else valid_writers
        )
        outputs: dict[str, _Output] = {}
        problems = _Problems()
        counts = {"valid": 0, "invalid": 0}
        writers = (valid_writers, invalid_writers)
        try:
            try:
                reader = readers.create_reader(
                    FlowFileContent(session, flowfile), flowfile.attributes, source_of(flowfile)
                )
                self._validate(
                    context, flowfile, session, reader, None, writers, outputs, problems, counts
                )
            except MalformedRecordError:
                # A value that does not convert to its field's type: NiFi reads it as it is
                # written, and its record is invalid. Read again so, if the reader can.
                text_reader = getattr(readers, "create_text_reader", None)
                if text_reader is None:
                    raise
                read = text_reader(
                    FlowFileContent(session, flowfile), flowfile.attributes, source_of(flowfile)
                )
                if read is None:
                    raise
                self._discard(session, outputs)
                outputs.clear()
                problems = _Problems()
                counts = {"valid": 0, "invalid": 0}
                typed, reader = read
                self._validate(
                    context, flowfile, session, reader, typed, writers, outputs, problems, counts
                )
            finished = self._finish(context, session, outputs, problems)
        except VALIDATION_FAILURES as exc:
            if repository_fault(exc) is not None:
                raise  # a full or failing repository: roll back, keep the FlowFile queued
            self._discard(session, outputs)
            self.logger.error("Failed to process %s; will route to failure: %s", flowfile, exc)
            session.transfer(flowfile, FAILURE)
            return
        except BaseException:
            self._discard(session, outputs, remove=False)
            raise
        for child, relationship, details in finished:
            session.transfer(child, relationship)
            session.provenance.route(child, relationship.name, details=details)
        session.adjust_counter("Records Validated", counts["valid"] + counts["invalid"])
        session.adjust_counter("Records Found Valid", counts["valid"])
        session.adjust_counter("Records Found Invalid", counts["invalid"])
        session.remove(flowfile)

    def _validate(
        self,
        context: ProcessContext,
        flowfile: FlowFile,
        session: ProcessSession,
        reader: RecordReader,
        typed: pa.Schema | None,
        writers: tuple[RecordSetWriterFactory, RecordSetWriterFactory],
        outputs: dict[str, _Output],
        problems: _Problems,
        counts: dict[str, int],
    ) -> None:
        """Validate the records of ``reader`` and write them out. ``typed``: the schema
        the records are read as text for (``create_text_reader``), whose values are
        converted where they convert; a record with one that does not is invalid and
        written as read."""
        valid_writers, invalid_writers = writers
        allow_extra = context.get_property(ALLOW_EXTRA_FIELDS).as_bool()
        strict = context.get_property(STRICT_TYPE_CHECKING).as_bool()
        try:
            schema = self._validation_schema(
                context, flowfile, reader.schema if typed is None else typed
            )
            for batch in reader.batches():
                if batch.num_rows == 0:
                    continue
                written = batch
                unconverted = None
                if typed is not None:
                    batch, unconverted = _converted(batch, typed, problems, strict)
                if unconverted is None:
                    mask = validate_batch(batch, schema, allow_extra, strict, problems)
                else:
                    mask = _validate_converted(
                        batch, unconverted, schema, allow_extra, strict, problems
                    )
                good = filtered(batch, mask)
                bad = filtered(written, pc.invert(mask))
                counts["valid"] += good.num_rows
                counts["invalid"] += bad.num_rows
                if good.num_rows:
                    good = conform(good, schema)
                    self._output(session, flowfile, outputs, "valid", valid_writers, schema)
                    outputs["valid"].writer.write_batch(good)
                if bad.num_rows:
                    self._output(session, flowfile, outputs, "invalid", invalid_writers, bad.schema)
                    outputs["invalid"].writer.write_batch(bad)
        finally:
            reader.close()

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        strategy = context.get_property(SCHEMA_ACCESS_STRATEGY).as_str()
        if (
            strategy == SCHEMA_NAME_PROPERTY.value
            and not context.get_property(SCHEMA_REGISTRY).value
        ):
            return [
                ValidationResult(
                    SCHEMA_REGISTRY.label,
                    False,
                    None,
                    "If the Schema Access Strategy is set to \"Use 'Schema Name' Property\", "
                    "the Schema Registry property must also be set",
                )
            ]
        return []

    @staticmethod
    def _validation_schema(
        context: ProcessContext, flowfile: FlowFile, read_schema: pa.Schema
    ) -> pa.Schema:
        strategy = context.get_property(SCHEMA_ACCESS_STRATEGY).as_str()
        if strategy in (READER_SCHEMA.value, READER_SCHEMA.display_name):
            return read_schema
        if strategy == SCHEMA_NAME_PROPERTY.value:
            return _registry_schema(context, flowfile)
        text = context.get_property(SCHEMA_TEXT).evaluate(flowfile).as_str()
        return avro_to_arrow(text)

    @staticmethod
    def _output(
        session: ProcessSession,
        flowfile: FlowFile,
        outputs: dict[str, _Output],
        key: str,
        writers: RecordSetWriterFactory,
        schema: pa.Schema,
    ) -> None:
        if key in outputs:
            return
        child = session.create(flowfile)
        content = session.open_write(child)
        try:
            write_schema = writers.writer_schema(schema, flowfile.attributes)
            writer = writers.create_writer(write_schema, content, flowfile.attributes)
        except BaseException:
            content.abort()
            session.remove(child)
            raise
        outputs[key] = _Output(child, content, writer)

    @staticmethod
    def _finish(
        context: ProcessContext,
        session: ProcessSession,
        outputs: dict[str, _Output],
        problems: _Problems,
    ) -> list[tuple[FlowFile, Relationship, str | None]]:
        finished: list[tuple[FlowFile, Relationship, str | None]] = []
        for key, relationship in (("valid", VALID), ("invalid", INVALID)):
            output = outputs.get(key)
            if output is None:
                continue
            result = output.writer.finish()
            content = output.content
            assert content is not None
            output.content = None
            child = content.close()
            output.child = child
            attributes = result.flowfile_attributes()
            details = problems.details() if key == "invalid" else None
            name = context.get_property(VALIDATION_DETAILS_ATTRIBUTE_NAME).evaluate(child)
            if details and name.is_set and name.as_str():
                limit = (
                    context.get_property(MAX_VALIDATION_DETAILS_LENGTH).evaluate(child).as_int()
                    or 1024
                )
                attributes[name.as_str()] = details[:limit]
            child = session.put_all_attributes(child, attributes)
            output.child = child
            finished.append((child, relationship, details))
        return finished

    @staticmethod
    def _discard(session: ProcessSession, outputs: dict[str, _Output], remove: bool = True) -> None:
        for output in outputs.values():
            if output.content is not None:
                try:
                    output.writer.abort()
                except RECORD_FAILURES:
                    pass
                output.content.abort()
                output.content = None
            if remove:
                session.remove(output.child)


def _registry_schema(context: ProcessContext, flowfile: FlowFile) -> pa.Schema:
    """The Schema Registry's schema by the FlowFile's Schema Name, Branch and Version."""
    registry = context.get_property(SCHEMA_REGISTRY).as_controller_service()
    if not isinstance(registry, SchemaRegistry):
        msg = f"'{SCHEMA_REGISTRY.label}' is not a Schema Registry"
        raise SchemaNotFoundError(msg)
    return common.lookup_registered(
        context, registry, flowfile.attributes, REGISTRY_PROPERTIES
    ).schema
