"""UpdateRecord: sets the fields that RecordPaths select, to literal values or to values
selected by other RecordPaths.

Follows NiFi's UpdateRecord:

* Properties: Record Reader, Record Writer (``record-reader``/``record-writer``),
  Replacement Value Strategy (``Replacement Value Strategy``; ``literal-value`` "Literal
  Value", the default, or ``record-path-value`` "Record Path Value"). Each user-defined
  property's name is a RecordPath naming the fields to update; its value (Expression
  Language against the FlowFile's attributes) is the replacement. Without one,
  validation says "At least one RecordPath must be specified".
* Literal Value: the value is set as text on every selected field. When the value uses
  Expression Language it is evaluated once per selected field with the variables
  ``field.name``, ``field.value``, ``field.type`` (NiFi's type names: STRING, INT,
  LONG, ... RECORD, ARRAY) and ``record.index`` (the record's position, from 1).
* Record Path Value: the value is a RecordPath. Absolute, it is evaluated once per record;
  relative, once per selected field with that field as the context (``.``). One value
  found is set as it is, none sets null, several set a record of them (by field name).
  The path ``/`` as destination replaces the whole record with a record found.
* A path naming a field that is not in the schema adds it to the records.
* Success: the content is replaced (CONTENT_MODIFIED), with ``record.count``,
  ``mime.type`` and the writer's attributes. Failure: the FlowFile goes to failure
  unchanged with ``record.error.message``.

Types: a field keeps its type when every value set in it converts to it (the text
``"42"`` in an ``int`` field stays an int), else it becomes a string; new fields take
the type of their values. The writer's schema is that of the first batch.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from flowcore.errors import ConfigurationError, repository_fault
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
)
from flowcore.session import ProcessSession
from processors.record.api import (
    FlowFileContent,
    WriteResult,
    as_reader_factory,
    as_writer_factory,
    source_of,
)
from processors.record_processors._common import (
    RECORD_FAILURES,
    reader_descriptor,
    writer_descriptor,
)
from processors.record_processors._rewrite import RecordSink
from processors.record_processors.record_path import (
    FieldValue,
    JsonMap,
    RecordPath,
    RecordPathError,
    compile_record_path,
    record_path_validator,
    records_of,
    root_of,
    to_text,
)

RECORD_ERROR_MESSAGE = "record.error.message"
FIELD_NAME = "field.name"
FIELD_VALUE = "field.value"
FIELD_TYPE = "field.type"
RECORD_INDEX = "record.index"

_FAILURES: tuple[type[BaseException], ...] = (*RECORD_FAILURES, RecordPathError)

RECORD_READER = reader_descriptor("record-reader")
RECORD_WRITER = writer_descriptor("record-writer")
LITERAL_VALUES = AllowableValue(
    "literal-value",
    "Literal Value",
    "The value entered for a Property (after Expression Language has been evaluated) is the "
    "desired value to update the Record Fields with. Expression Language may reference "
    "variables 'field.name', 'field.type', and 'field.value' to access information about "
    "the field and the value of the field being evaluated.",
)
RECORD_PATH_VALUES = AllowableValue(
    "record-path-value",
    "Record Path Value",
    "The value entered for a Property (after Expression Language has been evaluated) is not "
    "the literal value to use but rather is a Record Path that should be evaluated against "
    "the Record, and the result of the RecordPath will be used to update the Record.",
)
REPLACEMENT_VALUE_STRATEGY = PropertyDescriptor(
    name="Replacement Value Strategy",
    display_name="Replacement Value Strategy",
    description="Specifies how to interpret the configured replacement values",
    default=LITERAL_VALUES.value,
    required=True,
    allowable_values=(LITERAL_VALUES, RECORD_PATH_VALUES),
)

SUCCESS = Relationship(
    "success", "FlowFiles that are successfully transformed will be routed to this relationship"
)
FAILURE = Relationship(
    "failure",
    "If a FlowFile cannot be transformed from the configured input format to the configured "
    "output format, the unchanged FlowFile will be routed to this relationship",
)


def _name_is_record_path(subject: str, value: str) -> ValidationResult:
    result = record_path_validator(subject, subject)
    return ValidationResult(subject, result.valid, value, result.explanation)


def replacement_of(selected: list[FieldValue]) -> Any:
    """NiFi's replacement object: none -> null, one -> its value, several -> a record."""
    if not selected:
        return None
    if len(selected) == 1:
        return selected[0].value
    return {value.name: value.value for value in selected}


def into_field(value: Any, field: FieldValue) -> Any:
    """A value as a field takes it: a Map set into a field that is not a map is made a
    record, the Maps inside it too (NiFi's MapRecord.setValue converts a value to the
    field's type; a Map inside a record that replaces the root stays a Map)."""
    if field.dtype is not None and pa.types.is_map(field.dtype):
        return value
    return _records(value)


