"""Avro unions of several non-null types, read and written as NiFi reads and writes its
CHOICE: each value stays what its branch reads; writers choose a type per value (a text
goes to the first type, in NiFi's order, that takes it: ``"5"`` to an int)."""

from __future__ import annotations

import io
import json
from typing import Any

import fastavro
import pytest

from flowcore.testing import TestRunner
from tests.processors.record.test_avro_nifi_rules import avro_file, convert, converted, record

CHOICE = record([{"name": "a", "type": ["null", "int", "string"]}])
NUMBERS = record([{"name": "n", "type": ["long", "double"]}])
TWO_RECORDS = record(
    [
        {
            "name": "p",
            "type": [
                {"type": "record", "name": "X", "fields": [{"name": "x", "type": "int"}]},
                {"type": "record", "name": "Y", "fields": [{"name": "y", "type": "string"}]},
            ],
        }
    ]
)


def read_avro_named(content: bytes) -> list[dict[str, Any]]:
    return list(fastavro.reader(io.BytesIO(content), return_record_name=True))


def test_an_int_or_string_union_reads_values_as_their_branch_and_json_writes_nifis_choice() -> None:
    content = avro_file(CHOICE, [{"a": 5}, {"a": "x"}, {"a": None}, {"a": "5"}, {"a": "true"}])
    out = converted(content, "AvroReader", "JsonRecordSetWriter")
    # "5" read from the string branch is written as the number, as NiFi's chooseDataType
    # takes it for an INT (before STRING in NiFi's order); "true" has no Boolean to go to.
    assert out == b'[{"a":5},{"a":"x"},{"a":null},{"a":5},{"a":"true"}]'


def test_an_int_or_string_union_prints_each_value_in_csv() -> None:
    content = avro_file(CHOICE, [{"a": 5}, {"a": "x,y"}, {"a": None}])
    assert converted(content, "AvroReader", "CSVRecordSetWriter") == b'a\n5\n"x,y"\n\n'


def test_a_long_or_double_union_keeps_every_number_exact() -> None:
    rows = [{"n": 1}, {"n": 2.5}, {"n": (1 << 62) + 1}, {"n": 1e20}]
    content = avro_file(NUMBERS, rows)
    assert json.loads(converted(content, "AvroReader", "JsonRecordSetWriter")) == [
        {"n": 1},
        {"n": 2.5},
        {"n": 4611686018427387905},
        {"n": 100000000000000000000},
    ]
    csv = converted(content, "AvroReader", "CSVRecordSetWriter")
    assert csv == b"n\n1\n2.5\n4611686018427387905\n1.0E20\n"
    again = read_avro_named(converted(content, "AvroReader", "AvroRecordSetWriter"))
    assert again == rows
    assert [type(r["n"]) for r in again] == [int, float, int, float]


def test_a_string_or_bytes_union_prints_bytes_as_nifi_in_csv() -> None:
    schema = record([{"name": "b", "type": ["string", "bytes"]}])
    content = avro_file(schema, [{"b": "s"}, {"b": b"a\xff"}])
    assert converted(content, "AvroReader", "CSVRecordSetWriter") == b'b\ns\n"[97, -1]"\n'
    again = read_avro_named(converted(content, "AvroReader", "AvroRecordSetWriter"))
    assert again == [{"b": "s"}, {"b": b"a\xff"}]


def test_a_union_of_two_records_reads_and_writes_each_record_in_its_branch() -> None:
    rows = [{"p": ("t.X", {"x": 1})}, {"p": ("t.Y", {"y": "q"})}]
    content = avro_file(TWO_RECORDS, rows)
    assert json.loads(converted(content, "AvroReader", "JsonRecordSetWriter")) == [
        {"p": {"x": 1}},
        {"p": {"y": "q"}},
    ]
    again = read_avro_named(converted(content, "AvroReader", "AvroRecordSetWriter"))
    assert again == rows


def test_avro_to_avro_puts_a_text_to_the_branch_nifi_chooses() -> None:
    content = avro_file(CHOICE, [{"a": "5"}, {"a": "x"}, {"a": 7}, {"a": None}])
    out = converted(content, "AvroReader", "AvroRecordSetWriter")
    reader = fastavro.reader(io.BytesIO(out))
    assert reader.writer_schema["fields"][0]["type"] == ["null", "int", "string"]
    # NiFi's convertUnionFieldValue takes "5" for an int (findMostSuitableTypeByStringValue)
    assert list(reader) == [{"a": 5}, {"a": "x"}, {"a": 7}, {"a": None}]


