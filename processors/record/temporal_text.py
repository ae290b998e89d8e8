"""Dates, times and timestamps as text in a Java DateTimeFormatter pattern, with kernels.

NiFi's writers format a date, time or timestamp with the writer's Date/Time/Timestamp
Format in the JVM's default time zone, and with no format write its epoch milliseconds
(``java.util.Date.getTime``: a date at its midnight, a time on 1970-01-01); flowcore
takes that zone to be UTC (its readers make a timestamp from epoch milliseconds in UTC).
A pattern is compiled once into pieces (literal text, or one field of the value: year,
month, ..., fraction of the second) and a column is formatted by computing each field
for all values at once and joining them, so no Python object is made per value. Month
and day names are English (Locale.US).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from flowcore.el.dates import DAY_NAMES, MONTH_NAMES
from processors.record.temporal import TemporalFormatError

_TOKEN = re.compile(r"'(?:[^']|'')*'|([a-zA-Z])\1*")
_UNITS_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
_UNITS_PER_MILLI = {"ms": 1, "us": 1_000, "ns": 1_000_000}
_MILLIS_PER_DAY = 86_400_000

Field = Callable[[pa.Array], pa.Array]
"""One field of a naive timestamp column (UTC), as text."""


def _number(field: Callable[[pa.Array], pa.Array], width: int) -> Field:
    def text(moments: pa.Array) -> pa.Array:
        digits = field(moments).cast(pa.string())
        return pc.utf8_lpad(digits, width, "0") if width > 1 else digits

    return text


def _named(field: Callable[[pa.Array], pa.Array], names: Sequence[str], base: int) -> Field:
    table = pa.array(names, pa.string())

    def text(moments: pa.Array) -> pa.Array:
        return table.take(pc.subtract(field(moments), base))

    return text


def _nanos_of_second(moments: pa.Array) -> pa.Array:
    unit = moments.type.unit
    per = _UNITS_PER_SECOND[unit]
    values = moments.view(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
    nanos = np.mod(values, per) * (1_000_000_000 // per)
    return pa.array(nanos, pa.int64(), mask=moments.is_null().to_numpy(zero_copy_only=False))


def _fraction(width: int) -> Field:
    def text(moments: pa.Array) -> pa.Array:
        digits = pc.divide(_nanos_of_second(moments), 10 ** (9 - width)).cast(pa.string())
        return pc.utf8_lpad(digits, width, "0")

    return text


def _clock_hour(moments: pa.Array) -> pa.Array:
    hour = pc.remainder(pc.hour(moments), 12)
    return pc.if_else(pc.equal(hour, 0), 12, hour)


def _am_pm(moments: pa.Array) -> pa.Array:
    return pc.if_else(pc.less(pc.hour(moments), 12), "AM", "PM")


def _two_digit_year(moments: pa.Array) -> pa.Array:
    return pc.remainder(pc.year(moments), 100)


# The zone is UTC: what each zone letter prints for an offset of zero.
_ZONES = {
    "X": "Z",
    "XX": "Z",
    "XXX": "Z",
    "x": "+00",
    "xx": "+0000",
    "xxx": "+00:00",
    "Z": "+0000",
    "ZZ": "+0000",
    "ZZZ": "+0000",
    "ZZZZZ": "Z",
    "z": "UTC",
    "zz": "UTC",
    "zzz": "UTC",
}


def _field(token: str) -> Field | str | None:
    """The field (or fixed text) a run of one pattern letter stands for, or None."""
    letter, count = token[0], len(token)
    if token in _ZONES:
        return _ZONES[token]
    if letter in "yu":
        return _number(_two_digit_year, 2) if count == 2 else _number(pc.year, count)
    if letter in "MLE" and count > 4:
        return None  # narrow names
    if letter in "ML":
        if count == 4:
            return _named(pc.month, MONTH_NAMES, 1)
        if count == 3:
            return _named(pc.month, [m[:3] for m in MONTH_NAMES], 1)
        return _number(pc.month, count)
    if letter == "E":
        names = DAY_NAMES if count == 4 else [d[:3] for d in DAY_NAMES]
        return _named(pc.day_of_week, names, 0)
    if letter == "a" and count == 1:
        return _am_pm
    if letter == "S" and count <= 9:
        return _fraction(count)
    if count > 2 and letter in "dHhms":
        return None
    simple = {
        "d": pc.day,
        "H": pc.hour,
        "h": _clock_hour,
        "m": pc.minute,
        "s": pc.second,
    }.get(letter)
    if simple is not None:
        return _number(simple, count)
    if letter == "D" and count <= 3:
        return _number(pc.day_of_year, count)
    return None


@dataclass(frozen=True)
class JavaPattern:
    """A Java DateTimeFormatter pattern compiled into literal text and fields."""

    pattern: str
    pieces: tuple[Field | str, ...]

    @classmethod
    def compile(cls, pattern: str) -> JavaPattern:
        """The pattern's pieces; a letter flowcore cannot format is a ``TemporalFormatError``."""
        pieces: list[Field | str] = []
        position = 0
        for match in _TOKEN.finditer(pattern):
            pieces.append(pattern[position : match.start()])
            token = match.group(0)
            if token.startswith("'"):
                pieces.append(token[1:-1].replace("''", "'") if len(token) > 2 else "'")
            else:
                field = _field(token)
                if field is None:
                    msg = f"date/time pattern letters '{token}' of '{pattern}' are not supported"
                    raise TemporalFormatError(msg)
                pieces.append(field)
            position = match.end()
        pieces.append(pattern[position:])
        return cls(pattern, tuple(piece for piece in pieces if piece != ""))

    def format(self, moments: pa.Array) -> pa.Array:
        """Each moment's text (null where null); ``moments`` is a naive timestamp column
        holding UTC wall-clock time."""
        parts: list[pa.Array | str] = [
            piece if isinstance(piece, str) else piece(moments) for piece in self.pieces
        ]
        if not any(isinstance(part, pa.Array) for part in parts):
            literal = "".join(str(part) for part in parts)
            return pc.if_else(moments.is_valid(), literal, pa.scalar(None, pa.string()))
        return pc.binary_join_element_wise(*parts, "")


