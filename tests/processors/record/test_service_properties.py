"""NiFi service properties: JSON pretty printing and schema attribute, CSV comments and
Expression Language separators, JSON date/time formats and decimals, Avro unions,
defaults and schema validation."""

from __future__ import annotations

import datetime as dt
import decimal
import io
import json

import fastavro
import pyarrow as pa
import pytest

from flowcore.errors import ConfigurationError
from flowcore.testing import TestRunner
from processors.record.api import RecordSetWriterFactory, WriteResult
from processors.record.avro_format import AvroReader
from processors.record.csv_format import CSVReader, CSVRecordSetWriter
from processors.record.json_format import JsonRecordSetWriter, JsonTreeReader
from processors.record.schema import AVRO_DEFAULT_METADATA, avro_to_arrow
from tests.processors.record.conftest import enable_service, read_all

ROWS = pa.table(
    {
        "id": [1, 2],
        "name": ["a", None],
        "price": [1.5, 2.0],
        "tags": [["x", "y"], []],
        "o": [{"k": 1}, {"k": 2}],
    }
)


def write(
    service: RecordSetWriterFactory, table: pa.Table, attributes: dict[str, str] | None = None
) -> tuple[str, WriteResult]:
    out = io.BytesIO()
    writer = service.create_writer(table.schema, out, attributes or {})
    for batch in table.to_batches():
        writer.write_batch(batch)
    result = writer.finish()
    return out.getvalue().decode(), result


def test_pretty_print_json_lays_out_an_array_as_nifi_does() -> None:
    writer = enable_service(JsonRecordSetWriter(), {"Pretty Print JSON": "true"})
    text, result = write(writer, ROWS)
    assert text == (
        "[ {\n"
        '  "id" : 1,\n'
        '  "name" : "a",\n'
        '  "price" : 1.5,\n'
        '  "tags" : [ "x", "y" ],\n'
        '  "o" : {\n'
        '    "k" : 1\n'
        "  }\n"
        "}, {\n"
        '  "id" : 2,\n'
        '  "name" : null,\n'
        '  "price" : 2.0,\n'
        '  "tags" : [ ],\n'
        '  "o" : {\n'
        '    "k" : 2\n'
        "  }\n"
        "} ]"
    )
    assert result.record_count == 2
    assert json.loads(text) == json.loads(write(enable_service(JsonRecordSetWriter()), ROWS)[0])


def test_pretty_print_of_no_records() -> None:
    writer = enable_service(JsonRecordSetWriter(), {"Pretty Print JSON": "true"})
    assert write(writer, ROWS.slice(0, 0))[0] == "[ ]"


def test_pretty_print_with_one_line_per_object_is_invalid() -> None:
    properties = {"Pretty Print JSON": "true", "Output Grouping": "One Line Per Object"}
    with pytest.raises(ConfigurationError, match="Pretty Print JSON must be false"):
        enable_service(JsonRecordSetWriter(), properties)
    with TestRunner("ConvertRecord") as runner:
        problems = runner.node.validate_controller_service(
            "writer", JsonRecordSetWriter(), properties
        )
    assert [p.explanation for p in problems] == [
        "Pretty Print JSON must be false when 'Output Grouping' is set to 'One Line Per Object'"
    ]


def test_schema_write_strategy_sets_avro_schema_attribute() -> None:
    writer = enable_service(
        JsonRecordSetWriter(), {"Schema Write Strategy": "Set 'avro.schema' Attribute"}
    )
    _, result = write(writer, ROWS.select(["id", "name"]))
    schema = json.loads(result.attributes["avro.schema"])
    assert [f["name"] for f in schema["fields"]] == ["id", "name"]
    assert schema["fields"][0]["type"] == ["null", "long"]
    plain = enable_service(JsonRecordSetWriter())
    assert "avro.schema" not in write(plain, ROWS)[1].attributes


def test_csv_comment_marker_drops_comment_lines_across_chunks() -> None:
    reader = enable_service(
        CSVReader(), {"Treat First Line as Header": "true", "Comment Marker": "#"}
    )
    content = [b"# a comment\nid,name\n1,x\n#2,skipped\n", b"3,y\n#", b" split comment\n4,z"]
    table = read_all(reader, content)
    assert table.to_pylist() == [
        {"id": 1, "name": "x"},
        {"id": 3, "name": "y"},
        {"id": 4, "name": "z"},
    ]


def test_csv_value_separator_expression_language() -> None:
    reader = enable_service(
        CSVReader(), {"Treat First Line as Header": "true", "Value Separator": "${sep}"}
    )
    table = read_all(reader, b"a;b\n1;x\n", attributes={"sep": ";"})
    assert table.to_pylist() == [{"a": 1, "b": "x"}]
    writer = enable_service(CSVRecordSetWriter(), {"Value Separator": "${sep}"})
    text, _ = write(writer, table, {"sep": "|"})
    assert text == "a|b\n1|x\n"
    # A separator that evaluates to nothing usable falls back to ','.
    assert write(writer, table, {})[0] == "a,b\n1,x\n"


TYPED = json.dumps(
    {
        "type": "record",
        "name": "typed",
        "fields": [
            {
                "name": "amount",
                "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2},
            },
            {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}]},
            {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "kind", "type": [{"type": "enum", "name": "K", "symbols": ["A"]}, "string"]},
        ],
    }
)


