"""CSVReader.read_bulk: many contents parsed in one call, each FlowFile's schema and
records exactly what reading it alone gives, and what it cannot vouch for left alone."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from processors.record import csv_bulk
from processors.record.bulk import BulkRead
from processors.record.csv_format import CSVReader
from tests.processors.record.conftest import read_all

Enable = Callable[..., Any]


def bulk(reader: CSVReader, contents: Sequence[bytes]) -> BulkRead:
    return reader.read_bulk(contents, [{} for _ in contents])


def assert_as_alone(reader: CSVReader, contents: Sequence[bytes], result: BulkRead) -> None:
    """Every FlowFile is either read alone or in a group with its own schema and records."""
    located = result.locate()
    assert sorted([*located, *result.rest]) == list(range(len(contents)))
    assert not set(located) & set(result.rest)
    for position, group in located.items():
        alone = read_all(reader, contents[position])
        assert group.schema.equals(alone.schema), (position, group.schema, alone.schema)
        records = pa.Table.from_batches([group.batch(position)])
        assert records.equals(alone), (position, records, alone)


def test_same_header_contents_are_parsed_together(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    contents = [b"id,name,price\n1,a,1.5\n2,b,2.25\n", b"id,name,price\n3,c,0.5\n"]
    result = bulk(reader, contents)
    assert result.rest == []
    assert len(result.groups) == 1
    assert result.groups[0].records.num_rows == 3
    assert_as_alone(reader, contents, result)


def test_headers_that_differ_are_never_parsed_together(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    contents = [
        b"id,name\n1,x1\n",
        b"name,id\nx2,2\n",  # same columns, another order
        b"id,name\n3,x3\n",
        b"id,label\n4,x4\n",
    ]
    result = bulk(reader, contents)
    assert sorted(sorted(g.slices) for g in result.groups) == [[0, 2], [1], [3]]
    assert_as_alone(reader, contents, result)
    by_position = result.locate()
    assert by_position[1].schema.names == ["name", "id"]
    assert by_position[3].schema.names == ["id", "label"]


def test_empty_and_header_only_contents_are_read_alone(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    contents = [b"", b"id,name\n", b"id,name\n1,a\n", b"  \n", b"id,name\n2,b"]
    result = bulk(reader, contents)
    assert result.rest == [0, 1, 3]
    assert_as_alone(reader, contents, result)


def test_quoted_newlines_count_as_one_record(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    contents = [
        b'id,note\n1,"two\nlines"\n2,plain\n',
        b'id,note\n3,"a ""quoted"" word, and\n\na blank line"\n',
        b"id,note\n4,last\n",
    ]
    result = bulk(reader, contents)
    assert result.rest == []
    assert [result.locate()[i].slices[i][1] for i in range(3)] == [2, 1, 1]
    assert_as_alone(reader, contents, result)


def test_carriage_returns_or_escapes_in_a_poll_leave_only_those_contents_alone(
    enable: Enable,
) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    contents = [
        b"id,name\n1,a\n",
        b"id,name\r\n2,b\r\n",
        b"id,name\n3,c\\,d\n",
        b"id,name\n4,e\n5,f",
        b"id,name\n",
    ]
    result = bulk(reader, contents)
    assert result.rest == [1, 2, 4]
    assert_as_alone(reader, contents, result)
    assert [result.locate()[i].slices[i][1] for i in (0, 3)] == [1, 2]


def test_a_malformed_content_is_left_alone_and_the_others_still_parsed_together(
    enable: Enable,
) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    good = [f"id,name\n{i},n{i}\n".encode() for i in range(7)]
    contents = [*good[:3], b"id,name\n9,too,many,values\n", *good[3:], b'id,name\n8,"open\n']
    result = bulk(reader, contents)
    assert result.rest == [3, 8]
    assert_as_alone(reader, contents, result)
    assert sum(len(g.slices) for g in result.groups) == 7


def test_a_content_that_would_infer_another_type_alone_is_left_alone(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    contents = [
        b"a,b,c,d\n1,x,2024-05-01T10:00:00,1.5\n",
        b"a,b,c,d\n2,7,2024-05-02T11:00:00,2.5\n",  # b alone: int64
        b"a,b,c,d\n,y,2024-05-03T12:00:00,3.5\n",  # a alone: all null, a string column
        b"a,b,c,d\n4,z,2024-05-04,4.5\n",  # c alone: a date, read as text too
        b"a,b,c,d\n5,w,2024-05-05T09:00:00,5\n",  # d alone: int64
        b"a,b,c,d\n6,v,12:30:00,6.25\n",  # c alone: a time, read as text too
    ]
    result = bulk(reader, contents)
    assert result.rest == [1, 2, 4]
    assert_as_alone(reader, contents, result)
    group = result.locate()[0]
    assert group.schema.types == [pa.int64(), pa.string(), pa.string(), pa.float64()]
    texts = [group.batch(i).column(2)[0].as_py() for i in (0, 3, 5)]
    assert texts == ["2024-05-01T10:00:00", "2024-05-04", "12:30:00"]  # as written


def test_without_header_with_a_given_schema_and_under_settings_it_cannot_honour(
    enable: Enable,
) -> None:
    plain = enable(CSVReader)
    contents = [b"1,a\n", b"2,b\n3,c\n"]
    result = bulk(plain, contents)
    assert result.rest == []
    assert_as_alone(plain, contents, result)

    schema = (
        '{"type":"record","name":"r","fields":'
        '[{"name":"id","type":"long"},{"name":"name","type":"string"}]}'
    )
    given = enable(
        CSVReader,
        **{
            "Treat First Line as Header": "true",
            "Schema Access Strategy": "schema-text-property",
            "Schema Text": schema,
        },
    )
    with_header = [b"id,name\n1,a\n", b"id,name\n2,b\n"]
    result = bulk(given, with_header)
    assert result.rest == []
    assert result.groups[0].schema_text == schema
    assert_as_alone(given, with_header, result)

    commented = enable(CSVReader, **{"Treat First Line as Header": "true", "Comment Marker": "#"})
    assert bulk(commented, with_header).rest == [0, 1]


def _value(rng: random.Random, kind: str) -> str:
    if rng.random() < 0.1:
        return ""
    if kind == "int":
        return str(rng.randrange(-50, 50))
    if kind == "number":
        return rng.choice(
            [str(rng.randrange(100)), f"{rng.random() * 100:.2f}", "1e3", "+5", "5.", "-2.5E-3"]
        )
    if kind == "bool":
        return rng.choice(["true", "false", "1", "0", "TRUE", "fAlse"])
    if kind == "time":
        return rng.choice(["2024-05-01", "2024-05-02T10:00:00", "2024-05-03T00:00:00.5"])
    return rng.choice(["tea", "cafe", "12", "x y", '"a, b"', '"multi\nline"', "nan", "rice"])


def test_random_contents_are_read_as_alone(enable: Enable) -> None:
    """A differential check over many small contents of mixed, shifting types."""
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    rng = random.Random(7)
    kinds = ["int", "number", "bool", "time", "text"]
    grouped = 0
    for _round in range(20):
        contents = []
        column_kinds = {"a": rng.choice(kinds[:3]), "b": "time", "c": "text"}
        for _ in range(12):
            names = rng.choice([["a", "b", "c"], ["a", "b", "c"], ["c", "a", "b"]])
            lines = [",".join(names)]
            for _row in range(rng.randrange(1, 9)):
                lines.append(",".join(_value(rng, column_kinds[n]) for n in names))
            contents.append(("\n".join(lines) + rng.choice(["\n", ""])).encode())
        result = bulk(reader, contents)
        assert_as_alone(reader, contents, result)
        grouped += len(result.locate())
    assert grouped > 20  # the check is not vacuous


def test_the_text_proof_in_python_never_holds_where_arrows_does_not() -> None:
    """Samples are tested in Python, whole columns by Arrow's RE2: the Python test must
    never prove text that RE2 would not (it may prove less)."""
    values = [
        "tea",
        "12",
        "x y",
        "nan",
        " NaN ",
        "Infinity",
        "TRUE",
        "false",
        "0x1F",
        "0xZ",
        "2024-05-01T10:00:00Z",
        "12:30",
        "1e5",
        "+5",
        "5.",
        "-3.5",
        "store-01",
        "\xa0",
        "1\xa0",
        "\v",
        "1\v2",
        "\u017false",  # a long s, which Python (?i) folds to s
        "true\n",
        "é",
        "",
        None,
    ]
    few = csv_bulk._proves_text(pa.array(values)).to_pylist()
    copies = csv_bulk._PYTHON_PROOF // len(values) + 1
    many = csv_bulk._proves_text(pa.array(values * copies)).to_pylist()[: len(values)]
    for value, small, large in zip(values, few, many, strict=True):
        assert not small or large, value
    assert few[0] and not few[1]


def test_an_open_quote_in_the_middle_of_a_poll_leaves_only_that_content_alone(
    enable: Enable,
) -> None:
    """Quotes are paired over the joined contents: a content whose quotes do not balance
    is taken out first, so the contents after it still pair theirs (and count a quoted
    line break as one record)."""
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    contents = [
        b'id,note\n1,"a, b"\n',
        b'id,note\n2,"open\n3,x\n',
        b'id,note\n4,"two\nlines"\n5,y\n',
        b'id,note\n6,"say ""hi"""\n',
    ]
    result = bulk(reader, contents)
    assert result.rest == [1]
    assert [result.locate()[i].slices[i][1] for i in (0, 2, 3)] == [1, 2, 1]
    assert_as_alone(reader, contents, result)


