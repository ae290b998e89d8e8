"""CSVRecordSetWriter prints floating-point fields as NiFi does: Java's Double.toString
and Float.toString (Commons CSV prints a Number by its toString), whatever path writes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from processors.record.csv_format import CSVRecordSetWriter

DOUBLES = [8.0, 2.5, 12345678.5, 1e-4, 1e16, -0.0, 0.1, math.nan, math.inf, -math.inf, None]
JAVA = ["8.0", "2.5", "1.23456785E7", "1.0E-4", "1.0E16", "-0.0", "0.1", "NaN", "Infinity"]
JAVA += ["-Infinity", ""]


def _write(
    enable_with: Callable[..., Any], write_records: Any, table: pa.Table, **props: str
) -> str:
    writer = enable_with(CSVRecordSetWriter, props)
    out, _ = write_records(writer, table)
    return str(out.decode())


@pytest.mark.parametrize("rows", [1, 400])  # a few records (Python), many (Arrow kernels)
@pytest.mark.parametrize("text", ["plain", "a, b"])  # nothing to quote (pyarrow), quotes
def test_doubles_as_java_prints_them(
    enable_with: Callable[..., Any], write_records: Any, rows: int, text: str
) -> None:
    table = pa.table({"d": DOUBLES * rows, "s": [text] * (len(DOUBLES) * rows)})
    lines = _write(enable_with, write_records, table).splitlines()
    quoted = f'"{text}"' if "," in text else text
    assert lines[0] == "d,s"
    assert lines[1:] == [f"{java},{quoted}" for java in JAVA] * rows


def test_floats_as_java_prints_them(enable_with: Callable[..., Any], write_records: Any) -> None:
    # NiFi's TestWriteCSVResult: a float 8.0F and a double 8.0D are both written 8.0
    table = pa.table({"f": pa.array([8.0, 0.1, 1e10, 1.4e-45], pa.float32()), "i": [1, 2, 3, 4]})
    lines = _write(enable_with, write_records, table).splitlines()
    assert lines == ["f,i", "8.0,1", "0.1,2", "1.0E10,3", "1.4E-45,4"]


@pytest.mark.parametrize(("mode", "expected"), [("ALL", '"8.0","1"'), ("NONE", "8.0,1")])
def test_other_quote_modes(
    enable_with: Callable[..., Any], write_records: Any, mode: str, expected: str
) -> None:
    table = pa.table({"d": [8.0], "i": [1]})
    lines = _write(enable_with, write_records, table, **{"Quote Mode": mode}).splitlines()
    assert lines[1] == expected


def test_non_numeric_quotes_the_header_and_text_not_numbers(
    enable_with: Callable[..., Any], write_records: Any
) -> None:
    # NiFi's TestWriteCSVResult.testNumbersNotQuoted
    table = pa.table({"name": ["John Doe"], "age": [30]})
    text = _write(enable_with, write_records, table, **{"Quote Mode": "NON_NUMERIC"})
    assert text == '"name","age"\n"John Doe",30\n'
    assert _write(enable_with, write_records, table) == "name,age\nJohn Doe,30\n"
