"""What the built-in record services share: schema properties and small helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.compute as pc

from flowcore.errors import ConfigurationError
from flowcore.processor import (
    AllowableValue,
    ExpressionLanguageScope,
    ProcessContext,
    PropertyDescriptor,
    validators,
)
from flowcore.processor.validation import ValidationResult
from processors.record.api import (
    DEFAULT_BATCH_ROWS,
    CountingSink,
    RegisteredSchema,
    SchemaError,
    SchemaIdentifier,
    SchemaNotFoundError,
    SchemaRegistry,
)
from processors.record.schema import avro_schema_validator, avro_to_arrow
from processors.record.temporal import TemporalFormatError
from processors.record.temporal_text import JavaPattern, TemporalFormats, is_date_time

_Compiled = TypeVar("_Compiled")

INFER_SCHEMA = AllowableValue("infer-schema", "Infer Schema", "Infer the schema from the data.")
SCHEMA_TEXT_PROPERTY = AllowableValue(
    "schema-text-property",
    "Use 'Schema Text' Property",
    "The schema is the Avro schema JSON in the Schema Text property.",
)
SCHEMA_NAME_PROPERTY = AllowableValue(
    "schema-name",
    "Use 'Schema Name' Property",
    "The name of the Schema to use is specified by the 'Schema Name' Property. The value of "
    "this property is used to lookup the Schema in the configured Schema Registry service.",
)
INHERIT_RECORD_SCHEMA = AllowableValue(
    "inherit-record-schema",
    "Inherit Record Schema",
    "The schema of the records read is the schema written.",
)
EMBEDDED_AVRO_SCHEMA = AllowableValue(
    "embedded-avro-schema",
    "Use Embedded Avro Schema",
    "The schema is the one embedded in the Avro content.",
)


def schema_access_strategy(values: Sequence[AllowableValue], default: str) -> PropertyDescriptor:
    return PropertyDescriptor(
        name="schema-access-strategy",
        display_name="Schema Access Strategy",
        description="Specifies how to obtain the schema that is to be used for the records.",
        default=default,
        required=True,
        allowable_values=values,
    )


SCHEMA_TEXT = PropertyDescriptor(
    name="schema-text",
    display_name="Schema Text",
    description="The text of an Avro-formatted Schema",
    default="${avro.schema}",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[avro_schema_validator],
)

SCHEMA_REGISTRY = PropertyDescriptor(
    name="schema-registry",
    display_name="Schema Registry",
    description="Specifies the Controller Service to use for the Schema Registry",
    controller_service=SchemaRegistry,
)
SCHEMA_NAME = PropertyDescriptor(
    name="schema-name",
    display_name="Schema Name",
    description="Specifies the name of the schema to lookup in the Schema Registry property",
    default="${schema.name}",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.non_empty],
)
SCHEMA_VERSION = PropertyDescriptor(
    name="schema-version",
    display_name="Schema Version",
    description="Specifies the version of the schema to lookup in the Schema Registry. If not "
    "specified then the latest version of the schema will be retrieved.",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.positive_integer],
)
SCHEMA_BRANCH = PropertyDescriptor(
    name="schema-branch",
    display_name="Schema Branch",
    description="Specifies the name of the branch to use when looking up the schema in the "
    "Schema Registry property. If the chosen Schema Registry does not support branching, "
    "this value will be ignored.",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.non_empty],
)
REGISTRY_PROPERTIES = (SCHEMA_REGISTRY, SCHEMA_NAME, SCHEMA_VERSION, SCHEMA_BRANCH)
"""NiFi's properties of the "Use 'Schema Name' Property" strategy, after Schema Access
Strategy on every reader and writer that offers it."""

BATCH_ROWS = PropertyDescriptor(
    name="Record Batch Size",
    display_name="Record Batch Size",
    description="(flowcore) The most records a reader puts in one Arrow record batch.",
    default=str(DEFAULT_BATCH_ROWS),
    validators=[validators.positive_integer],
)

WRITER_DATE_FORMAT = PropertyDescriptor(
    name="Date Format",
    display_name="Date Format",
    description="Specifies the format to use when reading/writing Date fields. If not "
    "specified, Date fields will be assumed to be number of milliseconds since epoch "
    "(Midnight, Jan 1, 1970 GMT). If specified, the value must match the Java "
    "java.time.format.DateTimeFormatter format (for example, MM/dd/yyyy for a two-digit "
    "month, followed by a two-digit day, followed by a four-digit year, all separated by "
    "'/' characters, as in 01/01/2017).",
)
WRITER_TIME_FORMAT = PropertyDescriptor(
    name="Time Format",
    display_name="Time Format",
    description="Specifies the format to use when reading/writing Time fields. If not "
    "specified, Time fields will be assumed to be number of milliseconds since epoch "
    "(Midnight, Jan 1, 1970 GMT). If specified, the value must match the Java "
    "java.time.format.DateTimeFormatter format (for example, HH:mm:ss for a two-digit hour "
    "in 24-hour format, followed by a two-digit minute, followed by a two-digit second, all "
    "separated by ':' characters, as in 18:04:15).",
)
WRITER_TIMESTAMP_FORMAT = PropertyDescriptor(
    name="Timestamp Format",
    display_name="Timestamp Format",
    description="Specifies the format to use when reading/writing Timestamp fields. If not "
    "specified, Timestamp fields will be assumed to be number of milliseconds since epoch "
    "(Midnight, Jan 1, 1970 GMT). If specified, the value must match the Java "
    "java.time.format.DateTimeFormatter format (for example, MM/dd/yyyy HH:mm:ss for a "
    "two-digit month, followed by a two-digit day, followed by a four-digit year, all "
    "separated by '/' characters; and then followed by a two-digit hour in 24-hour format, "
    "followed by a two-digit minute, followed by a two-digit second, all separated by ':' "
    "characters, as in 01/01/2017 18:04:15).",
)
"""NiFi's DateTimeTextRecordSetWriter properties (the text writers'), unset by default."""


def temporal_formats(
    context: ProcessContext,
    date: PropertyDescriptor = WRITER_DATE_FORMAT,
    time: PropertyDescriptor = WRITER_TIME_FORMAT,
    timestamp: PropertyDescriptor = WRITER_TIMESTAMP_FORMAT,
) -> TemporalFormats:
    """A writer's Date, Time and Timestamp Format compiled (``compiled_patterns``)."""
    descriptors = (date, time, timestamp)
    return TemporalFormats(*compiled_patterns(context, descriptors, JavaPattern.compile))


