"""Schema Write Strategy on the CSV, Avro and Parquet writers, as NiFi's
SchemaRegistryRecordSetWriter: the ``avro.schema`` or ``schema.name`` attribute, the Avro
writer's bare datums when the schema is not embedded, and the strategies that need a
registry flowcore lacks refused naming the property."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from flowcore.clock import ManualClock
from flowcore.errors import ConfigurationError
from flowcore.processor import ProcessContext
from processors.record.api import SchemaNotFoundError
from processors.record.avro_format import AvroReader, AvroRecordSetWriter
from processors.record.csv_format import CSVRecordSetWriter
from processors.record.json_format import JsonRecordSetWriter
from processors.record.parquet_format import ParquetRecordSetWriter
from tests.processors.record.conftest import enable_service, read_all, write_all

Enable = Callable[..., Any]
TABLE = pa.table({"id": pa.array([1, 2], pa.int64()), "name": ["a", "b"]})
GENERATED = {
    "type": "record",
    "name": "nifiRecord",
    "namespace": "org.apache.nifi",
    "fields": [
        {"name": "id", "type": ["null", "long"]},
        {"name": "name", "type": ["null", "string"]},
    ],
}


def _context(service: Any, properties: dict[str, str]) -> ProcessContext:
    return ProcessContext(
        component_id="svc",
        name="svc",
        descriptors={d.name: d for d in service.property_descriptors},
        properties=properties,
        clock=ManualClock(),
    )


@pytest.mark.parametrize("writer", [CSVRecordSetWriter, ParquetRecordSetWriter])
def test_set_avro_schema_attribute_gives_the_records_avro_schema(
    enable: Enable, writer: type[Any]
) -> None:
    service = enable(writer, **{"Schema Write Strategy": "Set 'avro.schema' Attribute"})
    _, result = write_all(service, TABLE)
    assert json.loads(result.attributes["avro.schema"]) == GENERATED


@pytest.mark.parametrize("writer", [CSVRecordSetWriter, ParquetRecordSetWriter])
def test_the_default_writes_no_schema_attribute(enable: Enable, writer: type[Any]) -> None:
    _, result = write_all(enable(writer), TABLE)
    assert dict(result.attributes) == {}


def test_set_schema_name_without_a_registry_schema_fails_as_nifi(enable: Enable) -> None:
    service = enable(CSVRecordSetWriter, **{"Schema Write Strategy": "schema-name"})
    with pytest.raises(SchemaNotFoundError, match="the Schema Name is not known"):
        write_all(service, TABLE)


def test_the_csv_bulk_rendering_carries_the_attribute(enable: Enable) -> None:
    service = enable(CSVRecordSetWriter, **{"Schema Write Strategy": "full-schema-attribute"})
    batch = TABLE.to_batches()[0]
    rendered = service.render_bulk(TABLE.schema, batch)
    assert rendered is not None
    result = rendered.write(0, 2, io.BytesIO(), {})
    assert json.loads(result.attributes["avro.schema"]) == GENERATED


def test_the_avro_writer_embeds_its_schema_by_default(enable: Enable) -> None:
    content, result = write_all(enable(AvroRecordSetWriter), TABLE)
    assert content.startswith(b"Obj\x01")
    assert dict(result.attributes) == {}


@pytest.mark.parametrize(
    ("strategy", "attributes"),
    [("Do Not Write Schema", set()), ("Set 'avro.schema' Attribute", {"avro.schema"})],
)
def test_the_avro_writer_without_embedding_writes_bare_datums(
    enable: Enable, strategy: str, attributes: set[str]
) -> None:
    content, result = write_all(
        enable(AvroRecordSetWriter, **{"Schema Write Strategy": strategy}), TABLE
    )
    # two records, no header: each field its union branch (1) then its value
    assert content == b"\x02\x02\x02\x02a\x02\x04\x02\x02b"
    assert set(result.attributes) == attributes
    reader = enable(
        AvroReader,
        **{
            "Schema Access Strategy": "schema-text-property",
            "Schema Text": json.dumps(GENERATED),
        },
    )
    assert read_all(reader, content).to_pylist() == TABLE.to_pylist()


def test_the_avro_writer_refuses_compression_without_the_embedded_schema() -> None:
    service = AvroRecordSetWriter()
    context = _context(
        service, {"Schema Write Strategy": "no-schema", "compression-format": "DEFLATE"}
    )
    (problem,) = service.custom_validate(context)
    assert problem.subject == "Compression Format"
    assert "requires the header to be embedded" in problem.explanation
    with pytest.raises(ConfigurationError, match="Compression Format"):
        enable_service(
            AvroRecordSetWriter(),
            {"Schema Write Strategy": "no-schema", "Compression Format": "DEFLATE"},
        )


@pytest.mark.parametrize(
    "writer",
    [CSVRecordSetWriter, ParquetRecordSetWriter, AvroRecordSetWriter, JsonRecordSetWriter],
)
def test_a_schema_reference_writer_is_refused_naming_the_property(writer: type[Any]) -> None:
    service = writer()
    problems = service.custom_validate(
        _context(service, {"Schema Write Strategy": "schema-reference-writer"})
    )
    assert [p.subject for p in problems if not p.valid] == ["Schema Write Strategy"]
    assert "flowcore does not offer" in problems[0].explanation
    with pytest.raises(ConfigurationError, match="Schema Write Strategy"):
        enable_service(writer(), {"Schema Write Strategy": "Schema Reference Writer"})


def test_the_avro_writer_offers_nifis_values() -> None:
    descriptor = next(
        d for d in AvroRecordSetWriter.property_descriptors if d.name == "Schema Write Strategy"
    )
    assert descriptor.default == "avro-embedded"
    assert descriptor.allowed == [
        "avro-embedded",
        "no-schema",
        "schema-name",
        "full-schema-attribute",
        "schema-reference-writer",
    ]
