"""The record merger API: data model, ordering values, built-in mergers, partial updates."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pyarrow as pa
import pytest

from processors.merge.mergers import (
    DEFAULT_ORDERING_VALUE,
    BufferedRecord,
    CommitTimeOrderingMerger,
    CustomMergerError,
    DeleteMarkers,
    EventTimeOrderingMerger,
    HoodieOperation,
    KeyedMergeSpec,
    MergeContext,
    PartialUpdateMode,
    RecordMergeMode,
    compare_ordering,
    fold_records,
    load_merger_class,
)
from processors.merge.mergers.api import AVRO_DEFAULT_METADATA, ordering_value_of
from processors.merge.mergers.custom import merger_for, module_allowed
from processors.merge.mergers.examples import QuantityMerger

INS, U, D, UB = (
    HoodieOperation.INSERT,
    HoodieOperation.UPDATE_AFTER,
    HoodieOperation.DELETE,
    HoodieOperation.UPDATE_BEFORE,
)
SCHEMA = pa.schema(
    [("id", pa.int64()), ("ts", pa.int64()), ("name", pa.string()), ("price", pa.float64())]
)


def rec(
    ordering: Any, op: HoodieOperation | None = U, data: dict[str, Any] | None = None
) -> BufferedRecord:
    return BufferedRecord("1", ordering, 0, op, data if data is not None else {"id": 1})


def ctx(mode: PartialUpdateMode = PartialUpdateMode.NONE, **kw: Any) -> MergeContext:
    return MergeContext(SCHEMA, ("id",), ("ts",), mode, **kw)


def test_operations_and_delete_flags() -> None:
    assert [o.value for o in HoodieOperation] == ["I", "-U", "U", "D"]
    assert HoodieOperation.from_code("-U") is UB
    assert HoodieOperation.from_code("X") is None and HoodieOperation.from_code(None) is None
    assert rec(1, D).is_delete and rec(1, UB).is_delete
    assert not rec(1, U).is_delete and not rec(1, None).is_delete
    assert rec(DEFAULT_ORDERING_VALUE, UB).is_commit_time_ordering_delete
    assert not rec(0, D).is_commit_time_ordering_delete  # a plain 0 is not the default
    assert not rec(DEFAULT_ORDERING_VALUE, INS).is_commit_time_ordering_delete
    delete = BufferedRecord.create_delete("k", 7)
    assert delete.is_delete and delete.is_empty and delete.ordering_value == 7
    assert rec(1, UB).as_delete().operation is UB and rec(1, INS).as_delete().operation is D


def test_default_ordering_value_survives_pickling() -> None:
    assert pickle.loads(pickle.dumps(DEFAULT_ORDERING_VALUE)) is DEFAULT_ORDERING_VALUE
    spec = KeyedMergeSpec(("id",), ("ts",), delete_markers=DeleteMarkers(operation_field="op"))
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_ordering_values_from_fields() -> None:
    int32 = pa.schema([("ts", pa.int32()), ("s", pa.string())])
    int64 = pa.schema([("ts", pa.int64()), ("s", pa.string())])
    assert ordering_value_of({"ts": 5}, (), int64) is DEFAULT_ORDERING_VALUE
    assert ordering_value_of({"ts": None}, ("ts",), int64) is DEFAULT_ORDERING_VALUE
    assert ordering_value_of({}, ("ts",), int64) is DEFAULT_ORDERING_VALUE  # absent field
    assert ordering_value_of({"ts": 0}, ("ts",), int32) is DEFAULT_ORDERING_VALUE  # Integer 0
    assert ordering_value_of({"ts": 0}, ("ts",), int64) == 0  # a Long 0 is not the default
    assert ordering_value_of({"ts": 0}, ("ts",), int64) is not DEFAULT_ORDERING_VALUE
    assert ordering_value_of({"ts": None, "s": None}, ("ts", "s"), int64) is (
        DEFAULT_ORDERING_VALUE
    )
    assert ordering_value_of({"ts": None, "s": "a"}, ("ts", "s"), int64) == (
        DEFAULT_ORDERING_VALUE,
        "a",
    )


def test_compare_ordering_default_numbers_strings_tuples_nan() -> None:
    default = DEFAULT_ORDERING_VALUE
    assert compare_ordering(default, 0) == 0
    assert compare_ordering(default, -1) == 1 and compare_ordering(default, 1) == -1
    assert compare_ordering(2.5, default) == 1
    # Hudi throws ClassCastException here; the default sorts before non-numeric values.
    assert compare_ordering(default, "") == -1 and compare_ordering("a", default) == 1
    assert compare_ordering(default, False) == -1
    assert compare_ordering(default, (0, 0)) == -1 and compare_ordering((0,), default) == 1
    assert compare_ordering((1, "b"), (1, "a")) == 1
    assert compare_ordering((default, "a"), (0, "a")) == 0
    assert compare_ordering((default, "a"), (-1, "z")) == 1
    assert compare_ordering(float("nan"), 1e300) == 1
    assert compare_ordering(float("nan"), float("nan")) == 0
    assert compare_ordering("b", "a") == 1 and compare_ordering("a", "a") == 0


def test_commit_time_merger_newer_always_wins() -> None:
    merger = CommitTimeOrderingMerger()
    older, newer = rec(10), rec(1, D)
    assert merger.merge(older, newer, ctx()) is newer
    assert merger.merge(newer, older, ctx()) is older


def test_event_time_rules() -> None:
    merger = EventTimeOrderingMerger()
    c = ctx()
    high, low, tie = rec(10), rec(5), rec(10)
    assert merger.merge(high, low, c) is high  # stale update ignored
    assert merger.merge(low, high, c) is high
    assert merger.merge(high, tie, c) is tie  # ties go to the later arrival
    stale_delete, delete = rec(5, D), rec(10, D)
    assert merger.merge(high, stale_delete, c) is high
    assert merger.merge(high, delete, c) is delete  # tie: the delete arrived later
    ct_delete = rec(DEFAULT_ORDERING_VALUE, D)
    assert merger.merge(high, ct_delete, c) is ct_delete  # always wins
    late = rec(-100)
    assert merger.merge(ct_delete, late, c) is late  # anything later overrides it
    null_update = rec(DEFAULT_ORDERING_VALUE, U)
    assert merger.merge(high, null_update, c) is high  # compares as 0
    assert merger.merge(rec(-1), null_update, c) is null_update


def test_fold_is_left_to_right_because_ct_deletes_are_not_associative() -> None:
    merger, c = EventTimeOrderingMerger(), ctx()
    records = [rec(5), rec(DEFAULT_ORDERING_VALUE, D), rec(3), rec(1), rec(3, D)]
    assert fold_records(records, merger, c) is records[4]
    left = merger.merge(merger.merge(records[0], records[1], c), records[2], c)
    right = merger.merge(records[0], merger.merge(records[1], records[2], c), c)
    # Regrouping changes the answer: engines must fold each key in arrival order.
    assert left is records[2] and right is records[0]


def test_partial_merge_javadoc_example() -> None:
    schema = pa.schema(
        [
            ("id", pa.int64()),
            ("ts", pa.int64()),
            ("name", pa.string()),
            ("price", pa.float64()),
            ("tags", pa.string()),
        ]
    )
    c = MergeContext(schema, ("id",), ("ts",), PartialUpdateMode.KEEP_VALUES)
    merger = EventTimeOrderingMerger()
    full = BufferedRecord(
        "1", 10, 0, INS, {"id": 1, "ts": 10, "name": "apple", "price": 2.3, "tags": "fruit"}
    )
    partial = BufferedRecord("1", 16, 1, U, {"ts": 16, "price": 2.8})
    merged = merger.partial_merge(full, partial, schema, c)
    assert merged.data == {"id": 1, "ts": 16, "name": "apple", "price": 2.8, "tags": "fruit"}
    assert list(merged.data) == ["id", "ts", "name", "price", "tags"]
    assert (merged.ordering_value, merged.operation) == (16, U)
    older = BufferedRecord("1", 10, 1, U, {"ts": 10, "price": 2.8})
    newer = BufferedRecord("1", 16, 2, U, {"ts": 16, "tags": "fruit,juicy"})
    merged = merger.partial_merge(older, newer, schema, c)
    assert merged.data == {"ts": 16, "price": 2.8, "tags": "fruit,juicy"}
    assert list(merged.data) == ["ts", "price", "tags"]


def test_keep_values_returns_high_unchanged_when_it_has_every_field() -> None:
    c = ctx(PartialUpdateMode.KEEP_VALUES)
    high = rec(9, U, {"id": 1, "ts": 9, "name": None, "price": None})
    low = rec(1, U, {"id": 1, "ts": 1, "name": "x", "price": 1.0})
    assert EventTimeOrderingMerger().partial_merge(low, high, SCHEMA, c) is high


def test_keep_values_older_high_order_record_is_the_base() -> None:
    c = ctx(PartialUpdateMode.KEEP_VALUES)
    older = rec(20, U, {"id": 1, "ts": 20, "price": 3.5})
    newer = rec(10, INS, {"id": 1, "ts": 10, "name": "apple", "price": 2.0})
    merged = EventTimeOrderingMerger().partial_merge(older, newer, SCHEMA, c)
    assert merged.data == {"id": 1, "ts": 20, "name": "apple", "price": 3.5}
    assert merged.ordering_value == 20 and merged.operation is U


def test_deletes_bypass_partial_merging() -> None:
    c = ctx(PartialUpdateMode.KEEP_VALUES)
    full = rec(10, INS, {"id": 1, "ts": 10, "name": "apple", "price": 2.3})
    delete = rec(12, D, {"id": 1, "ts": 12})
    merger = EventTimeOrderingMerger()
    assert merger.partial_merge(full, delete, SCHEMA, c) is delete
    after = rec(16, U, {"id": 1, "ts": 16, "price": 2.8})
    assert merger.partial_merge(delete, after, SCHEMA, c) is after
    assert CommitTimeOrderingMerger().partial_merge(full, delete, SCHEMA, c) is delete


def test_fill_ignore_defaults_and_markers() -> None:
    schema = pa.schema(
        [
            pa.field("id", pa.int64()),
            pa.field("ts", pa.int64()),
            pa.field("name", pa.string(), metadata={AVRO_DEFAULT_METADATA: json.dumps("n/a")}),
            pa.field("price", pa.float64()),
        ]
    )
    low = BufferedRecord("1", 1, 0, INS, {"id": 1, "ts": 1, "name": "apple", "price": 2.3})
    newer = BufferedRecord("1", 2, 1, U, {"id": 1, "ts": 2, "price": None})
    merger = CommitTimeOrderingMerger()

    def merged(mode: PartialUpdateMode, high: BufferedRecord) -> Any:
        c = MergeContext(schema, ("id",), ("ts",), mode, "__unavailable")
        result = merger.partial_merge(low, high, schema, c)
        return result.data

    # FILL_DEFAULTS: absent fields take the schema default (Avro default, else null).
    assert merged(PartialUpdateMode.FILL_DEFAULTS, newer) == {
        "id": 1,
        "ts": 2,
        "name": "n/a",
        "price": None,
    }
    # IGNORE_DEFAULTS: fields equal to their default (absent reads as default) from low.
    assert merged(PartialUpdateMode.IGNORE_DEFAULTS, newer) == {
        "id": 1,
        "ts": 2,
        "name": "apple",
        "price": 2.3,
    }
    marked = BufferedRecord("1", 2, 1, U, {"id": 1, "ts": 2, "name": "__unavailable", "price": 9.5})
    assert merged(PartialUpdateMode.IGNORE_MARKERS, marked) == {
        "id": 1,
        "ts": 2,
        "name": "apple",
        "price": 9.5,
    }
    # IGNORE_MARKERS only looks at the marker: an absent field reads as its default.
    assert merged(PartialUpdateMode.IGNORE_MARKERS, newer)["name"] == "n/a"


def test_custom_merger_loading_is_allowlisted() -> None:
    path = "processors.merge.mergers.examples:QuantityMerger"
    with pytest.raises(CustomMergerError, match=r"record_mergers\.allowed_custom_modules"):
        load_merger_class(path, [])
    with pytest.raises(CustomMergerError, match="not allowed"):
        load_merger_class(path, ["processors.merge.mergers.ex"])  # not a package prefix
    assert load_merger_class(path, ["processors.merge"]) is QuantityMerger
    dotted = "processors.merge.mergers.examples.QuantityMerger"
    assert load_merger_class(dotted, ["processors.merge.mergers.examples"]) is QuantityMerger
    with pytest.raises(CustomMergerError, match="not a subclass"):
        load_merger_class("processors.merge.mergers.examples:replace", ["processors"])
    with pytest.raises(CustomMergerError, match="cannot import"):
        load_merger_class("processors.nothing_here:X", ["processors"])
    assert module_allowed("a.b.c", ["a.b"]) and not module_allowed("a.bc", ["a.b"])
    spec = KeyedMergeSpec(("id",), mode=RecordMergeMode.CUSTOM)
    with pytest.raises(CustomMergerError, match="needs a custom record merger class"):
        merger_for(spec)


def test_quantity_merger_returns_a_delete_with_data() -> None:
    merger, c = QuantityMerger(), ctx()
    a = BufferedRecord("a", DEFAULT_ORDERING_VALUE, 0, INS, {"id": "a", "qty": 5})
    b = BufferedRecord("a", DEFAULT_ORDERING_VALUE, 0, U, {"id": "a", "qty": -5})
    result = fold_records([a, b], merger, c)
    assert result.operation is D and result.data == {"id": "a", "qty": 0}
