"""FieldValue: one value a RecordPath selected, with where it lives so it can be updated.

Records are Python dictionaries (Arrow structs), arrays are lists, maps are dictionaries
whose Arrow type is a map. A FieldValue knows its name, its parent FieldValue (for
``..``), the container holding it and its key there (for ``update``), and its Arrow type
when the schema gives one.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import decimal
import json
import re
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from flowcore.el.values import java_double_str


@dataclass(slots=True)
class FieldValue:
    """A selected value; ``container[key]`` is where it is stored (None: computed)."""

    value: Any
    name: str
    parent: FieldValue | None = None
    container: dict[str, Any] | list[Any] | None = None
    key: str | int | None = None
    dtype: pa.DataType | None = None
    missing: bool = False
    """A field the record's schema lacks (or an absent map key): updating it adds it, and
    it takes no part in comparisons."""

    @property
    def is_root(self) -> bool:
        return self.parent is None and self.container is None

    def update(self, value: Any) -> None:
        """Set the value where it lives (a missing field is added to its record)."""
        self.value = value
        container, key = self.container, self.key
        if isinstance(container, dict) and isinstance(key, str):
            container[key] = value
            return
        if isinstance(container, list) and isinstance(key, int):
            container[key] = value

    @property
    def type_name(self) -> str:
        """NiFi's RecordFieldType name of the value (UpdateRecord's ``field.type``)."""
        return type_name(self.value, self.dtype)


class JsonMap(dict[str, Any]):
    """A JSON object kept a Map, not made a Record (NiFi's unescapeJson without its
    convert-to-record argument, or the objects inside one it converts non-recursively):
    a Map replaces no record and goes into no record field."""


def is_record(value: FieldValue) -> bool:
    """A record (Arrow struct): a dictionary that is not a map."""
    return (
        isinstance(value.value, dict)
        and not isinstance(value.value, JsonMap)
        and not (value.dtype is not None and pa.types.is_map(value.dtype))
    )


def is_map(value: FieldValue) -> bool:
    return isinstance(value.value, dict) and not is_record(value)


def child_type(dtype: pa.DataType | None, name: str) -> pa.DataType | None:
    if dtype is not None and pa.types.is_struct(dtype):
        index = dtype.get_field_index(name)
        if index >= 0:
            return dtype.field(index).type
    return None


def element_type(dtype: pa.DataType | None) -> pa.DataType | None:
    if dtype is not None and (
        pa.types.is_list(dtype)
        or pa.types.is_large_list(dtype)
        or pa.types.is_fixed_size_list(dtype)
    ):
        return dtype.value_type
    if dtype is not None and pa.types.is_map(dtype):
        return dtype.item_type
    return None


def type_name(value: Any, dtype: pa.DataType | None = None) -> str:
    """NiFi's RecordFieldType name (STRING, INT, LONG, ... RECORD, ARRAY, MAP)."""
    if dtype is not None:
        for test, name in _ARROW_NAMES:
            if test(dtype):
                return name
    if value is None:
        return "STRING"
    return _python_name(value)


_ARROW_NAMES = (
    (pa.types.is_boolean, "BOOLEAN"),
    (pa.types.is_int8, "BYTE"),
    (pa.types.is_int16, "SHORT"),
    (pa.types.is_int32, "INT"),
    (pa.types.is_integer, "LONG"),
    (pa.types.is_float32, "FLOAT"),
    (pa.types.is_floating, "DOUBLE"),
    (pa.types.is_decimal, "DECIMAL"),
    (pa.types.is_date, "DATE"),
    (pa.types.is_time, "TIME"),
    (pa.types.is_timestamp, "TIMESTAMP"),
    (pa.types.is_string, "STRING"),
    (pa.types.is_large_string, "STRING"),
    (pa.types.is_binary, "ARRAY"),
    (pa.types.is_struct, "RECORD"),
    (pa.types.is_map, "MAP"),
    (pa.types.is_list, "ARRAY"),
    (pa.types.is_large_list, "ARRAY"),
)


