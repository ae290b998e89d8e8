"""Merging a whole keyed bin in the engine's process, on Arrow and DuckDB.

Three steps, each public so that another engine (Spark) can run the very same code:

1. ``prepare_bin(parts, spec)``: the parts (one Arrow table per input FlowFile, in arrival
   order) fitted to the union schema and concatenated, with internal columns: arrival index
   (row number in the bin), schema id, delete flag and commit-time-ordering-delete flag.
2. One row per key, either
   * ``vectorised_merge`` (built-in modes without partial updates): DuckDB computes, per
     key, the first arrival and the winning row; the rows are taken from the table; or
   * ``fold_table`` (partial updates, CUSTOM): ``fold_records`` applies the merger in
     arrival order to each key's BufferedRecords.
   Both give the reader-schema columns plus ``FIRST_ARRIVAL`` and ``DELETE``.
3. ``finish_merge``: rows in the order each key first arrived; deletes dropped or kept as
   tombstones.

The vectorised rule for EVENT_TIME_ORDERING: per key, let p be the arrival of the last
commit-time-ordering delete; among the rows after p the greatest (ordering, arrival) wins,
and with none the delete at p wins; without such a delete, the greatest (ordering, arrival)
over all rows. COMMIT_TIME_ORDERING: the last arrival. This is what folding the built-in
mergers gives (tested with hypothesis).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from flowcore.errors import ProcessException
from processors.merge.mergers.api import (
    DEFAULT_ORDERING_VALUE,
    BufferedRecord,
    HoodieOperation,
    MergeContext,
    MergerContractError,
    PartialUpdateMode,
    RecordMergeMode,
    RecordMerger,
    infer_operation,
    ordering_value_of,
)
from processors.merge.mergers.custom import merger_for
from processors.merge.mergers.deletes import delete_mask, mark_deleted, reads_as_delete
from processors.merge.mergers.schemas import UnionSchema, conform_table
from processors.merge.mergers.spec import KeyedMergeSpec, MergedBin

ARRIVAL = "__flowcore_arrival"
SCHEMA_ID = "__flowcore_schema_id"
DELETE = "__flowcore_delete"
CT_DELETE = "__flowcore_ct_delete"
FIRST_ARRIVAL = "__flowcore_first_arrival"
INTERNAL_COLUMNS = (ARRIVAL, SCHEMA_ID, DELETE, CT_DELETE, FIRST_ARRIVAL)


class RecordKeyError(ProcessException):
    """A record has no usable record key (key field missing or null); ``reason`` says so."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def key_problem(table: pa.Table, key_fields: Sequence[str]) -> str | None:
    """Why a table's records cannot be merged by key (a key field absent or null), or None."""
    for name in key_fields:
        if name not in table.schema.names:
            return f"record key field '{name}' is not in the schema"
        column = table.column(name)
        if column.null_count:
            row = pc.index(pc.is_null(column), True).as_py()
            return f"record key field '{name}' is null in record {row}"
    return None


# -- step 1 -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PreparedBin:
    """A bin ready to merge: one table in the reader schema plus the internal columns."""

    table: pa.Table
    reader_schema: pa.Schema
    schema_fields: tuple[tuple[str, ...], ...]
    records_in: int


def is_numeric_type(data_type: pa.DataType) -> bool:
    t = pa.types
    return bool(t.is_integer(data_type) or t.is_floating(data_type) or t.is_decimal(data_type))


def merged_layout(reader: pa.Schema) -> pa.Schema:
    """A merged bin's layout: the reader's columns, then first arrival and delete flag."""
    return reader.append(pa.field(FIRST_ARRIVAL, pa.int64())).append(pa.field(DELETE, pa.bool_()))


def default_ordering_mask(
    table: pa.Table, ordering_fields: Sequence[str], schema: pa.Schema
) -> Any:
    """Per row: is the ordering value the default (none configured, null, int32 0)?"""
    present = [name for name in ordering_fields if name in schema.names]
    if not ordering_fields or not present:
        return pa.array(np.ones(table.num_rows, dtype=bool))
    if len(ordering_fields) == 1:
        column = table.column(present[0])
        mask = pc.is_null(column)
        if pa.types.is_int32(column.type):
            mask = pc.or_(mask, pc.fill_null(pc.equal(column, 0), False))
        return mask
    mask = pc.is_null(table.column(present[0]))
    for name in present[1:]:
        mask = pc.and_(mask, pc.is_null(table.column(name)))
    return mask