def compiled_patterns(
    context: ProcessContext,
    descriptors: Sequence[PropertyDescriptor],
    compile_pattern: Callable[[str], _Compiled],
) -> list[_Compiled | None]:
    """Each date/time pattern property compiled (None where unset); a pattern flowcore
    cannot use is a ConfigurationError naming the property."""
    patterns: list[_Compiled | None] = []
    for descriptor in descriptors:
        pattern = context.get_property(descriptor).value
        try:
            patterns.append(compile_pattern(pattern) if pattern else None)
        except TemporalFormatError as exc:
            msg = f"'{descriptor.label}' validated against '{pattern}' is invalid because {exc}"
            raise ConfigurationError(msg) from None
    return patterns


def choice(context: ProcessContext, descriptor: PropertyDescriptor) -> str:
    """A property's allowable value, given by value or by display name."""
    raw = context.get_property(descriptor).as_str()
    for allowed in descriptor.allowable_values:
        if isinstance(allowed, AllowableValue):
            if raw in (allowed.value, allowed.display_name):
                return allowed.value
        elif raw == allowed:
            return allowed
    names = ", ".join(
        a.display_name if isinstance(a, AllowableValue) else a for a in descriptor.allowable_values
    )
    msg = (
        f"'{descriptor.label}' validated against '{raw}' is invalid because "
        f"Given value not found in allowed set '{names}'"
    )
    raise ConfigurationError(msg)


