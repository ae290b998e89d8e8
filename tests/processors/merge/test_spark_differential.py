"""Differential tests: the Spark engine gives exactly the local engine's merged bin.

Random streams of inserts, updates and deletes (several FlowFiles, ties, nulls, missing
fields, out-of-order ordering values), every merge mode, delete marker and partial update
mode. Each example is one Spark job (~0.3-1 s), so the example counts are modest. All
tests share the one ``local[2]`` session of ``spark_compute``.
"""

from __future__ import annotations

import io
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowcore.offload import ComputeServices
from processors.merge.mergers import (
    DeleteMarkers,
    KeyedMergeSpec,
    PartialUpdateMode,
    RecordMergeMode,
    merge_locally,
)
from processors.merge.mergers.spark_engine import (
    from_staging,
    merge_on_spark,
    spark_type,
    to_staging,
)

MARKER = "__unavailable__"
DEFAULT_V = "dflt"
EXAMPLES = "processors.merge.mergers.examples"

FIELDS = {
    "id": pa.string(),
    "ts": pa.int64(),
    "op": pa.string(),
    "del": pa.bool_(),
    "v": pa.string(),
    "qty": pa.int64(),
    "when": pa.timestamp("ns"),
}
OPTIONAL = ("ts", "op", "del", "v", "qty", "when")
V_FIELD = pa.field("v", pa.string(), metadata={b"avro.default": b'"dflt"'})

slow_settings = settings(
    max_examples=18,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)


@st.composite
def rows(draw: st.DrawFn) -> dict[str, Any]:
    # Nanoseconds apart: a stand-in that lost precision would merge differently.
    when = draw(st.none() | st.integers(0, 3).map(lambda ns: 1_704_067_200_000_000_000 + ns))
    return {
        "id": draw(st.sampled_from(["a", "b", "c", "d"])),
        "ts": draw(st.none() | st.integers(0, 3)),  # few values: ties and stale updates
        "op": draw(st.sampled_from(["I", "U", "D", "-U", None])),
        "del": draw(st.booleans() | st.none()),
        "v": draw(st.sampled_from(["x", "y", DEFAULT_V, MARKER, "DELETED", None])),
        "qty": draw(st.none() | st.integers(-3, 5)),
        "when": when,
    }


@st.composite
def parts(draw: st.DrawFn, partial_fields: bool, ts_type: pa.DataType) -> list[pa.Table]:
    """1-4 FlowFiles' tables; with ``partial_fields`` some lack some optional fields."""
    tables = []
    for _ in range(draw(st.integers(1, 4))):
        names = ["id"]
        for name in OPTIONAL:
            if not partial_fields or name == "ts" or draw(st.booleans()):
                names.append(name)
        fields = [
            V_FIELD if n == "v" else pa.field(n, ts_type if n == "ts" else FIELDS[n]) for n in names
        ]
        data = draw(st.lists(rows(), min_size=0, max_size=12))
        tables.append(
            pa.Table.from_pylist([{n: r[n] for n in names} for r in data], pa.schema(fields))
        )
    return tables


markers = st.sampled_from(
    [
        DeleteMarkers(operation_field="op"),
        DeleteMarkers(is_deleted_field="del"),
        DeleteMarkers(custom_field="v", custom_marker="DELETED"),
        DeleteMarkers(operation_field="op", is_deleted_field="del"),
        DeleteMarkers(),
    ]
)
orderings = st.sampled_from([(), ("ts",), ("ts", "v"), ("when",), ("missing",)])


def ipc_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table.combine_chunks())
    return sink.getvalue()


def assert_same(compute: ComputeServices, tables: list[pa.Table], spec: KeyedMergeSpec) -> None:
    local = merge_locally(tables, spec)
    spark = merge_on_spark(compute, tables, spec)
    assert spark.table.schema.equals(local.table.schema, check_metadata=True)
    assert spark.table.equals(local.table, check_metadata=True), (
        f"\nlocal:\n{local.table.to_pylist()}\nspark:\n{spark.table.to_pylist()}"
    )
    assert ipc_bytes(spark.table) == ipc_bytes(local.table)
    assert (spark.records_in, spark.records_out, spark.deletes) == (
        local.records_in,
        local.records_out,
        local.deletes,
    )
    if spark.records_in:
        assert spark.engine == "spark"


@slow_settings
@given(
    data=st.data(),
    mode=st.sampled_from(
        [RecordMergeMode.COMMIT_TIME_ORDERING, RecordMergeMode.EVENT_TIME_ORDERING]
    ),
    ordering=orderings,
    delete_markers=markers,
    keep_tombstones=st.booleans(),
    ts_type=st.sampled_from([pa.int64(), pa.int32()]),  # int32 0 is the default ordering
)
def test_builtin_modes_match(
    spark_compute: ComputeServices,
    data: st.DataObject,
    mode: RecordMergeMode,
    ordering: tuple[str, ...],
    delete_markers: DeleteMarkers,
    keep_tombstones: bool,
    ts_type: pa.DataType,
) -> None:
    tables = data.draw(parts(partial_fields=data.draw(st.booleans()), ts_type=ts_type))
    spec = KeyedMergeSpec(
        key_fields=("id",),
        ordering_fields=ordering,
        mode=mode,
        delete_markers=delete_markers,
        keep_tombstones=keep_tombstones,
    )
    assert spec.vectorised
    assert_same(spark_compute, tables, spec)


