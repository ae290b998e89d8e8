"""Avro and Parquet values and names as NiFi's AvroTypeUtil gives them, one rule per test."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from typing import Any

import avro.schema
import fastavro
import pyarrow as pa
import pyarrow.parquet as pq

from flowcore.testing import TestRunner

SCHEMA_TEXT = {"Schema Access Strategy": "Use 'Schema Text' Property"}


def convert(
    content: bytes,
    reader: str,
    writer: str,
    writer_props: dict[str, str] | None = None,
) -> tuple[str, bytes, dict[str, str]]:
    """One content through ConvertRecord: relationship, content, attributes."""
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service("reader", reader, {})
        runner.add_controller_service("writer", writer, writer_props or {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue(content)
        runner.run()
        for relationship in ("success", "failure"):
            for flowfile in runner.get_flowfiles_for_relationship(relationship):
                return relationship, flowfile.content, dict(flowfile.attributes)
    raise AssertionError("no FlowFile out")


def converted(content: bytes, reader: str, writer: str, **props: str) -> bytes:
    relationship, out, attributes = convert(content, reader, writer, props or None)
    assert relationship == "success", attributes.get("record.error.message")
    return out


def avro_file(schema: dict[str, Any], records: list[dict[str, Any]]) -> bytes:
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(schema), records)
    return out.getvalue()


def read_avro(content: bytes) -> tuple[Any, list[dict[str, Any]]]:
    reader = fastavro.reader(io.BytesIO(content))
    return reader.writer_schema, list(reader)


def parquet_file(table: pa.Table) -> bytes:
    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


def record(fields: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "record", "name": "r", "namespace": "t", "fields": fields}


def test_field_names_avro_refuses_get_nifis_valid_names_with_the_original_as_alias() -> None:
    line = b'{"my-field": 1, "1st": "x", "ok": 2, "\xc3\xa9": 3, "": 4}\n'
    schema, records = read_avro(converted(line, "JsonTreeReader", "AvroRecordSetWriter"))
    fields = {f["name"]: f.get("aliases") for f in schema["fields"]}
    assert fields == {
        "my_field": ["my-field"],
        "_st": ["1st"],
        "ok": None,
        "é": None,
        "UNNAMED_FIELD": [""],
    }
    assert records == [{"my_field": 1, "_st": "x", "ok": 2, "é": 3, "UNNAMED_FIELD": 4}]


def test_a_nested_field_avro_refuses_is_renamed_with_its_value() -> None:
    line = b'{"x-y": {"a b": 1, "c": [{"d-e": true}]}}\n'
    _, records = read_avro(converted(line, "JsonTreeReader", "AvroRecordSetWriter"))
    assert records == [{"x_y": {"a_b": 1, "c": [{"d_e": True}]}}]


def test_two_names_that_become_one_avro_name_fail_the_flowfile_with_the_reason() -> None:
    relationship, _, attributes = convert(
        b'{"a-b": 1, "a_b": 2}\n', "JsonTreeReader", "AvroRecordSetWriter"
    )
    assert relationship == "failure"
    assert "'a-b' and 'a_b' both have the Avro name 'a_b'" in attributes["record.error.message"]


def test_nested_records_are_named_by_their_path_so_two_of_one_name_do_not_collide() -> None:
    line = b'{"x": {"r": {"a": 1}}, "y": {"r": {"b": "z"}}}\n'
    schema, records = read_avro(converted(line, "JsonTreeReader", "AvroRecordSetWriter"))
    x, y = (f["type"][1] for f in schema["fields"])
    assert (x["name"], y["name"]) == ("org.apache.nifi.xType", "org.apache.nifi.yType")
    assert x["fields"][0]["type"][1]["name"] == "org.apache.nifi.x_rType"
    assert y["fields"][0]["type"][1]["name"] == "org.apache.nifi.y_rType"
    assert records == [{"x": {"r": {"a": 1}}, "y": {"r": {"b": "z"}}}]


def test_a_map_is_written_to_avro() -> None:
    schema = record([{"name": "m", "type": {"type": "map", "values": "int"}}])
    content = avro_file(schema, [{"m": {"a": 1, "b": 2}}, {"m": {}}])
    out = converted(content, "AvroReader", "AvroRecordSetWriter")
    assert read_avro(out)[1] == [{"m": {"a": 1, "b": 2}}, {"m": {}}]
    table = pa.table({"m": pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int64()))})
    out = converted(parquet_file(table), "ParquetReader", "AvroRecordSetWriter")
    assert read_avro(out)[1] == [{"m": {"k": 1}}]


def test_a_map_with_keys_other_than_strings_fails_with_the_reason() -> None:
    table = pa.table({"m": pa.array([[(1, 1)]], pa.map_(pa.int64(), pa.int64()))})
    relationship, _, attributes = convert(
        parquet_file(table), "ParquetReader", "AvroRecordSetWriter"
    )
    assert relationship == "failure"
    assert "Avro map keys are strings" in attributes["record.error.message"]


def test_a_uuid_is_read_as_its_text() -> None:
    text = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
    schema = record([{"name": "u", "type": {"type": "string", "logicalType": "uuid"}}])
    out = converted(avro_file(schema, [{"u": text}]), "AvroReader", "JsonRecordSetWriter")
    assert json.loads(out) == [{"u": text}]


def test_avro_to_avro_keeps_the_embedded_schema() -> None:
    schema = record(
        [
            {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}},
            {"name": "f", "type": {"type": "fixed", "name": "F", "size": 2}},
            {"name": "n", "type": "long", "default": 7},
            {"name": "u", "type": {"type": "string", "logicalType": "uuid"}},
        ]
    )
    rows = [{"e": "B", "f": b"xy", "n": 1, "u": "6ba7b810-9dad-11d1-80b4-00c04fd430c8"}]
    content = avro_file(schema, rows)
    out = converted(content, "AvroReader", "AvroRecordSetWriter")
    assert read_avro(out) == read_avro(content)


def test_avro_records_without_fields_are_each_one_record() -> None:
    content = avro_file(record([]), [{}, {}, {}])
    assert json.loads(converted(content, "AvroReader", "JsonRecordSetWriter")) == [{}, {}, {}]


def test_the_writer_schema_takes_a_field_by_its_alias() -> None:
    schema = record([{"name": "my_field", "aliases": ["my-field"], "type": ["null", "long"]}])
    out = converted(
        b'{"my-field": 5}\n',
        "JsonTreeReader",
        "AvroRecordSetWriter",
        **SCHEMA_TEXT,
        **{"Schema Text": json.dumps(schema)},
    )
    assert read_avro(out)[1] == [{"my_field": 5}]


def test_the_writer_schema_default_fills_a_missing_or_null_value() -> None:
    schema = record(
        [
            {"name": "s", "type": ["string", "null"], "default": "x"},
            {"name": "n", "type": "long", "default": 7},
            {"name": "b", "type": "bytes", "default": "\u00ff"},
        ]
    )
    out = converted(
        b'{"s": null}\n{"s": "y", "n": 1}\n',
        "JsonTreeReader",
        "AvroRecordSetWriter",
        **SCHEMA_TEXT,
        **{"Schema Text": json.dumps(schema)},
    )
    assert read_avro(out)[1] == [
        {"s": "x", "n": 7, "b": b"\xff"},
        {"s": "y", "n": 1, "b": b"\xff"},
    ]


def test_parquet_columns_get_the_avro_names() -> None:
    line = b'{"my-field": 1, "o": {"a b": [{"c-d": "x"}]}}\n'
    out = converted(line, "JsonTreeReader", "ParquetRecordSetWriter")
    assert pq.read_table(io.BytesIO(out)).to_pylist() == [
        {"my_field": 1, "o": {"a_b": [{"c_d": "x"}]}}
    ]


def test_nanoseconds_avro_cannot_hold_fail_rather_than_be_cut() -> None:
    table = pa.table(
        {
            "t": pa.array([1_700_000_000_123_456_789], pa.timestamp("ns", tz="UTC")),
            "d": pa.array([3_723_123_456_789], pa.time64("ns")),
        }
    )
    relationship, _, attributes = convert(
        parquet_file(table), "ParquetReader", "AvroRecordSetWriter"
    )
    assert relationship == "failure"
    assert "would lose data" in attributes["record.error.message"]
    whole = pa.table({"t": pa.array([1_700_000_000_123_456_000], pa.timestamp("ns", tz="UTC"))})
    out = converted(parquet_file(whole), "ParquetReader", "AvroRecordSetWriter")
    assert read_avro(out)[1][0]["t"].microsecond == 123_456


def test_a_schema_text_may_name_a_type_by_its_full_name() -> None:
    schema = record(
        [
            {"name": "e1", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}},
            {"name": "e2", "type": ["null", "t.E"]},
            {
                "name": "s",
                "type": {"type": "record", "name": "S", "namespace": "u", "fields": [
                    {"name": "x", "type": "t.E"}
                ]},
            },
            {"name": "s2", "type": ["null", "u.S"]},
        ]
    )  # fmt: skip
    content = avro_file(schema, [{"e1": "A", "e2": "B", "s": {"x": "A"}, "s2": None}])
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service(
            "reader", "AvroReader", {**SCHEMA_TEXT, "Schema Text": json.dumps(schema)}
        )
        runner.add_controller_service("writer", "JsonRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue(content)
        runner.run()
        [out] = runner.get_flowfiles_for_relationship("success")
        assert json.loads(out.content) == [{"e1": "A", "e2": "B", "s": {"x": "A"}, "s2": None}]


def test_a_flowfile_whose_own_schema_cannot_be_used_goes_to_failure_with_the_reason() -> None:
    # ${avro.schema} (the default Schema Text) is evaluated per FlowFile: NiFi routes a
    # FlowFile whose schema cannot be used to failure; it was retried for ever.
    unsupported = record([{"name": "a", "type": ["float", "double"]}])
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service("reader", "JsonTreeReader", {})
        runner.add_controller_service("writer", "AvroRecordSetWriter", SCHEMA_TEXT)
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue(b'{"a": 1}\n', {"avro.schema": json.dumps(unsupported)})
        runner.enqueue(b'{"a": 1}\n', {"avro.schema": "{"})
        runner.enqueue(b'{"a": 1}\n')
        runner.run(3)
        failed = runner.get_flowfiles_for_relationship("failure")
        reasons = sorted(f.attributes["record.error.message"] for f in failed)
        assert len(reasons) == 3
        assert reasons[0].startswith("Schema Text is empty")
        assert reasons[1].startswith("Schema Text is not valid Avro schema JSON")
        assert "cannot be told apart" in reasons[2]


def test_a_number_or_a_time_into_a_text_field_of_the_writer_schema_is_nifis_text() -> None:
    # NiFi's DataTypeUtils.toString: Double.toString, a timestamp's epoch milliseconds.
    read = record(
        [
            {"name": "a", "type": "double"},
            {"name": "f", "type": "float"},
            {"name": "t", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        ]
    )
    text = record([{"name": n, "type": ["null", "string"]} for n in ("a", "f", "t")])
    rows = [{"a": 3.0, "f": 0.1, "t": 1_706_695_200_123}, {"a": 1e20, "f": 2.5, "t": 0}]
    rows.append({"a": float("nan"), "f": 1e-5, "t": -1})
    out = converted(
        avro_file(read, rows),
        "AvroReader",
        "AvroRecordSetWriter",
        **SCHEMA_TEXT,
        **{"Schema Text": json.dumps(text)},
    )
    assert read_avro(out)[1] == [
        {"a": "3.0", "f": "0.1", "t": "1706695200123"},
        {"a": "1.0E20", "f": "2.5", "t": "0"},
        {"a": "NaN", "f": "1.0E-5", "t": "-1"},
    ]


def test_dates_times_and_timestamps_are_read_and_written_as_their_numbers() -> None:
    # NiFi reads the numbers as they are (LocalDate.ofEpochDay, new Time(millis),
    # new Timestamp(millis)); fastavro's Python values refused years beyond 1..9999 (an
    # OverflowError that was not even a failure) and made a time-millis of -5 into 995.
    logical = {
        "d": ("int", "date"),
        "tm": ("int", "time-millis"),
        "ts": ("long", "timestamp-millis"),
        "us": ("long", "timestamp-micros"),
    }
    schema = record(
        [{"name": n, "type": {"type": t, "logicalType": lt}} for n, (t, lt) in logical.items()]
    )
    raw = record([{"name": n, "type": t} for n, (t, _) in logical.items()])
    row = {"d": 3_000_000, "tm": -5, "ts": 300_000_000_000_000, "us": -(1 << 62)}
    body = io.BytesIO()
    fastavro.schemaless_writer(body, fastavro.parse_schema(raw), row)
    props = {**SCHEMA_TEXT, "Schema Text": json.dumps(schema)}
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service("reader", "AvroReader", props)
        runner.add_controller_service("writer", "JsonRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue(body.getvalue())
        runner.run()
        [out] = runner.get_flowfiles_for_relationship("success")
    assert json.loads(out.content) == [
        {"d": 3_000_000 * 86_400_000, "tm": -5, "ts": 300_000_000_000_000, "us": -(1 << 62) // 1000}
    ]
    # Avro to Avro keeps the numbers (fastavro writes a raw number for a logical type).
    out = converted(avro_file(schema, [row]), "AvroReader", "AvroRecordSetWriter")
    blocks = fastavro.block_reader(io.BytesIO(out))
    [block] = list(blocks)
    assert fastavro.schemaless_reader(block.bytes_, fastavro.parse_schema(raw), None) == row


def test_a_field_with_no_value_seen_is_a_string_in_a_valid_avro_schema() -> None:
    # An empty JSON array's items: NiFi infers a string; ["null", "null"] is no Avro union.
    line = b'{"a": [], "b": null, "c": {"d": []}}\n'
    schema, records = read_avro(converted(line, "JsonTreeReader", "AvroRecordSetWriter"))
    avro.schema.parse(json.dumps(schema))
    assert schema["fields"][0]["type"] == ["null", {"type": "array", "items": ["null", "string"]}]
    assert records == [{"a": [], "b": None, "c": {"d": []}}]


def test_numbers_into_a_decimal_of_the_writer_schema_round_half_up_from_java_digits() -> None:
    # NiFi's Avro writer: BigDecimal.valueOf(double) (Java's digits), then setScale HALF_UP.
    money = {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}
    schema = json.dumps(record([{"name": "a", "type": ["null", money]}]))
    lines = b'{"a":1.005}\n{"a":-1.235}\n{"a":0.125}\n{"a":3}\n{"a":null}\n'
    out = converted(lines, "JsonTreeReader", "AvroRecordSetWriter", **SCHEMA_TEXT, **{
        "Schema Text": schema
    })  # fmt: skip
    assert [r["a"] for r in read_avro(out)[1]] == [
        Decimal("1.01"),
        Decimal("-1.24"),
        Decimal("0.13"),
        Decimal("3.00"),
        None,
    ]
    fine = {**money, "scale": 4}
    content = avro_file(record([{"name": "a", "type": fine}]), [{"a": Decimal("-1.2350")}])
    out = converted(content, "AvroReader", "AvroRecordSetWriter", **SCHEMA_TEXT, **{
        "Schema Text": schema
    })  # fmt: skip
    assert read_avro(out)[1] == [{"a": Decimal("-1.24")}]
    props = {**SCHEMA_TEXT, "Schema Text": schema}
    relationship, _, attributes = convert(
        b'{"a":1e300}\n', "JsonTreeReader", "AvroRecordSetWriter", props
    )
    assert relationship == "failure"
    assert "does not fit decimal(10, 2)" in attributes["record.error.message"]


def test_the_avro_schema_attribute_after_an_avro_reader_is_the_embedded_schema() -> None:
    schema = record([{"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A"]}}])
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service("reader", "AvroReader", {})
        runner.add_controller_service(
            "writer",
            "JsonRecordSetWriter",
            {"Schema Write Strategy": "Set 'avro.schema' Attribute"},
        )
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue(avro_file(schema, [{"e": "A"}]))
        runner.run()
        [out] = runner.get_flowfiles_for_relationship("success")
    written = json.loads(out.attributes["avro.schema"])
    assert written["fields"][0]["type"] == {"type": "enum", "name": "t.E", "symbols": ["A"]}


def test_a_record_goes_into_a_map_field_of_the_writer_schema() -> None:
    # NiFi's Avro writer puts a record into a map: an entry per field with a value, each
    # value converted to the map's type. Arrow cannot cast a struct into a map.
    schema = record(
        [
            {"name": "attrs", "type": ["null", {"type": "map", "values": ["null", "string"]}]},
            {
                "name": "items",
                "type": {"type": "array", "items": {"type": "map", "values": "long"}},
            },
        ]
    )
    lines = b'{"attrs": {"a": 1, "b": "x", "c": null, "d": 2.5}, "items": [{"q": 1}, {"r": 2}]}\n'
    lines += b'{"attrs": null, "items": []}\n'
    out = converted(
        lines,
        "JsonTreeReader",
        "AvroRecordSetWriter",
        **SCHEMA_TEXT,
        **{"Schema Text": json.dumps(schema)},
    )
    assert read_avro(out)[1] == [
        {"attrs": {"a": "1", "b": "x", "d": "2.5"}, "items": [{"q": 1}, {"r": 2}]},
        {"attrs": None, "items": []},
    ]


def test_bytes_are_printed_to_csv_as_nifi_holds_them() -> None:
    # NiFi's record holds bytes as a Byte[]: its CSV writer prints Arrays.toString.
    schema = record(
        [
            {"name": "b", "type": "bytes"},
            {"name": "f", "type": {"type": "fixed", "name": "F", "size": 2}},
            {"name": "l", "type": {"type": "array", "items": "bytes"}},
        ]
    )
    content = avro_file(schema, [{"b": b"ab", "f": b"\x00\xff", "l": [b"\x01"]}])
    out = converted(content, "AvroReader", "CSVRecordSetWriter")
    assert out == b'b,f,l\n"[97, 98]","[0, -1]",[[1]]\n'


def test_a_damaged_compressed_avro_file_fails_with_the_reason() -> None:
    # An xz block's error (LZMAError) is no ValueError: it rolled the session back for ever.
    schema = record([{"name": "a", "type": "long"}, {"name": "s", "type": "string"}])
    rows = [{"a": i, "s": "x" * (i % 7)} for i in range(1000)]
    for codec in ("xz", "deflate"):
        out = io.BytesIO()
        fastavro.writer(out, fastavro.parse_schema(schema), rows, codec=codec)
        content = out.getvalue()
        relationship, _, attributes = convert(
            content[: len(content) // 2], "AvroReader", "JsonRecordSetWriter"
        )
        assert relationship == "failure"
        assert attributes["record.error.message"].startswith("malformed record in")