def schema_access_problems(
    context: ProcessContext, strategy: PropertyDescriptor
) -> list[ValidationResult]:
    """NiFi's checks of a schema-name strategy (SchemaAccessUtils): it needs the Schema
    Registry set, and takes a Schema Branch or a Schema Version, not both."""
    if context.get_property(strategy).as_str() not in (
        SCHEMA_NAME_PROPERTY.value,
        SCHEMA_NAME_PROPERTY.display_name,
    ):
        return []
    problems: list[ValidationResult] = []
    if not context.get_property(SCHEMA_REGISTRY).value:
        problems.append(
            ValidationResult(
                SCHEMA_REGISTRY.label,
                False,
                None,
                f"The '{SCHEMA_NAME_PROPERTY.display_name}' Schema Access Strategy requires "
                "that the Schema Registry property be set.",
            )
        )
    if context.get_property(SCHEMA_BRANCH).value and context.get_property(SCHEMA_VERSION).value:
        problems.append(
            ValidationResult(
                SCHEMA_BRANCH.label,
                False,
                None,
                f"{SCHEMA_BRANCH.label} and {SCHEMA_VERSION.label} cannot be specified together",
            )
        )
    return problems


def validate(context: ProcessContext, descriptors: Sequence[PropertyDescriptor]) -> None:
    """Run the descriptors' validators (the engine does not validate services): raise the
    first failure as a ConfigurationError with NiFi's message."""
    for descriptor in descriptors:
        value = context.get_property(descriptor).value
        if value is None:
            if descriptor.required:
                msg = f"'{descriptor.label}' is invalid because {descriptor.label} is required"
                raise ConfigurationError(msg)
            continue
        if descriptor.supports_expression_language and "${" in value:
            continue  # evaluated per FlowFile, as the engine's validation skips it
        for validator in descriptor.validators:
            result = validator(descriptor.label, value)
            if not result.valid:
                raise ConfigurationError(str(result))
        if descriptor.allowable_values:
            choice(context, descriptor)


def refuse(problems: Sequence[ValidationResult]) -> None:
    """Raise the first of a service's validation problems, if any, as a
    ConfigurationError with its message (enabling it fails, as NiFi's would)."""
    if problems:
        raise ConfigurationError(str(problems[0]))


def character(context: ProcessContext, descriptor: PropertyDescriptor) -> str | None:
    """A one-character property, NiFi-unescaped (``\\t``, ``\\n``...); None when empty."""
    raw = context.get_property(descriptor).as_str()
    if raw == "":
        return None
    value = unescape(raw)
    if len(value) != 1:
        msg = (
            f"'{descriptor.label}' validated against '{raw}' is invalid because "
            "Value must be exactly 1 character but was " + str(len(value)) + " in length"
        )
        raise ConfigurationError(msg)
    return value


def unescape(raw: str) -> str:
    return raw.replace("\\t", "\t").replace("\\n", "\n").replace("\\r", "\r").replace("\\\\", "\\")


class SchemaSource:
    """A service's schema setting: inferred/inherited, Avro Schema Text (EL-evaluated), or
    a schema looked up by name in a Schema Registry."""

    def __init__(
        self,
        strategy: str,
        text: str | None,
        context: ProcessContext,
        registry: SchemaRegistry | None = None,
    ) -> None:
        self.strategy = strategy
        self._text = text
        self._context = context
        self._registry = registry
        self._cache: dict[str, pa.Schema] = {}
        if strategy == SCHEMA_TEXT_PROPERTY.value and text is not None and "$" not in text:
            self._cache[text] = avro_to_arrow(text)

    @property
    def given(self) -> bool:
        return self.strategy in (SCHEMA_TEXT_PROPERTY.value, SCHEMA_NAME_PROPERTY.value)

    @property
    def varies(self) -> bool:
        """Whether the schema may differ from one FlowFile to the next."""
        if self.strategy == SCHEMA_NAME_PROPERTY.value:
            return True
        return self.given and "$" in (self._text or "")

    def resolve(self, attributes: Mapping[str, str]) -> tuple[pa.Schema, str] | None:
        """The given schema and its text for a FlowFile, or None when not given."""
        if self.strategy == SCHEMA_NAME_PROPERTY.value:
            registered = self.lookup(attributes)
            return registered.schema, registered.text
        if not self.given:
            return None
        text = (
            self._context.get_property(SCHEMA_TEXT).evaluate(dict(attributes)).as_str()
            if self._text is not None and "$" in self._text
            else (self._text or "")
        )
        if not text.strip():
            msg = "Schema Text is empty (Schema Access Strategy is Use 'Schema Text' Property)"
            raise SchemaError(msg)
        schema = self._cache.get(text)
        if schema is None:
            schema = avro_to_arrow(text)
            if len(self._cache) < 256:
                self._cache[text] = schema
        return schema, text

    def lookup(self, attributes: Mapping[str, str]) -> RegisteredSchema:
        """The registry's schema for a FlowFile's Schema Name (``lookup_registered``)."""
        if self._registry is None:
            msg = "Could not determine the Schema Access Strategy for this service"
            raise SchemaNotFoundError(msg)
        return lookup_registered(self._context, self._registry, attributes, REGISTRY_PROPERTIES)


