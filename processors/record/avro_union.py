"""Avro unions of several non-null types (NiFi's CHOICE) as Arrow dense unions.

NiFi reads such a union as a CHOICE: each value stays what its branch reads (an int, a
text, a record), and its writers choose, value by value, a type among the choice's
(``DataTypeUtils.chooseDataType`` for JSON, ``AvroTypeUtil.convertUnionFieldValue`` for
Avro): a value that is not a text goes to a branch of its own type, else to the first
branch it widens to (an integer to a double), else to the first it converts to; a text
goes to the first branch, in NiFi's order of types (Boolean, integers, floating point,
decimal, ..., string, record, array, map), that accepts it (``"5"`` to an int, ``"true"``
to a Boolean). This module holds the union's Arrow type (one child per Arrow type, as
flowcore's other unions merge ``int | long`` and ``enum | string``), builds union arrays
from fastavro's values and gives each value's NiFi type and choice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from processors.record.api import SchemaError
from processors.record.json_numbers import java_value_text

# NiFi's RecordFieldType order, which a text's choice follows.
BOOLEAN, INT, LONG, FLOAT, DOUBLE, DECIMAL, TIMESTAMP, DATE, TIME = (0, 3, 4, 6, 7, 8, 9, 10, 11)
ENUM, STRING, RECORD, ARRAY, MAP = (14, 15, 16, 18, 19)
_NAMES = {
    BOOLEAN: "Boolean",
    INT: "Integer",
    LONG: "Long",
    FLOAT: "Float",
    DOUBLE: "Double",
    DECIMAL: "BigDecimal",
    TIMESTAMP: "Timestamp",
    DATE: "Date",
    TIME: "Time",
    STRING: "String",
    RECORD: "Record",
    ARRAY: "Object[]",
    MAP: "Map",
}

_INTEGRAL = re.compile(r"[+-]?[0-9]+")
_FLOATING = re.compile(
    r"[\-\+]?((Infinity)|(NaN)|([0-9]+(\.[0-9]*)?)|([0-9]+(\.[0-9]*)?[eE][\-\+]?[0-9]+)"
    r"|(\.[0-9]+([eE][\-\+]?[0-9]+)?))"
)
_DECIMAL = re.compile(
    r"[\-\+]?([0-9]+(\.[0-9]*)?)|([0-9]+(\.[0-9]*)?[eE][\-\+]?[0-9]+)"
    r"|(\.[0-9]+([eE][\-\+]?[0-9]+)?)"
)
"""NiFi's patterns (``DataTypeUtils``): Java's ``\\d`` is ASCII; the decimal pattern's
sign binds to its first alternative only, as NiFi's does."""


def nifi_type(kind: pa.DataType) -> int:
    """The NiFi record field type of an Arrow type (its place in NiFi's order)."""
    t = pa.types
    if t.is_boolean(kind):
        return BOOLEAN
    if t.is_integer(kind):
        return INT if kind.bit_width <= 32 else LONG
    if t.is_float32(kind) or t.is_float16(kind):
        return FLOAT
    if t.is_floating(kind):
        return DOUBLE
    if t.is_decimal(kind):
        return DECIMAL
    if t.is_timestamp(kind):
        return TIMESTAMP
    if t.is_date(kind):
        return DATE
    if t.is_time(kind):
        return TIME
    if t.is_struct(kind):
        return RECORD
    if t.is_map(kind):
        return MAP
    if t.is_list(kind) or t.is_large_list(kind) or t.is_fixed_size_list(kind):
        return ARRAY
    if t.is_binary(kind) or t.is_large_binary(kind) or t.is_fixed_size_binary(kind):
        return ARRAY  # NiFi holds bytes as an array of bytes
    return STRING


def java_class(kind: pa.DataType) -> str:
    """The Java class NiFi's record holds such a value as (for its messages)."""
    return "class java.lang." + _NAMES.get(nifi_type(kind), "Object")


def text_accepted(text: str, kind: pa.DataType) -> bool:
    """Whether NiFi takes the text for a value of ``kind`` (``isCompatibleDataType``)."""
    target = nifi_type(kind)
    if target == BOOLEAN:
        return text.lower() in ("true", "false")
    if target in (INT, LONG):
        if not _INTEGRAL.fullmatch(text):
            return False
        bound = 2**31 if target == INT else 2**63
        return -bound <= int(text) < bound
    if target in (FLOAT, DOUBLE):
        return _FLOATING.fullmatch(text) is not None
    if target == DECIMAL:
        return _DECIMAL.fullmatch(text) is not None
    if target == STRING:
        return True
    # A text converts to bytes (NiFi's array of bytes); dates, times and timestamps would
    # need NiFi's default formats, which flowcore does not apply: not accepted.
    return target == ARRAY and (
        pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
        or pa.types.is_fixed_size_binary(kind)
    )