@slow_settings
@given(
    data=st.data(),
    mode=st.sampled_from(
        [RecordMergeMode.COMMIT_TIME_ORDERING, RecordMergeMode.EVENT_TIME_ORDERING]
    ),
    partial=st.sampled_from([m for m in PartialUpdateMode if m is not PartialUpdateMode.NONE]),
    ordering=orderings,
    delete_markers=markers,
    keep_tombstones=st.booleans(),
)
def test_partial_updates_match(
    spark_compute: ComputeServices,
    data: st.DataObject,
    mode: RecordMergeMode,
    partial: PartialUpdateMode,
    ordering: tuple[str, ...],
    delete_markers: DeleteMarkers,
    keep_tombstones: bool,
) -> None:
    tables = data.draw(parts(partial_fields=True, ts_type=pa.int64()))
    spec = KeyedMergeSpec(
        key_fields=("id",),
        ordering_fields=ordering,
        mode=mode,
        delete_markers=delete_markers,
        partial_update_mode=partial,
        partial_update_marker=MARKER,
        keep_tombstones=keep_tombstones,
    )
    assert_same(spark_compute, tables, spec)


@settings(slow_settings, max_examples=10)
@given(
    data=st.data(),
    merger=st.sampled_from(["QuantityMerger", "KeepFirstMerger"]),
    keys=st.sampled_from([("id",), ("id", "op")]),
    delete_markers=markers,
    keep_tombstones=st.booleans(),
)
def test_custom_mergers_match(
    spark_compute: ComputeServices,
    data: st.DataObject,
    merger: str,
    keys: tuple[str, ...],
    delete_markers: DeleteMarkers,
    keep_tombstones: bool,
) -> None:
    tables = data.draw(parts(partial_fields=False, ts_type=pa.int64()))
    tables = [t.drop_null() if "op" in keys else t for t in tables]  # keys are never null
    spec = KeyedMergeSpec(
        key_fields=keys,
        ordering_fields=("ts",),
        mode=RecordMergeMode.CUSTOM,
        custom_merger=f"{EXAMPLES}:{merger}",
        allowed_custom_modules=(EXAMPLES,),
        delete_markers=delete_markers,
        keep_tombstones=keep_tombstones,
    )
    assert_same(spark_compute, tables, spec)


def test_types_spark_cannot_hold_round_trip(spark_compute: ComputeServices) -> None:
    """Time of day, nanosecond timestamps, durations, half floats, dictionaries, large
    strings: staged as stand-ins, merged by the fold and cast back exactly."""
    import numpy as np

    table = pa.table(
        {
            "id": pa.array(["a", "b", "a", "c"], pa.large_string()),
            "t32": pa.array([1, 2, 3, None], pa.time32("ms")),
            "t64": pa.array([1, 2, 3, 4], pa.time64("ns")),
            "ns": pa.array([1, 2, 3, None], pa.timestamp("ns", tz="UTC")),
            "dur": pa.array([1, None, 3, 4], pa.duration("us")),
            "half": pa.array(np.array([1.5, 2, 3, 4], dtype=np.float16)),
            "cat": pa.array(["x", "y", "x", None]).dictionary_encode(),
            "dec": pa.array([1, 2, 3, 4], pa.decimal128(10, 2)),
            "day": pa.array([1, 2, 3, 4], pa.date32()),
            "u64": pa.array([1, 2**63, 3, 4], pa.uint64()),
        }
    )
    for column in table.columns:
        assert spark_type(column.type) is not None
    assert from_staging(to_staging(table), table.schema).equals(table)
    for mode in (PartialUpdateMode.KEEP_VALUES, PartialUpdateMode.NONE):
        spec = KeyedMergeSpec(
            key_fields=("id",),
            ordering_fields=("t64",),
            mode=RecordMergeMode.EVENT_TIME_ORDERING,
            partial_update_mode=mode,
        )
        assert_same(spark_compute, [table.slice(0, 2), table.slice(2)], spec)


def test_an_empty_bin_needs_no_spark(tmp_path: Any) -> None:
    from flowcore.settings import EngineSettings, SparkSettings

    compute = ComputeServices(
        EngineSettings(data_dir=tmp_path, spark=SparkSettings(master="spark://127.0.0.1:1"))
    )
    empty = pa.table({"id": pa.array([], pa.string())})
    merged = merge_on_spark(compute, [empty], KeyedMergeSpec(key_fields=("id",)))
    assert merged.records_in == 0 and merged.table.num_rows == 0


@pytest.mark.parametrize("partial", [PartialUpdateMode.NONE, PartialUpdateMode.KEEP_VALUES])
def test_many_keys_over_many_batches(
    spark_compute: ComputeServices, partial: PartialUpdateMode
) -> None:
    """Keys whose rows span Arrow batches and partitions (the fold carries the last key)."""
    import numpy as np

    rng = np.random.default_rng(7)
    count = 30_000
    table = pa.table(
        {
            "id": pa.array(rng.integers(0, 3_000, count)),
            "ts": pa.array(rng.integers(0, 50, count)),
            "op": pa.array(rng.choice(["I", "U", "D"], count)),
        }
    )
    spec = KeyedMergeSpec(
        key_fields=("id",),
        ordering_fields=("ts",),
        mode=RecordMergeMode.EVENT_TIME_ORDERING,
        delete_markers=DeleteMarkers(operation_field="op"),
        partial_update_mode=partial,
    )
    assert_same(spark_compute, [table.slice(0, 10_000), table.slice(10_000)], spec)