def _records(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _records(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_records(item) for item in value]
    return value


@processor("UpdateRecord")
class UpdateRecord(Processor):
    description = (
        "Updates the contents of a FlowFile that contains Record-oriented data (i.e., data "
        "that can be read via a RecordReader and written by a RecordWriter). This Processor "
        "requires that at least one user-defined Property be added. The name of the Property "
        "should indicate a RecordPath that determines the field that should be updated. The "
        "value of the Property is either a replacement value (optionally making use of the "
        "Expression Language) or is itself a RecordPath that extracts a value from the "
        "Record. Whether the Property value is determined to be a RecordPath or a literal "
        "value depends on the configuration of the <Replacement Value Strategy> Property."
    )
    tags = ("update", "record", "generic", "schema", "json", "csv", "avro", "log", "logs")
    property_descriptors = (RECORD_READER, RECORD_WRITER, REPLACEMENT_VALUE_STRATEGY)
    relationships = (SUCCESS, FAILURE)
    supports_dynamic_properties = True

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="Specifies the value to use to replace fields in the record that "
            f"match the RecordPath: {name}",
            dynamic=True,
            expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
            validators=[_name_is_record_path],
        )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        if context.dynamic_properties():
            return []
        return [
            ValidationResult(
                "User-defined Properties", False, None, "At least one RecordPath must be specified"
            )
        ]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        readers = as_reader_factory(context.get_property(RECORD_READER).as_controller_service())
        writers = as_writer_factory(context.get_property(RECORD_WRITER).as_controller_service())
        by_path = (
            context.get_property(REPLACEMENT_VALUE_STRATEGY).as_str() == RECORD_PATH_VALUES.value
        )
        attributes = flowfile.attributes
        results: list[WriteResult] = []
        try:
            updates = self._updates(context, flowfile, by_path)
        except (RecordPathError, ConfigurationError) as exc:
            self._fail(session, flowfile, exc)
            return

        def rewrite(sink: Any) -> None:
            reader = readers.create_reader(
                FlowFileContent(session, flowfile), attributes, source_of(flowfile)
            )
            try:
                typed = bool(getattr(readers, "type_checked_records", False))
                out = RecordSink(writers, sink, attributes, reader.schema, typed)
                try:
                    index = 1  # NiFi's record.index counts from 1
                    for batch in reader.batches():
                        records = records_of(batch)
                        for position, record in enumerate(records):
                            records[position] = self._update(
                                context, flowfile, record, batch, index, updates
                            )
                            index += 1
                        out.write(records, batch)
                    results.append(out.finish())
                except BaseException:
                    out.abort()
                    raise
            finally:
                reader.close()

        try:
            updated = session.write(flowfile, rewrite)
        except _FAILURES as exc:
            if repository_fault(exc) is not None:
                raise  # a full or failing repository: roll back, keep the FlowFile queued
            self._fail(session, flowfile, exc)
            return
        updated = session.put_all_attributes(updated, results[0].flowfile_attributes())
        session.transfer(updated, SUCCESS)

    def _fail(self, session: ProcessSession, flowfile: FlowFile, exc: BaseException) -> None:
        self.logger.error("Failed to process %s; will route to failure: %s", flowfile, exc)
        flowfile = session.put_attribute(flowfile, RECORD_ERROR_MESSAGE, str(exc))
        session.transfer(flowfile, FAILURE)

    @staticmethod
    def _updates(
        context: ProcessContext, flowfile: FlowFile, by_path: bool
    ) -> list[tuple[str, RecordPath, RecordPath | str | None]]:
        """(property, destination path, replacement path or literal; None: per field EL)."""
        updates: list[tuple[str, RecordPath, RecordPath | str | None]] = []
        for name, raw in context.dynamic_properties().items():
            destination = compile_record_path(name)
            if by_path:
                value = context.get_property(name).evaluate(flowfile).as_str()
                updates.append((name, destination, compile_record_path(value)))
            elif "${" in raw:
                updates.append((name, destination, None))
            else:
                updates.append((name, destination, context.get_property(name).as_str()))
        return updates

    @staticmethod
    def _update(
        context: ProcessContext,
        flowfile: FlowFile,
        record: dict[str, Any],
        batch: Any,
        index: int,
        updates: list[tuple[str, RecordPath, RecordPath | str | None]],
    ) -> dict[str, Any]:
        root = root_of(record, batch.schema)
        for name, destination, replacement in updates:
            fields = destination.select(root)
            if isinstance(replacement, RecordPath):
                if len(fields) == 1 and fields[0].is_root:
                    selected = replacement.select(root, fields[0])
                    found = replacement_of(selected)
                    if not selected:
                        continue
                    if isinstance(found, dict) and not isinstance(found, JsonMap):
                        record = found
                    else:  # not a record: a record of the selected field (NiFi's)
                        record = {value.name: value.value for value in selected}
                    root = root_of(record)
                    continue
                absolute = replacement.select(root) if replacement.is_absolute else None
                for field in fields:
                    selected = absolute if absolute is not None else replacement.select(root, field)
                    field.update(into_field(replacement_of(selected), field))
            elif replacement is None:
                prop = context.get_property(name)
                for field in fields:
                    variables = {
                        FIELD_NAME: field.name,
                        FIELD_VALUE: to_text(field.value) or "",
                        FIELD_TYPE: field.type_name,
                        RECORD_INDEX: str(index),
                    }
                    if field.value is None:
                        del variables[FIELD_VALUE]
                    field.update(prop.evaluate(flowfile, **variables).as_str())
            else:
                for field in fields:
                    field.update(replacement)
        return record
