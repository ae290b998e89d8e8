"""JSON text of Arrow records, made with Arrow compute kernels.

Each column becomes the JSON text of its values; one element-wise join then lays each
record out between literal text (member names, quotes, commas, braces), so the calls are
paid per column of a batch, not per record, and no Python object is made per field
(nested and binary columns fall back to msgspec per value). The text is what
JsonRecordSetWriter writes: Jackson's compact form, strings escaped as Jackson escapes
them (``\\"``, ``\\\\``, ``\\n``... and ``\\u00XX`` for the other control characters,
everything else as UTF-8), a whole double with ``.0``, a non-finite double as null.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_CONTROL = [chr(c) for c in range(32)]
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_WHOLE = "^-?[0-9]+$"
"""A double's text without a fraction or exponent: JSON needs ``.0`` to keep it a double."""


def member_name(name: str) -> str:
    """A member name as written before its value: ``"name":``."""
    return msgspec.json.encode(name).decode() + ":"


def _needs_escape(column: pa.Array) -> bool:
    """Whether any byte of the string column's data is a quote, a backslash or a control
    character (one pass over the data; the text of a null slot counts too, harmlessly)."""
    buffers = column.buffers()
    if not len(column) or len(buffers) < 3 or buffers[2] is None or buffers[1] is None:
        return False
    offsets = np.frombuffer(buffers[1], dtype=np.int32)
    first, last = offsets[column.offset], offsets[column.offset + len(column)]
    data = np.frombuffer(buffers[2], dtype=np.uint8)[first:last]
    return bool(((data < 0x20) | (data == 0x22) | (data == 0x5C)).any())


def _escaped(column: pa.Array) -> pa.Array:
    """A string column with JSON escapes applied (no quotes added; nulls stay null)."""
    if not _needs_escape(column):
        return column
    if pc.any(pc.match_substring(column, "\\")).as_py():
        column = pc.replace_substring(column, "\\", "\\\\")
    if pc.any(pc.match_substring(column, '"')).as_py():
        column = pc.replace_substring(column, '"', '\\"')
    if pc.any(pc.match_substring_regex(column, "[\\x00-\\x1f]")).as_py():
        for char in _CONTROL:
            escape = _SHORT_ESCAPES.get(char, f"\\u{ord(char):04x}")
            column = pc.replace_substring(column, char, escape)
    return column


class ColumnText(NamedTuple):
    """A column's JSON text, value by value."""

    text: pa.Array
    """Each value's text; null where the value is null (or cannot be written)."""
    quoted: bool
    """Whether the text still needs its double quotes (strings, temporal values)."""
    suffix: pa.Array | None = None
    """Text to write after each value (``.0`` after a whole double), if any."""


def _double_text(column: pa.Array) -> ColumnText:
    """A floating-point column's JSON text: null when not finite, ``.0`` after a whole
    number written without an exponent (found among the whole numbers only, so a column
    with few costs little)."""
    text = column.cast(pa.string())
    finite = pc.is_finite(column)
    if not pc.all(finite).as_py():
        text = pc.if_else(finite, text, pa.scalar(None, pa.string()))
    whole = pc.equal(column, pc.floor(column)).fill_null(False)
    if not pc.any(whole).as_py():
        return ColumnText(text, False)
    positions = np.flatnonzero(whole.to_numpy(zero_copy_only=False))
    plain = pc.match_substring_regex(text.take(positions), _WHOLE).fill_null(False)
    positions = positions[plain.to_numpy(zero_copy_only=False)]
    if not len(positions):
        return ColumnText(text, False)
    marked = np.zeros(len(column) + 1, dtype=np.int32)
    marked[positions + 1] = 2
    offsets = pa.py_buffer(np.cumsum(marked, dtype=np.int32))
    data = pa.py_buffer(b".0" * len(positions))
    after = pa.Array.from_buffers(pa.string(), len(column), [None, offsets, data])
    return ColumnText(text, False, after)


def column_text(column: pa.Array) -> ColumnText:
    """Each value's JSON text (null where the value is null), see ``ColumnText``."""
    t = column.type
    types = pa.types
    if types.is_dictionary(t):
        return column_text(column.dictionary_decode())
    if types.is_null(t):
        return ColumnText(pa.nulls(len(column), pa.string()), False)
    if types.is_string(t) or types.is_large_string(t) or types.is_string_view(t):
        return ColumnText(_escaped(column.cast(pa.string())), True)
    if types.is_boolean(t) or types.is_integer(t) or types.is_decimal(t):
        return ColumnText(column.cast(pa.string()), False)
    if types.is_floating(t):
        return _double_text(column)
    if types.is_temporal(t) and not types.is_duration(t) and not types.is_interval(t):
        # digits, '-', ':', '.', ' ' and a zone: nothing to escape
        return ColumnText(column.cast(pa.string()), True)
    # Nested, binary and the rest: one value at a time (msgspec; bytes become base64).
    encoder = msgspec.json.Encoder()
    values = [None if v is None else encoder.encode(v).decode() for v in column.to_pylist()]
    return ColumnText(pa.array(values, pa.string()), False)


def render_rows(
    batch: pa.RecordBatch, names: Sequence[str], prefix: str, suffix: str, suppress_nulls: bool
) -> pa.Array:
    """One string per record: ``prefix``, its members (``names`` are the member names as
    written, ``member_name``), ``suffix``. With ``suppress_nulls`` a null member is left
    out; otherwise it is written as ``null``."""
    if batch.num_columns == 0:
        return pa.array([prefix + suffix] * batch.num_rows, pa.string())
    texts = [column_text(column) for column in batch.columns]
    if suppress_nulls and any(column.text.null_count for column in texts):
        return _render_sparse(texts, names, prefix, suffix)
    pieces: list[Any] = []
    literal = prefix
    for index, (name, (text, quoted, after)) in enumerate(zip(names, texts, strict=True)):
        literal += ("," if index else "") + name
        if text.null_count:
            if quoted:
                text = pc.binary_join_element_wise('"', text, '"', "")
            pieces += [literal, text.fill_null("null")]
            literal = ""
        elif quoted:
            pieces += [literal + '"', text]
            literal = '"'
        else:
            pieces += [literal, text]
            literal = ""
        if after is not None:
            pieces += [literal, after]
            literal = ""
    pieces.append(literal + suffix)
    return pc.binary_join_element_wise(*pieces, "")


def _render_sparse(
    texts: list[ColumnText], names: Sequence[str], prefix: str, suffix: str
) -> pa.Array:
    """Records whose null members are left out: each member alone, then joined."""
    fragments: list[pa.Array] = []
    for name, (text, quoted, after) in zip(names, texts, strict=True):
        if quoted:
            text = pc.binary_join_element_wise('"', text, '"', "")
        if after is not None:
            text = pc.binary_join_element_wise(text, after, "")
        fragments.append(pc.binary_join_element_wise(name, text, ""))
    body = pc.binary_join_element_wise(*fragments, ",", null_handling="skip").fill_null("")
    return pc.binary_join_element_wise(prefix, body, suffix, "")