def text_choice(
    text: str, kinds: Sequence[pa.DataType], places: Sequence[int] | None = None
) -> int | None:
    """The index in ``kinds`` NiFi chooses for a text: the first, in NiFi's order of
    types (``places``, when given, else each kind's), that accepts it
    (``findMostSuitableTypeByStringValue``; a stable sort)."""
    ranks = places if places is not None else [nifi_type(k) for k in kinds]
    order = sorted(range(len(kinds)), key=lambda i: ranks[i])
    return next((i for i in order if text_accepted(text, kinds[i])), None)


def _wider(branch: int, value: int) -> bool:
    """Whether NiFi's ``getWiderType`` of a branch's type and a value's exists."""
    integers = (INT, LONG)
    floating = (FLOAT, DOUBLE)
    if branch in integers and value in integers:
        return True
    if branch in floating and value in (*integers, *floating):
        return True
    if branch == DECIMAL and value in (*integers, *floating, DECIMAL):
        return True
    return branch in integers and value == DECIMAL


def value_choice(kind: pa.DataType, kinds: Sequence[pa.DataType]) -> int | None:
    """The index in ``kinds`` NiFi chooses for a value that is not a text (its Arrow
    type ``kind``): the same type (a record: the same fields), else the first it widens
    to, else the first it converts to (a number or a Boolean to a text), else None."""
    own = nifi_type(kind)
    for i, candidate in enumerate(kinds):
        if nifi_type(candidate) == own and (own != RECORD or candidate.equals(kind)):
            return i
    for i, candidate in enumerate(kinds):
        if _wider(nifi_type(candidate), own):
            return i
    for i, candidate in enumerate(kinds):
        if nifi_type(candidate) == STRING and own != RECORD:
            return i
    return None


def choice_of(
    value: Any,
    kind: pa.DataType,
    kinds: Sequence[pa.DataType],
    symbols: Sequence[frozenset[str] | None] | None = None,
) -> int | None:
    """NiFi's choice among ``kinds`` for one value of Arrow type ``kind``; ``symbols``:
    per kind, an Avro enum's symbols (an enum takes only those, and comes before a
    string in NiFi's order)."""
    allowed = [
        i
        for i in range(len(kinds))
        if symbols is None or symbols[i] is None or value in symbols[i]  # type: ignore[operator]
    ]
    candidates = [kinds[i] for i in allowed]
    if isinstance(value, bytes | bytearray):
        sized = [
            i
            for i in allowed
            if pa.types.is_fixed_size_binary(kinds[i]) and kinds[i].byte_width == len(value)
        ]
        if sized:
            return sized[0]  # the fixed of the value's size, as NiFi chooses
    if isinstance(value, str):
        places = [
            ENUM if symbols is not None and symbols[i] is not None else nifi_type(kinds[i])
            for i in allowed
        ]
        chosen = text_choice(value, candidates, places)
    else:
        chosen = value_choice(kind, candidates)
    return None if chosen is None else allowed[chosen]


def converted(value: Any, kind: pa.DataType) -> Any:
    """A value (a text or a number) as the Python value of ``kind`` it converts to, as
    NiFi's conversion to the chosen type (``"5"`` to 5, 5 to ``"5"``, 1 to 1.0)."""
    target = nifi_type(kind)
    if target == STRING:
        return java_value_text(value, kind)
    if not isinstance(value, str):
        if target in (FLOAT, DOUBLE) and not isinstance(value, bool):
            return float(value)
        if target in (INT, LONG) and isinstance(value, float):
            return int(value)
        return value
    if target == BOOLEAN:
        return value.lower() == "true"
    if target in (INT, LONG):
        return int(value)
    if target in (FLOAT, DOUBLE):
        return float(value)
    if target == ARRAY:
        return value.encode()
    return value


# -- the union type and its arrays ------------------------------------------------------


def python_kind(kind: pa.DataType) -> str:
    """What fastavro decodes a branch of ``kind`` to, as far as a union's values tell."""
    t = pa.types
    if t.is_boolean(kind):
        return "bool"
    if t.is_integer(kind) or t.is_timestamp(kind) or t.is_date(kind) or t.is_time(kind):
        return "int"  # dates, times and timestamps are decoded as their numbers
    if t.is_floating(kind):
        return "float"
    if t.is_decimal(kind):
        return "decimal"
    if t.is_binary(kind) or t.is_large_binary(kind) or t.is_fixed_size_binary(kind):
        return "bytes"
    if t.is_list(kind):
        return "list"
    if t.is_map(kind):
        return "map"
    if t.is_struct(kind):
        return "record"
    return "str"


