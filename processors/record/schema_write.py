"""Schema Write Strategy: how a record writer tells what schema it wrote (NiFi's
``SchemaRegistryRecordSetWriter``): nothing, the ``schema.name`` attribute, or the
``avro.schema`` attribute. The Schema Reference Writer strategy needs a schema
reference service (a Confluent or similar registry), which flowcore does not offer: a
writer set to it is invalid, naming the property.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pyarrow as pa

from flowcore.processor import AllowableValue, ProcessContext, PropertyDescriptor
from flowcore.processor.validation import ValidationResult
from processors.record.api import RecordSetWriter, SchemaNotFoundError, WriteResult
from processors.record.schema import registry_identity, writer_avro_schema

NO_SCHEMA = AllowableValue(
    "no-schema",
    "Do Not Write Schema",
    "Do not add any schema-related information to the FlowFile.",
)
SCHEMA_NAME_ATTRIBUTE = AllowableValue(
    "schema-name",
    "Set 'schema.name' Attribute",
    "The FlowFile will be given an attribute named 'schema.name' and this attribute will "
    "indicate the name of the schema in the Schema Registry. Note that if the schema for a "
    "record is not obtained from a Schema Registry, then no attribute will be added.",
)
AVRO_SCHEMA_ATTRIBUTE = AllowableValue(
    "full-schema-attribute",
    "Set 'avro.schema' Attribute",
    "The FlowFile will be given an attribute named 'avro.schema' and this attribute will "
    "contain the Avro Schema that describes the records in the FlowFile. The contents of "
    "the FlowFile need not be Avro, but the text of the schema will be used.",
)
SCHEMA_REFERENCE_WRITER = AllowableValue(
    "schema-reference-writer",
    "Schema Reference Writer",
    "The schema reference information will be written through a configured Schema "
    "Reference Writer service implementation.",
)
STRATEGIES = (NO_SCHEMA, SCHEMA_NAME_ATTRIBUTE, AVRO_SCHEMA_ATTRIBUTE, SCHEMA_REFERENCE_WRITER)
"""NiFi's values, in its order, for every writer (the Avro writer adds Embed Avro Schema)."""

_NEEDS_A_REGISTRY = {
    SCHEMA_REFERENCE_WRITER.value: "a Schema Reference Writer service",
    SCHEMA_REFERENCE_WRITER.display_name: "a Schema Reference Writer service",
}


def schema_write_strategy(
    values: Sequence[AllowableValue] = STRATEGIES, default: str = NO_SCHEMA.value
) -> PropertyDescriptor:
    return PropertyDescriptor(
        name="Schema Write Strategy",
        display_name="Schema Write Strategy",
        description="Specifies how the schema for a Record should be added to the data.",
        default=default,
        required=True,
        allowable_values=values,
    )


SCHEMA_WRITE_STRATEGY = schema_write_strategy()


def write_strategy_problems(
    context: ProcessContext, descriptor: PropertyDescriptor
) -> list[ValidationResult]:
    """The strategy refused when it needs a schema registry flowcore does not offer."""
    value = context.get_property(descriptor).as_str()
    needs = _NEEDS_A_REGISTRY.get(value)
    if needs is None:
        return []
    return [
        ValidationResult(
            descriptor.label,
            False,
            value,
            f"Schema Write Strategy '{value}' needs {needs}, which flowcore does not offer; "
            f"use '{NO_SCHEMA.display_name}', '{SCHEMA_NAME_ATTRIBUTE.display_name}' or "
            f"'{AVRO_SCHEMA_ATTRIBUTE.display_name}'",
        )
    ]


def schema_attributes(
    strategy: str, schema: pa.Schema, given: tuple[pa.Schema, str] | None
) -> dict[str, str]:
    """The attributes ``strategy`` adds to an output of records of ``schema`` (``given``:
    the writer's own schema and its text, if it has one). ``schema.name``: the name a
    Schema Registry gave the schema (SchemaNotFoundError with NiFi's message when the
    records' schema came from no registry, or was changed since); ``avro.schema``: the
    registry's text, else the writer's Schema Text, else the Avro schema the records are
    written with (the one they were read with from Avro, or the generated one)."""
    if strategy == SCHEMA_NAME_ATTRIBUTE.value:
        identity = registry_identity(schema)
        if identity is None:
            msg = "Cannot write Schema Name As Attribute because the Schema Name is not known"
            raise SchemaNotFoundError(msg)
        return {"schema.name": identity[0]}
    if strategy == AVRO_SCHEMA_ATTRIBUTE.value:
        identity = registry_identity(schema)
        if identity is not None:
            return {"avro.schema": identity[1]}
        if given is not None and given[0].equals(schema):
            return {"avro.schema": given[1]}
        return {"avro.schema": json.dumps(writer_avro_schema(schema), separators=(",", ":"))}
    return {}


class AttributedWriter:
    """A writer whose result carries the Schema Write Strategy's attributes too."""

    def __init__(self, writer: RecordSetWriter, attributes: Mapping[str, str]) -> None:
        self._writer = writer
        self._attributes = dict(attributes)

    @property
    def schema(self) -> pa.Schema:
        return self._writer.schema

    @property
    def mime_type(self) -> str:
        return self._writer.mime_type

    @property
    def record_count(self) -> int:
        return self._writer.record_count

    @property
    def bytes_written(self) -> int:
        return self._writer.bytes_written

    def write_batch(self, batch: pa.RecordBatch) -> None:
        self._writer.write_batch(batch)

    def flush(self) -> None:
        self._writer.flush()

    def finish(self) -> WriteResult:
        return with_attributes(self._writer.finish(), self._attributes)

    def abort(self) -> None:
        self._writer.abort()


def with_attributes(result: WriteResult, attributes: Mapping[str, str]) -> WriteResult:
    """``result`` with ``attributes`` added."""
    if not attributes:
        return result
    return WriteResult(result.record_count, result.mime_type, {**result.attributes, **attributes})


def attributed(writer: RecordSetWriter, attributes: Mapping[str, str]) -> RecordSetWriter:
    """``writer`` as it is without attributes to add, else wrapped to add them."""
    return AttributedWriter(writer, attributes) if attributes else writer
