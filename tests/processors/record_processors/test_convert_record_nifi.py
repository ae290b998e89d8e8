"""NiFi's TestConvertRecord, ported (MockRecordParser -> JsonTreeReader with the schema,
MockRecordWriter("header") -> CSVRecordSetWriter); NiFi's test resources are in
``nifi_resources/TestConvertRecord``. The XMLReader tests are in docs/nifi-tests.md."""

from __future__ import annotations

import datetime
import io
import json
import struct
import time
from collections.abc import Callable, Iterator

import cramjam
import fastavro
import pytest

from flowcore.testing import TestRunner
from tests.processors.record_processors.nifi_ports import (
    avro_schema,
    json_reader,
    json_records,
    resource,
)

RunnerFactory = Callable[..., TestRunner]
NAMES = ["name", "age"]
SCHEMA = avro_schema([("name", "string"), ("age", "int")])
PEOPLE = json_records(NAMES, ("John Doe", 48), ("Jane Doe", 47), ("Jimmy Doe", 14))
PERSON_SCHEMA = resource("TestConvertRecord/schema/person.avsc")


def convert(
    make_runner: RunnerFactory,
    properties: dict[str, str] | None = None,
    *,
    reader_schema: str = SCHEMA,
    reader: dict[str, str] | None = None,
    writer_type: str = "CSVRecordSetWriter",
    writer: dict[str, str] | None = None,
) -> TestRunner:
    return make_runner(
        "ConvertRecord",
        properties,
        reader_type="JsonTreeReader",
        reader={**json_reader(reader_schema), **(reader or {})},
        writer_type=writer_type,
        writer=writer,
    )


def schema_writer(schema: str, **more: str) -> dict[str, str]:
    return {**json_reader(schema), "Schema Write Strategy": "full-schema-attribute", **more}


def test_nifi_successful_conversion(make_runner: RunnerFactory) -> None:
    """NiFi TestConvertRecord.testSuccessfulConversion."""
    runner = convert(make_runner)
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("mime.type", "text/csv")
    out.assert_content_equals("name,age\nJohn Doe,48\nJane Doe,47\nJimmy Doe,14\n")


def test_nifi_drop_empty(make_runner: RunnerFactory) -> None:
    """NiFi TestConvertRecord.testDropEmpty."""
    runner = convert(make_runner, {"Include Zero Record FlowFiles": "false"})
    runner.enqueue("[]")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 0)
    runner.assert_all_flowfiles_transferred("failure", 0)
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("mime.type", "text/csv")
    out.assert_content_equals("name,age\nJohn Doe,48\nJane Doe,47\nJimmy Doe,14\n")


def test_nifi_read_failure(make_runner: RunnerFactory) -> None:
    """NiFi TestConvertRecord.testReadFailure (the third record is malformed here)."""
    runner = convert(make_runner)
    content = PEOPLE[:-1].rsplit(", {", 1)[0] + ', {"name": "Jimmy Doe", "age": }]'
    runner.enqueue(content)
    runner.run()
    # The original FlowFile goes to failure unchanged, with the reader's error.
    runner.assert_all_flowfiles_transferred("failure", 1)
    out = runner.get_flowfiles_for_relationship("failure")[0]
    out.assert_content_equals(content)
    message = out.get_attribute("record.error.message")
    assert message is not None and "malformed" in message.lower()


def test_nifi_write_failure(make_runner: RunnerFactory) -> None:
    """NiFi TestConvertRecord.testWriteFailure (the Avro writer refuses the third
    record, whose age is null where its schema wants an int)."""
    runner = convert(
        make_runner,
        writer_type="AvroRecordSetWriter",
        writer=json_reader(
            json.dumps(
                {
                    "type": "record",
                    "name": "w",
                    "fields": [{"name": "name", "type": "string"}, {"name": "age", "type": "int"}],
                }
            )
        ),
    )
    content = json_records(NAMES, ("John Doe", 48), ("Jane Doe", 47), ("Jimmy Doe", None))
    runner.enqueue(content)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    out = runner.get_flowfiles_for_relationship("failure")[0]
    out.assert_content_equals(content)
    message = out.get_attribute("record.error.message")
    assert message is not None and "age" in message


def snappy_stream(data: bytes) -> bytes:
    """What xerial's SnappyInputStream reads from ``data`` (NiFi's test decompresses so)."""
    assert data[:8] == b"\x82SNAPPY\x00", "not xerial's snappy stream"
    out, position = [], 16
    while position < len(data):
        (length,) = struct.unpack(">i", data[position : position + 4])
        out.append(bytes(cramjam.snappy.decompress_raw(data[position + 4 : position + 4 + length])))
        position += 4 + length
    return b"".join(out)


def test_nifi_json_compression(make_runner: RunnerFactory) -> None:
    """NiFi TestConvertRecord.testJSONCompression."""
    runner = convert(
        make_runner,
        reader_schema=PERSON_SCHEMA,
        writer_type="JsonRecordSetWriter",
        writer=schema_writer(
            PERSON_SCHEMA, **{"Pretty Print JSON": "true", "Compression Format": "snappy"}
        ),
    )
    person = resource("TestConvertRecord/input/person.json")
    runner.enqueue(person)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert snappy_stream(out.content).decode() == person