SCHEMA_TEXT = json.dumps(
    {
        "type": "record",
        "name": "w",
        "fields": [
            {"name": "a", "type": ["null", "string", "int"]},
            {"name": "b", "type": ["double", "long"]},
            {"name": "c", "type": ["null", "boolean", "long"]},
        ],
    }
)
WRITER = {"Schema Access Strategy": "schema-text-property", "Schema Text": SCHEMA_TEXT}


def test_the_writers_schema_text_puts_each_value_to_the_branch_nifi_chooses() -> None:
    lines = b'{"a": 5, "b": 1, "c": "true"}\n{"a": null, "b": 2, "c": "5"}\n'
    out = converted(lines, "JsonTreeReader", "AvroRecordSetWriter", **WRITER)
    values = list(fastavro.reader(io.BytesIO(out)))
    # a long goes to the int branch it widens to; b's long to its own branch, not double
    assert values == [{"a": 5, "b": 1, "c": True}, {"a": None, "b": 2, "c": 5}]
    assert [type(v["b"]) for v in values] == [int, int]


def test_a_value_no_branch_takes_fails_the_flowfile_with_nifis_message() -> None:
    lines = b'{"a": 5, "b": 1, "c": "x"}\n'
    relationship, _, attributes = convert(lines, "JsonTreeReader", "AvroRecordSetWriter", WRITER)
    assert relationship == "failure"
    assert (
        "Cannot convert value x of type class java.lang.String because no compatible types "
        "exist in the UNION for field c"
    ) in attributes["record.error.message"]


def test_the_json_writers_schema_text_writes_each_value_as_nifi_chooses() -> None:
    lines = b'{"a": 5, "b": 1, "c": "true"}\n{"a": null, "b": 2, "c": "x"}\n'
    out = converted(lines, "JsonTreeReader", "JsonRecordSetWriter", **WRITER)
    # "x" fits no type of the choice: NiFi's JSON writer writes null
    assert out == b'[{"a":5,"b":1,"c":true},{"a":null,"b":2,"c":null}]'


@pytest.mark.parametrize(
    "union",
    [
        ["float", "double"],
        ["long", {"type": "long", "logicalType": "timestamp-millis"}],
        [{"type": "map", "values": "int"}, {"type": "record", "name": "R", "fields": []}],
    ],
)
def test_a_union_whose_branches_cannot_be_told_apart_fails_clearly(union: list[Any]) -> None:
    content = avro_file(record([{"name": "u", "type": union}]), [])
    relationship, _, attributes = convert(content, "AvroReader", "JsonRecordSetWriter")
    assert relationship == "failure"
    assert "cannot be told apart" in attributes["record.error.message"]


def test_unions_within_records_and_lists_are_read() -> None:
    schema = record(
        [
            {
                "name": "r",
                "type": {
                    "type": "record",
                    "name": "In",
                    "fields": [{"name": "v", "type": ["null", "long", "string"]}],
                },
            },
            {"name": "l", "type": {"type": "array", "items": ["int", "string"]}},
        ]
    )
    content = avro_file(schema, [{"r": {"v": "s"}, "l": [1, "x"]}, {"r": {"v": 2}, "l": []}])
    assert json.loads(converted(content, "AvroReader", "JsonRecordSetWriter")) == [
        {"r": {"v": "s"}, "l": [1, "x"]},
        {"r": {"v": 2}, "l": []},
    ]
    assert converted(content, "AvroReader", "CSVRecordSetWriter") == (
        b'r,l\n"{""v"":""s""}","[1, x]"\n"{""v"":2}",[]\n'
    )


def test_split_records_of_a_union_keep_their_own_values() -> None:
    content = avro_file(CHOICE, [{"a": 1}, {"a": "x"}, {"a": None}, {"a": 4}])
    with TestRunner("SplitRecord") as runner:
        runner.add_controller_service("reader", "AvroReader", {})
        runner.add_controller_service("writer", "JsonRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.set_property("Records Per Split", "1")
        runner.enqueue(content)
        runner.run()
        splits = runner.get_flowfiles_for_relationship("splits")
        assert [s.content for s in splits] == [
            b'[{"a":1}]',
            b'[{"a":"x"}]',
            b'[{"a":null}]',
            b'[{"a":4}]',
        ]
