"""CSV through ConvertRecord to JSON keeps every value as NiFi's inference types it.

The oracle is NiFi's ``SchemaInferenceUtil.getDataType`` per value (``NumberUtils.
isParsable``: an optional minus, digits, at most one point, not ending in one; ``true``
and ``false`` in any case) and its widening per field (INT with FLOAT is a number with a
fraction; anything else mixed is a CHOICE, text here: see docs/records.md). Each
FlowFile is inferred alone, whether it is read alone or with others of the same header
(the bulk read). A value typed otherwise (``1e5`` read as a double, ``1`` as a Boolean,
``2024-05-01`` as a date) shows up as a JSON value of the wrong kind.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from flowcore.testing import TestRunner

VALUES = [
    "",
    "0",
    "7",
    "-0",
    "007",
    "-42",
    "2147483648",
    "9223372036854775807",
    "12345678901234567890",
    "1.5",
    "-0.25",
    ".5",
    "-.5",
    "1.0",
    "5.",
    "+5",
    "+1.5",
    "1e5",
    "2.5E-3",
    "-3E+2",
    "NaN",
    "inf",
    "-Infinity",
    "true",
    "FALSE",
    "tRuE",
    "yes",
    "abc",
    "0x1F",
    "2024-05-01",
    "12:30:00",
    "e5",
    "1-2",
    " 5",
    "7 ",
    " 1.5 ",
    " abc",
    "x y",
    '"5"',
    '"1e5"',
    '"abc"',
    '" 8 "',
]
_PARSABLE = re.compile(r"-?([0-9]+(\.[0-9]+)?|\.[0-9]+)")
_LONG = 1 << 63


def unquoted(value: str) -> str:
    """The value as NiFi's CSV parser gives it, trimmed (Trim Fields is true)."""
    if len(value) > 1 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return value.strip()


def nifi_kind(value: str) -> str:
    """The type NiFi infers for one non-empty value."""
    value = unquoted(value)
    if _PARSABLE.fullmatch(value):
        if "." in value:
            return "float"
        return "int" if -_LONG <= int(value) < _LONG else "text"
    if value.lower() in ("true", "false"):
        return "bool"
    return "text"


def column_kind(values: list[str]) -> str:
    kinds = {nifi_kind(v) for v in values if v}
    if kinds == {"int"}:
        return "int"
    if kinds and kinds <= {"int", "float"}:
        # A double as large as 2^63 could not be a long: the column is text, its digits
        # kept (NiFi would widen it to a double and lose them).
        if any(abs(float(unquoted(v))) >= _LONG for v in values if v):
            return "text"
        return "float"
    if kinds == {"bool"}:
        return "bool"
    return "text"


def expected(value: str, kind: str) -> Any:
    if not value:
        return None
    value = unquoted(value)
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    if kind == "bool":
        return value.lower() == "true"
    return value


def same(got: Any, want: Any) -> bool:
    if isinstance(want, bool) or want is None or isinstance(want, str):
        return got is want or (type(got) is type(want) and got == want)
    if isinstance(want, int):
        return type(got) is int and got == want
    return isinstance(got, int | float) and not isinstance(got, bool) and got == want


table = st.integers(1, 3).flatmap(
    lambda columns: st.lists(
        st.lists(
            st.lists(st.sampled_from(VALUES), min_size=columns, max_size=columns),
            min_size=1,
            max_size=4,
        ),
        min_size=1,
        max_size=4,
    )
)


@settings(max_examples=200, deadline=None)
@given(table)
def test_every_value_keeps_the_kind_nifi_infers(contents: list[list[list[str]]]) -> None:
    columns = len(contents[0][0])
    header = ",".join(f"c{i}" for i in range(columns))
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service("reader", "CSVReader", {"Treat First Line as Header": "true"})
        runner.add_controller_service("writer", "JsonRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        for rows in contents:
            runner.enqueue(header + "\n" + "".join(",".join(row) + "\n" for row in rows))
        # A line with nothing on it is no record (NiFi's parser skips empty lines too).
        contents = [[row for row in rows if row != [""]] for rows in contents]
        runner.run()
        assert runner.get_flowfiles_for_relationship("failure") == []
        outputs = runner.get_flowfiles_for_relationship("success")
        assert len(outputs) == len(contents)
        for rows, out in zip(contents, outputs, strict=True):
            kinds = [column_kind([row[i] for row in rows]) for i in range(columns)]
            records = json.loads(out.text())
            assert len(records) == len(rows)
            for row, record in zip(rows, records, strict=True):
                for i, value in enumerate(row):
                    want = expected(value, kinds[i])
                    assert same(record[f"c{i}"], want), (rows, kinds[i], value, record)
