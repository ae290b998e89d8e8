"""The vectorised local path gives exactly what folding the built-in mergers gives."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from processors.merge.mergers import DeleteMarkers, KeyedMergeSpec, RecordMergeMode
from processors.merge.mergers.local_engine import (
    finish_merge,
    fold_table,
    prepare_bin,
    vectorised_merge,
)

OPS = st.sampled_from(["I", "U", "D", "-U", None])
ORDERING_TYPES = {
    "int64": (pa.int64(), st.integers(-3, 3)),
    "int32": (pa.int32(), st.integers(-2, 2)),  # int32 0 is the default ordering value
    "float": (pa.float64(), st.sampled_from([-1.5, 0.0, 1.0, 2.5, float("nan")])),
    "string": (pa.string(), st.sampled_from(["", "a", "b", "ab"])),
}


@st.composite
def streams(draw: Any) -> tuple[list[pa.Table], KeyedMergeSpec]:
    ordering_kind = draw(st.sampled_from(sorted(ORDERING_TYPES)))
    ordering_type, ordering_values = ORDERING_TYPES[ordering_kind]
    second_kind = draw(st.sampled_from(sorted(ORDERING_TYPES)))
    second_type, second_values = ORDERING_TYPES[second_kind]
    ordering_count = draw(st.integers(0, 2))
    ordering_fields = ("ts", "ts2")[:ordering_count]
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        rows = draw(st.integers(0, 12))
        columns: dict[str, pa.Array] = {
            "id": pa.array(draw(st.lists(st.sampled_from("abcd"), min_size=rows, max_size=rows))),
            "ts": pa.array(
                draw(st.lists(st.none() | ordering_values, min_size=rows, max_size=rows)),
                ordering_type,
            ),
            "ts2": pa.array(
                draw(st.lists(st.none() | second_values, min_size=rows, max_size=rows)),
                second_type,
            ),
            "op": pa.array(draw(st.lists(OPS, min_size=rows, max_size=rows)), pa.string()),
            "gone": pa.array(
                draw(st.lists(st.none() | st.booleans(), min_size=rows, max_size=rows)),
                pa.bool_(),
            ),
            "v": pa.array(list(range(rows)), pa.int64()),
        }
        # Partial schemas: some FlowFiles lack some fields.
        dropped = draw(st.sets(st.sampled_from(["ts", "ts2", "gone", "v"])))
        parts.append(pa.table({k: v for k, v in columns.items() if k not in dropped}))
    spec = KeyedMergeSpec(
        key_fields=("id",),
        ordering_fields=ordering_fields,
        mode=draw(
            st.sampled_from(
                [RecordMergeMode.EVENT_TIME_ORDERING, RecordMergeMode.COMMIT_TIME_ORDERING]
            )
        ),
        delete_markers=DeleteMarkers(operation_field="op", is_deleted_field="gone"),
        keep_tombstones=draw(st.booleans()),
    )
    return parts, spec


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_vectorised_equals_fold(case: tuple[list[pa.Table], KeyedMergeSpec]) -> None:
    parts, spec = case
    prepared = prepare_bin(parts, spec)
    vectorised = finish_merge(vectorised_merge(prepared, spec), spec, prepared.records_in, "x")
    folded = finish_merge(
        fold_table(prepared.table, spec, prepared.schema_fields), spec, prepared.records_in, "x"
    )
    assert vectorised.table.schema.equals(folded.table.schema)
    # repr: NaN equals NaN, and the values' Python types must agree too.
    assert repr(vectorised.table.to_pylist()) == repr(folded.table.to_pylist())
    assert (vectorised.records_out, vectorised.deletes) == (folded.records_out, folded.deletes)


def test_fold_table_accepts_rows_out_of_arrival_order() -> None:
    """Another engine may hand a key's rows in any order: the fold sorts by arrival."""
    spec = KeyedMergeSpec(("id",), ("ts",), RecordMergeMode.EVENT_TIME_ORDERING)
    part = pa.table({"id": ["a", "b", "a", "a"], "ts": [1, 1, 2, 2], "v": [1, 2, 3, 4]})
    prepared = prepare_bin([part], spec)
    shuffled = prepared.table.take([3, 1, 0, 2])
    merged = finish_merge(fold_table(shuffled, spec, prepared.schema_fields), spec, 4, "x")
    assert merged.table.to_pylist() == [{"id": "a", "ts": 2, "v": 4}, {"id": "b", "ts": 1, "v": 2}]
