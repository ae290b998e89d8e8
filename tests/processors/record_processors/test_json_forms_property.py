"""JSON lines through ConvertRecord, MergeRecord and SplitRecord come out as NiFi writes them.

NiFi's JsonTreeReader keeps each record's text (Jackson's compact text of its object) and
JsonRecordSetWriter writes it verbatim when the record's schema is the writer's. So with
inferred schemas, whatever the blanks, key order, missing fields, nulls, escapes or nesting
of the input, each record is written as the compact text of its own object: the same keys
in the same order, ints as ints, doubles as Java prints them (only the plain range is
generated here, where Python's ``repr`` is Java's ``Double.toString``), strings escaped as
Jackson escapes them (``"``, ``\\`` and control characters; ``\\u00XX`` in upper case).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from hypothesis import given, settings
from hypothesis import strategies as st

import processors.merge
import processors.record  # noqa: F401
from flowcore.testing import TestRunner
from processors.record_processors._bulk import POLL_COUNT

Obj = dict[str, Any]

FIELDS = ("id", "name", "unit price", "ok", "méta", "a/b")
"""Field names with a blank, a non-ASCII letter and a slash: keys are escaped as values."""
INNER = {"k": "int", "s": "text", "f": "float"}
"""The nested object's fields and their kinds (the same in every record)."""

texts = st.one_of(
    st.text(
        alphabet=st.one_of(
            st.sampled_from(list('ab Z09,.:;{}[]"\\/\n\r\t\b\f\x00\x01\x1f\x7fé€😀 ')),
            st.characters(codec="utf-8"),
        ),
        max_size=8,
    ),
    # Text that looks like something else stays text (an inferred schema keeps it so).
    st.sampled_from(["2024-05-02", "2024-05-01T12:00:00", "12:00:00", "1e5", "NaN", "null"]),
)
plain_floats = st.one_of(
    st.just(0.0),
    st.floats(1e-3, 1e7, exclude_max=True),
    st.floats(-1e7, -1e-3, exclude_min=True),
)
SCALARS: dict[str, st.SearchStrategy[Any]] = {
    "int": st.integers(-(2**63), 2**63 - 1),
    "float": st.one_of(plain_floats, st.integers(-1000, 1000)),  # 3 stays 3 in a double field
    "text": texts,
    "bool": st.booleans(),
}


@st.composite
def nested(draw: st.DrawFn) -> Obj:
    names = draw(st.permutations(list(INNER)))
    keep = draw(st.integers(1, len(names)))
    return {name: draw(st.one_of(st.none(), SCALARS[INNER[name]])) for name in names[:keep]}


def value_of(kind: str) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), nested() if kind == "nested" else SCALARS[kind])


@st.composite
def kinds(draw: st.DrawFn) -> dict[str, str]:
    """Each field's kind, fixed for the whole example (one inferred schema)."""
    return {
        name: draw(st.sampled_from(["int", "float", "text", "bool", "nested"])) for name in FIELDS
    }


@st.composite
def record(draw: st.DrawFn, kind: dict[str, str]) -> Obj:
    names = draw(st.permutations(list(FIELDS)))
    keep = draw(st.integers(1, len(names)))
    return {name: draw(value_of(kind[name])) for name in names[:keep]}


def anchor(draw: st.DrawFn, kind: dict[str, str]) -> Obj:
    """A record with every field, in FIELDS order, none null, doubles as doubles: put first
    in each FlowFile, it gives every FlowFile the same inferred schema."""
    full: Obj = {}
    for name in FIELDS:
        if kind[name] == "nested":
            full[name] = {inner: draw(anchored(INNER[inner])) for inner in INNER}
        else:
            full[name] = draw(anchored(kind[name]))
    return full


def anchored(kind: str) -> st.SearchStrategy[Any]:
    return plain_floats.map(lambda x: x if x else 1.5) if kind == "float" else SCALARS[kind]


@st.composite
def flowfiles(draw: st.DrawFn, *, same_schema: bool = False) -> list[list[Obj]]:
    kind = draw(kinds())
    count = draw(st.integers(1, 5))
    result = []
    for _ in range(count):
        records = draw(st.lists(record(kind), min_size=1, max_size=6))
        result.append([anchor(draw, kind), *records] if same_schema else records)
    return result


# -- writing the input ------------------------------------------------------------------


class Style(NamedTuple):
    """How one record's line is written: compact or with blanks, escapes or raw text."""

    item: str
    key: str
    pad: str
    ascii: bool
    slash: bool


styles = st.builds(
    Style,
    item=st.sampled_from([",", ", ", " ,", " , ", ",\t"]),
    key=st.sampled_from([":", ": ", " : ", " :"]),
    pad=st.sampled_from(["", " ", "\t"]),
    ascii=st.booleans(),
    slash=st.booleans(),
)


def render(value: Any, style: Style) -> str:
    """``value`` as JSON text in ``style`` (any of them reads back as ``value``)."""
    pad = style.pad
    if isinstance(value, dict):
        items = [
            render(name, style) + style.key + render(inner, style) for name, inner in value.items()
        ]
        return "{" + pad + style.item.join(items) + pad + "}"
    text = json.dumps(value, ensure_ascii=style.ascii)
    if isinstance(value, str) and style.slash:
        text = text.replace("/", "\\/")  # "/" appears in the dump only as itself
    return text


