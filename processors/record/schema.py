"""Schemas: Avro schema text <-> Arrow schema, fingerprints, and casting batches to a schema.

``schema_fingerprint`` is the text MergeRecord keys "like FlowFiles" on: the schema as a
generated Avro schema JSON (record ``nifiRecord``, namespace ``org.apache.nifi``, fields in
order, every type made nullable), as NiFi generates it; equal for equal field names,
order and types, different otherwise. ``record_schema_text`` prefers a reader's explicit
schema text, as NiFi does.
"""

from __future__ import annotations

import decimal
import functools
import json
import math
from typing import Any, cast

import fastavro
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from flowcore.processor import ValidationResult
from processors.record.api import RecordReader, SchemaError
from processors.record.avro_union import to_union, union_type
from processors.record.json_numbers import java_string
from processors.record.temporal_text import epoch_millis

_PRIMITIVES: dict[str, pa.DataType] = {
    "null": pa.null(),
    "boolean": pa.bool_(),
    "int": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "bytes": pa.binary(),
    "string": pa.string(),
}


AVRO_DEFAULT_METADATA = b"avro.default"
"""Arrow field metadata holding a field's Avro default, as JSON text (mergers read it)."""

AVRO_SCHEMA_METADATA = b"avro.schema"
"""Arrow schema metadata holding the Avro schema (JSON text) an AvroReader read with."""

SCHEMA_NAME_METADATA = b"schema.name"
"""Arrow schema metadata holding the name a Schema Registry gave the schema under (what a
writer's "Set 'schema.name' Attribute" writes)."""


def parse_avro_schema(text: str, *, validate_defaults: bool = True) -> Any:
    """The schema JSON, checked by Avro's rules (``fastavro.parse_schema``): an unknown
    type, a record without a name or a default that does not fit its type (unless
    ``validate_defaults`` is false, as Avro's parser allows) is refused with fastavro's
    message."""
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        msg = f"Schema Text is not valid Avro schema JSON: {exc}"
        raise SchemaError(msg) from None
    try:
        fastavro.parse_schema(parsed, _ignore_default_error=not validate_defaults)
    except Exception as exc:  # fastavro raises several unrelated types for a bad schema
        msg = f"Schema Text is not a valid Avro schema: {exc}"
        raise SchemaError(msg) from None
    return parsed


def avro_schema_validator(subject: str, value: str) -> ValidationResult:
    """A property validator: the text is a valid Avro schema (skipped when it holds
    Expression Language, which is evaluated per FlowFile)."""
    if "${" in value:
        return ValidationResult(subject, True, value, "Expression Language Present")
    try:
        parse_avro_schema(value)
    except SchemaError as exc:
        return ValidationResult(subject, False, value, str(exc))
    return ValidationResult(subject, True, value, "")


def avro_to_arrow(
    text_or_schema: str | dict[str, Any], *, validate_defaults: bool = True
) -> pa.Schema:
    """An Arrow schema for an Avro record schema (JSON text or parsed)."""
    avro = (
        parse_avro_schema(text_or_schema, validate_defaults=validate_defaults)
        if isinstance(text_or_schema, str)
        else text_or_schema
    )
    if not isinstance(avro, dict) or avro.get("type") != "record":
        msg = "Schema Text must be an Avro schema of type 'record'"
        raise SchemaError(msg)
    try:
        # Named types by their full names (a reference may give the namespace or not).
        parsed: dict[str, Any] = cast(
            dict[str, Any],
            fastavro.parse_schema(avro, _ignore_default_error=not validate_defaults),
        )
    except Exception as exc:  # fastavro raises several unrelated types for a bad schema
        msg = f"not a valid Avro schema: {exc}"
        raise SchemaError(msg) from None
    named: dict[str, pa.DataType] = {}
    return pa.schema([_field(f, named) for f in parsed.get("fields", [])])