def lookup_registered(
    context: ProcessContext,
    registry: SchemaRegistry,
    attributes: Mapping[str, str],
    properties: tuple[PropertyDescriptor, ...],
) -> RegisteredSchema:
    """The registry's schema for a FlowFile's Schema Name, Branch and Version (NiFi's
    SchemaNamePropertyStrategy); SchemaNotFoundError with NiFi's message otherwise.
    ``properties``: the Schema Registry, Name, Version and Branch descriptors (a
    processor such as ValidateRecord names them otherwise)."""
    _, name_property, version_property, branch_property = properties
    values = dict(attributes)
    raw = context.get_property(name_property)
    name = raw.evaluate(values).as_str()
    if not name.strip():
        msg = f"{raw.as_str()} did not provide appropriate Schema Name"
        raise SchemaNotFoundError(msg)
    branch = context.get_property(branch_property).evaluate(values).as_str()
    version_text = context.get_property(version_property).evaluate(values).as_str()
    version: int | None = None
    if version_text.strip():
        try:
            version = int(version_text.strip())
        except ValueError:
            msg = (
                f"Could not retrieve schema with name '{name}' because a non-numeric "
                f"version was supplied '{version_text}'"
            )
            raise SchemaNotFoundError(msg) from None
    identifier = SchemaIdentifier(name, branch if branch.strip() else None, version)
    return registry.retrieve_schema(identifier)


def schema_source(context: ProcessContext, strategy: PropertyDescriptor) -> SchemaSource:
    """The service's schema setting; a schema-name strategy without a Schema Registry (or
    with both Schema Branch and Schema Version) is a ConfigurationError with NiFi's
    validation message."""
    chosen = choice(context, strategy)
    refuse(schema_access_problems(context, strategy))
    registry: SchemaRegistry | None = None
    if chosen == SCHEMA_NAME_PROPERTY.value:
        service = context.get_property(SCHEMA_REGISTRY).as_controller_service()
        if not isinstance(service, SchemaRegistry):
            msg = f"'{SCHEMA_REGISTRY.label}' is invalid because it is not a Schema Registry"
            raise ConfigurationError(msg)
        registry = service
    text = context.get_property(SCHEMA_TEXT).value
    return SchemaSource(chosen, text, context, registry)


def rows_per_batch(context: ProcessContext) -> int:
    return context.get_property(BATCH_ROWS).as_int() or DEFAULT_BATCH_ROWS


def schema_of_rows(rows: list[dict[str, Any]]) -> pa.Schema:
    """The schema of records given as dictionaries, inferred from every one of them (each
    field where it first appears). ``pa.Table.from_pylist`` alone takes the first record's
    keys and silently drops a field that only later records have."""
    if not rows:
        return pa.schema([])
    return pa.schema(list(pa.array(rows).type))