def prepare_bin(parts: Sequence[pa.Table], spec: KeyedMergeSpec) -> PreparedBin:
    """Fit the parts to their union schema and add arrival, schema id and delete flags.

    Raises SchemaConflictError or RecordKeyError (MergeRecord checks each FlowFile for
    both before it joins a bin, so that only that FlowFile fails).
    """
    union = UnionSchema()
    ids = [union.add(part) for part in parts]
    for part in parts:
        problem = key_problem(part, spec.key_fields)
        if problem is not None:
            raise RecordKeyError(problem)
    reader = union.schema
    tables = []
    for part, schema_id in zip(parts, ids, strict=True):
        fitted = conform_table(part, reader)
        ids_column = pa.array(np.full(fitted.num_rows, schema_id, dtype=np.int32))
        tables.append(fitted.append_column(SCHEMA_ID, ids_column))
    if tables:
        table = pa.concat_tables(tables)
    else:
        table = pa.Table.from_batches([], schema=reader.append(pa.field(SCHEMA_ID, pa.int32())))
    rows = table.num_rows
    table = table.append_column(ARRIVAL, pa.array(np.arange(rows, dtype=np.int64)))
    deletes = delete_mask(table, spec.delete_markers)
    table = table.append_column(DELETE, deletes)
    ct = pc.and_(deletes, default_ordering_mask(table, spec.ordering_fields, reader))
    table = table.append_column(CT_DELETE, ct)
    return PreparedBin(table, reader, union.schema_fields, rows)


# -- step 2a: vectorised --------------------------------------------------------------------


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _ordering_components(spec: KeyedMergeSpec, schema: pa.Schema) -> list[str]:
    """DuckDB expressions whose lexicographic order is ``compare_ordering``'s."""
    present = [schema.field(n) for n in spec.ordering_fields if n in schema.names]
    components: list[str] = []
    if len(spec.ordering_fields) > 1 and present:
        # The default (all null) sorts before every tuple.
        components.append(" OR ".join(f"{_quote(f.name)} IS NOT NULL" for f in present))
    for f in present:
        column = _quote(f.name)
        if is_numeric_type(f.type):
            components.append(f"coalesce({column}, 0)")
        else:
            components.extend((f"{column} IS NOT NULL", column))
    return components


def winners_query(spec: KeyedMergeSpec, schema: pa.Schema, has_ct_deletes: bool) -> str:
    """SQL over table ``bin`` (and ``ct`` for the last CT delete per key) giving
    ``first_arrival`` and ``winner`` per key, in first-arrival order."""
    keys = ", ".join(_quote(k) for k in spec.key_fields)
    arrival = _quote(ARRIVAL)
    if spec.mode is RecordMergeMode.COMMIT_TIME_ORDERING:
        return (
            f"SELECT min({arrival}) AS first_arrival, max({arrival}) AS winner "
            f"FROM bin GROUP BY {keys} ORDER BY first_arrival"
        )
    parts = [f"NOT {_quote(CT_DELETE)}", *_ordering_components(spec, schema), arrival]
    order_key = "{" + ", ".join(f"'c{i}': {p}" for i, p in enumerate(parts)) + "}"
    if not has_ct_deletes:
        return (
            f"SELECT min({arrival}) AS first_arrival, arg_max({arrival}, {order_key}) AS winner "
            f"FROM bin GROUP BY {keys} ORDER BY first_arrival"
        )
    last_ct = (
        f"SELECT {keys}, max({arrival}) AS p FROM bin WHERE {_quote(CT_DELETE)} GROUP BY {keys}"
    )
    return (
        f"WITH ct AS ({last_ct}) "
        f"SELECT min({arrival}) AS first_arrival, "
        f"arg_max({arrival}, {order_key}) FILTER (WHERE ct.p IS NULL OR {arrival} >= ct.p) "
        f"AS winner FROM bin LEFT JOIN ct USING ({keys}) GROUP BY {keys} ORDER BY first_arrival"
    )


def _merged_layout(table: pa.Table, reader: pa.Schema, first: pa.Array) -> pa.Table:
    columns = [table.column(name) for name in reader.names]
    return pa.Table.from_arrays(
        [*columns, first, table.column(DELETE)], schema=merged_layout(reader)
    )


