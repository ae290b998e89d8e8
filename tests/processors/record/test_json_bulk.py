"""JsonTreeReader.read_bulk: JSON lines of many FlowFiles parsed in one call, each
FlowFile's schema and records exactly what reading it alone gives."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from processors.record.bulk import BulkRead
from processors.record.json_format import JsonTreeReader
from tests.processors.record.conftest import read_all

Enable = Callable[..., Any]


def bulk(reader: JsonTreeReader, contents: Sequence[bytes]) -> BulkRead:
    return reader.read_bulk(contents, [{} for _ in contents])


def assert_as_alone(reader: JsonTreeReader, contents: Sequence[bytes], result: BulkRead) -> None:
    located = result.locate()
    assert sorted([*located, *result.rest]) == list(range(len(contents)))
    assert not set(located) & set(result.rest)
    for position, group in located.items():
        alone = read_all(reader, contents[position])
        assert group.schema.equals(alone.schema), (position, group.schema, alone.schema)
        records = pa.Table.from_batches([group.batch(position)])
        assert records.equals(alone), (position, records, alone)


def lines(*records: dict[str, Any]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def test_json_lines_are_parsed_together(enable: Enable) -> None:
    reader = enable(JsonTreeReader)
    contents = [
        lines({"id": 1, "name": "a", "price": 1.5}, {"id": 2, "name": "b", "price": 2.5}),
        lines({"id": 3, "name": "c", "price": 0.5}),
        b'{"id": 4, "name": "d", "price": 4.25}',  # no newline at the end
    ]
    result = bulk(reader, contents)
    assert result.rest == []
    assert_as_alone(reader, contents, result)


def test_arrays_empty_contents_and_blank_lines(enable: Enable) -> None:
    reader = enable(JsonTreeReader)
    contents = [
        b'[{"id": 1, "name": "a"}]',  # an array: read alone
        b"",
        b"  \n",
        b'{"id": 2, "name": "b"}\n\n   \n{"id": 3, "name": "c"}\n',
        b'{"id": 4, "name": "e"} {"id": 5, "name": "f"}\n',  # two on a line: alone
        lines({"id": 6, "name": "g"}),
    ]
    result = bulk(reader, contents)
    assert result.rest == [0, 1, 2, 4]
    assert result.locate()[3].slices[3][1] == 2
    assert_as_alone(reader, contents, result)


def test_field_order_missing_fields_and_types_that_differ_alone(enable: Enable) -> None:
    reader = enable(JsonTreeReader)
    contents = [
        lines({"id": 1, "name": "a", "price": 1.5, "at": "2024-05-01T10:00:00"}),
        lines({"name": "b", "id": 2, "price": 2.5, "at": "2024-05-02T10:00:00"}),  # order
        lines({"id": 3, "price": 3.5, "at": "2024-05-03T10:00:00"}),  # no name
        lines({"id": 4, "name": None, "price": 4.5, "at": "2024-05-04T10:00:00"}),  # null name
        lines({"id": 5, "name": "e", "price": 5, "at": "2024-05-05T10:00:00"}),  # an integer
        lines({"id": 6, "name": "2024-05-06", "price": 6.5, "at": "2024-05-06T10:00:00"}),
        lines({"id": 7, "name": "g", "price": 7.5, "at": "2024-05-07T10:00:00"}),
        b'{"id": 8, "name": "h", "price": 8.5, "at": "2024-05-08T10:00:00"}\n{"id": "x"}\n',
    ]
    result = bulk(reader, contents)
    assert result.rest == [1, 2, 3, 4, 7]  # "2024-05-06" is text alone too
    assert_as_alone(reader, contents, result)
    group = result.locate()[0]
    assert group.schema.types == [pa.int64(), pa.string(), pa.float64(), pa.string()]


def test_given_schema_is_read_alone(enable: Enable) -> None:
    schema = '{"type":"record","name":"r","fields":[{"name":"id","type":"long"}]}'
    reader = enable(
        JsonTreeReader,
        **{"Schema Access Strategy": "schema-text-property", "Schema Text": schema},
    )
    assert bulk(reader, [lines({"id": 1}), lines({"id": 2})]).rest == [0, 1]


def test_random_json_lines_are_read_as_alone(enable: Enable) -> None:
    reader = enable(JsonTreeReader)
    rng = random.Random(11)
    grouped = 0

    def value(kind: str) -> Any:
        if rng.random() < 0.05:
            return None
        if kind == "number":
            return rng.choice([rng.randrange(10), rng.random() * 10, 2.0])
        if kind == "text":
            return rng.choice(["tea", "2024-05-01", "12", "x"])
        return rng.choice([True, False])

    for _round in range(20):
        contents = []
        for _ in range(10):
            records = [
                {"n": value("number"), "t": value("text"), "b": value("bool")}
                for _ in range(rng.randrange(1, 8))
            ]
            contents.append(lines(*records))
        result = bulk(reader, contents)
        assert_as_alone(reader, contents, result)
        grouped += len(result.locate())
    assert grouped > 20  # the check is not vacuous


def test_two_objects_on_a_line_and_blank_lines_of_every_kind(enable: Enable) -> None:
    reader = enable(JsonTreeReader)
    contents = [
        b'{"id": 1, "name": "a"}{"id": 2, "name": "b"}\n',  # two on a line: alone
        b'{"id": 3, "name": "c"}\t{"id": 4, "name": "d"}\n',  # two on a line: alone
        b'{"id": 5, "name": "e"}\n\t\n{"id": 6, "name": "f"}\n \t \n',  # blank lines
        b'{"id": 7, "name": "g", "tag": {"k": "} {"}}\n',  # "} {" inside a string
        b'{"id": 8, "name": "h"}\n\n{"id": 9, "name": "i"}\n',
    ]
    result = bulk(reader, contents)
    assert result.rest == [0, 1, 3]
    located = result.locate()
    assert located[2].slices[2][1] == 2
    assert located[4].slices[4][1] == 2
    assert_as_alone(reader, contents, result)


def test_lines_that_hold_two_records_and_records_over_two_lines(enable: Enable) -> None:
    """Together, two records on one line and one record over two lines count as many
    lines as records: each of those contents is counted and parsed on its own terms."""
    reader = enable(JsonTreeReader)
    contents = [
        b'{"a": 1, "b": 1.5}\n{"a": 2, "b": 2.5} {"a": 3, "b": 3.5}\n',  # 2 lines, 3 records
        b'{"a": 4, "b": 4.5}\n{"a": 5,\n "b": 5.5}\n',  # 3 lines, 2 records
        b'{"a": 6, "b": 6.5}\n{"a": 7, "b": 7.5}\n',
        b'{"a": 8, "b": 8.5}\n',
    ]
    result = bulk(reader, contents)
    assert result.rest == [0, 1]
    assert_as_alone(reader, contents, result)


def test_the_last_parse_types_given_first_never_change_what_is_read(enable: Enable) -> None:
    # The reader gives the next bulk parse the types of the last one: data of other
    # types, fields or order must still read as alone.
    reader = enable(JsonTreeReader)
    first = [lines({"id": i, "price": i + 0.5, "at": f"2024-05-0{i}", "ok": True}) for i in (1, 2)]
    assert len(bulk(reader, first).locate()) == 2
    batches = [
        [lines({"id": i, "price": i, "at": f"2024-05-0{i}", "ok": True}) for i in (3, 4)],
        [lines({"id": i + 0.5, "price": 1.5, "at": "x", "ok": True}) for i in (5, 6)],
        [lines({"id": i, "price": 1.5, "at": i, "ok": False}) for i in (7, 8)],
        [lines({"price": 1.5, "id": i, "at": "y", "ok": True}) for i in (1, 2)],
        [lines({"id": i, "price": 1.5, "ok": True}) for i in (3, 4)],
        [lines({"id": i, "price": 1.5, "at": "z", "ok": True, "on": "2024-01-01"}) for i in (5, 6)],
        [lines({"id": i, "price": 1.5, "at": None, "ok": True}) for i in (7, 8)],
    ]
    for contents in batches:
        result = bulk(reader, contents)
        assert_as_alone(reader, contents, result)


def test_integers_beyond_long_read_as_alone(enable: Enable) -> None:
    reader = enable(JsonTreeReader)
    contents = [
        b'{"id":12345678901234567890,"n":1}\n',
        b'{"id":5,"n":2}\n',  # alone: a long
        b'{"id":-98765432109876543210,"n":3}\n{"id":7,"n":4}\n',
        b'{"id":9223372036854775807,"n":5}\n',  # the largest long: a long alone
    ]
    for _ in range(2):  # the second time with the last parse's types given first
        result = bulk(reader, contents)
        assert_as_alone(reader, contents, result)
        assert sorted(result.locate()) == [0, 2]
        group = result.locate()[0]
        assert group.batch(2).column(0).to_pylist()[0] == -98765432109876543210
