"""Merging a keyed bin on Spark, with the local engine's answer byte for byte.

The bin is prepared exactly as the local engine prepares it (``prepare_bin``: union schema,
arrival index, schema id, delete flags), written as Parquet into a staging job directory,
merged by Spark, written back as Parquet and read with pyarrow; rows never pass through
the driver. Two ways, as in the local engine:

* built-in modes without partial updates: only the columns the decision needs (key,
  ordering, arrival, commit-time-delete flag) go to Spark, which computes per key the
  first arrival and the winning arrival with DataFrame aggregates and a window, by the
  same rule as the local engine's DuckDB query (``winners_query``); the winning rows are
  then taken from the bin's own table, so their values cannot drift;
* partial updates and CUSTOM mergers: the whole prepared table goes to Spark, which
  ``repartition``s by key, sorts each partition by (key, arrival) and runs the local
  engine's ``fold_table`` on each key's rows in ``mapInArrow``: the same code, hence the
  same result.

Either way the result is cast to exactly the layout the local engine produces and goes
through the same ``finish_merge`` (first-arrival order, deletes dropped or tombstones).
Types Spark cannot hold (time of day, nanosecond timestamps, durations, half floats) are
staged as integers or floats and cast back.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from flowcore.offload import ComputeServices
from processors.merge.mergers.api import RecordMergeMode
from processors.merge.mergers.custom import merger_for
from processors.merge.mergers.local_engine import (
    ARRIVAL,
    CT_DELETE,
    DELETE,
    FIRST_ARRIVAL,
    INTERNAL_COLUMNS,
    PreparedBin,
    finish_merge,
    fold_table,
    is_numeric_type,
    merge_locally,
    merged_layout,
    prepare_bin,
)
from processors.merge.mergers.spec import KeyedMergeSpec, MergedBin

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

ENGINE = "spark"
WINNER = "__flowcore_winner"
LAST_CT_DELETE = "__flowcore_last_ct_delete"
_ROW_GROUP_ROWS = 1 << 20


def merge_on_spark(
    compute: ComputeServices, parts: Sequence[pa.Table], spec: KeyedMergeSpec
) -> MergedBin:
    """Merge a bin on Spark; raises SparkUnavailableError or SparkJobError (with reason)."""
    prepared = prepare_bin(parts, spec)
    if prepared.records_in == 0:
        return merge_locally(parts, spec)
    session = compute.spark_session()
    with compute.staging_job("merge-by-key") as job, compute.spark_errors("merge by key"):
        if spec.vectorised:
            merged = _merge_vectorised(session, job, prepared, spec)
        else:
            merged = _merge_by_fold(session, job, prepared, spec)
    return finish_merge(merged, spec, prepared.records_in, ENGINE)


# -- layout and staging types ----------------------------------------------------------------


def spark_type(data_type: pa.DataType) -> pa.DataType:
    """The type a column is staged as: itself, or a lossless stand-in Spark can read."""
    t = pa.types
    if t.is_dictionary(data_type):
        return spark_type(data_type.value_type)
    if t.is_time32(data_type):
        return pa.int32()
    if t.is_time64(data_type) or t.is_duration(data_type):
        return pa.int64()
    if t.is_timestamp(data_type) and data_type.unit == "ns":
        return pa.int64()
    if t.is_float16(data_type):
        return pa.float32()
    if t.is_string_view(data_type):
        return pa.string()
    if t.is_binary_view(data_type):
        return pa.binary()
    return data_type


def to_staging(table: pa.Table) -> pa.Table:
    """``table`` with every column Spark cannot hold cast to its stand-in."""
    fields = [f.with_type(spark_type(f.type)) for f in table.schema]
    schema = pa.schema(fields)
    return table if schema.equals(table.schema) else table.cast(schema)


def from_staging(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """A staged (or Spark-written) table cast back to exactly ``schema``, by column name."""
    columns = [table.column(f.name).cast(f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def _write_staging(table: pa.Table, directory: Path) -> str:
    directory.mkdir()
    pq.write_table(
        to_staging(table),
        directory / "part-00000.parquet",
        row_group_size=_ROW_GROUP_ROWS,
        compression="none",
    )
    return directory.as_uri()


def _read_result(directory: Path, columns: Sequence[str]) -> pa.Table:
    return pq.read_table(directory, columns=list(columns))


# -- Spark expressions ----------------------------------------------------------------------


def _col(name: str) -> Column:
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def ordering_components(spec: KeyedMergeSpec, reader: pa.Schema) -> list[Column]:
    """Spark expressions ordered as ``compare_ordering`` (the local ``_ordering_components``):
    with several fields, "any not null" first; a numeric null is 0; another null sorts
    before every value."""
    from pyspark.sql import functions as F

    present = [reader.field(n) for n in spec.ordering_fields if n in reader.names]
    components: list[Column] = []
    if len(spec.ordering_fields) > 1 and present:
        components.append(
            functools.reduce(operator.or_, [_col(f.name).isNotNull() for f in present])
        )
    for f in present:
        if is_numeric_type(f.type):
            components.append(F.coalesce(_col(f.name), F.lit(0)))
        else:
            components.extend((_col(f.name).isNotNull(), _col(f.name)))
    return components


def winners_frame(
    frame: DataFrame, spec: KeyedMergeSpec, reader: pa.Schema, has_ct: bool
) -> DataFrame:
    """Per key, ``FIRST_ARRIVAL`` and ``WINNER`` (the arrival of the row that stands).

    COMMIT_TIME_ORDERING: the last arrival. EVENT_TIME_ORDERING: let p be the arrival of
    the key's last commit-time-ordering delete; among the rows at or after p the greatest
    (not a CT delete, ordering, arrival) wins (so the delete at p wins only when nothing
    after it does); without such a delete, the greatest over all rows.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    keys = [_col(k) for k in spec.key_fields]
    arrival = _col(ARRIVAL)
    first = F.min(arrival).alias(FIRST_ARRIVAL)
    if spec.mode is RecordMergeMode.COMMIT_TIME_ORDERING:
        winner = F.max(arrival)
    else:
        parts = [~_col(CT_DELETE), *ordering_components(spec, reader), arrival]
        last = f"c{len(parts) - 1}"
        order = F.struct(*[part.alias(f"c{i}") for i, part in enumerate(parts)])
        if has_ct:
            last_ct = F.max(F.when(_col(CT_DELETE), arrival)).over(Window.partitionBy(*keys))
            frame = frame.withColumn(LAST_CT_DELETE, last_ct)
            p = _col(LAST_CT_DELETE)
            order = F.when(p.isNull() | (arrival >= p), order)
        winner = F.max(order).getField(last)
    return frame.groupBy(*keys).agg(first, winner.alias(WINNER)).select(FIRST_ARRIVAL, WINNER)


