"""How Arrow batches are put to fastavro for an Avro schema, as NiFi's AvroTypeUtil puts
records: each column found by its name, its Avro name or an alias, cast to the Avro unit
(refusing a value that would change), dates, times and timestamps as their numbers, and
a field's default where the record has no value.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from processors.record.schema import avro_field_name, same_list


def written_schema(schema: pa.Schema, avro: Any) -> tuple[pa.Schema, pa.Schema] | None:
    """How a batch of ``schema`` is put to fastavro for the Avro schema ``avro``: first
    cast (dates, times and timestamps to the Avro unit, unsigned 64-bit to long, each
    refusing a value it would change), then viewed with the Avro field names (a field
    Avro would refuse is written under NiFi's valid name) and dates, times and timestamps
    as their numbers; None when the batch goes as it is."""
    named: dict[str, Any] = {}
    cast_fields: list[pa.Field] = []
    named_fields: list[pa.Field] = []
    by_name = _avro_fields_by_name(avro)
    for f in schema:
        avro_field = _avro_field(by_name, f.name)
        avro_type = avro_field["type"] if avro_field else None
        name = avro_field["name"] if avro_field else f.name
        cast_fields.append(f.with_type(_written_type(f.type, avro_type, named, rename=False)))
        named_fields.append(
            f.with_name(name).with_type(_written_type(f.type, avro_type, named, rename=True))
        )
    cast_schema, named_schema = pa.schema(cast_fields), pa.schema(named_fields)
    if cast_schema.equals(schema) and named_schema.equals(schema):
        return None
    return cast_schema, named_schema


def _avro_fields_by_name(avro: Any) -> dict[str, Any]:
    fields = avro.get("fields", []) if isinstance(avro, dict) else []
    return {str(f["name"]): f for f in fields if isinstance(f, dict) and "name" in f}


def _avro_field(by_name: dict[str, Any], name: str) -> Any:
    found = by_name.get(name)
    if found is None:
        found = by_name.get(avro_field_name(name))
    return found


def _resolved(avro: Any, named: dict[str, Any]) -> Any:
    """The non-null branch of a union with null, a named type's definition."""
    if isinstance(avro, list):
        branches = [b for b in avro if b != "null"]
        return _resolved(branches[0], named) if len(branches) == 1 else None
    if isinstance(avro, str):
        return named.get(avro, avro)
    if isinstance(avro, dict):
        if "name" in avro and avro.get("type") in ("record", "enum", "fixed"):
            named[str(avro["name"])] = avro
        kind = avro.get("type")
        if isinstance(kind, dict | list) or (isinstance(kind, str) and kind in named):
            return _resolved(kind, named)
    return avro


def _written_type(
    data_type: pa.DataType, avro: Any, named: dict[str, Any], *, rename: bool
) -> pa.DataType:
    t = pa.types
    avro = _resolved(avro, named)
    # Dates, times and timestamps go to fastavro as their numbers in the Avro unit (first
    # cast to it, refusing nanoseconds it would cut, then viewed as integers): no Python
    # date or time, whose years end at 9999.
    if t.is_timestamp(data_type):
        unit = "ms" if data_type.unit in ("s", "ms") else "us"
        return pa.int64() if rename else pa.timestamp(unit, tz=data_type.tz)
    if t.is_time32(data_type):
        return pa.int32() if rename else pa.time32("ms")
    if t.is_time64(data_type):
        return pa.int64() if rename else pa.time64("us")
    if t.is_date(data_type):
        return pa.int32() if rename else pa.date32()
    if t.is_uint64(data_type):
        return pa.int64()
    if t.is_struct(data_type):
        by_name = _avro_fields_by_name(avro)
        fields = []
        for i in range(data_type.num_fields):
            f = data_type.field(i)
            avro_field = _avro_field(by_name, f.name)
            avro_type = avro_field["type"] if avro_field else None
            written = f.with_type(_written_type(f.type, avro_type, named, rename=rename))
            if rename and avro_field:
                written = written.with_name(avro_field["name"])
            fields.append(written)
        return pa.struct(fields)
    items = avro.get("items") if isinstance(avro, dict) else None
    if t.is_list(data_type) or t.is_large_list(data_type) or t.is_fixed_size_list(data_type):
        value_field = data_type.value_field
        value = value_field.with_type(_written_type(value_field.type, items, named, rename=rename))
        return same_list(data_type, value)
    if t.is_map(data_type):
        values = avro.get("values") if isinstance(avro, dict) else None
        item = data_type.item_field
        written_item = item.with_type(_written_type(item.type, values, named, rename=rename))
        return pa.map_(data_type.key_field, written_item)
    return data_type


def as_written(batch: pa.RecordBatch, written: tuple[pa.Schema, pa.Schema]) -> pa.RecordBatch:
    cast_schema, named_schema = written
    columns = []
    fields = zip(batch.columns, cast_schema, named_schema, strict=True)
    for column, cast_field, named_field in fields:
        if not column.type.equals(cast_field.type):
            column = column.cast(cast_field.type)
        if not column.type.equals(named_field.type):
            column = column.view(named_field.type)
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, schema=named_schema)


def aliases(avro: Any) -> list[tuple[str, list[str]]]:
    """Each Avro field with aliases: its name and the aliases."""
    out: list[tuple[str, list[str]]] = []
    for field in _avro_fields_by_name(avro).values():
        aliases = field.get("aliases")
        if isinstance(aliases, list) and aliases:
            out.append((str(field["name"]), [str(a) for a in aliases]))
    return out


def by_alias(names: list[str], aliases: list[tuple[str, list[str]]]) -> list[str]:
    """The batch's column names with a column the Avro schema knows only by an alias
    renamed to the Avro field (NiFi's ``AvroTypeUtil.lookupField``: a record field
    ``my-field`` goes to the Avro field ``my_field`` with the alias ``my-field``)."""
    present = set(names)
    renamed = {}
    for name, known_as in aliases:
        if name in present:
            continue
        alias = next((a for a in known_as if a in present and a not in renamed), None)
        if alias is not None:
            renamed[alias] = name
    return [renamed.get(n, n) for n in names]


def defaults(avro: Any) -> list[tuple[str, Any]]:
    """The Avro fields with a default other than null, and the value fastavro writes for
    it: NiFi's AvroTypeUtil writes a field's default where the record has no value."""
    named: dict[str, Any] = {}
    out: list[tuple[str, Any]] = []
    for field in _avro_fields_by_name(avro).values():
        if field.get("default") is None:
            _resolved(field.get("type"), named)
            continue
        avro_type = field.get("type")
        first = avro_type[0] if isinstance(avro_type, list) and avro_type else avro_type
        resolved = _resolved(first, named)
        kind = resolved.get("type") if isinstance(resolved, dict) else resolved
        default = field["default"]
        if kind in ("bytes", "fixed") and isinstance(default, str):
            default = default.encode("latin-1")  # Avro's JSON form of bytes
        out.append((str(field["name"]), default))
    return out