def _field(avro_field: dict[str, Any], named: dict[str, pa.DataType]) -> pa.Field:
    if "name" not in avro_field or "type" not in avro_field:
        msg = f"Avro field without name or type: {avro_field}"
        raise SchemaError(msg)
    data_type, nullable = _type(avro_field["type"], named)
    metadata = None
    if "default" in avro_field:
        metadata = {AVRO_DEFAULT_METADATA: json.dumps(avro_field["default"]).encode()}
    return pa.field(avro_field["name"], data_type, nullable=nullable, metadata=metadata)


def _type(avro: Any, named: dict[str, pa.DataType]) -> tuple[pa.DataType, bool]:
    if isinstance(avro, list):
        branches = [b for b in avro if b != "null"]
        nullable = len(branches) != len(avro)
        if len(branches) == 1:
            return _type(branches[0], named)[0], nullable
        if not branches:
            return pa.null(), True
        # enum | string and int | long share one Arrow type; any other union (int | double,
        # string | bytes, two records...) is a dense union, each value kept as its branch
        # reads it (NiFi's CHOICE: 1 stays 1, not 1.0).
        typed = [(_branch_name(b), _type(b, named)[0]) for b in branches]
        return union_type(typed, avro), nullable
    if isinstance(avro, str):
        if avro in _PRIMITIVES:
            return _PRIMITIVES[avro], avro == "null"
        if avro in named:
            return named[avro], False
        msg = f"unknown Avro type '{avro}'"
        raise SchemaError(msg)
    if not isinstance(avro, dict):
        msg = f"invalid Avro type {avro!r}"
        raise SchemaError(msg)
    kind = avro.get("type")
    logical = avro.get("logicalType")
    result: pa.DataType
    if logical == "date" and kind == "int":
        result = pa.date32()
    elif logical == "time-millis" and kind == "int":
        result = pa.time32("ms")
    elif logical == "time-micros" and kind == "long":
        result = pa.time64("us")
    elif logical in ("timestamp-millis", "timestamp-micros") and kind == "long":
        result = pa.timestamp("ms" if logical == "timestamp-millis" else "us", tz="UTC")
    elif logical in ("local-timestamp-millis", "local-timestamp-micros") and kind == "long":
        result = pa.timestamp("ms" if logical == "local-timestamp-millis" else "us")
    elif logical == "decimal" and kind in ("bytes", "fixed"):
        precision = int(avro["precision"])
        scale = int(avro.get("scale", 0))
        result = (
            pa.decimal128(precision, scale) if precision <= 38 else pa.decimal256(precision, scale)
        )
    elif kind == "record":
        fields = [_field(f, named) for f in avro.get("fields", [])]
        result = pa.struct(fields)
    elif kind == "array":
        result = pa.list_(_type(avro["items"], named)[0])
    elif kind == "map":
        result = pa.map_(pa.string(), _type(avro["values"], named)[0])
    elif kind == "enum":
        result = pa.string()
    elif kind == "fixed":
        result = pa.binary(int(avro["size"]))
    elif isinstance(kind, str | list):
        return _type(kind, named)
    else:
        msg = f"invalid Avro type {avro!r}"
        raise SchemaError(msg)
    if kind in ("record", "enum", "fixed") and "name" in avro:
        named[str(avro["name"])] = result
    return result, False


def union_branches(
    avro: dict[str, Any],
) -> dict[str, list[tuple[str, pa.DataType, frozenset[str] | None]]]:
    """Per top-level field of an Avro record schema that is a union of several non-null
    types: each such branch's name (as fastavro names it), Arrow type and, for an enum,
    its symbols, in order."""
    parsed: dict[str, Any] = cast(dict[str, Any], fastavro.parse_schema(avro))
    named: dict[str, pa.DataType] = {}
    enums: dict[str, frozenset[str]] = {}
    out: dict[str, list[tuple[str, pa.DataType, frozenset[str] | None]]] = {}
    for field in parsed.get("fields", []):
        kind = field.get("type")
        _type(kind, named)  # records the named types it defines
        _enum_symbols(kind, enums)
        if isinstance(kind, list) and len([b for b in kind if b != "null"]) > 1:
            out[str(field["name"])] = [
                (_branch_name(b), _type(b, named)[0], enums.get(_branch_name(b)))
                for b in kind
                if b != "null"
            ]
    return out


