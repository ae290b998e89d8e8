"""RecordPath: a date, time or timestamp turned into text where NiFi turns it.

NiFi's functions that take text (concat, substring..., padLeft, trim, hash, the filters)
call ``DataTypeUtils.toString(value, null)``, which gives a date's epoch milliseconds;
``toString``, ``uuid5``, ``mapOf`` and ``=`` with a number call Java's ``toString()``
(``java.sql.Timestamp``: ``2024-01-31 10:00:00.123``); ``escapeJson`` is Jackson's.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest

from processors.record_processors.record_path import (
    FieldValue,
    RecordPathError,
    compile_record_path,
    records_of,
    root_of,
)

SCHEMA = pa.schema(
    [
        ("at", pa.timestamp("ms", tz="UTC")),
        ("day", pa.date32()),
        ("clock", pa.time32("ms")),
        ("millis", pa.int64()),
    ]
)
AT = "1706695200123"  # 2024-01-31T10:00:00.123Z
DAY = "1706659200000"  # 2024-01-31
CLOCK = "36000500"  # 10:00:00.5


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The system's zone is UTC (Timestamp.toString renders in it, as the JVM's)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _root() -> FieldValue:
    row = {
        "at": dt.datetime(2024, 1, 31, 10, 0, 0, 123000, tzinfo=dt.UTC),
        "day": dt.date(2024, 1, 31),
        "clock": dt.time(10, 0, 0, 500000),
        "millis": int(AT),
    }
    table = pa.Table.from_pylist([row], schema=SCHEMA)
    return root_of(records_of(table)[0], SCHEMA)


def _values(path: str) -> list[Any]:
    return [v.value for v in compile_record_path(path).select(_root())]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        # DataTypeUtils.toString(value, null): epoch milliseconds
        ("concat(/at, '')", [AT]),
        ("concat(/day, '|', /clock)", [f"{DAY}|{CLOCK}"]),
        ("substring(/at, 0, 4)", ["1706"]),
        ("substringBefore(/at, '0')", ["17"]),
        ("substringAfterLast(/day, '9')", ["200000"]),
        ("replace(/at, '123', 'x')", ["1706695200x"]),
        ("replaceRegex(/clock, '0+', '-')", ["36-5-"]),
        ("padLeft(/clock, 10, '0')", ["0036000500"]),
        ("trim(/at)", [AT]),
        ("toUpperCase(/day)", [DAY]),
        ("hash(/at, 'SHA-256')", [hashlib.sha256(AT.encode()).hexdigest()]),
        # Java's toString()
        ("toString(/at, 'UTF-8')", ["2024-01-31 10:00:00.123"]),
        ("toString(/day, 'UTF-8')", ["2024-01-31"]),
        ("toString(/clock, 'UTF-8')", ["10:00:00"]),
        ("uuid5(/at)", [str(uuid.uuid5(uuid.UUID(int=0), "2024-01-31 10:00:00.123"))]),
        ("mapOf('a', /day, 'b', /clock)['a']", ["2024-01-31"]),
        ("mapOf('a', /missing)['a']", ["null"]),
        # Jackson: java.sql.Date and Timestamp as numbers, java.sql.Time as its text
        ("escapeJson(/day)", [DAY]),
        ("escapeJson(/clock)", ['"10:00:00"']),
        ("escapeJson(/at)", [AT]),
        # format(): a time is a java.util.Date too
        ("format(/clock, 'HH:mm:ss.SSS', 'UTC')", ["10:00:00.500"]),
    ],
)
def test_temporal_text(path: str, expected: list[Any]) -> None:
    assert _values(path) == expected


@pytest.mark.parametrize(
    ("path", "matches"),
    [
        ("/at[contains(., '0123')]", True),
        ("/at[startsWith(., '2024')]", False),
        ("/day[matchesRegex(., '\\d+')]", True),
        ("/clock[endsWith(., '500')]", True),
        # `=` with a number compares Java's toString() texts: never the epoch millis
        (f"/at[. = {AT}]", False),
        # ordering compares getTime() as longs, dates and times included
        (f"/day[. < {AT}]", True),
        ("/clock[. > 36000000]", True),
        ("/at[. = /at]", True),
    ],
)
def test_filters_on_temporal_values(path: str, matches: bool) -> None:
    assert bool(_values(path)) is matches


@pytest.mark.parametrize(
    "path", ["toBytes(/at, 'UTF-8')", "base64Encode(/day)", "base64Decode(/millis)"]
)
def test_functions_refusing_temporal_values(path: str) -> None:
    """NiFi's toBytes takes only text, base64Encode/base64Decode text or bytes."""
    with pytest.raises(RecordPathError, match="must be a String"):
        _values(path)
