"""Which values the CSVReader's inference takes for numbers, as NiFi's does.

NiFi infers a number only for what ``NumberUtils.isParsable`` accepts; pyarrow also reads
an exponent, a leading plus sign and a trailing point. A column holding one is text. One
pass over the bytes rules such values out before any column is read again as text: if
it missed one, that value would be rewritten (``1e3`` as ``1000.0``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

from processors.record import csv_format
from processors.record.csv_format import CSVReader
from tests.processors.record.conftest import read_all

Enable = Callable[..., Any]

COMMA = pacsv.ParseOptions(delimiter=",", quote_char='"')
TAB = pacsv.ParseOptions(delimiter="\t", quote_char=False)


@pytest.mark.parametrize(
    ("data", "options"),
    [
        (b"a,1e5\n", COMMA),
        (b"1E-3", COMMA),
        (b'a,"2.5e+7"\n', COMMA),
        (b"x, -2.5e-7 ,y", COMMA),
        (b"a,.5e3\n", COMMA),
        (b"a,+5\n", COMMA),
        (b"+.5", COMMA),
        (b"a,5.\n", COMMA),
        (b"a,-7.\r\n", COMMA),
        (b"a\t1e5\tb\n", TAB),
        (b"a\t3.\n", TAB),
        (b"a,0x1F\n", COMMA),
        (b"0X1f", COMMA),
    ],
)
def test_a_number_nifi_does_not_parse_is_found(data: bytes, options: pacsv.ParseOptions) -> None:
    assert csv_format._may_hold_other_numbers(data, options, "UTF-8")


@pytest.mark.parametrize(
    ("data", "options"),
    [
        (b"a,5.5\n-3,.5\n", COMMA),
        (b"4e5a0c1e-1f2b,x\n", COMMA),  # a uuid's digits and letters
        (b"a,2024-05-01T12:00:00+02:00\n", COMMA),  # a time zone offset
        (b"a,b+c,e.g. this\n", COMMA),
        (b"a,1e5x\n", COMMA),
        (b"a;1e5\n", COMMA),  # not a separator here: one text value
    ],
)
def test_text_that_only_looks_like_one_is_not(data: bytes, options: pacsv.ParseOptions) -> None:
    assert not csv_format._may_hold_other_numbers(data, options, "UTF-8")


def test_another_encoding_is_always_checked_value_by_value() -> None:
    assert csv_format._may_hold_other_numbers(b"a,5.5\n", COMMA, "UTF-16")


def test_with_a_semicolon_separator_the_column_is_text(enable: Enable) -> None:
    reader = enable(CSVReader, **{"Treat First Line as Header": "true", "Value Separator": ";"})
    table = read_all(reader, b"id;p;q\n1;1e5;2.5\n2;3;4\n")
    assert table.schema.field("p").type == pa.string()
    assert table.column("p").to_pylist() == ["1e5", "3"]
    assert table.schema.field("q").type == pa.float64()