def _enum_symbols(avro: Any, enums: dict[str, frozenset[str]]) -> None:
    """Every enum ``avro`` defines, by name, with its symbols."""
    if isinstance(avro, list):
        for branch in avro:
            _enum_symbols(branch, enums)
    elif isinstance(avro, dict):
        if avro.get("type") == "enum" and "name" in avro:
            enums[str(avro["name"])] = frozenset(str(s) for s in avro.get("symbols", []))
        for key in ("type", "items", "values"):
            if isinstance(avro.get(key), dict | list):
                _enum_symbols(avro[key], enums)
        for field in avro.get("fields", []) if isinstance(avro.get("fields"), list) else []:
            _enum_symbols(field.get("type"), enums)


def _branch_name(avro: Any) -> str:
    """A union branch's name, as fastavro names it (a named type's full name)."""
    if isinstance(avro, str):
        return avro
    if isinstance(avro, dict):
        kind = avro.get("type")
        if kind in ("record", "enum", "fixed") and "name" in avro:
            return str(avro["name"])
        if isinstance(kind, str):
            return kind
    return "union"


def avro_field_name(name: str) -> str:
    """NiFi's name for a field in a generated Avro schema (``AvroTypeUtil``): a name Avro
    accepts (a letter or ``_``, then letters, digits and ``_``) as it is; in any other,
    each other character (each UTF-16 unit, as Java counts) becomes ``_`` (``my-field``
    -> ``my_field``, ``1st`` -> ``_st``); the empty name is ``UNNAMED_FIELD``."""
    if not name:
        return "UNNAMED_FIELD"
    out: list[str] = []
    for i, char in enumerate(name):
        if ord(char) > 0xFFFF:  # a surrogate pair in Java: two characters, neither a letter
            out.append("__")
        elif char == "_" or char.isalpha() or (i > 0 and char.isdecimal()):
            out.append(char)
        else:
            out.append("_")
    return "".join(out)


def with_avro_names(schema: pa.Schema) -> pa.Schema:
    """``schema`` with every field, nested ones too, under its Avro name
    (``avro_field_name``), as NiFi's writers that go through an Avro schema (Avro,
    Parquet) name them; SchemaError when two fields of one record get one name."""
    fields = [f.with_name(avro_field_name(f.name)).with_type(_avro_named(f.type)) for f in schema]
    _refuse_twice([f.name for f in schema])
    renamed = pa.schema(fields, metadata=schema.metadata)
    return schema if renamed.equals(schema) else renamed


def _refuse_twice(names: list[str]) -> None:
    seen: dict[str, str] = {}
    for name in names:
        avro = avro_field_name(name)
        if avro in seen:
            msg = (
                f"fields '{seen[avro]}' and '{name}' both have the Avro name '{avro}' "
                "(characters Avro does not accept in a name become '_')"
            )
            raise SchemaError(msg)
        seen[avro] = name


def _avro_named(data_type: pa.DataType) -> pa.DataType:
    t = pa.types
    if t.is_struct(data_type):
        children = [data_type.field(i) for i in range(data_type.num_fields)]
        _refuse_twice([f.name for f in children])
        return pa.struct(
            [f.with_name(avro_field_name(f.name)).with_type(_avro_named(f.type)) for f in children]
        )
    if t.is_list(data_type) or t.is_large_list(data_type) or t.is_fixed_size_list(data_type):
        value = data_type.value_field.with_type(_avro_named(data_type.value_type))
        return same_list(data_type, value)
    if t.is_map(data_type):
        item = data_type.item_field.with_type(_avro_named(data_type.item_type))
        return pa.map_(data_type.key_field, item)
    return data_type