def vectorised_merge(prepared: PreparedBin, spec: KeyedMergeSpec) -> pa.Table:
    """Winners of a built-in mode without partial updates, by DuckDB over the Arrow table."""
    table, reader = prepared.table, prepared.reader_schema
    if table.num_rows == 0:
        return _merged_layout(table, reader, pa.array([], pa.int64()))
    needed = [*spec.key_fields, *(n for n in spec.ordering_fields if n in reader.names)]
    columns = list(dict.fromkeys([*needed, ARRIVAL, CT_DELETE]))
    has_ct = bool(pc.any(table.column(CT_DELETE)).as_py())
    query = winners_query(spec, reader, has_ct)
    connection = duckdb.connect()
    try:
        connection.register("bin", table.select(columns))
        result = connection.sql(query).to_arrow_table()
    finally:
        connection.close()
    winners = result.column("winner").combine_chunks()
    first = result.column("first_arrival").combine_chunks()
    return _merged_layout(table.take(winners), reader, first)


# -- step 2b: the fold ----------------------------------------------------------------------


def fold_records(
    records: Iterable[BufferedRecord], merger: RecordMerger, context: MergeContext
) -> BufferedRecord:
    """Merge one key's records in arrival order: ``merge`` (or ``partial_merge``) left to
    right. Every engine calls this, so every engine gives the same answer."""
    iterator = iter(records)
    try:
        result = next(iterator)
    except StopIteration:
        msg = "fold_records needs at least one record"
        raise ValueError(msg) from None
    partial = context.partial_update_mode is not PartialUpdateMode.NONE
    for record in iterator:
        if partial:
            merged = merger.partial_merge(result, record, context.reader_schema, context)
        else:
            merged = merger.merge(result, record, context)
        if not isinstance(merged, BufferedRecord):
            msg = (
                f"{type(merger).__name__} returned {merged!r} for key {record.record_key!r}; "
                "a merger must return a BufferedRecord (operation DELETE to remove the key)"
            )
            raise MergerContractError(msg)
        result = merged
    return result