def batch_of_rows(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.RecordBatch:
    """Records as a batch of ``schema``; one row per record even when it has no field
    (``from_pylist`` would give none)."""
    if len(schema) == 0:
        return pa.RecordBatch.from_struct_array(pa.array([{}] * len(rows), pa.struct([])))
    return pa.RecordBatch.from_pylist(rows, schema)


def promote_nulls(schema: pa.Schema) -> pa.Schema:
    """Columns inferred as null (no value seen) become strings, so later values fit."""
    if not any(pa.types.is_null(f.type) for f in schema):
        return schema
    return pa.schema(
        [f.with_type(pa.string()) if pa.types.is_null(f.type) else f for f in schema],
        metadata=schema.metadata,
    )


def _text_for_temporal(kind: pa.DataType) -> pa.DataType:
    if is_date_time(kind):
        return pa.string()
    if pa.types.is_struct(kind):
        return pa.struct(
            [
                kind.field(i).with_type(_text_for_temporal(kind.field(i).type))
                for i in range(kind.num_fields)
            ]
        )
    if pa.types.is_list(kind):
        return pa.list_(kind.value_field.with_type(_text_for_temporal(kind.value_type)))
    if pa.types.is_large_list(kind):
        return pa.large_list(kind.value_field.with_type(_text_for_temporal(kind.value_type)))
    return kind


def temporal_as_text(schema: pa.Schema) -> pa.Schema | None:
    """``schema`` with every date, time and timestamp (at any depth) made a string, or
    None when it has none.

    pyarrow infers them from text that looks like one; NiFi's readers infer them only
    with a Date, Time or Timestamp Format set, so with an inferred schema such text is
    read as the text it is (``2024-05-02`` stays ``2024-05-02``)."""
    mapped = [field.with_type(_text_for_temporal(field.type)) for field in schema]
    if all(a.type.equals(b.type) for a, b in zip(schema, mapped, strict=True)):
        return None
    return pa.schema(mapped, metadata=schema.metadata)


BEYOND_LONG = float(2**63)
"""The least magnitude of a double that no 64-bit integer has: pyarrow infers a double
for an integer literal beyond ``long``, which would lose its digits."""

WHOLE_NUMBERS = pa.decimal128(38, 0)
"""The type of a JSON field of integers beyond ``long`` (NiFi's BIGINT), exact up to 38
digits."""


def _largest(column: pa.Array | pa.ChunkedArray) -> float:
    """The largest magnitude of a floating-point column (0 when it has no value)."""
    if not pa.types.is_floating(column.type) or column.null_count == len(column):
        return 0.0
    return float(pc.max(pc.abs(column)).as_py())


def beyond_long(column: pa.Array | pa.ChunkedArray) -> bool:
    """Whether a floating-point column holds a value no ``long`` can hold."""
    return _largest(column) >= BEYOND_LONG


def exact_integers(table: pa.Table) -> pa.Schema | None:
    """The table's schema with each top-level double column whose values are all whole and
    one beyond ``long`` made ``WHOLE_NUMBERS`` (NiFi reads such JSON integers exactly,
    as BIGINT), or None when there is none such."""
    fields = list(table.schema)
    changed = False
    for index, column in enumerate(table.columns):
        largest = _largest(column) if pa.types.is_float64(column.type) else 0.0
        if not BEYOND_LONG <= largest < 1e38:
            continue
        if pc.all(pc.equal(column, pc.floor(column)).fill_null(True)).as_py():
            fields[index] = fields[index].with_type(WHOLE_NUMBERS)
            changed = True
    return pa.schema(fields, metadata=table.schema.metadata) if changed else None


def rows_to_batches(
    rows: Iterator[dict[str, object]], schema: pa.Schema, size: int
) -> Iterator[pa.RecordBatch]:
    """Python rows (from a row-oriented decoder) to batches of ``size`` rows."""
    pending: list[dict[str, object]] = []
    for row in rows:
        pending.append(row)
        if len(pending) >= size:
            yield pa.RecordBatch.from_pylist(pending, schema=schema)
            pending = []
    if pending:
        yield pa.RecordBatch.from_pylist(pending, schema=schema)


class CountingWriter:
    """What every built-in record writer reports: schema, MIME type, records, output bytes.

    Subclasses set ``MIME_TYPE``, ``_schema``, ``_sink`` (a ``CountingSink``) and keep
    ``_records`` up to date.
    """

    MIME_TYPE = ""
    _schema: pa.Schema
    _sink: CountingSink
    _records: int

    @property
    def schema(self) -> pa.Schema:
        return self._schema

    @property
    def mime_type(self) -> str:
        return self.MIME_TYPE

    @property
    def record_count(self) -> int:
        return self._records

    @property
    def bytes_written(self) -> int:
        return self._sink.count


JAVA_WHITESPACE = "".join(chr(code) for code in range(33))
"""What Java's String.trim() removes (every character up to the space)."""


def trimmed_names(schema: pa.Schema) -> pa.Schema:
    """``schema`` with its field names trimmed as Commons CSV trims a header line when Trim
    Fields is true (the header is a record like the others): " Age" names the field Age."""
    names = [name.strip(JAVA_WHITESPACE) for name in schema.names]
    if names == schema.names:
        return schema
    return pa.schema([f.with_name(n) for f, n in zip(schema, names, strict=True)])