def same_list(data_type: pa.DataType, value: pa.Field) -> pa.DataType:
    """A list of the same kind as ``data_type`` (list, large list, fixed-size list) with
    ``value`` as its value field."""
    if pa.types.is_large_list(data_type):
        return pa.large_list(value)
    if pa.types.is_fixed_size_list(data_type):
        return pa.list_(value, data_type.list_size)
    return pa.list_(value)


class _Names:
    """The record names of one generated schema: each unique (Avro refuses a name twice)."""

    def __init__(self, top: str) -> None:
        self._used = {top}

    def unique(self, base: str) -> str:
        name, index = base, 1
        while name in self._used:
            index += 1
            name = f"{base}{index}"
        self._used.add(name)
        return name


def _avro_fields(fields: list[pa.Field], prefix: str, names: _Names) -> list[dict[str, Any]]:
    """The nullable Avro fields of a record, named by NiFi's rules: a renamed field keeps
    its name as an alias; two fields with one Avro name are refused (NiFi's Avro fails)."""
    out: list[dict[str, Any]] = []
    _refuse_twice([f.name for f in fields])
    for f in fields:
        name = avro_field_name(f.name)
        avro_type = _avro_type(f.type, f.name, prefix, names)
        field: dict[str, Any] = {"name": name, "type": _nullable(avro_type)}
        if name != f.name:
            field["aliases"] = [f.name]
        out.append(field)
    return out


def _avro_type(data_type: pa.DataType, field_name: str, prefix: str, names: _Names) -> Any:
    """The Avro type for an Arrow type (not nullable; the field adds the null). A record
    is named as NiFi names it: the field names on its path, joined by ``_``, then
    ``Type`` (``parent_childType``)."""
    t = pa.types
    if t.is_null(data_type):
        # No value seen (an empty JSON array's items): NiFi infers a string there, and an
        # Avro union may not hold "null" twice.
        return "string"
    if t.is_boolean(data_type):
        return "boolean"
    if t.is_integer(data_type):
        small = data_type.bit_width <= 32 and not (
            t.is_unsigned_integer(data_type) and data_type.bit_width == 32
        )
        return "int" if small else "long"
    if t.is_float16(data_type) or t.is_float32(data_type):
        return "float"
    if t.is_floating(data_type):
        return "double"
    if t.is_string(data_type) or t.is_large_string(data_type) or t.is_string_view(data_type):
        return "string"
    if t.is_binary(data_type) or t.is_large_binary(data_type) or t.is_binary_view(data_type):
        return "bytes"
    if t.is_fixed_size_binary(data_type):
        return "bytes"  # NiFi reads a fixed as bytes and writes it so
    if t.is_date(data_type):
        return {"type": "int", "logicalType": "date"}
    if t.is_time32(data_type):
        return {"type": "int", "logicalType": "time-millis"}
    if t.is_time64(data_type):
        return {"type": "long", "logicalType": "time-micros"}
    if t.is_timestamp(data_type):
        unit = "millis" if data_type.unit in ("s", "ms") else "micros"
        local = "" if data_type.tz else "local-"
        return {"type": "long", "logicalType": f"{local}timestamp-{unit}"}
    if t.is_decimal(data_type):
        return {
            "type": "bytes",
            "logicalType": "decimal",
            "precision": data_type.precision,
            "scale": data_type.scale,
        }
    if t.is_dictionary(data_type):
        return _avro_type(data_type.value_type, field_name, prefix, names)
    if t.is_list(data_type) or t.is_large_list(data_type) or t.is_fixed_size_list(data_type):
        items = _avro_type(data_type.value_type, field_name, prefix, names)
        return {"type": "array", "items": _nullable(items)}
    if t.is_map(data_type):
        key = data_type.key_type
        if not (t.is_string(key) or t.is_large_string(key) or t.is_string_view(key)):
            msg = f"field '{field_name}' is a map with {key} keys: Avro map keys are strings"
            raise SchemaError(msg)
        values = _avro_type(data_type.item_type, field_name, prefix, names)
        return {"type": "map", "values": _nullable(values)}
    if t.is_union(data_type):
        return [
            _avro_type(data_type.field(i).type, field_name, prefix, names)
            for i in range(data_type.num_fields)
        ]
    if t.is_struct(data_type):
        child_prefix = f"{prefix}{field_name}_"
        fields = [data_type.field(i) for i in range(data_type.num_fields)]
        record_name = names.unique(avro_field_name(prefix + field_name) + "Type")
        return {
            "type": "record",
            "name": record_name,
            "fields": _avro_fields(fields, child_prefix, names),
        }
    msg = f"Arrow type {data_type} has no Avro equivalent"
    raise SchemaError(msg)