def _python_name(value: Any) -> str:
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "LONG" if not -(2**31) <= value < 2**31 else "INT"
    if isinstance(value, float):
        return "DOUBLE"
    if isinstance(value, decimal.Decimal):
        return "DECIMAL"
    if isinstance(value, dt.datetime):
        return "TIMESTAMP"
    if isinstance(value, dt.date):
        return "DATE"
    if isinstance(value, dt.time):
        return "TIME"
    if isinstance(value, dict):
        return "RECORD"
    if isinstance(value, list | tuple | bytes | bytearray):
        return "ARRAY"
    return "STRING"


JAVA_WHITESPACE = "".join(chr(code) for code in range(0x21))
"""What Java's ``String.trim()`` strips: every character up to and including a space."""


def java_trim(text: str) -> str:
    """``String.trim()``: control characters and spaces, not Unicode's other spaces."""
    return text.strip(JAVA_WHITESPACE)


_MILLIS_PER_DAY = 86_400_000


def epoch_millis(value: Any) -> int | None:
    """A date, time or timestamp as ``java.util.Date.getTime()`` gives it (None for any
    other value): a timestamp's instant (a naive one is UTC), a date at its midnight and a
    time on 1970-01-01, in UTC as flowcore's readers make them; finer than a millisecond
    is cut, rounding down."""
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        delta = aware - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
    if isinstance(value, dt.date):
        return (value.toordinal() - _EPOCH_ORDINAL) * _MILLIS_PER_DAY
    if isinstance(value, dt.time):
        seconds = value.hour * 3600 + value.minute * 60 + value.second
        return seconds * 1000 + value.microsecond // 1000
    return None


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()


def to_text(value: Any) -> str | None:
    """A value as NiFi's ``DataTypeUtils.toString(value, null)`` renders it (None stays
    None): a date, time or timestamp is its epoch milliseconds, as no format is given."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_str(value)  # Double.toString: 1.0E7, 1.0E-4, NaN, Infinity
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    millis = epoch_millis(value)
    if millis is not None:
        return str(millis)
    if isinstance(value, dict):
        return json.dumps(value, default=str, separators=(",", ":"))
    if isinstance(value, list | tuple):
        return "[" + ", ".join(str(to_text(item)) for item in value) + "]"
    return str(value)


def java_string(value: Any) -> str | None:
    """A value as Java's ``toString()`` gives it (RecordPath's ``toString``, ``uuid5``,
    ``mapOf`` and ``=`` between a number and another value call it, not
    ``DataTypeUtils.toString``): a timestamp as ``java.sql.Timestamp.toString()``
    (``2024-01-31 10:00:00.123``, in the system's zone, as the JVM's), a date as
    ``yyyy-MM-dd``, a time as ``HH:mm:ss``; anything else as ``to_text``."""
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        local = aware.astimezone()
        fraction = f"{local.microsecond:06d}".rstrip("0") or "0"
        return f"{local:%Y-%m-%d %H:%M:%S}.{fraction}"
    if isinstance(value, dt.date):
        return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    if isinstance(value, dt.time):
        return f"{value:%H:%M:%S}"
    return to_text(value)


def as_bytes(value: Any, charset: str = "utf-8") -> bytes:
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    if isinstance(value, list):
        return bytes(value)
    return str(to_text(value)).encode(charset)


def b64(value: Any, encode: bool) -> Any:
    """base64Encode / base64Decode keep the kind of their input: text in, text out."""
    if isinstance(value, str):
        raw = value.encode("utf-8")
        if encode:
            return base64.b64encode(raw).decode("utf-8")
        # new String(bytes, UTF_8): a malformed sequence becomes U+FFFD
        return java_b64decode(raw).decode("utf-8", errors="replace")
    data = as_bytes(value)
    return base64.b64encode(data) if encode else java_b64decode(data)


_BASE64 = re.compile(rb"[A-Za-z0-9+/]*(={0,2})")


def java_b64decode(data: bytes) -> bytes:
    """``Base64.getDecoder().decode``: any character outside the alphabet is an error
    (Python would skip it), the padding is optional but must be right when present."""
    match = _BASE64.fullmatch(data)
    if match is None or len(data) % 4 == 1:
        msg = f"Illegal base64 input: {data[:40]!r}"
        raise ValueError(msg)
    if not match.group(1):
        data += b"=" * (-len(data) % 4)
    try:
        return base64.b64decode(data, validate=True)
    except binascii.Error as exc:
        msg = f"Illegal base64 input: {exc}"
        raise ValueError(msg) from None