@st.composite
def contents(draw: st.DrawFn, records: list[Obj]) -> str:
    """A FlowFile's JSON lines; sometimes blank lines between records, CR LF endings."""
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    blank = draw(st.booleans())
    lines = []
    for obj in records:
        style = draw(styles)
        lines.append(style.pad + render(obj, style) + style.pad + ending)
        if blank and draw(st.booleans()):
            lines.append(draw(st.sampled_from(["\n", "\r\n", " \n"])))
    if not draw(st.booleans()):
        lines[-1] = lines[-1].removesuffix(ending)  # no line ending after the last
    return "".join(lines)


# -- the oracle -------------------------------------------------------------------------

_ESCAPE = re.compile(r"(\\\\)|\\u00([0-9a-f]{2})")


def jackson_text(obj: Obj) -> str:
    """The compact text Jackson writes for ``obj``: Python's, with ``\\u00XX`` upper case."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return _ESCAPE.sub(lambda m: m.group(1) or "\\u00" + m.group(2).upper(), text)


def test_the_oracle_escapes_as_jackson() -> None:
    assert jackson_text({"s": '\x1f\\u001f"/\n\x7fé'}) == '{"s":"\\u001F\\\\u001f\\"/\\n\x7fé"}'


def _array(texts: list[str]) -> str:
    return "[" + ",".join(texts) + "]"


# -- the processors ---------------------------------------------------------------------


@contextmanager
def json_runner(type_name: str, **properties: str) -> Iterator[TestRunner]:
    with TestRunner(type_name) as runner:
        runner.add_controller_service("reader", "JsonTreeReader", {})
        runner.add_controller_service("writer", "JsonRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        for name, value in properties.items():
            runner.set_property(name, value)
        yield runner


def _enqueue(runner: TestRunner, data: st.DataObject, files: list[list[Obj]]) -> None:
    for index, records in enumerate(files):
        runner.enqueue(data.draw(contents(records)), {"index": str(index)})


def _by_index(runner: TestRunner, relationship: str) -> list[str]:
    outputs = runner.get_flowfiles_for_relationship(relationship)
    ordered = sorted(outputs, key=lambda f: int(f.attributes["index"]))
    return [f.text() for f in ordered]


@settings(max_examples=40, deadline=None)
@given(flowfiles(), st.data())
def test_convert_record_writes_each_record_as_its_compact_text(
    files: list[list[Obj]], data: st.DataObject
) -> None:
    assert len(files) <= POLL_COUNT  # one trigger reads them all in one parse
    with json_runner("ConvertRecord") as runner:
        _enqueue(runner, data, files)
        runner.run()
        assert runner.get_flowfiles_for_relationship("failure") == []
        expected = [_array([jackson_text(obj) for obj in records]) for records in files]
        assert _by_index(runner, "success") == expected


@settings(max_examples=30, deadline=None)
@given(flowfiles(same_schema=True), st.data())
def test_merge_record_writes_every_record_as_its_compact_text(
    files: list[list[Obj]], data: st.DataObject
) -> None:
    total = sum(len(records) for records in files)
    with json_runner("MergeRecord", **{"Minimum Number of Records": str(total)}) as runner:
        _enqueue(runner, data, files)
        runner.run(2)
        assert runner.get_flowfiles_for_relationship("failure") == []
        (merged,) = runner.get_flowfiles_for_relationship("merged")
        assert merged.text() == _array([jackson_text(obj) for rs in files for obj in rs])
        merged.assert_attribute_equals("record.count", str(total))


@settings(max_examples=30, deadline=None)
@given(flowfiles(), st.data())
def test_split_record_writes_each_split_from_the_compact_texts(
    files: list[list[Obj]], data: st.DataObject
) -> None:
    with json_runner("SplitRecord", **{"Records Per Split": "2"}) as runner:
        _enqueue(runner, data, files)
        runner.run()
        assert runner.get_flowfiles_for_relationship("failure") == []
        splits = runner.get_flowfiles_for_relationship("splits")
        ordered = sorted(
            splits,
            key=lambda f: (int(f.attributes["index"]), int(f.attributes["fragment.index"])),
        )
        expected = [
            _array([jackson_text(obj) for obj in records[i : i + 2]])
            for records in files
            for i in range(0, len(records), 2)
        ]
        assert [f.text() for f in ordered] == expected


@settings(max_examples=4, deadline=None)
@given(flowfiles(), st.data(), st.sampled_from(["7", "65536"]))
def test_over_one_mb_read_block_by_block_keeps_each_record_its_text(
    files: list[list[Obj]], data: st.DataObject, batch_size: str
) -> None:
    # One FlowFile over 1 MB: the streaming reader parses it in several blocks.
    records = [obj for rs in files for obj in rs]
    text = data.draw(contents(records))
    copies = 1_100_000 // len(text.encode()) + 2
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service("reader", "JsonTreeReader", {"Record Batch Size": batch_size})
        runner.add_controller_service("writer", "JsonRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue("\n".join([text] * copies) + "\n")
        runner.run()
        assert runner.get_flowfiles_for_relationship("failure") == []
        (out,) = runner.get_flowfiles_for_relationship("success")
        assert out.text() == _array([jackson_text(obj) for obj in records] * copies)
