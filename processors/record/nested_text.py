"""Records, lists and maps as text, as NiFi's CSV writer prints them.

A CSV value is text, so NiFi prints a nested value with Java's ``toString``: a record as
its serialized form (the JSON text of the object it was read from; ``{"c":true}``), a list
as ``Arrays.toString`` (``[a, 1, 2.5]``: each element's own text, a text unquoted, a
missing one ``null``), a map as ``Map.toString`` (``{k=v, l=w}``), bytes as the array of
signed bytes NiFi holds them in (``[97, 98, -1]``; they failed as text that is not UTF-8,
or were written raw). Nested columns are rare and small, so their values are printed
one at a time.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pyarrow as pa

from processors.record.avro_union import child_of, rows_of
from processors.record.json_numbers import java_value_text

_ENCODER = msgspec.json.Encoder()


def is_nested(kind: pa.DataType) -> bool:
    """A struct, list or map type, or bytes (which NiFi holds as an array of bytes)."""
    types = pa.types
    return bool(
        types.is_struct(kind)
        or types.is_list(kind)
        or types.is_large_list(kind)
        or types.is_fixed_size_list(kind)
        or types.is_map(kind)
        or types.is_union(kind)
        or _is_bytes(kind)
    )


def _is_bytes(kind: pa.DataType) -> bool:
    types = pa.types
    return bool(
        types.is_binary(kind)
        or types.is_large_binary(kind)
        or types.is_fixed_size_binary(kind)
        or types.is_binary_view(kind)
    )


def _bytes_text(value: bytes) -> str:
    """Bytes as NiFi prints them: its record holds them as a ``Byte[]``, which
    ``Arrays.toString`` prints as signed numbers (``[97, 98, -1]``)."""
    return "[" + ", ".join(str(b - 256 if b > 127 else b) for b in value) + "]"


def nested_text(column: pa.Array) -> pa.Array:
    """Each value of a struct, list, map or union column as NiFi prints it; null where
    null (a union's value as its branch's type prints it: NiFi's CHOICE)."""
    kind = column.type
    if pa.types.is_union(kind):
        return pa.array(
            [None if value is None else _element(value, child) for value, child in rows_of(column)],
            pa.string(),
        )
    return pa.array(
        [None if value is None else _text(value, kind) for value in column.to_pylist()],
        pa.string(),
    )


def _text(value: Any, kind: pa.DataType) -> str:
    if pa.types.is_union(kind):  # nested in a record, list or map: the value's own branch
        return _element(value, kind.field(child_of(value, kind)).type)
    if _is_bytes(kind):
        return _bytes_text(value)
    if pa.types.is_struct(kind):
        return _ENCODER.encode(value).decode()
    if pa.types.is_map(kind):
        pairs = (
            f"{_element(key, kind.key_type)}={_element(item, kind.item_type)}"
            for key, item in value
        )
        return "{" + ", ".join(pairs) + "}"
    return "[" + ", ".join(_element(item, kind.value_type) for item in value) + "]"


def _element(value: Any, kind: pa.DataType) -> str:
    """One element as Java's ``String.valueOf`` prints it."""
    if value is None:
        return "null"
    if is_nested(kind):
        return _text(value, kind)
    return java_value_text(value, kind)
