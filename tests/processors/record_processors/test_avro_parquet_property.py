"""Avro and Parquet through the record processors give every value as NiFi gives it.

Random Avro schemas and records (``avro_records``: every Avro type NiFi's AvroTypeUtil
reads) go through TestRunner flows: Avro written by fastavro with its schema embedded to
JSON, to Parquet and back to JSON or Avro, to Avro again, and several Avro FlowFiles
through MergeRecord; random JSON and CSV records go to Avro and back. Each value must
come out as NiFi's readers and writers give it (``avro_records.nifi_json``), or the
FlowFile must go to failure with its reason: never a changed value, a dropped field or
a dropped record.
"""

from __future__ import annotations

import csv
import io
import json
import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowcore.testing import TestRunner
from tests.processors.record_processors.avro_records import (
    Schema,
    assert_valid_avro,
    avro_contents,
    avro_file,
    has_special_float,
    java_double,
    nifi_json,
    raw_values,
    read_avro,
    same_json,
)

EXAMPLES = settings(max_examples=200, deadline=None)


def _convert(
    contents: list[bytes],
    reader: str,
    writer: str,
    reader_props: dict[str, str] | None = None,
    writer_props: dict[str, str] | None = None,
) -> list[tuple[str, bytes, dict[str, str]]]:
    """Each content through ConvertRecord: (relationship, content, attributes), in order."""
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service("reader", reader, reader_props or {})
        runner.add_controller_service("writer", writer, writer_props or {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        sent = [runner.enqueue(content, {"index": str(i)}) for i, content in enumerate(contents)]
        runner.run()
        out: dict[str, tuple[str, bytes, dict[str, str]]] = {}
        for relationship in ("success", "failure"):
            for flowfile in runner.get_flowfiles_for_relationship(relationship):
                out[flowfile.attributes["index"]] = (
                    relationship,
                    flowfile.content,
                    dict(flowfile.attributes),
                )
        assert len(out) == len(sent)
        return [out[str(i)] for i in range(len(sent))]


def _json_records(content: bytes) -> list[Any]:
    records = json.loads(content, parse_float=Decimal)
    assert isinstance(records, list)
    return records


def _assert_nifi_json(schema: Schema, records: list[dict[str, Any]], out: bytes) -> None:
    got = _json_records(out)
    assert len(got) == len(records)
    for record, printed in zip(records, got, strict=True):
        want = nifi_json(schema, record)
        assert same_json(printed, want), (schema, record, printed, want)


@EXAMPLES
@given(avro_contents(special_floats=True))
def test_avro_with_embedded_schema_to_json(drawn: tuple[Schema, list[list[Any]]]) -> None:
    schema, [records] = drawn
    [(relationship, out, attributes)] = _convert(
        [avro_file(schema, records)], "AvroReader", "JsonRecordSetWriter"
    )
    if any(has_special_float(schema, r) for r in records):
        # NiFi's JSON writer fails on NaN and infinities too (new BigDecimal("NaN")).
        assert relationship == "failure"
        assert "record.error.message" in attributes
        return
    assert relationship == "success", attributes.get("record.error.message")
    _assert_nifi_json(schema, records, out)


def _same(got: Any, want: Any) -> bool:
    """Equal values, a NaN equal to a NaN."""
    if isinstance(want, float) and isinstance(got, float):
        return got == want or (math.isnan(got) and math.isnan(want))
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(_same(g, w) for g, w in zip(got, want, strict=True))
        )
    if isinstance(want, dict):
        return (
            isinstance(got, dict)
            and got.keys() == want.keys()
            and all(_same(got[k], want[k]) for k in want)
        )
    return type(got) is type(want) and got == want


def _one(result: list[tuple[str, bytes, dict[str, str]]]) -> bytes:
    [(relationship, out, attributes)] = result
    assert relationship == "success", attributes.get("record.error.message")
    return out


@EXAMPLES
@given(avro_contents(special_floats=True))
def test_avro_to_avro_keeps_the_embedded_schema_and_every_value(
    drawn: tuple[Schema, list[list[Any]]],
) -> None:
    schema, [records] = drawn
    content = avro_file(schema, records)
    out = _one(_convert([content], "AvroReader", "AvroRecordSetWriter"))
    written_schema, written = read_avro(out)
    # NiFi writes a record whose schema came from Avro with that schema's own text.
    assert (written_schema, written) == read_avro(content) or _same(
        [written_schema, written], list(read_avro(content))
    )


@EXAMPLES
@given(avro_contents(special_floats=True))
def test_avro_to_parquet_and_back_keeps_every_value(
    drawn: tuple[Schema, list[list[Any]]],
) -> None:
    schema, [records] = drawn
    parquet = _one(_convert([avro_file(schema, records)], "AvroReader", "ParquetRecordSetWriter"))
    out = _one(_convert([parquet], "ParquetReader", "AvroRecordSetWriter"))
    written_schema, written = read_avro(out)
    assert_valid_avro(written_schema)
    assert _same(written, [raw_values(schema, r) for r in records])
    if not any(has_special_float(schema, r) for r in records):
        _assert_nifi_json(
            schema, records, _one(_convert([parquet], "ParquetReader", "JsonRecordSetWriter"))
        )


@EXAMPLES
@given(avro_contents(files=3, special_floats=True))
def test_merge_record_of_avro_flowfiles_keeps_every_record(
    drawn: tuple[Schema, list[list[Any]]],
) -> None:
    schema, contents = drawn
    contents = [records for records in contents if records]
    if not contents:
        return
    total = sum(len(records) for records in contents)
    with TestRunner("MergeRecord") as runner:
        runner.add_controller_service("reader", "AvroReader", {})
        runner.add_controller_service("writer", "AvroRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.set_property("Minimum Number of Records", str(total))
        runner.set_property("Maximum Number of Records", str(total))
        for records in contents:
            runner.enqueue(avro_file(schema, records))
        runner.run(2)
        assert runner.get_flowfiles_for_relationship("failure") == []
        [merged] = runner.get_flowfiles_for_relationship("merged")
        written_schema, written = read_avro(merged.content)
        assert written_schema == read_avro(avro_file(schema, []))[0]
        each = [read_avro(avro_file(schema, records))[1] for records in contents]
        assert _same(written, [record for records in each for record in records])
        assert merged.attributes["record.count"] == str(total)


# -- JSON and CSV to Avro and back: inferred schemas, field names Avro refuses --------------

NAMES = ["", "a", "b_1", "my-field", "my_field", "1st", "é", "with space", "x.y", "x😀", "_u", "Ü"]


def nifi_name(name: str) -> str:
    """NiFi's Avro field name (``AvroTypeUtil.createValidAvroFieldName``): each character
    that is not a letter, a digit or ``_`` (or a digit first) becomes ``_``; a character
    beyond 16 bits is two Java characters, neither a letter."""
    if not name:
        return "UNNAMED_FIELD"
    units = name.encode("utf-16-le")
    chars = [units[i : i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(units), 2)]
    return "".join(
        c if c == "_" or c.isalpha() or (i > 0 and c.isdecimal()) else "_"
        for i, c in enumerate(chars)
    )


_KINDS = {
    "long": st.integers(-(1 << 63), (1 << 63) - 1),
    "double": st.floats(allow_nan=False, allow_infinity=False).filter(lambda v: not v.is_integer()),
    "text": st.text(st.characters(exclude_categories=("Cs",)), max_size=5),
    "boolean": st.booleans(),
}
_MISSING = object()


@st.composite
def json_records(
    draw: st.DrawFn, depth: int = 2
) -> tuple[dict[str, Any], st.SearchStrategy[Any], st.SearchStrategy[Any]]:
    """Field name -> kind (a kind name, a nested dict, or ``[kind]``), records of it, and
    records with a value in every field at every level (so every type is inferred)."""
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
    shape: dict[str, Any] = {}
    values: dict[str, st.SearchStrategy[Any]] = {}
    full: dict[str, st.SearchStrategy[Any]] = {}
    for name in names:
        kind = draw(st.sampled_from([*_KINDS, "array", "object"] if depth else list(_KINDS)))
        if kind == "array":
            item = draw(st.sampled_from(list(_KINDS)))
            shape[name] = [item]
            strategy: st.SearchStrategy[Any] = st.lists(_KINDS[item], max_size=3)
            filled: st.SearchStrategy[Any] = st.lists(_KINDS[item], min_size=1, max_size=3)
        elif kind == "object":
            nested, strategy, filled = draw(json_records(depth - 1))
            shape[name] = nested
        else:
            shape[name] = kind
            strategy = filled = _KINDS[kind]
        values[name] = st.one_of(st.none(), st.just(_MISSING), strategy)
        full[name] = filled
    records = st.fixed_dictionaries(values).map(
        lambda r: {k: v for k, v in r.items() if v is not _MISSING}
    )
    return shape, records, st.fixed_dictionaries(full)


def _nifi_value(kind: Any, value: Any) -> Any:
    """A JSON value after NiFi's JSON -> Avro -> JSON (names made valid for Avro)."""
    if value is None or value is _MISSING:
        return None
    if isinstance(kind, dict):
        return {nifi_name(k): _nifi_value(kind[k], value.get(k, _MISSING)) for k in kind}
    if isinstance(kind, list):
        return [_nifi_value(kind[0], v) for v in value]
    if kind == "double":
        return java_double(value)
    return value


def _avro_names_collide(shape: dict[str, Any], records: list[dict[str, Any]]) -> bool:
    """Whether two fields the records have (at any level) get one Avro name."""
    seen = [n for n in shape if any(n in r for r in records)]
    names = [nifi_name(n) for n in seen]
    if len(set(names)) < len(names):
        return True
    return any(
        _avro_names_collide(shape[n], [r[n] for r in records if isinstance(r.get(n), dict)])
        for n in seen
        if isinstance(shape[n], dict)
    )


@EXAMPLES
@given(
    json_records().flatmap(
        lambda s: st.tuples(st.just(s[0]), st.tuples(s[2], st.lists(s[1], max_size=3)))
    )
)
@pytest.mark.parametrize("middle", ["Avro", "Parquet"])
def test_json_to_avro_or_parquet_and_back_keeps_every_value(
    middle: str,
    drawn: tuple[dict[str, Any], tuple[dict[str, Any], list[dict[str, Any]]]],
) -> None:
    """NiFi writes Parquet through the records' Avro schema: the same names, values."""
    shape, (first, rest) = drawn
    records = [first, *rest]
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
    [(relationship, avro, attributes)] = _convert(
        [lines], "JsonTreeReader", f"{middle}RecordSetWriter"
    )
    if _avro_names_collide(shape, records):
        # Two names become one Avro name: NiFi's Avro refuses the schema (duplicate field).
        assert relationship == "failure"
        assert "Avro name" in attributes["record.error.message"]
        return
    assert relationship == "success", attributes.get("record.error.message")
    if middle == "Avro":
        assert_valid_avro(read_avro(avro)[0])
    out = _one(_convert([avro], f"{middle}Reader", "JsonRecordSetWriter"))
    got = _json_records(out)
    assert len(got) == len(records)
    for record, printed in zip(records, got, strict=True):
        want = _nifi_value(shape, record)
        assert same_json(printed, want), (shape, record, printed, want)


_CSV_KINDS: dict[str, st.SearchStrategy[str]] = {
    "long": st.integers(-(1 << 63), (1 << 63) - 1).map(str),
    # Doubles in Java's plain range, where Double.toString is Python's repr.
    "double": st.floats(1e-3, 1e7, exclude_max=True)
    .filter(lambda v: not v.is_integer())
    .flatmap(lambda v: st.sampled_from([repr(v), "-" + repr(v)])),
    "boolean": st.sampled_from(["true", "false"]),
    # Text no inference takes for a number or a Boolean (letters first), quotes and
    # separators included; no blank at either end (Trim Fields), no Escape Character.
    "text": st.builds(
        lambda first, rest: first + rest.rstrip(),
        st.characters(categories=("L",)),
        st.text(
            st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp"), exclude_characters="\\"),
            max_size=5,
        ),
    ),
}


def _csv_line(values: list[str | None]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(["" if v is None else v for v in values])
    return out.getvalue()


@EXAMPLES
@given(
    st.lists(st.sampled_from(NAMES[1:]), min_size=1, max_size=4, unique=True)
    .flatmap(
        lambda names: st.tuples(
            st.just(names),
            st.lists(st.sampled_from(list(_CSV_KINDS)), min_size=len(names), max_size=len(names)),
        )
    )
    .flatmap(
        lambda drawn: st.tuples(
            st.just(drawn[0]),
            st.just(drawn[1]),
            st.tuples(*(_CSV_KINDS[k] for k in drawn[1])),
            st.lists(st.tuples(*(st.none() | _CSV_KINDS[k] for k in drawn[1])), max_size=3),
        )
    )
)
def test_csv_to_avro_and_back_keeps_every_value(
    drawn: tuple[list[str], list[str], tuple[str, ...], list[tuple[str | None, ...]]],
) -> None:
    names, _kinds, first, rest = drawn
    rows: list[list[str | None]] = [list(first), *(list(r) for r in rest)]
    content = (_csv_line(list(names)) + "".join(_csv_line(r) for r in rows)).encode()
    reader = {"Treat First Line as Header": "true"}
    [(relationship, avro, attributes)] = _convert(
        [content], "CSVReader", "AvroRecordSetWriter", reader_props=reader
    )
    if len({nifi_name(n) for n in names}) < len(names):
        assert relationship == "failure"
        assert "Avro name" in attributes["record.error.message"]
        return
    assert relationship == "success", attributes.get("record.error.message")
    assert_valid_avro(read_avro(avro)[0])
    out = _one(_convert([avro], "AvroReader", "CSVRecordSetWriter"))
    parsed = list(csv.reader(io.StringIO(out.decode())))
    assert parsed[0] == [nifi_name(n) for n in names]
    assert len(parsed) == len(rows) + 1
    for row, printed in zip(rows, parsed[1:], strict=True):
        assert printed == ["" if v is None else v for v in row], (names, row, out)


def _through_given_schema(kind: Any, value: Any, top: bool) -> Any:
    """A JSON value written with the schema NiFi generated for it as the writer's Schema
    Text: a top-level field Avro renamed is found by its alias (``lookupField``); a
    nested one is not (NiFi's nested records are matched by name only), so it is null."""
    if value is None or value is _MISSING:
        return None
    if isinstance(kind, dict):
        return {
            nifi_name(k): None
            if not top and nifi_name(k) != k
            else _through_given_schema(kind[k], value.get(k, _MISSING), top=False)
            for k in kind
        }
    if isinstance(kind, list):
        return [_through_given_schema(kind[0], v, top=False) for v in value]
    if kind == "double":
        return java_double(value)
    return value


@EXAMPLES
@given(
    json_records().flatmap(
        lambda s: st.tuples(st.just(s[0]), st.tuples(s[2], st.lists(s[1], max_size=3)))
    )
)
def test_json_to_avro_with_the_generated_schema_as_schema_text(
    drawn: tuple[dict[str, Any], tuple[dict[str, Any], list[dict[str, Any]]]],
) -> None:
    """The schema NiFi generates, given back as the writer's Schema Text (as from a
    schema registry): each field is found by its name or, at the top, its alias."""
    shape, (first, rest) = drawn
    records = [first, *rest]
    if _avro_names_collide(shape, records):
        return
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
    generated = read_avro(_one(_convert([lines], "JsonTreeReader", "AvroRecordSetWriter")))[0]
    given_schema = {
        "Schema Access Strategy": "Use 'Schema Text' Property",
        "Schema Text": json.dumps(generated),
    }
    avro = _one(
        _convert([lines], "JsonTreeReader", "AvroRecordSetWriter", writer_props=given_schema)
    )
    got = _json_records(_one(_convert([avro], "AvroReader", "JsonRecordSetWriter")))
    for record, printed in zip(records, got, strict=True):
        want = _through_given_schema(shape, record, top=True)
        assert same_json(printed, want), (shape, record, printed, want)