def test_a_large_poll_parsed_on_pyarrows_threads_reads_as_alone(enable: Enable) -> None:
    """From ``_THREADS_FROM`` bytes the one block is parsed on pyarrow's threads: the same
    types and records as alone, whether the parts are alike or their types differ."""
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    rng = random.Random(3)
    kinds = ["int", "number", "bool", "time", "text"]

    def part(column_kinds: dict[str, str]) -> bytes:
        rows = [",".join(_value(rng, column_kinds[n]) for n in "abc") for _ in range(40)]
        return ("a,b,c\n" + "\n".join(rows) + "\n").encode()

    alike = [part({"a": "int", "b": "time", "c": "text"}) for _ in range(200)]
    mixed = [part({"a": rng.choice(kinds), "b": "time", "c": "text"}) for _ in range(200)]
    for contents in (alike, mixed):
        assert len(b"".join(contents)) >= csv_bulk._THREADS_FROM
        assert_as_alone(reader, contents, bulk(reader, contents))
    assert bulk(reader, alike).rest == []


def test_a_nan_makes_a_text_column_read_as_alone(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true"})
    contents = [
        b"a,p\n1,1.5\n",
        b"a,p\n2,NaN\n",  # alone: text
        b"a,p\n3,x\n",
        b"a,p\n4,inf\n5,2.5\n",  # alone: text
        b"a,p\n6,7.25\n",
    ]
    for _ in range(2):  # the second time with the text columns remembered
        result = bulk(reader, contents)
        assert_as_alone(reader, contents, result)
        assert read_all(reader, contents[1]).schema.field("p").type == pa.string()