def union_type(branches: Sequence[tuple[str, pa.DataType]], avro: Any) -> pa.DataType:
    """The Arrow type of a union's non-null branches (each its Avro name and Arrow type):
    one type when they share one (``enum | string``; integers widen to the widest), else
    a dense union with one child per type; ``fixed`` types all of different sizes are one
    binary type. SchemaError when two branches decode to values that cannot be told apart
    (``float | double``, ``long | timestamp``, two arrays)."""
    children: list[tuple[str, pa.DataType]] = []
    for name, kind in branches:
        same = next((i for i, (_, c) in enumerate(children) if c.equals(kind)), None)
        if same is not None:
            continue
        wider = next(
            (
                i
                for i, (_, c) in enumerate(children)
                if pa.types.is_integer(c) and pa.types.is_integer(kind)
            ),
            None,
        )
        if wider is not None:
            if kind.bit_width > children[wider][1].bit_width:
                children[wider] = (name, kind)
            continue
        children.append((name, kind))
    if len(children) == 1:
        return children[0][1]
    sizes = [kind.byte_width for _, kind in children if pa.types.is_fixed_size_binary(kind)]
    if len(sizes) == len(children) and len(set(sizes)) == len(sizes):
        # fixed types of different sizes: a value's length tells its branch (NiFi picks
        # the fixed of the value's size), so they are one binary field
        return pa.binary()
    seen: dict[str, str] = {}
    records = [name for name, kind in children if python_kind(kind) == "record"]
    for name, kind in children:
        key = python_kind(kind)
        if key == "record":
            if len(records) > 1:
                continue  # records of a union of several records are told apart by name
            key = "map"  # a lone record decodes as a map does
        if key in seen:
            msg = (
                f"the Avro union {avro} is not supported: its branches '{seen[key]}' and "
                f"'{name}' cannot be told apart when read"
            )
            raise SchemaError(msg)
        seen[key] = name
    return pa.dense_union([pa.field(name, kind) for name, kind in children])


def has_union(kind: pa.DataType) -> bool:
    """Whether ``kind`` is, or holds, a union."""
    t = pa.types
    if t.is_union(kind):
        return True
    if t.is_struct(kind):
        return any(has_union(kind.field(i).type) for i in range(kind.num_fields))
    if t.is_list(kind) or t.is_large_list(kind):
        return has_union(kind.value_type)
    if t.is_map(kind):
        return has_union(kind.item_type)
    return False


def child_of(value: Any, union: pa.DataType) -> int:
    """The child of ``union`` a decoded value belongs to."""
    if isinstance(value, tuple):  # a record of a union of records: (its name, its fields)
        name = value[0]
        for i in range(union.num_fields):
            child = union.field(i)
            if pa.types.is_struct(child.type) and (
                child.name == name or child.name.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1]
            ):
                return i
    key = (
        "bool"
        if isinstance(value, bool)
        else "int"
        if isinstance(value, int)
        else "float"
        if isinstance(value, float)
        else "bytes"
        if isinstance(value, bytes | bytearray)
        else "str"
        if isinstance(value, str)
        else "list"
        if isinstance(value, list)
        else "map"
        if isinstance(value, dict)
        else "decimal"
    )
    for i in range(union.num_fields):
        kind = python_kind(union.field(i).type)
        if kind == key or (key == "map" and kind == "record"):
            return i
    msg = f"a value {value!r} fits no branch of {union}"
    raise ValueError(msg)