def test_json_reader_decimals_from_numbers_and_dates_from_text() -> None:
    reader = enable_service(
        JsonTreeReader(),
        {"Schema Access Strategy": "schema-text-property", "Schema Text": TYPED},
    )
    lines = b'{"amount": 12.34, "day": "2024-01-31", "at": "2024-01-31T10:00:00Z", "kind": "A"}\n'
    array = b'[{"amount": 7, "day": null, "at": 1706695200000, "kind": "other"}]'
    assert read_all(reader, lines).to_pylist() == [
        {
            "amount": decimal.Decimal("12.34"),
            "day": dt.date(2024, 1, 31),
            "at": dt.datetime(2024, 1, 31, 10, tzinfo=dt.UTC),
            "kind": "A",
        }
    ]
    assert read_all(reader, array).to_pylist() == [
        {
            "amount": decimal.Decimal("7.00"),
            "day": None,
            "at": dt.datetime(2024, 1, 31, 10, tzinfo=dt.UTC),
            "kind": "other",
        }
    ]


def test_json_reader_date_and_timestamp_formats() -> None:
    reader = enable_service(
        JsonTreeReader(),
        {
            "Schema Access Strategy": "schema-text-property",
            "Schema Text": TYPED,
            "Date Format": "MM/dd/yyyy",
            "Timestamp Format": "dd.MM.yyyy HH:mm:ss",
        },
    )
    content = b'[{"amount": 1.5, "day": "01/31/2024", "at": "31.01.2024 10:00:00", "kind": "A"}]'
    row = read_all(reader, content).to_pylist()[0]
    assert row["day"] == dt.date(2024, 1, 31)
    assert row["at"] == dt.datetime(2024, 1, 31, 10, tzinfo=dt.UTC)
    bad = b'[{"amount": 1.5, "day": "2024-01-31", "at": "31.01.2024 10:00:00", "kind": "A"}]'
    with pytest.raises(Exception, match="field 'day'"):
        read_all(reader, bad)


def test_unsupported_date_pattern_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="Date Format"):
        enable_service(JsonTreeReader(), {"Date Format": "yyyy-QQQ"})


def test_avro_union_of_enum_and_string_reads_as_string() -> None:
    schema = json.loads(TYPED)
    assert avro_to_arrow(schema).field("kind").type == pa.string()
    out = io.BytesIO()
    parsed = fastavro.parse_schema(
        {
            "type": "record",
            "name": "r",
            "fields": [
                {
                    "name": "kind",
                    "type": [{"type": "enum", "name": "K", "symbols": ["A"]}, "string"],
                }
            ],
        }
    )
    fastavro.writer(out, parsed, [{"kind": "A"}, {"kind": "free text"}])
    table = read_all(enable_service(AvroReader()), out.getvalue())
    assert table.column("kind").to_pylist() == ["A", "free text"]


def test_avro_defaults_are_carried_in_field_metadata() -> None:
    schema = avro_to_arrow(
        {
            "type": "record",
            "name": "r",
            "fields": [
                {"name": "a", "type": "string", "default": "none"},
                {"name": "b", "type": ["null", "int"], "default": None},
                {"name": "c", "type": "int"},
            ],
        }
    )
    assert schema.field("a").metadata == {AVRO_DEFAULT_METADATA: b'"none"'}
    assert schema.field("b").metadata == {AVRO_DEFAULT_METADATA: b"null"}
    assert not schema.field("c").metadata


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"type": "record", "name": "r", "fields": [{"name": "a", "type": "strin"}]}', "strin"),
        ('{"type": "record", "fields": []}', '"name" is a required field'),
        (
            '{"type": "record", "name": "r", "fields": '
            '[{"name": "a", "type": "int", "default": "x"}]}',
            "Default value <x> must match schema type: int",
        ),
    ],
)
def test_invalid_avro_schema_text_is_rejected_at_validation(text: str, message: str) -> None:
    properties = {"Schema Access Strategy": "schema-text-property", "Schema Text": text}
    with TestRunner("ConvertRecord") as runner:
        problems = runner.node.validate_controller_service("reader", JsonTreeReader(), properties)
    assert len(problems) == 1
    assert message in str(problems[0])
    with pytest.raises(ConfigurationError, match="not a valid Avro schema"):
        enable_service(JsonTreeReader(), properties)


def test_json_lines_with_decimals_and_iso_timestamps_still_stream() -> None:
    schema = json.dumps(
        {
            "type": "record",
            "name": "r",
            "fields": [
                {
                    "name": "amount",
                    "type": {"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 2},
                },
                {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            ],
        }
    )
    reader = enable_service(
        JsonTreeReader(),
        {"Schema Access Strategy": "schema-text-property", "Schema Text": schema},
    )
    records = reader.create_reader([b'{"amount": 1.25, "at": "2024-01-31T10:00:00Z"}\n'], {}, "ff")
    assert type(records).__name__ == "_LinesReader"
    assert next(iter(records.batches())).to_pylist() == [
        {"amount": decimal.Decimal("1.25"), "at": dt.datetime(2024, 1, 31, 10, tzinfo=dt.UTC)}
    ]