def _nullable(avro_type: Any) -> list[Any]:
    """A union with null, first (a union's branches joined, not nested)."""
    return ["null", *avro_type] if isinstance(avro_type, list) else ["null", avro_type]


def arrow_type_to_avro(data_type: pa.DataType, name_hint: str = "record") -> Any:
    """The Avro type for an Arrow type (not nullable; ``arrow_to_avro`` adds the null)."""
    return _avro_type(data_type, name_hint, "", _Names("nifiRecord"))


def arrow_to_avro(
    schema: pa.Schema, name: str = "nifiRecord", namespace: str = "org.apache.nifi"
) -> dict[str, Any]:
    """An Avro record schema for an Arrow schema, as NiFi generates one from a record
    schema: every field a union with null, names Avro refuses made valid (the original
    kept as an alias), nested records named by their path."""
    fields = _avro_fields(list(schema), "", _Names(name))
    return {"type": "record", "name": name, "namespace": namespace, "fields": fields}


def writer_avro_schema(schema: pa.Schema) -> dict[str, Any]:
    """The Avro schema records of ``schema`` are written with: the Avro schema they were
    read with (AvroReader keeps it in the schema's metadata) while ``schema`` is still
    exactly what that schema reads as, as NiFi writes a record whose schema came from Avro
    with that schema's text (enums, fixed, defaults, names kept); else the generated one."""
    text = (schema.metadata or {}).get(AVRO_SCHEMA_METADATA)
    if text is not None:
        try:
            embedded = json.loads(text)
            if avro_to_arrow(embedded).equals(schema.remove_metadata()):
                return cast(dict[str, Any], embedded)
        except (ValueError, SchemaError):
            pass
    return arrow_to_avro(schema)


def registry_identity(schema: pa.Schema) -> tuple[str, str] | None:
    """The name and text (as written there) a Schema Registry holds ``schema`` under, or
    None for a schema from elsewhere, or one changed since (fields added or retyped):
    NiFi writes a registry schema's name as ``schema.name`` and its own text as
    ``avro.schema``."""
    metadata = schema.metadata or {}
    name, text = metadata.get(SCHEMA_NAME_METADATA), metadata.get(AVRO_SCHEMA_METADATA)
    if name is None or text is None:
        return None
    if not _registered_arrow(text.decode()).equals(schema.remove_metadata()):
        return None
    return name.decode(), text.decode()


@functools.lru_cache(maxsize=256)
def _registered_arrow(text: str) -> pa.Schema:
    return avro_to_arrow(text, validate_defaults=False)


def schema_fingerprint(schema: pa.Schema) -> str:
    """A stable text for a schema: its generated Avro schema JSON (names, order, types)."""
    try:
        return json.dumps(arrow_to_avro(schema), separators=(",", ":"))
    except SchemaError:
        # A type without an Avro form still gets a stable, type-exact fingerprint.
        return "arrow:" + ";".join(f"{f.name}:{f.type}" for f in schema)


