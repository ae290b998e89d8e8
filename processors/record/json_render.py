"""JSON text of Arrow records, made with Arrow compute kernels.

Each column becomes the JSON text of its values; one element-wise join then lays each
record out between literal text (member names, quotes, commas, braces), so the calls are
paid per column of a batch, not per record, and no Python object is made per field
(records, arrays and maps are rendered the same way, level by level; binary and other
columns fall back to msgspec per value). The text is what NiFi's JsonRecordSetWriter
writes (``JsonOptions``): Jackson's compact form, strings escaped as Jackson escapes them
(``\\"``, ``\\\\``, ``\\n``... and ``\\u00XX`` with upper-case hex for the other control
characters, everything else as UTF-8), numbers as Java writes them (``json_numbers``),
dates, times and timestamps as epoch milliseconds or in the writer's formats.
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from processors.record.avro_union import (
    DECIMAL,
    STRING,
    converted,
    gathered,
    has_union,
    nifi_type,
    text_choice,
    union_kinds,
)
from processors.record.json_numbers import NotWritableError, decimal_text, float_text
from processors.record.temporal_text import NO_FORMATS, TemporalFormats, epoch_millis

_CONTROL = [chr(c) for c in range(32)]
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_ESCAPES = {
    **{c: _SHORT_ESCAPES.get(chr(c), f"\\u{c:04X}") for c in range(32)},
    ord('"'): '\\"',
    ord("\\"): "\\\\",
}
_LONG = "^[+-]?[0-9]+$"

AUTO = "AUTO"
FORMATTED_STRING = "FORMATTED_STRING"
EPOCH_MILLISECONDS = "EPOCH_MILLISECONDS"
EPOCH_SECONDS = "EPOCH_SECONDS"


@dataclass(frozen=True)
class JsonOptions:
    """How numbers and temporal values are written (JsonRecordSetWriter's properties)."""

    scientific: bool = False
    """Allow Scientific Notation: doubles as ``Double.toString``, else plain decimals."""
    formats: TemporalFormats = NO_FORMATS
    """Date Format, Time Format and Timestamp Format."""
    timestamp_representation: str = AUTO
    """Timestamp Representation: AUTO, FORMATTED_STRING, EPOCH_MILLISECONDS or
    EPOCH_SECONDS."""
    serialized_forms: bool = True
    """Whether a record read from JSON is written from its serialized form (Serialized
    JSON Input Handling enabled, Automatic Timestamp Representation)."""


DEFAULT_OPTIONS = JsonOptions()


def json_string(text: str) -> str:
    """A string as Jackson writes it, quotes included."""
    return '"' + text.translate(_ESCAPES) + '"'


def member_name(name: str) -> str:
    """A member name as written before its value: ``"name":``."""
    return json_string(name) + ":"


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
            column = pc.replace_substring(column, char, _ESCAPES[ord(char)])
    return column


def _quoted(text: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise('"', _escaped(text), '"', "")


class ColumnText(NamedTuple):
    """A column's JSON text, value by value."""

    text: pa.Array
    """Each value's text; null where the value is null."""
    quoted: bool
    """Whether the text still needs its double quotes (strings)."""
    suffix: pa.Array | None = None
    """Text to write after each value (``.0`` after a whole double), if any."""


def _long_compatible(text: pa.Array) -> pa.Array:
    """Whether each text is an integer a Java long holds (NiFi's ``isLongTypeCompatible``)."""
    digits = pc.match_substring_regex(text, _LONG).fill_null(False)
    long = pc.and_(digits, pc.greater(pc.utf8_length(text), 18)).fill_null(False)
    if pc.any(long).as_py():
        fits = [-(2**63) <= int(t) < 2**63 for t in text.filter(long).to_pylist()]
        digits = pc.replace_with_mask(digits, long, pa.array(fits, pa.bool_()))
    return digits


def _epoch_seconds(millis: pa.Array) -> pa.Array:
    """Milliseconds as seconds with three decimals (``BigDecimal.valueOf(ms, 3)``)."""
    size = pc.abs(millis)
    seconds = pc.divide(size, 1000).cast(pa.string())
    fraction = pc.utf8_lpad(pc.remainder(size, 1000).cast(pa.string()), 3, "0")
    sign = pc.if_else(pc.less(millis, 0), "-", "")
    return pc.binary_join_element_wise(sign, seconds, ".", fraction, "")


def _temporal_text(column: pa.Array, options: JsonOptions) -> ColumnText:
    """A date, time or timestamp column as NiFi writes it: with no format (or Epoch
    Milliseconds) the epoch milliseconds, with one the formatted text, unless that text
    is an integer, when it is the epoch milliseconds again; Epoch Seconds and Formatted
    String for timestamps."""
    t = column.type
    millis, moments = epoch_millis(column)
    number = millis.cast(pa.string())
    pattern = options.formats.pattern(t)
    representation = options.timestamp_representation if pa.types.is_timestamp(t) else AUTO
    if representation == EPOCH_MILLISECONDS:
        return ColumnText(number, False)
    if representation == EPOCH_SECONDS:
        return ColumnText(_epoch_seconds(millis), False)
    if pattern is None:
        if representation == FORMATTED_STRING:
            return ColumnText(number, True)
        return ColumnText(number, False)
    formatted = pattern.format(moments)
    if representation == FORMATTED_STRING:
        return ColumnText(_escaped(formatted), True)
    numeric = _long_compatible(formatted)
    if not pc.any(numeric).as_py():
        return ColumnText(_escaped(formatted), True)
    return ColumnText(pc.if_else(numeric, number, _quoted(formatted)), False)


def _struct_text(column: pa.StructArray, options: JsonOptions, suppress: bool) -> pa.Array:
    fields = list(column.type)
    if not fields:
        objects = pa.array(["{}"] * len(column), pa.string())
    else:
        # A union child cannot take the record's nulls (``flatten`` would abort); the
        # children as they are do, the record's nulls being masked below.
        children = (
            [column.field(i) for i in range(len(fields))]
            if any(has_union(f.type) for f in fields)
            else column.flatten()
        )
        batch = pa.RecordBatch.from_arrays(children, names=[f.name for f in fields])
        names = [member_name(f.name) for f in fields]
        objects = render_rows(batch, names, "{", "}", suppress, options)
    if not column.null_count:
        return objects
    return pc.if_else(column.is_valid(), objects, pa.scalar(None, pa.string()))


def _items(column: pa.Array, *children: pa.Array) -> tuple[pa.Array, list[pa.Array]]:
    """A list (or map) column's offsets from 0 and the children's values it spans."""
    offsets = column.offsets
    first, last = offsets[0].as_py(), offsets[-1].as_py()
    spanned = [child.slice(first, last - first) for child in children]
    return pc.subtract(offsets, offsets[0]), spanned


def _joined(column: pa.Array, offsets: pa.Array, items: pa.Array, brackets: str) -> pa.Array:
    """Each list's (or map's) item texts joined with commas between ``brackets``."""
    kind = pa.LargeListArray if pa.types.is_large_list(column.type) else pa.ListArray
    lists = kind.from_arrays(offsets, items, mask=column.is_null())
    joined = pc.binary_join(lists, ",")
    return pc.binary_join_element_wise(brackets[0], joined, brackets[1], "")


def _list_text(column: pa.Array, options: JsonOptions, suppress: bool) -> pa.Array:
    if pa.types.is_fixed_size_list(column.type):
        column = column.cast(pa.list_(column.type.value_type))
    offsets, (values,) = _items(column, column.values)
    items = value_text(values, options, suppress).fill_null("null")
    return _joined(column, offsets, items, "[]")


def _map_text(column: pa.MapArray, options: JsonOptions, suppress: bool) -> pa.Array:
    offsets, (keys, values) = _items(column, column.keys, column.items)
    texts = value_text(values, options, suppress).fill_null("null")
    entries = pc.binary_join_element_wise(_quoted(keys.cast(pa.string())), ":", texts, "")
    return _joined(column, offsets, entries, "{}")


def _union_text(column: pa.Array, options: JsonOptions, suppress: bool) -> pa.Array:
    """A union's values (an Avro union: NiFi's CHOICE) each written as the type NiFi
    chooses for it (``DataTypeUtils.chooseDataType``): a value that is not a text as its
    own type; a text as the first type, in NiFi's order, that takes it, so ``"5"`` in a
    union with an int is the number 5 and ``"true"`` with a Boolean is true."""
    kinds = union_kinds(column.type)
    texts = []
    for i, kind in enumerate(kinds):
        child = column.field(i)
        text = value_text(child, options, suppress)
        if nifi_type(kind) == STRING and len(child):
            text = _texts_as_chosen(child, text, kinds, options)
        texts.append(text)
    return gathered(column, texts)


def _texts_as_chosen(
    child: pa.Array, text: pa.Array, kinds: list[pa.DataType], options: JsonOptions
) -> pa.Array:
    """A union's text values, each written as the type NiFi chooses for it."""
    out = text.to_pylist()
    for row, value in enumerate(child.to_pylist()):
        if value is None:
            continue
        chosen = text_choice(value, kinds)
        if chosen is None or nifi_type(kinds[chosen]) == STRING:
            continue
        kind = kinds[chosen]
        converted_value = converted(value, kind)
        if nifi_type(kind) == DECIMAL:
            converted_value = decimal.Decimal(value)
            exponent = converted_value.as_tuple().exponent
            kind = pa.decimal128(38, max(0, -exponent) if isinstance(exponent, int) else 0)
        try:
            out[row] = value_text(pa.array([converted_value], kind), options)[0].as_py()
        except (pa.ArrowInvalid, ValueError, NotWritableError):
            continue  # NiFi's conversion would fail too; the text stays a text
    return pa.array(out, pa.string())


def column_text(
    column: pa.Array, options: JsonOptions = DEFAULT_OPTIONS, suppress_nulls: bool = False
) -> ColumnText:
    """Each value's JSON text (null where the value is null), see ``ColumnText``;
    ``suppress_nulls`` leaves the null members of nested records out."""
    t = column.type
    types = pa.types
    if types.is_dictionary(t):
        return column_text(column.dictionary_decode(), options, suppress_nulls)
    if types.is_null(t):
        return ColumnText(pa.nulls(len(column), pa.string()), False)
    if types.is_string(t) or types.is_large_string(t) or types.is_string_view(t):
        return ColumnText(_escaped(column.cast(pa.string())), True)
    if types.is_boolean(t) or types.is_integer(t):
        return ColumnText(column.cast(pa.string()), False)
    if types.is_decimal(t):
        return ColumnText(decimal_text(column, options.scientific), False)
    if types.is_floating(t):
        text, suffix = float_text(column, options.scientific)
        return ColumnText(text, False, suffix)
    if types.is_date(t) or types.is_time(t) or types.is_timestamp(t):
        return _temporal_text(column, options)
    if types.is_struct(t):
        return ColumnText(_struct_text(column, options, suppress_nulls), False)
    if types.is_list(t) or types.is_large_list(t) or types.is_fixed_size_list(t):
        return ColumnText(_list_text(column, options, suppress_nulls), False)
    if types.is_map(t):
        return ColumnText(_map_text(column, options, suppress_nulls), False)
    if types.is_union(t):
        return ColumnText(_union_text(column, options, suppress_nulls), False)
    # Binary and the rest: one value at a time (msgspec; bytes become base64).
    encoder = msgspec.json.Encoder()
    values = [None if v is None else encoder.encode(v).decode() for v in column.to_pylist()]
    return ColumnText(pa.array(values, pa.string()), False)


def value_text(
    column: pa.Array, options: JsonOptions = DEFAULT_OPTIONS, suppress_nulls: bool = False
) -> pa.Array:
    """Each value's whole JSON text (quotes and suffix included), null where null."""
    text, quoted, after = column_text(column, options, suppress_nulls)
    if quoted:
        text = pc.binary_join_element_wise('"', text, '"', "")
    if after is not None:
        text = pc.binary_join_element_wise(text, after, "")
    return text


def render_rows(
    batch: pa.RecordBatch,
    names: Sequence[str],
    prefix: str,
    suffix: str,
    suppress_nulls: bool,
    options: JsonOptions = DEFAULT_OPTIONS,
) -> pa.Array:
    """One string per record: ``prefix``, its members (``names`` are the member names as
    written, ``member_name``), ``suffix``. With ``suppress_nulls`` a null member is left
    out (in nested records too); otherwise it is written as ``null``. A value that cannot
    be written is a ``NotWritableError`` naming its field."""
    if batch.num_columns == 0:
        return pa.array([prefix + suffix] * batch.num_rows, pa.string())
    texts: list[ColumnText] = []
    for name, column in zip(names, batch.columns, strict=True):
        try:
            texts.append(column_text(column, options, suppress_nulls))
        except NotWritableError as exc:
            raise exc.within(msgspec.json.decode(name[:-1])) from None
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
        fragments.append(pc.binary_join_element_wise("," + name, text, ""))
    # Each present member with a comma before it, the first comma then cut off (Arrow's
    # "skip" null handling loses the records whose members are all null).
    body = pc.binary_join_element_wise(*fragments, "", null_handling="replace", null_replacement="")
    return pc.binary_join_element_wise(prefix, pc.utf8_slice_codeunits(body, 1), suffix, "")