def build_array(values: list[Any], kind: pa.DataType) -> pa.Array:
    """An Arrow array of ``kind`` from fastavro's values, unions included (pyarrow builds
    no union from Python values)."""
    t = pa.types
    if not has_union(kind):
        return pa.array(values, kind)
    if t.is_union(kind):
        width = kind.num_fields
        codes = np.zeros(len(values), dtype=np.int8)
        offsets = np.zeros(len(values), dtype=np.int32)
        parts: list[list[Any]] = [[] for _ in range(width)]
        for row, value in enumerate(values):
            child = 0 if value is None else child_of(value, kind)
            if isinstance(value, tuple):
                value = value[1]
            codes[row] = child
            offsets[row] = len(parts[child])
            parts[child].append(value)
        children = [build_array(parts[i], kind.field(i).type) for i in range(width)]
        return pa.UnionArray.from_dense(
            pa.array(codes, pa.int8()),
            pa.array(offsets, pa.int32()),
            children,
            [kind.field(i).name for i in range(width)],
        )
    nulls = [v is None for v in values]
    mask = pa.array(nulls, pa.bool_()) if any(nulls) else None
    if t.is_struct(kind):
        fields = [kind.field(i) for i in range(kind.num_fields)]
        columns = [
            build_array([None if v is None else v.get(f.name) for v in values], f.type)
            for f in fields
        ]
        return pa.StructArray.from_arrays(columns, fields=fields, mask=mask)
    lengths = [0 if v is None else len(v) for v in values]
    offsets_array = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
    if t.is_map(kind):
        pairs = [
            pair
            for v in values
            if v is not None
            for pair in (v.items() if isinstance(v, dict) else v)
        ]
        keys = pa.array([k for k, _ in pairs], kind.key_type)
        items = build_array([i for _, i in pairs], kind.item_type)
        return pa.MapArray.from_arrays(offsets_array, keys, items, mask=mask)
    flat = [item for v in values if v is not None for item in v]
    items = build_array(flat, kind.value_type)
    return pa.ListArray.from_arrays(offsets_array, items, type=kind, mask=mask)


def children_and_offsets(
    column: pa.Array,
) -> tuple[np.ndarray[Any, np.dtype[np.int64]], np.ndarray[Any, np.dtype[np.int64]]]:
    """Per value of a union column: the position of its child and its offset in that
    child (read from the buffers: pyarrow's ``type_codes`` and ``offsets`` ignore a
    slice's offset)."""
    union = column.type
    start, end = column.offset, column.offset + len(column)
    codes = np.frombuffer(column.buffers()[1], dtype=np.int8)[start:end]
    if union.mode == "sparse":  # every child as long as the union, in step with it
        offsets = np.arange(start, end, dtype=np.int32)
    else:
        offsets = np.frombuffer(column.buffers()[2], dtype=np.int32)[start:end]
    positions = np.zeros(128, dtype=np.int64)
    for i, code in enumerate(union.type_codes):
        positions[code] = i
    return positions[codes], offsets.astype(np.int64)


def rows_of(column: pa.Array) -> list[tuple[Any, pa.DataType]]:
    """Each value of a union column with the Arrow type of its child."""
    union = column.type
    children, offsets = children_and_offsets(column)
    values = [column.field(i).to_pylist() for i in range(union.num_fields)]
    kinds = union_kinds(union)
    return [
        (values[child][offset], kinds[child])
        for child, offset in zip(children.tolist(), offsets.tolist(), strict=True)
    ]


def gathered(column: pa.Array, texts: Sequence[pa.Array]) -> pa.Array:
    """Per value of a union column, its text among its child's ``texts`` (one array per
    child, one text per child value)."""
    children, offsets = children_and_offsets(column)
    bases = np.concatenate([[0], np.cumsum([len(t) for t in texts])[:-1]]).astype(np.int64)
    combined = pa.concat_arrays([t.cast(pa.string()) for t in texts])
    return combined.take(pa.array(bases[children] + offsets))


def union_kinds(union: pa.DataType) -> list[pa.DataType]:
    return [union.field(i).type for i in range(union.num_fields)]


def to_union(column: pa.Array, union: pa.DataType) -> pa.Array:
    """A column of another type into a union field (a writer's Schema Text): each value
    put to the child NiFi chooses for it and converted (``"5"`` into ``int | string``
    is 5); a value no child takes is null, as NiFi's JSON writer writes it."""
    kinds = union_kinds(union)
    source = column.type
    codes = np.zeros(len(column), dtype=np.int8)
    offsets = np.zeros(len(column), dtype=np.int32)
    parts: list[list[Any]] = [[] for _ in kinds]
    values = column.to_pylist()
    for row, value in enumerate(values):
        child = None if value is None else choice_of(value, source, kinds)
        if child is None:
            child, value = 0, None
        else:
            value = converted(value, kinds[child])
        codes[row] = child
        offsets[row] = len(parts[child])
        parts[child].append(value)
    children = [build_array(parts[i], kinds[i]) for i in range(len(kinds))]
    return pa.UnionArray.from_dense(
        pa.array(codes, pa.int8()),
        pa.array(offsets, pa.int32()),
        children,
        [union.field(i).name for i in range(len(kinds))],
    )
