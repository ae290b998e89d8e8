"""RecordPath: the child of a value that is not a record, and UTF-16 positions.

NiFi's ``ChildFieldPath`` gives one null value for the child of a null record, a text or
a map (``missingChild``); updating it sets the field in the nearest record above, except
below a null of a record type (``StandardFieldValue.getParentRecord``). ``substring``,
``padLeft`` and ``padRight`` count UTF-16 code units, as Java's String.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from flowcore.testing import TestRunner
from processors.record_processors.record_path import (
    FieldValue,
    compile_record_path,
    records_of,
    root_of,
)

RunnerFactory = Callable[..., TestRunner]
SCHEMA = pa.schema(
    [
        ("a", pa.struct([("b", pa.struct([("c", pa.string())]))])),
        ("s", pa.string()),
        ("m", pa.map_(pa.string(), pa.string())),
    ]
)


def _root() -> FieldValue:
    table = pa.Table.from_pylist([{"a": None, "s": "x", "m": [("k", "v")]}], schema=SCHEMA)
    return root_of(records_of(table)[0], SCHEMA)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/a/b", [None]),
        ("/a/b/c", [None]),
        ("/s/b", [None]),
        ("/m/k", [None]),
        ("count(/a/b)", [1]),
        ("concat(/a/b, '!')", ["null!"]),
        ("fieldName(/a/b/c)", ["c"]),
    ],
)
def test_child_of_a_value_that_is_not_a_record(path: str, expected: list[Any]) -> None:
    assert [v.value for v in compile_record_path(path).select(_root())] == expected


@pytest.mark.parametrize(
    ("path", "after"),
    [
        # below a null of a record type nothing is updated
        ("/a/b", {"a": None, "s": "x", "m": {"k": "v"}}),
        ("/a/b/c", {"a": None, "s": "x", "m": {"k": "v"}}),
        # below a text or a map, the nearest record above gets the field
        ("/s/b", {"a": None, "s": "x", "m": {"k": "v"}, "b": "new"}),
        ("/m/k", {"a": None, "s": "x", "m": {"k": "v"}, "k": "new"}),
    ],
)
def test_update_below_a_value_that_is_not_a_record(path: str, after: dict[str, Any]) -> None:
    root = _root()
    for value in compile_record_path(path).select(root):
        value.update("new")
    assert root.value == after


def test_update_record_leaves_a_null_record_null(make_runner: RunnerFactory) -> None:
    schema = {
        "type": "record",
        "name": "r",
        "fields": [
            {
                "name": "a",
                "type": [
                    "null",
                    {"type": "record", "name": "A", "fields": [{"name": "b", "type": "string"}]},
                ],
            },
            {"name": "n", "type": ["null", "string"]},
        ],
    }
    runner = make_runner(
        "UpdateRecord",
        {"/a/b": "concat('x')", "/n": "concat(/a/b, '-', count(/a/b))"},
        reader_type="JsonTreeReader",
        reader={
            "Schema Access Strategy": "schema-text-property",
            "Schema Text": json.dumps(schema),
        },
        writer_type="JsonRecordSetWriter",
    )
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue('{"a": null, "n": null}')
    runner.run()
    out = json.loads(runner.get_flowfiles_for_relationship("success")[0].content)
    assert out == [{"a": None, "n": "null-1"}]


TEXT = "a\U0001f600bc"  # the emoji is two UTF-16 code units: Java's length is 5


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("substring(/s, 1, 3)", "\U0001f600"),
        ("substring(/s, 3, 5)", "bc"),
        ("substring(/s, 0, -2)", "a\U0001f600b"),
        ("substring(/s, 0, 2)", "a?"),  # half of the pair: what Java writes for it
        ("substring(/s, 5, 6)", ""),
        ("padLeft(/s, 6, '0')", "0" + TEXT),
        ("padRight(/s, 5)", TEXT),
        ("padRight(/s, 7, '-')", TEXT + "--"),
    ],
)
def test_positions_count_utf16_units(path: str, expected: str) -> None:
    compiled = compile_record_path(path)
    assert [v.value for v in compiled.select(FieldValue({"s": TEXT}, "root"))] == [expected]
    # the Arrow evaluation gives the same
    batch = pa.record_batch({"s": pa.array([TEXT, "abcdef"])})
    evaluated = compiled.evaluate(batch)
    assert evaluated is not None
    assert evaluated.to_pylist()[0] == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/*", ["x", {"k": "v"}]),
        ("//*[. = 'x']", ["x"]),
        ("//s", ["x"]),
        ("//b", []),
    ],
)
def test_wildcards_and_descendants_skip_null_values(path: str, expected: list[Any]) -> None:
    """NiFi's WildcardChildPath, WildcardDescendantPath and DescendantFieldPath select
    only fields that have a value (the null record /a is not selected)."""
    assert [v.value for v in compile_record_path(path).select(_root())] == expected


def test_update_record_wildcard_leaves_null_fields_null(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "UpdateRecord",
        {"/*": "x"},
        reader_type="JsonTreeReader",
        writer_type="JsonRecordSetWriter",
    )
    runner.enqueue('{"a": "1", "b": null}')
    runner.run()
    out = json.loads(runner.get_flowfiles_for_relationship("success")[0].content)
    assert out == [{"a": "x", "b": None}]