def _key_strings(table: pa.Table, key_fields: Sequence[str]) -> list[str]:
    """Hudi-style record keys: the value, or ``f1:v1,f2:v2`` for several fields."""
    texts: list[list[str]] = []
    for name in key_fields:
        column = table.column(name)
        try:
            values = pc.cast(column, pa.string()).to_pylist()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            values = [str(v) for v in column.to_pylist()]
        texts.append([str(v) for v in values])
    if len(key_fields) == 1:
        return texts[0]
    return [
        ",".join(f"{name}:{value}" for name, value in zip(key_fields, row, strict=True))
        for row in zip(*texts, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class KeyedRecord:
    """A BufferedRecord with its key values (for grouping) and its arrival in the bin."""

    key_values: tuple[Any, ...]
    arrival: int
    record: BufferedRecord


@dataclass(slots=True)
class _Group:
    key_values: dict[str, Any]
    first_arrival: int
    records: list[BufferedRecord]


def buffered_records(
    table: pa.Table, spec: KeyedMergeSpec, schema_fields: Sequence[Sequence[str]]
) -> Iterator[KeyedRecord]:
    """A KeyedRecord for each row of a prepared table, in table order.

    A record's data holds the fields of its own schema only (absent fields are left out).
    """
    reader = pa.schema([f for f in table.schema if f.name not in INTERNAL_COLUMNS])
    values = {name: table.column(name).to_pylist() for name in reader.names}
    schema_ids = table.column(SCHEMA_ID).to_pylist()
    arrivals = table.column(ARRIVAL).to_pylist()
    deletes = table.column(DELETE).to_pylist()
    keys = _key_strings(table, spec.key_fields)
    key_columns = [values[name] for name in spec.key_fields]
    operation_field = spec.delete_markers.operation_field
    operations = values.get(operation_field) if operation_field else None
    for row, schema_id in enumerate(schema_ids):
        fields = schema_fields[schema_id]
        data = {name: values[name][row] for name in fields}
        code = operations[row] if operations is not None and operation_field in data else None
        operation = infer_operation(bool(deletes[row]), HoodieOperation.from_code(code))
        ordering = ordering_value_of(data, spec.ordering_fields, reader)
        record = BufferedRecord(keys[row], ordering, schema_id, operation, data)
        yield KeyedRecord(tuple(column[row] for column in key_columns), arrivals[row], record)


def _ordering_data(spec: KeyedMergeSpec, ordering: Any) -> dict[str, Any]:
    if not spec.ordering_fields or ordering is DEFAULT_ORDERING_VALUE:
        return {}
    if len(spec.ordering_fields) == 1:
        return {spec.ordering_fields[0]: ordering}
    return {
        name: None if value is DEFAULT_ORDERING_VALUE else value
        for name, value in zip(spec.ordering_fields, ordering, strict=False)
    }


def fold_table(
    table: pa.Table,
    spec: KeyedMergeSpec,
    schema_fields: Sequence[Sequence[str]],
    merger: RecordMerger | None = None,
) -> pa.Table:
    """Fold the records of every key of a prepared table (or of any part of one holding all
    the rows of its keys); one row per key, in first-arrival order, same layout as
    ``vectorised_merge``. A DELETE result whose data does not read as a delete gets the
    first configured marker when tombstones are kept; a data-less one is its key and
    ordering fields."""
    reader = pa.schema([f for f in table.schema if f.name not in INTERNAL_COLUMNS])
    if merger is None:
        merger = merger_for(spec)
    context = spec.context(reader)
    table = table.sort_by(ARRIVAL)
    groups: dict[tuple[Any, ...], _Group] = {}
    for keyed in buffered_records(table, spec, schema_fields):
        group = groups.get(keyed.key_values)
        if group is None:
            key_values = dict(zip(spec.key_fields, keyed.key_values, strict=True))
            groups[keyed.key_values] = _Group(key_values, keyed.arrival, [keyed.record])
        else:
            group.records.append(keyed.record)
    rows: list[dict[str, Any]] = []
    firsts: list[int] = []
    deleted: list[bool] = []
    markers = spec.delete_markers
    for group in groups.values():
        result = fold_records(group.records, merger, context)
        if result.data is None:
            data = {**group.key_values, **_ordering_data(spec, result.ordering_value)}
        else:
            data = dict(result.data)
        if result.is_delete and spec.keep_tombstones and not reads_as_delete(data, markers, reader):
            assert result.operation is not None
            data = mark_deleted(data, result.operation, markers, reader)
        rows.append(data)
        firsts.append(group.first_arrival)
        deleted.append(result.is_delete)
    merged = pa.Table.from_pylist(rows, schema=reader)
    columns = [*merged.columns, pa.array(firsts, pa.int64()), pa.array(deleted, pa.bool_())]
    return pa.Table.from_arrays(columns, schema=merged_layout(merged.schema))


# -- step 3 ---------------------------------------------------------------------------------


def finish_merge(merged: pa.Table, spec: KeyedMergeSpec, records_in: int, engine: str) -> MergedBin:
    """Order rows by first arrival, drop deletes (or keep tombstones), count."""
    merged = merged.sort_by(FIRST_ARRIVAL)
    deleted = merged.column(DELETE)
    deletes = int(pc.sum(deleted).as_py() or 0)
    if not spec.keep_tombstones and deletes:
        merged = merged.filter(pc.invert(deleted))
    table = merged.drop_columns([FIRST_ARRIVAL, DELETE])
    return MergedBin(table, records_in, table.num_rows, deletes, engine)


def merge_locally(parts: Sequence[pa.Table], spec: KeyedMergeSpec) -> MergedBin:
    """Merge a bin in this process: vectorised for built-in modes, else the fold."""
    prepared = prepare_bin(parts, spec)
    if spec.vectorised:
        merged = vectorised_merge(prepared, spec)
    else:
        merged = fold_table(prepared.table, spec, prepared.schema_fields)
    return finish_merge(merged, spec, prepared.records_in, "local")


__all__ = [
    "ARRIVAL",
    "CT_DELETE",
    "DELETE",
    "FIRST_ARRIVAL",
    "INTERNAL_COLUMNS",
    "SCHEMA_ID",
    "KeyedRecord",
    "PreparedBin",
    "RecordKeyError",
    "buffered_records",
    "default_ordering_mask",
    "finish_merge",
    "fold_records",
    "fold_table",
    "is_numeric_type",
    "key_problem",
    "merge_locally",
    "merged_layout",
    "prepare_bin",
    "vectorised_merge",
    "winners_query",
]