def is_date_time(kind: pa.DataType) -> bool:
    """Whether ``kind`` is a date, a time or a timestamp (NiFi's DATE, TIME, TIMESTAMP)."""
    types = pa.types
    return bool(types.is_date(kind) or types.is_time(kind) or types.is_timestamp(kind))


def _floor_divide(values: pa.Array, divisor: int) -> pa.Array:
    """Integer division rounding down (a moment before the epoch is the millisecond
    before, as Java's ``getTime``)."""
    numbers = values.fill_null(0).to_numpy(zero_copy_only=False)
    mask = values.is_null().to_numpy(zero_copy_only=False)
    return pa.array(np.floor_divide(numbers, divisor), pa.int64(), mask=mask)


def epoch_millis(column: pa.Array) -> tuple[pa.Array, pa.Array]:
    """A date, time or timestamp column as epoch milliseconds (what NiFi's
    ``getTime()`` gives: a date at midnight UTC, a time on 1970-01-01; anything finer cut
    to the millisecond, rounding down) and as moments to format (naive timestamps, UTC;
    a timestamp keeps its precision)."""
    t = column.type
    types = pa.types
    if types.is_date32(t):
        millis = pc.multiply(column.view(pa.int32()).cast(pa.int64()), _MILLIS_PER_DAY)
    elif types.is_date64(t):
        millis = column.view(pa.int64())
    else:
        raw = column.view(pa.int32() if types.is_time32(t) else pa.int64()).cast(pa.int64())
        if t.unit == "s":
            millis = pc.multiply(raw, 1000)
        elif t.unit == "ms":
            millis = raw
        else:
            millis = _floor_divide(raw, _UNITS_PER_MILLI[t.unit])
        if types.is_timestamp(t):
            return millis, raw.view(pa.timestamp(t.unit))
    return millis, millis.view(pa.timestamp("ms"))


@dataclass(frozen=True)
class TemporalFormats:
    """A writer's Date Format, Time Format and Timestamp Format (None: unset)."""

    date: JavaPattern | None = None
    time: JavaPattern | None = None
    timestamp: JavaPattern | None = None

    def pattern(self, kind: pa.DataType) -> JavaPattern | None:
        """The format for a date, time or timestamp type."""
        if pa.types.is_date(kind):
            return self.date
        return self.time if pa.types.is_time(kind) else self.timestamp

    def text(self, column: pa.Array) -> pa.Array:
        """A date, time or timestamp column as the text NiFi's ``DataTypeUtils.toString``
        gives: with no format the epoch milliseconds, with one the formatted text."""
        millis, moments = epoch_millis(column)
        pattern = self.pattern(column.type)
        return millis.cast(pa.string()) if pattern is None else pattern.format(moments)


NO_FORMATS = TemporalFormats()