def record_schema_text(reader: RecordReader) -> str:
    """The reader's explicit schema text, else the fingerprint of its schema (NiFi's key)."""
    text = reader.schema_text
    return text if text is not None else schema_fingerprint(reader.schema)


def conform(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """``batch`` with ``schema``: columns by name (missing ones null), cast where needed;
    a null where the field has an Avro default is that default (NiFi's MapRecord gives a
    field's default for a value that is null or absent, to readers and writers alike)."""
    if batch.schema.equals(schema):
        return _with_defaults(batch, schema)
    names = batch.schema.names
    if names == schema.names and all(
        a.type.equals(b.type) for a, b in zip(batch.schema, schema, strict=True)
    ):
        return _with_defaults(pa.RecordBatch.from_arrays(batch.columns, schema=schema), schema)
    columns: list[pa.Array] = []
    for target in schema:
        if target.name in names:
            columns.append(_cast(batch.column(target.name), target.type))
        else:
            columns.append(pa.nulls(batch.num_rows, target.type))
    return _with_defaults(pa.RecordBatch.from_arrays(columns, schema=schema), schema)


def _with_defaults(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    defaults = field_defaults(schema)
    if not defaults:
        return batch
    columns = list(batch.columns)
    changed = False
    for index, value in defaults.items():
        if index < len(columns) and columns[index].null_count:
            columns[index] = pc.fill_null(columns[index], value)
            changed = True
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema) if changed else batch


_DEFAULTS: dict[pa.Schema, dict[int, pa.Scalar]] = {}


def field_defaults(schema: pa.Schema) -> dict[int, pa.Scalar]:
    """The fields of ``schema`` whose Avro default is not null, by position, each default
    as a scalar of its field's type (a default that does not convert is left out)."""
    try:
        return _DEFAULTS[schema]
    except KeyError:
        pass
    found: dict[int, pa.Scalar] = {}
    for index, field in enumerate(schema):
        raw = (field.metadata or {}).get(AVRO_DEFAULT_METADATA)
        if raw is None:
            continue
        value = json.loads(raw)
        if value is None:
            continue
        scalar = _default_scalar(value, field.type)
        if scalar is not None:
            found[index] = scalar
    if len(_DEFAULTS) > 256:
        _DEFAULTS.clear()
    _DEFAULTS[schema] = found
    return found


def _default_scalar(value: Any, data_type: pa.DataType) -> pa.Scalar | None:
    """An Avro default (JSON) as Arrow: a decimal's and a bytes' defaults are text (the
    decimal's digits; the bytes as ISO-8859-1, as Avro's specification has it)."""
    try:
        if pa.types.is_decimal(data_type) and isinstance(value, str | int | float):
            return pa.scalar(decimal.Decimal(str(value)), data_type)
        if (pa.types.is_binary(data_type) or pa.types.is_large_binary(data_type)) and isinstance(
            value, str
        ):
            return pa.scalar(value.encode("latin-1"), data_type)
        return pa.scalar(value, data_type)
    except (pa.ArrowException, ValueError, TypeError, decimal.InvalidOperation):
        return None


def _cast(column: pa.Array, target: pa.DataType) -> pa.Array:
    """``column`` as ``target``. Into a text field, a floating-point number is its Java
    ``toString`` (``3.0``, ``1.0E20``, ``NaN``; Arrow writes ``3``, ``1e+20``, ``nan``)
    and a date, time or timestamp its epoch milliseconds, as NiFi's
    ``DataTypeUtils.toString`` gives them (Arrow writes ISO text)."""
    source = column.type
    if source.equals(target):
        return column
    t = pa.types
    if t.is_decimal(target) and (t.is_decimal(source) or t.is_floating(source)):
        return _as_decimal(column, target)
    if t.is_union(target) and not t.is_union(source):
        return to_union(column, target)
    if t.is_struct(source) and (t.is_struct(target) or t.is_map(target)):
        return _from_struct(column, target)
    if t.is_list(source) and t.is_list(target):
        # Each element by these rules (a list of records into a list of maps, of doubles
        # into a list of texts).
        offsets = pc.subtract(column.offsets, column.offsets[0])
        items = _cast(column.flatten(), target.value_type)
        return pa.ListArray.from_arrays(offsets, items, type=target, mask=column.is_null())
    if t.is_string(target) or t.is_large_string(target):
        if t.is_floating(source) and not t.is_float16(source):
            return java_string(column).cast(target)
        if t.is_date(source) or t.is_time(source) or t.is_timestamp(source):
            return epoch_millis(column)[0].cast(target)
    return column.cast(target)


def _as_decimal(column: pa.Array, target: pa.DataType) -> pa.Array:
    """Numbers into a decimal field as NiFi's Avro writer puts them: a double by its Java
    ``toString`` digits (``BigDecimal.valueOf``: 1.005 is 1.005, not the binary
    1.00499...), then to the field's scale rounding half away from zero (``HALF_UP``:
    1.005 is 1.01, -1.235 is -1.24). Arrow rounds the binary value (1.00) and refuses a
    decimal of a larger scale. A value beyond the precision, a NaN or an infinity fails."""
    source = column.type
    if pa.types.is_decimal(source):
        if source.scale > target.scale:
            column = pc.round(column, ndigits=target.scale, round_mode="half_towards_infinity")
        return column.cast(target)
    step = decimal.Decimal(1).scaleb(-target.scale)
    single = pa.types.is_float32(source) or pa.types.is_float16(source)
    exact = decimal.Context(prec=80, rounding=decimal.ROUND_HALF_UP)
    values: list[decimal.Decimal | None] = []
    for value in column.to_pylist():
        if value is None:
            values.append(None)
            continue
        try:
            if not math.isfinite(value):
                raise decimal.InvalidOperation
            text = (
                np.format_float_positional(np.float32(value), unique=True)
                if single
                else repr(value)
            )
            values.append(exact.quantize(decimal.Decimal(text), step))
        except decimal.InvalidOperation:
            msg = f"{value} does not fit decimal({target.precision}, {target.scale})"
            raise ValueError(msg) from None
    return pa.array(values, target)


def _from_struct(column: pa.Array, target: pa.DataType) -> pa.Array:
    """A record into a record field by field (by name, each by these rules), or into a
    map as NiFi's Avro writer puts one: an entry per field that has a value (a null
    field is left out), each value by these rules (``1`` into a map of texts is
    ``"1"``). Arrow casts neither a record into a map nor its values as NiFi."""
    source = column.type
    children = column.flatten()
    absent = column.is_null()
    if pa.types.is_struct(target):
        fields = [target.field(i) for i in range(target.num_fields)]
        columns = []
        for field in fields:
            index = source.get_field_index(field.name)
            child = children[index] if index >= 0 else pa.nulls(len(column), field.type)
            columns.append(_cast(child, field.type))
        return pa.StructArray.from_arrays(columns, fields=fields, mask=absent)
    rows, width = len(column), source.num_fields
    if width == 0:
        values = pa.array([], target.item_type)
        offsets = pa.array(np.zeros(rows + 1, np.int32))
        return pa.MapArray.from_arrays(offsets, pa.array([], pa.string()), values, mask=absent)
    names = [source.field(i).name for i in range(width)]
    values = pa.concat_arrays([_cast(child, target.item_type) for child in children])
    # Entry (row r, field j) is at j * rows + r of ``values``; rows in order, fields in order.
    order = (np.arange(width)[None, :] * rows + np.arange(rows)[:, None]).ravel()
    present = values.is_valid().to_numpy(zero_copy_only=False)[order]
    counts = present.reshape(rows, width).sum(axis=1)
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))
    keys = pa.array(np.array(names, dtype=object)[order // rows][present], pa.string())
    items = values.take(pa.array(order[present]))
    return pa.MapArray.from_arrays(offsets, keys.cast(target.key_type), items, mask=absent)
