"""JSON lines through ConvertRecord to CSV print every value as NiFi's inference types it.

The oracle is NiFi's JSON inference per field: whole numbers INT or LONG (BIGINT beyond
``long``), fractions DOUBLE, strings STRING (even when they look like numbers, dates or
Booleans), Booleans BOOLEAN; whole numbers with fractions widen to DOUBLE (a whole
number is printed ``7.0``); any other mix is a CHOICE, whose values NiFi's CSV writer
prints each as it is. Doubles are printed as ``Double.toString`` (the values here are
between 0.001 and 10^7, where that is Python's ``repr``). Each FlowFile is inferred
alone, read alone or in bulk.
"""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from flowcore.testing import TestRunner

_MISSING = object()
VALUES: list[Any] = [
    0,
    7,
    -42,
    9223372036854775807,
    12345678901234567890,
    2.5,
    -0.25,
    1.0,
    100.5,
    "5",
    "abc",
    "2024-05-01",
    "true",
    "1e5",
    "",
    True,
    False,
    None,
    _MISSING,
    [1],
    [2.5],
    [False],
]
_LONG = 1 << 63


def kind(value: Any) -> str | None:
    if value is None or value is _MISSING:
        return None
    if isinstance(value, list):
        return "list"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if -_LONG <= value < _LONG else "bigint"
    if isinstance(value, float):
        return "float"
    return "text"


def field_kind(values: list[Any]) -> str:
    kinds = {kind(v) for v in values} - {None}
    if kinds == {"list"}:
        return "list of " + field_kind([item for v in values if kind(v) == "list" for item in v])
    if len(kinds) <= 1:
        return kinds.pop() if kinds else "null"
    if kinds <= {"int", "bigint"}:
        return "bigint"
    if kinds == {"int", "float"}:
        # A double as large as 2^63 is kept exact here (NiFi's double loses digits).
        if any(abs(float(v)) >= _LONG for v in values if kind(v) in ("int", "float")):
            return "unsettled"
        return "float"
    if kinds <= {"int", "bigint", "float"}:
        return "unsettled"  # a whole number beyond long with fractions: not asserted
    if kinds == {"float"} and any(abs(v) >= _LONG for v in values if kind(v) == "float"):
        return "unsettled"
    return "choice"


def java_double(value: float) -> str:
    """``Double.toString``: the shortest digits (Python's ``repr``), plain from 10^-3 to
    10^7, else one digit, a point and an exponent (``9.223372036854776E18``)."""
    if 1e-3 <= abs(value) < 1e7 or value == 0:
        return repr(value)
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits))
    return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{len(text) - 1 + exponent}"


def printed(value: Any, field: str) -> str | None:
    """What NiFi's CSV writer prints; None: not asserted."""
    if value is None or value is _MISSING:
        return ""
    if field == "unsettled":
        return None
    if isinstance(value, list):  # one element each here: Arrays.toString
        [item] = value
        return f"[{printed(item, field.removeprefix('list of '))}]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if field == "float":
        return java_double(float(value))
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


contents_of = st.integers(1, 3).flatmap(
    lambda fields: st.lists(
        st.lists(
            st.lists(st.sampled_from(VALUES), min_size=fields, max_size=fields),
            min_size=1,
            max_size=4,
        ),
        min_size=1,
        max_size=4,
    )
)


def _line(row: list[Any]) -> str:
    return json.dumps({f"f{i}": v for i, v in enumerate(row) if v is not _MISSING})


@settings(max_examples=200, deadline=None)
@given(contents_of, st.booleans())
def test_every_value_is_printed_as_nifi_types_it(
    contents: list[list[list[Any]]], arrays: bool
) -> None:
    with TestRunner("ConvertRecord") as runner:
        runner.add_controller_service("reader", "JsonTreeReader", {})
        runner.add_controller_service("writer", "CSVRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        for rows in contents:
            if arrays:  # a JSON array of objects, decoded as a whole
                runner.enqueue("[" + ",".join(_line(row) for row in rows) + "]")
            else:  # JSON lines, read alone or in bulk
                runner.enqueue("".join(_line(row) + "\n" for row in rows))
        runner.run()
        assert runner.get_flowfiles_for_relationship("failure") == []
        outputs = runner.get_flowfiles_for_relationship("success")
        assert len(outputs) == len(contents)
        for rows, out in zip(contents, outputs, strict=True):
            if any(all(v is None or v is _MISSING for v in row) for row in rows):
                continue  # a record with no values is an empty line: not asserted
            fields = len(rows[0])
            kinds = [field_kind([row[i] for row in rows]) for i in range(fields)]
            parsed = list(csv.DictReader(io.StringIO(out.text())))
            assert len(parsed) == len(rows), out.text()
            for row, record in zip(rows, parsed, strict=True):
                for i, value in enumerate(row):
                    name = f"f{i}"
                    want = printed(value, kinds[i])
                    if want is None or (name not in record and want == ""):
                        continue
                    assert record[name] == want, (rows, kinds[i], value, out.text())
