"""Trim Fields as NiFi's CSVReader (Commons CSV) trims: before a value's type is inferred
and before it is read, so ``" true "`` is a Boolean, in a small content, a streamed one,
a given schema and a bulk read alike."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from processors.record import csv_format
from processors.record.api import MalformedRecordError
from processors.record.csv_format import CSVReader
from processors.record.csv_inference import Kind, kind_of
from tests.processors.record.conftest import read_all

Enable = Callable[..., Any]
BOOLEANS = b"flag,n,name\n true ,  5 , x \nFALSE , 6,y\n"
SCHEMA = (
    '{"type":"record","name":"r","fields":[{"name":"flag","type":["null","boolean"]},'
    '{"name":"n","type":["null","long"]}]}'
)


def test_a_boolean_with_blanks_is_a_boolean_when_fields_are_trimmed(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    table = read_all(reader, BOOLEANS)
    assert table.schema.field("flag").type == pa.bool_()
    assert table.schema.field("n").type == pa.int64()
    assert table.to_pylist() == [
        {"flag": True, "n": 5, "name": "x"},
        {"flag": False, "n": 6, "name": "y"},
    ]


def test_untrimmed_a_boolean_with_blanks_stays_text(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true", "Trim Fields": "false"})
    table = read_all(reader, BOOLEANS)
    assert table.column("flag").to_pylist() == [" true ", "FALSE "]


def test_a_mixed_column_stays_text_with_its_values_trimmed(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    table = read_all(reader, b"flag\n true\nmaybe \n")
    assert table.column("flag").to_pylist() == ["true", "maybe"]


def test_trimming_strips_what_java_trim_strips(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    table = read_all(reader, "a\n\x01x\t\n\u00a0y\n".encode())
    assert table.column("a").to_pylist() == ["x", "\u00a0y"]  # a no-break space is kept


def test_a_given_boolean_field_reads_values_with_blanks(enable: Enable) -> None:
    reader = enable(
        CSVReader,
        **{
            "Treat First Line as Header": "true",
            "Schema Access Strategy": "schema-text-property",
            "Schema Text": SCHEMA,
        },
    )
    table = read_all(reader, b"flag,n\n true , 1\n,2\n  False,3\n")
    assert table.column("flag").to_pylist() == [True, None, False]
    with pytest.raises(MalformedRecordError, match=r"Cannot convert value \[yes\]"):
        read_all(reader, b"flag,n\n yes ,1\n")


def test_a_streamed_content_infers_a_boolean_with_blanks(
    enable: Enable, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(csv_format, "_BLOCK", 64)
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    content = b"flag,n\n" + b"".join(
        b" %s ,%d\n" % (b"true" if i % 3 else b"false", i) for i in range(200)
    )
    table = read_all(reader, content)
    assert table.schema.field("flag").type == pa.bool_()
    assert table.column("flag").to_pylist()[:4] == [False, True, True, False]


def test_bulk_reads_give_what_reading_alone_gives(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    contents = [BOOLEANS, b"flag,n,name\n x ,1,z\n", b"flag,n,name\n true ,7,w\n"]
    result = reader.read_bulk(contents, [{} for _ in contents])
    located = result.locate()
    assert sorted([*located, *result.rest]) == [0, 1, 2]
    for position in range(3):
        alone = read_all(reader, contents[position])
        if position in located:
            batch = located[position].batch(position)
            assert pa.Table.from_batches([batch]).equals(alone)
    assert read_all(reader, contents[2]).column("flag").to_pylist() == [True]


def test_a_given_schema_bulk_read_converts_booleans_with_blanks(enable: Enable) -> None:
    reader = enable(
        CSVReader,
        **{
            "Treat First Line as Header": "true",
            "Schema Access Strategy": "schema-text-property",
            "Schema Text": SCHEMA,
        },
    )
    contents = [b"flag,n\n true ,1\n", b"flag,n\nfalse , 2\n"]
    result = reader.read_bulk(contents, [{} for _ in contents])
    assert result.rest == []
    group = result.locate()[1]
    assert group.batch(1).column(0).to_pylist() == [False]


@pytest.mark.parametrize(
    ("values", "trim", "kind"),
    [([" true", "FALSE "], True, Kind.BOOLEAN), ([" true"], False, Kind.TEXT)],
)
def test_kinds_of_booleans_with_blanks(values: list[str], trim: bool, kind: Kind) -> None:
    assert kind_of(pa.array(values), trim=trim).kind is kind