# -- the two ways -----------------------------------------------------------------------------


def _merge_vectorised(
    session: SparkSession, job: Path, prepared: PreparedBin, spec: KeyedMergeSpec
) -> pa.Table:
    table, reader = prepared.table, prepared.reader_schema
    ordering = [n for n in spec.ordering_fields if n in reader.names]
    columns = list(dict.fromkeys([*spec.key_fields, *ordering, ARRIVAL, CT_DELETE]))
    has_ct = spec.mode is RecordMergeMode.EVENT_TIME_ORDERING and bool(
        pc.any(table.column(CT_DELETE)).as_py()
    )
    source = _write_staging(table.select(columns), job / "in")
    frame = session.read.parquet(source)
    winners_frame(frame, spec, reader, has_ct).write.parquet((job / "out").as_uri())
    winners = _read_result(job / "out", [FIRST_ARRIVAL, WINNER])
    rows = table.take(winners.column(WINNER))
    columns_out = [rows.column(name) for name in reader.names]
    first = winners.column(FIRST_ARRIVAL).cast(pa.int64())
    return pa.Table.from_arrays(
        [*columns_out, first, rows.column(DELETE)], schema=merged_layout(reader)
    )


def _merge_by_fold(
    session: SparkSession, job: Path, prepared: PreparedBin, spec: KeyedMergeSpec
) -> pa.Table:
    from pyspark.sql.types import BooleanType, LongType, StructField, StructType

    reader = prepared.reader_schema
    source = _write_staging(prepared.table, job / "in")
    frame = session.read.parquet(source)
    by_name = {f.name: f for f in frame.schema.fields}
    output = StructType(
        [by_name[name] for name in reader.names]
        + [StructField(FIRST_ARRIVAL, LongType()), StructField(DELETE, BooleanType())]
    )
    keys = [_col(k) for k in spec.key_fields]
    fold = PartitionFold(spec, prepared.schema_fields, prepared.table.schema)
    result = frame.repartition(*keys).sortWithinPartitions(*keys, _col(ARRIVAL))
    result.mapInArrow(fold, output).write.parquet((job / "out").as_uri())
    layout = merged_layout(reader)
    return from_staging(_read_result(job / "out", layout.names), layout)


class PartitionFold:
    """Runs in Spark's Python workers: folds the keys of one partition, sorted by (key,
    arrival), with the local engine's ``fold_table``. A key's rows may span batches, so
    the rows of the last key of a batch wait for the next one."""

    def __init__(
        self,
        spec: KeyedMergeSpec,
        schema_fields: tuple[tuple[str, ...], ...],
        prepared_schema: pa.Schema,
    ) -> None:
        self.spec = spec
        self.schema_fields = schema_fields
        self.prepared_schema = prepared_schema

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        merger = merger_for(self.spec)
        carry: pa.Table | None = None
        output: pa.Schema | None = None
        for batch in batches:
            if output is None:
                output = self._output_schema(batch.schema)
            table = from_staging(pa.Table.from_batches([batch]), self.prepared_schema)
            if carry is not None:
                table = pa.concat_tables([carry, table])
            if table.num_rows == 0:
                continue
            start = _last_key_start(table, self.spec.key_fields)
            carry = table.slice(start)
            if start:
                yield from self._fold(table.slice(0, start), merger, output)
        if carry is not None and carry.num_rows and output is not None:
            yield from self._fold(carry, merger, output)

    def _output_schema(self, spark_input: pa.Schema) -> pa.Schema:
        """The reader columns as Spark typed them, then first arrival and delete flag."""
        names = [f.name for f in self.prepared_schema if f.name not in INTERNAL_COLUMNS]
        return merged_layout(pa.schema([spark_input.field(name) for name in names]))

    def _fold(self, table: pa.Table, merger: Any, output: pa.Schema) -> Iterator[pa.RecordBatch]:
        merged = fold_table(table, self.spec, self.schema_fields, merger)
        yield from from_staging(to_staging(merged), output).to_batches()


def _last_key_start(table: pa.Table, key_fields: Sequence[str]) -> int:
    """Where the rows of the table's last key begin (rows are sorted by key)."""
    last = table.num_rows - 1
    mask: Any = None
    for name in key_fields:
        column = table.column(name)
        equal = pc.equal(column, column[last])
        mask = equal if mask is None else pc.and_(mask, equal)
    matching: int = pc.sum(mask).as_py() or 0
    return int(table.num_rows) - matching


__all__ = [
    "ENGINE",
    "PartitionFold",
    "from_staging",
    "merge_on_spark",
    "ordering_components",
    "spark_type",
    "to_staging",
    "winners_frame",
]
