"""Property: the incremental output, replayed, equals a full rebuild over the final datasets.

Random units of entity changes (inserts, updates, deletes, re-inserts; list, null and
mixed-type values) go through the processor's unit function one after another. After
every unit: the emitted entities replayed (last per ``_id``, ``$replaced`` ids dropped)
equal the bulk rebuild over the datasets as they now are (a unit that fails, on
``max_merged`` or an identity collision, leaves the index untouched and is left out),
and the index equals the index the bulk path builds for them (so later units start from
the same state); ``_updated`` counts up by one per emitted entity with no gap.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from entities_helpers import DictStore, Merger, config, rebuilt_view

from processors.entities.bulk import rebuild, rebuild_datasets, write_rebuild
from processors.entities.incremental import apply_changes
from processors.entities.index import COUNTER, DATASET, EntityIndex
from processors.entities.model import Change, MergeError

DATASETS = ("A", "B", "C")
VALUES = st.one_of(
    st.none(),
    st.sampled_from([1, 2, "1", "2", True, 1.0, "x", "X"]),
    st.lists(st.sampled_from([1, 2, "x", None]), max_size=3),
)


@st.composite
def entities(draw: st.DrawFn) -> dict[str, Any]:
    entity: dict[str, Any] = {"_id": draw(st.sampled_from(["e1", "e2", "e3", "e4", "e10"]))}
    for name in ("k", "m"):
        if draw(st.booleans()):
            entity[name] = draw(VALUES)
    if draw(st.integers(0, 5)) == 0:
        entity["_deleted"] = True
    if draw(st.integers(0, 7)) == 0:
        entity["$ids"] = draw(st.lists(st.sampled_from(["s1", "s2", "e1"]), max_size=2))
    return entity


UNITS = st.lists(
    st.lists(st.tuples(st.sampled_from(DATASETS), entities()), min_size=1, max_size=6),
    min_size=1,
    max_size=8,
)
CONFIGS = st.sampled_from(
    [
        {"equality": '[["eq","a.k","b.k"],["eq","b.m",["lower","c.m"]]]'},
        {"equality_sets": '[["a.k","b.k","c.k"],["c.m","a.m"]]', "strategy": "compact"},
        {"equality": '[["eq","a.k","a.m"],["eq","a.$ids","b.$ids"]]', "strategy": "list"},
        {"equality_sets": '[["a.k","b.k","c.k"]]', "max_merged": "3"},
        {"equality_sets": '[["a._id","b._id","c._id"],["a.k","b.m"]]', "identity": "first"},
    ]
)


def index_without_bookkeeping(store: DictStore) -> dict[bytes, bytes]:
    return {k: v for k, v in store.data.items() if k != COUNTER and not k.startswith(DATASET)}


@settings(max_examples=150, deadline=None)
@given(units=UNITS, properties=CONFIGS)
def test_incremental_replayed_equals_rebuild(
    units: list[list[tuple[str, dict[str, Any]]]], properties: dict[str, str]
) -> None:
    merge_config = config("A a, B b, C c", **properties)
    merger = Merger(merge_config)
    final: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in DATASETS}
    for unit in units:
        before = dict(merger.store.data)
        try:
            merger.apply(*[(dataset, [entity]) for dataset, entity in unit])
        except MergeError:
            # max_merged or an identity collision: nothing of the unit is applied.
            assert merger.store.data == before
            continue
        for dataset, entity in unit:
            final[dataset][entity["_id"]] = entity
        datasets = {name: list(by_id.values()) for name, by_id in final.items()}
        assert merger.view() == rebuilt_view(merge_config, datasets)
        expected = DictStore()
        write_rebuild(EntityIndex(expected), rebuild_datasets(merge_config, datasets))
        assert index_without_bookkeeping(merger.store) == index_without_bookkeeping(expected)
    assert [e["_updated"] for e in merger.emitted] == list(range(len(merger.emitted)))


@settings(max_examples=100, deadline=None)
@given(unit=UNITS.map(lambda units: units[0]), properties=CONFIGS)
def test_bulk_equals_incremental_on_an_empty_index(
    unit: list[tuple[str, dict[str, Any]]], properties: dict[str, str]
) -> None:
    merge_config = config("A a, B b, C c", **properties)
    changes = [Change(dataset, entity) for dataset, entity in unit]
    incremental = DictStore()
    bulk = DictStore()
    try:
        built = rebuild(merge_config, changes)
    except MergeError as exc:
        with pytest.raises(type(exc)):
            apply_changes(EntityIndex(incremental), merge_config, changes)
        return
    result = apply_changes(EntityIndex(incremental), merge_config, changes)
    write_rebuild(EntityIndex(bulk), built)
    assert result.emitted == built.result.emitted
    assert (result.merged, result.deleted) == (built.result.merged, built.result.deleted)
    assert incremental.data == bulk.data
