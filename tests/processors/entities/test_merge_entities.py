"""MergeEntities through the TestRunner: the real session, keyed state and provenance."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from entities_helpers import (
    SEED_A,
    SEED_B,
    SEED_C,
    SEED_DATASETS,
    SEED_EQUALITY,
    SEED_OUTPUT,
    DictStore,
    config,
)

from flowcore.testing import TestRunner
from processors.entities.bulk import rebuild_datasets, write_rebuild
from processors.entities.index import EntityIndex
from processors.entities.merge_entities import ATTR_REASON

RELATIONSHIPS = ["merged", "original", "failure"]


def seed_runner(data_dir: Path | None = None) -> TestRunner:
    """A seeded runner; one on ``data_dir`` is durable, so that a second one is a restart."""
    repositories: Literal["memory", "durable"] = "memory" if data_dir is None else "durable"
    runner = TestRunner("MergeEntities", data_dir=data_dir, repositories=repositories)
    runner.set_property("Datasets", SEED_DATASETS)
    runner.set_property("Equality", SEED_EQUALITY)
    return runner


@pytest.fixture
def runner() -> Iterator[TestRunner]:
    with seed_runner() as r:
        yield r


def put(runner: TestRunner, dataset: str, entities: list[dict[str, Any]]) -> None:
    runner.enqueue(json.dumps(entities), {"dataset": dataset})


def merged(runner: TestRunner) -> list[list[dict[str, Any]]]:
    return [json.loads(f.content) for f in runner.get_flowfiles_for_relationship("merged")]


def test_properties_defaults_and_relationships() -> None:
    with TestRunner("MergeEntities") as r:
        assert r.validation_errors() == ["'Datasets' is invalid because Datasets is required"]
        descriptors = {d.display_name: d for d in r.processor.property_descriptors}
        assert list(descriptors) == [
            "Dataset Attribute", "Datasets", "Equality", "Equality Sets", "Identity",
            "Strategy", "Max Merged", "Version", "If Source Empty", "Initial Datasets",
            "Ignore Non-Existent Datasets", "Include Internal Properties", "Batch Size",
            "Bulk Engine",
        ]  # fmt: skip
        assert descriptors["Equality"].name == "equality"
        defaults = {name: d.default for name, d in descriptors.items() if d.default is not None}
        assert defaults == {
            "Dataset Attribute": "dataset", "Identity": "composite", "Strategy": "default",
            "Max Merged": "50000", "Version": "2", "If Source Empty": "accept",
            "Ignore Non-Existent Datasets": "true", "Include Internal Properties": "false",
            "Batch Size": "100", "Bulk Engine": "auto",
        }  # fmt: skip
        assert [rel.name for rel in r.processor.relationships] == RELATIONSHIPS
        r.set_property("datasets", "A a")  # Sesam's property name works too
        r.assert_valid()


@pytest.mark.parametrize(
    ("name", "value", "error"),
    [
        ("Version", "1", "'Version' validated against '1' is invalid because only version 2 "
         "of the merge source is supported (Sesam's version 1 is deprecated and behaves "
         "differently)"),
        ("Equality", '[["eq", "a.f1"', "'Equality' validated against '[[\"eq\", \"a.f1\"' is "
         "invalid because Equality is not valid JSON: Expecting ',' delimiter: line 1 column "
         "15 (char 14)"),
        ("Equality", '[["eq", ["trim", "a.f1"], "b.f1"]]', "'Equality' validated against "
         "'[[\"eq\", [\"trim\", \"a.f1\"], \"b.f1\"]]' is invalid because Equality: "
         "[\"trim\",\"a.f1\"] uses the unknown function 'trim' (known: lower, upper, string, "
         "integer)"),
        ("Equality Sets", '[["a.f1", "x.f1"]]', "'Equality Sets' validated against "
         "'[[\"a.f1\", \"x.f1\"]]' is invalid because Equality Sets: \"x.f1\" refers to the "
         "unknown dataset alias 'x' (known: a, b, c)"),
        ("Identity", "last", "'Identity' validated against 'last' is invalid because Given "
         "value not found in allowed set 'composite, first'"),
    ],
)  # fmt: skip
def test_validation_messages(runner: TestRunner, name: str, value: str, error: str) -> None:
    runner.set_property(name, value)
    assert runner.validation_errors() == [error]


def test_seed_example(runner: TestRunner) -> None:
    inputs = [runner.enqueue(json.dumps(d), {"dataset": n})
              for n, d in (("A", SEED_A), ("B", SEED_B), ("C", SEED_C))]  # fmt: skip
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 3)
    (out,) = runner.get_flowfiles_for_relationship("merged")
    assert out.text() == (
        "[\n"
        '{"$ids":["a1","b1","c1"],"_id":"0|a1|1|b1|2|c1","_updated":0,"f1":[1,1],"f2":"x","f3":"X"},\n'
        '{"$ids":["a2"],"_id":"0|a2","_updated":1,"f1":2},\n'
        '{"$ids":["b2"],"_id":"1|b2","_updated":2,"f1":3},\n'
        '{"$ids":["c2"],"_deleted":true,"_id":"2|c2","_updated":3,"f3":"Y"},\n'
        '{"$ids":["c3"],"_deleted":true,"_id":"2|c3","_updated":4,"f3":"X"}\n'
        "]\n"
    )  # fmt: skip
    assert json.loads(out.content) == SEED_OUTPUT
    assert {k: v for k, v in out.attributes.items() if k.startswith("MergeEntities.")} == {
        "MergeEntities.emitted": "5", "MergeEntities.merged": "1", "MergeEntities.split": "0",
        "MergeEntities.replaced": "0", "MergeEntities.deleted": "2",
        "MergeEntities.updated.first": "0", "MergeEntities.updated.last": "4",
        "MergeEntities.populated": "true", "MergeEntities.bulk.engine": "local",
    }  # fmt: skip
    assert out.attributes["filename"] == "merged-000000000000.json"
    assert out.attributes["mime.type"] == "application/json"
    (join,) = [e for e in runner.get_provenance_events() if e.event_type == "JOIN"]
    assert join.details == "Entities merged: 5 emitted (1 merged, 0 split, 0 replaced, 2 deleted)"
    assert join.flowfile_uuid == out.uuid
    assert sorted(join.parent_uuids) == sorted(i.uuid for i in inputs)
    # The committed index is exactly what the bulk path builds for the same datasets.
    expected = DictStore()
    built = rebuild_datasets(
        config(SEED_DATASETS, equality=SEED_EQUALITY), {"A": SEED_A, "B": SEED_B, "C": SEED_C}
    )
    write_rebuild(EntityIndex(expected), built)
    committed = runner.keyed_state()
    assert {k: v for k, v in committed.items() if not k.startswith(b"d")} == expected.data
    assert sorted(k for k in committed if k.startswith(b"d")) == [b"dA", b"dB", b"dC"]


def test_split_is_reported_and_updated_continues_after_restart(tmp_path: Path) -> None:
    with seed_runner(tmp_path) as first:
        put(first, "A", SEED_A)
        put(first, "B", SEED_B)
        put(first, "C", SEED_C)
        first.run()
    with seed_runner(tmp_path) as second:
        second.clear_transfer_state()  # what the first run left in the capture queues
        put(second, "B", [{"_id": "b1", "f1": 1, "f2": "y"}])
        second.run()
        assert merged(second) == [[
            {"$ids": ["a1", "b1"], "_id": "0|a1|1|b1", "_updated": 5, "f1": [1, 1], "f2": "y"},
            {"$ids": ["c1"], "_id": "2|c1", "_updated": 6, "f3": "X"},
            {"$replaced": True, "_deleted": True, "_id": "0|a1|1|b1|2|c1", "_updated": 7},
        ]]  # fmt: skip
        joins = [e for e in second.get_provenance_events() if e.event_type == "JOIN"]
        assert len(joins) == 2
        assert joins[-1].details == (
            "Entities merged: 3 emitted (0 merged, 1 split, 1 replaced, 0 deleted)"
        )
        # Nothing changed: the FlowFile goes to original and nothing is emitted.
        second.clear_transfer_state()
        put(second, "B", [{"_id": "b1", "f1": 1, "f2": "y"}])
        second.run()
        second.assert_transfer_count("merged", 0)
        second.assert_transfer_count("original", 1)


def test_max_merged_fails_only_the_flowfile_at_fault(runner: TestRunner) -> None:
    runner.set_property("Max Merged", "2")
    put(runner, "A", [{"_id": "a1", "f1": 1}])
    bad = runner.enqueue(json.dumps([{"_id": "b1", "f1": 1}, {"_id": "b9", "f1": 1}]),
                         {"dataset": "B"})  # fmt: skip
    put(runner, "B", [{"_id": "b2", "f1": 1}])
    runner.run()
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    assert failed.uuid == bad.uuid
    assert failed.attributes[ATTR_REASON].startswith(
        "max_merged exceeded: 3 entities or more would be merged into one entity "
        "(max_merged is 2; a member: "
    )
    assert merged(runner) == [
        [{"$ids": ["a1"], "_id": "0|a1", "_updated": 0, "f1": 1}],
        [{"$ids": ["a1", "b2"], "_id": "0|a1|1|b2", "_updated": 1, "f1": [1, 1]},
         {"$replaced": True, "_deleted": True, "_id": "0|a1", "_updated": 2}],
    ]  # fmt: skip
    runner.assert_transfer_count("original", 2)
    assert not any(k.startswith(b"mB\x00b1") or k.startswith(b"mB\x00b9")
                   for k in runner.keyed_state())  # fmt: skip


def test_bad_input_goes_to_failure(runner: TestRunner) -> None:
    runner.enqueue("[]", {"dataset": "Z"})
    runner.enqueue("[{]", {"dataset": "A"})
    runner.enqueue('[{"x": 1}]', {"dataset": "A"})
    runner.enqueue("[]")
    runner.run()
    reasons = [f.attributes[ATTR_REASON] for f in runner.get_flowfiles_for_relationship("failure")]
    assert reasons[0] == "the attribute dataset is 'Z', not one of the datasets A, B, C"
    assert reasons[1].startswith("the content is neither a JSON array nor JSON lines")
    assert reasons[2] == "entity 0 has no string _id"
    assert reasons[3] == "the attribute dataset is None, not one of the datasets A, B, C"
    assert runner.keyed_state() == {}


def test_deeply_nested_json_fails_only_its_flowfile(runner: TestRunner) -> None:
    # Too deep for the JSON reader at all, then deep enough to read but not to compare
    # (the equality key of a nested value is its canonical JSON).
    runner.enqueue("[" * 5000 + "]" * 5000, {"dataset": "A"})
    nested = "[" * 700 + "1" + "]" * 700
    runner.enqueue(f'[{{"_id": "a9", "f1": {nested}}}]', {"dataset": "A"})
    put(runner, "B", [{"_id": "b1", "f1": 1}])
    runner.run()
    reasons = [f.attributes[ATTR_REASON] for f in runner.get_flowfiles_for_relationship("failure")]
    assert reasons == [
        "the content is JSON nested too deeply to read",
        "an entity holds a value nested too deeply to compare",
    ]
    assert merged(runner) == [[{"$ids": ["b1"], "_id": "1|b1", "_updated": 0, "f1": 1}]]


def test_a_dataset_name_too_long_for_the_keyed_state_is_invalid(runner: TestRunner) -> None:
    runner.set_property("Datasets", "A a\nB b\n" + "x" * 256 + " c")
    (error,) = runner.validation_errors()
    assert error.endswith("is over 255 bytes")


def test_json_lines_and_if_source_empty(runner: TestRunner) -> None:
    runner.set_property("If Source Empty", "fail")
    runner.enqueue('{"_id": "a1", "f1": 1}\n{"_id": "a2", "f1": 2}\n', {"dataset": "A"})
    runner.enqueue("", {"dataset": "B"})
    runner.run()
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    assert failed.attributes[ATTR_REASON] == (
        "the source returned no entities and if_source_empty is 'fail'"
    )
    assert [[e["_id"] for e in out] for out in merged(runner)] == [["0|a1", "0|a2"]]


def test_populated_follows_initial_datasets(runner: TestRunner) -> None:
    runner.set_property("Initial Datasets", "A, B")
    put(runner, "A", [{"_id": "a1"}])
    runner.run()
    put(runner, "B", [{"_id": "b1"}])
    runner.run()
    populated = [f.attributes["MergeEntities.populated"]
                 for f in runner.get_flowfiles_for_relationship("merged")]  # fmt: skip
    assert populated == ["false", "true"]


def test_non_existent_initial_dataset_blocks_populated_unless_ignored() -> None:
    blocked = config("A a", initial_datasets="A, Nope", ignore_non_existent_datasets="false")
    assert not blocked.populated({"A"})
    assert config("A a", initial_datasets="A, Nope").populated({"A"})