def test_nifi_csv_formatting_with_el(make_runner: RunnerFactory) -> None:
    """NiFi TestConvertRecord.testCSVFormattingWithEL."""
    runner = make_runner(
        "ConvertRecord",
        reader={
            "Value Separator": "${csv.in.delimiter}",
            "Quote Character": "${csv.in.quote}",
            "Escape Character": "${csv.in.escape}",
            "Comment Marker": "${csv.in.comment}",
        },
        writer={
            "Value Separator": "${csv.out.delimiter}",
            "Quote Character": "${csv.out.quote}",
            "Quote Mode": "ALL",
        },
    )
    content = "~ comment\nid|username|password\n123|'John'|^|^'^^\n"
    runner.enqueue(
        content,
        {
            "csv.in.delimiter": "|",
            "csv.in.quote": "'",
            "csv.in.escape": "^",
            "csv.in.comment": "~",
            "csv.out.delimiter": "\t",
            "csv.out.quote": "`",
        },
    )
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("`id`\t`username`\t`password`\n`123`\t`John`\t`|'^`\n")


def test_nifi_json_long_to_int(make_runner: RunnerFactory) -> None:
    """NiFi TestConvertRecord.testJSONLongToInt."""
    runner = convert(
        make_runner,
        reader_schema=PERSON_SCHEMA,
        writer_type="JsonRecordSetWriter",
        writer=schema_writer(PERSON_SCHEMA, **{"Pretty Print JSON": "true"}),
    )
    runner.enqueue(resource("TestConvertRecord/input/person_long_id.json"))
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_nifi_enum_bad_value(make_runner: RunnerFactory) -> None:
    """NiFi TestConvertRecord.testEnumBadValue."""
    runner = convert(
        make_runner,
        reader_schema=PERSON_SCHEMA,
        writer_type="AvroRecordSetWriter",
        writer=json_reader(PERSON_SCHEMA),
    )
    runner.enqueue(resource("TestConvertRecord/input/person_bad_enum.json"))
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_nifi_enum_union_string(make_runner: RunnerFactory) -> None:
    """NiFi TestConvertRecord.testEnumUnionString."""
    schema = resource("TestConvertRecord/schema/person_with_union_enum_string.avsc")
    runner = convert(
        make_runner,
        reader_schema=schema,
        writer_type="AvroRecordSetWriter",
        writer=json_reader(schema),
    )
    runner.enqueue(resource("TestConvertRecord/input/person_bad_enum.json"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)


@pytest.fixture
def eastern_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process's time zone set to EST (NiFi's test sets user.timezone), then back."""
    monkeypatch.setenv("TZ", "EST")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("eastern_time")
def test_nifi_date_conversion_with_utc_minus_timezone(make_runner: RunnerFactory) -> None:
    """NiFi TestConvertRecord.testDateConversionWithUTCMinusTimezone."""
    schema = json.dumps(
        {
            "type": "record",
            "name": "DateRecord",
            "fields": [{"name": "date", "type": {"type": "int", "logicalType": "date"}}],
        }
    )
    runner = convert(
        make_runner,
        reader_schema=schema,
        reader={"Date Format": "yyyy-MM-dd"},
        writer_type="AvroRecordSetWriter",
        writer={},
    )
    runner.enqueue('{ "date": "1970-01-02" }')
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    reader = fastavro.reader(io.BytesIO(out.content))
    assert reader.writer_schema is not None
    field = reader.writer_schema["fields"][0]
    assert field["type"] in (
        {"type": "int", "logicalType": "date"},
        ["null", {"type": "int", "logicalType": "date"}],
    )
    # Avro's date is days since the epoch: 1970-01-02 is 1 whatever the time zone.
    (record,) = list(reader)
    assert (record["date"] - datetime.date(1970, 1, 1)).days == 1


def test_nifi_json_dropping_unknown_fields(make_runner: RunnerFactory) -> None:
    """NiFi TestConvertRecord.testJSONDroppingUnknownFields."""
    schema = resource("TestConvertRecord/schema/personJob.avsc")
    runner = convert(
        make_runner,
        reader_schema=schema,
        writer_type="JsonRecordSetWriter",
        writer=schema_writer(schema),
    )
    runner.enqueue(resource("TestConvertRecord/input/personJob_dropfield.json"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    # undefinedKeyInObject, undefinedKey, undefinedObjectArray, undefinedObject and
    # undefinedScalarArray are all gone.
    assert "undefined" not in runner.get_flowfiles_for_relationship("success")[0].text()


def test_nifi_json_with_defined_field_type_bytes_and_logical_type_decimal(
    make_runner: RunnerFactory,
) -> None:
    """NiFi TestConvertRecord.testJSONWithDefinedFieldTypeBytesAndLogicalTypeDecimal."""
    decimal = {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 4}
    schema = json.dumps(
        {
            "type": "record",
            "name": "ExampleRecord",
            "fields": [
                {"name": "big_decimal_field", "type": decimal, "default": "0.0000"},
                {"name": "default_field", "type": decimal, "default": "0.0001"},
            ],
        }
    )
    runner = convert(
        make_runner,
        reader_schema=schema,
        writer_type="JsonRecordSetWriter",
        writer=schema_writer(schema),
    )
    runner.enqueue('[\n  {\n    "big_decimal_field": 14000.5833\n  }\n]\n')
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(
        '[{"big_decimal_field":14000.5833,"default_field":0.0001}]'
    )
