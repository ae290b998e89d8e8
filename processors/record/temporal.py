"""Values read as JSON text or numbers, made into the types a given schema asks for.

NiFi's readers turn a string into a date, time or timestamp with the reader's Date Format,
Time Format or Timestamp Format (Java DateTimeFormatter patterns), or ISO 8601 when none is
set; a number into a date, time or timestamp as milliseconds since the epoch; and a number
into a decimal exactly. ``java_to_strptime`` translates the common pattern letters.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from collections.abc import Callable
from typing import Any

import msgspec
import pyarrow as pa

from processors.record.json_numbers import java_text

_TOKENS: dict[str, str] = {
    "yyyy": "%Y",
    "uuuu": "%Y",
    "yy": "%y",
    "MMMM": "%B",
    "MMM": "%b",
    "MM": "%m",
    "M": "%m",
    "dd": "%d",
    "d": "%d",
    "HH": "%H",
    "H": "%H",
    "hh": "%I",
    "h": "%I",
    "mm": "%M",
    "m": "%M",
    "ss": "%S",
    "s": "%S",
    "SSSSSS": "%f",
    "SSS": "%f",
    "a": "%p",
    "EEEE": "%A",
    "EEE": "%a",
    "XXX": "%z",
    "XX": "%z",
    "X": "%z",
    "ZZZZZ": "%z",
    "Z": "%z",
    "z": "%Z",
}
_TOKEN = re.compile(r"'[^']*'|([a-zA-Z])\1*")


class TemporalFormatError(ValueError):
    """A pattern letter flowcore cannot translate."""


def java_to_strptime(pattern: str) -> str:
    """A Java DateTimeFormatter pattern as a ``strptime`` format (``'T'`` literals kept)."""
    out: list[str] = []
    position = 0
    for match in _TOKEN.finditer(pattern):
        out.append(pattern[position : match.start()].replace("%", "%%"))
        token = match.group(0)
        if token.startswith("'"):
            literal = token[1:-1] or "'"
            out.append(literal.replace("%", "%%"))
        elif token in _TOKENS:
            out.append(_TOKENS[token])
        else:
            msg = f"date/time pattern letters '{token}' of '{pattern}' are not supported"
            raise TemporalFormatError(msg)
        position = match.end()
    out.append(pattern[position:].replace("%", "%%"))
    return "".join(out)


def _parse_datetime(text: str, fmt: str | None) -> dt.datetime:
    if fmt is not None:
        # A pattern without an offset gives a local date-time, as Java's LocalDateTime.
        return dt.datetime.strptime(text, fmt)  # noqa: DTZ007
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def converter(
    data_type: pa.DataType, date: str | None, time: str | None, timestamp: str | None
) -> Callable[[Any], Any] | None:
    """How to turn a decoded JSON value into ``data_type``, or None when Arrow's own
    conversion does (formats are strptime formats)."""
    t = pa.types
    if t.is_decimal(data_type):

        def to_decimal(value: Any) -> Any:
            if isinstance(value, float):
                return decimal.Decimal(repr(value))
            if isinstance(value, int | str):
                return decimal.Decimal(value)
            return value

        return to_decimal
    if t.is_date(data_type):

        def to_date(value: Any) -> Any:
            if isinstance(value, str):
                if date is not None:
                    return dt.datetime.strptime(value, date).date()  # noqa: DTZ007
                return dt.date.fromisoformat(value)
            if isinstance(value, int | decimal.Decimal):
                return dt.datetime.fromtimestamp(int(value) / 1000, dt.UTC).date()
            return value

        return to_date
    if t.is_time(data_type):

        def to_time(value: Any) -> Any:
            if isinstance(value, str):
                if time is not None:
                    return dt.datetime.strptime(value, time).time()  # noqa: DTZ007
                return dt.time.fromisoformat(value)
            if isinstance(value, int | decimal.Decimal):
                millis = int(value)
                epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
                return (epoch + dt.timedelta(milliseconds=millis)).time()
            return value

        return to_time
    if t.is_timestamp(data_type):

        def to_timestamp(value: Any) -> Any:
            if isinstance(value, str):
                parsed = _parse_datetime(value, timestamp)
                if data_type.tz is not None and parsed.tzinfo is None:
                    parsed = parsed.replace(tzinfo=dt.UTC)
                return parsed
            if isinstance(value, int | decimal.Decimal):
                moment = dt.datetime.fromtimestamp(int(value) / 1000, dt.UTC)
                return moment if data_type.tz is not None else moment.replace(tzinfo=None)
            return value

        return to_timestamp
    return None


def coercer(data_type: pa.DataType) -> Callable[[Any], Any] | None:
    """How NiFi's reader coerces a JSON value of another kind into a text, integer,
    floating-point or Boolean field (``DataTypeUtils.convertType``): a number or a
    Boolean to its text, a text to the number or Boolean it spells, a double to an
    integer by truncation; None for other types. A value that does not convert raises
    ``ValueError``."""
    t = pa.types
    if t.is_string(data_type) or t.is_large_string(data_type):
        return _to_text
    if t.is_integer(data_type):
        return _to_integer
    if t.is_floating(data_type):
        return _to_float
    if t.is_boolean(data_type):
        return _to_boolean
    return None


def _to_text(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_text(value, single=False, scientific=True)
    if isinstance(value, int):
        return str(value)
    return msgspec.json.encode(value).decode()  # an object or an array: its JSON text


def _to_integer(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError(f"cannot convert {value!r} to an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)  # Java's Number.intValue/longValue truncate
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise ValueError(f"cannot convert {value!r} to an integer")


def _to_float(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError(f"cannot convert {value!r} to a number")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise ValueError(f"cannot convert {value!r} to a number")


def _to_boolean(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"cannot convert {value!r} to a Boolean")


def arrow_reads_json(schema: pa.Schema, timestamp_format: str | None) -> bool:
    """Whether Arrow's JSON reader fills every top-level field itself: decimals from
    numbers or text and ISO 8601 timestamps it does; dates, times and formatted
    timestamps it does not."""
    t = pa.types
    for f in schema:
        if t.is_date(f.type) or t.is_time(f.type):
            return False
        if t.is_timestamp(f.type) and timestamp_format is not None:
            return False
    return True
