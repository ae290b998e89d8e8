"""The bulk rebuild on Spark (the shared ``local[2]`` session): the same output as locally.

Spark only computes the connected components; everything else of the rebuild is shared,
so the Spark path and the local one must give identical outputs and index records. A
Spark that cannot be reached routes the unit to failure with the reason, or falls back
to local when the engine allows it; nothing is applied or emitted twice.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from entities_helpers import SEED_A, SEED_B, SEED_C, SEED_OUTPUT, config

from flowcore.offload import ComputeServices
from flowcore.settings import EngineSettings, SparkSettings
from flowcore.testing import TestRunner
from processors.entities.bulk import rebuild
from processors.entities.merge_entities import ATTR_ENGINE, ATTR_REASON, spark_components
from processors.entities.model import Change, MergeError
from tests.flowcore.offload.spark_cluster import free_port

VALUES = st.one_of(
    st.none(),
    st.sampled_from([1, 2, "1", "x", "X", True]),
    st.lists(st.sampled_from([1, 2, "x"]), max_size=3),
)
ENTITY = st.fixed_dictionaries(
    {"_id": st.sampled_from([f"e{i}" for i in range(12)])},
    optional={"k": VALUES, "m": VALUES, "_deleted": st.just(True)},
)
UNIT = st.lists(st.tuples(st.sampled_from(("A", "B", "C")), ENTITY), min_size=1, max_size=30)
CONFIGS = st.sampled_from(
    [
        {"equality": '[["eq","a.k","b.k"],["eq","b.m",["lower","c.m"]]]'},
        {"equality_sets": '[["a.k","b.k","c.k"],["c.m","a.m"]]', "strategy": "compact"},
        {"equality_sets": '[["a._id","b._id","c._id"],["a.k","b.m"]]', "identity": "first"},
    ]
)


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(unit=UNIT, properties=CONFIGS)
def test_spark_rebuild_equals_the_local_one(
    spark_compute: ComputeServices, unit: list[tuple[str, dict[str, Any]]], properties: Any
) -> None:
    merge_config = config("A a, B b, C c", **properties)
    changes = [Change(dataset, entity) for dataset, entity in unit]
    try:
        local = rebuild(merge_config, changes)
    except MergeError as exc:
        with pytest.raises(type(exc)):
            rebuild(merge_config, changes, components=spark_components(spark_compute))
        return
    on_spark = rebuild(merge_config, changes, components=spark_components(spark_compute))
    assert on_spark.result.emitted == local.result.emitted
    assert on_spark.members == local.members
    assert on_spark.values == local.values
    assert on_spark.outputs == local.outputs


@pytest.fixture
def make_runner(tmp_path: Path) -> Iterator[Any]:
    made: list[TestRunner] = []

    def make(engine: str, **spark: Any) -> TestRunner:
        data_dir = tmp_path / str(len(made))
        runner = TestRunner(
            "MergeEntities",
            settings=EngineSettings(data_dir=data_dir, spark=SparkSettings(**spark)),
        )
        made.append(runner)
        runner.set_property("Datasets", '["A a", "B b", "C c"]')
        runner.set_property(
            "Equality", '[["eq", "a.f1", "b.f1"], ["eq", "b.f2", ["lower", "c.f3"]]]'
        )
        runner.set_property("Bulk Engine", engine)
        for name, entities in (("A", SEED_A), ("B", SEED_B), ("C", SEED_C)):
            runner.enqueue(json.dumps(entities), {"dataset": name})
        runner.run()
        return runner

    yield make
    for runner in made:
        runner.close()


def test_the_processor_rebuilds_on_spark(spark_compute: ComputeServices, make_runner: Any) -> None:
    local = make_runner("local").get_flowfiles_for_relationship("merged")
    spark = make_runner("spark", master="local[2]").get_flowfiles_for_relationship("merged")
    assert len(local) == len(spark) == 1
    assert spark[0].content == local[0].content
    assert json.loads(spark[0].content) == SEED_OUTPUT
    spark[0].assert_attribute_equals(ATTR_ENGINE, "spark")
    local[0].assert_attribute_equals(ATTR_ENGINE, "local")


def test_auto_uses_spark_from_the_offload_threshold(
    spark_compute: ComputeServices, make_runner: Any
) -> None:
    below = make_runner("auto", master="local[2]", offload_min_records=8)
    above = make_runner("auto", master="local[2]", offload_min_records=7)  # 7 entities
    below.get_flowfiles_for_relationship("merged")[0].assert_attribute_equals(ATTR_ENGINE, "local")
    above.get_flowfiles_for_relationship("merged")[0].assert_attribute_equals(ATTR_ENGINE, "spark")


def test_an_unreachable_master_routes_the_unit_to_failure(make_runner: Any) -> None:
    master = f"spark://127.0.0.1:{free_port()}"
    runner = make_runner("spark", master=master, connect_timeout="2 sec")
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    failed = runner.get_flowfiles_for_relationship("failure")
    assert [json.loads(f.content) for f in failed] == [SEED_A, SEED_B, SEED_C]
    for flowfile in failed:
        reason = flowfile.get_attribute(ATTR_REASON) or ""
        assert reason.startswith(f"Spark: Spark master {master} ")
    assert runner.keyed_state() == {}, "nothing applied: a retry is a full rebuild again"


def test_an_unreachable_master_falls_back_to_local_when_allowed(make_runner: Any) -> None:
    master = f"spark://127.0.0.1:{free_port()}"
    runner = make_runner("spark", master=master, connect_timeout="2 sec", fallback_to_local=True)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 3)
    (merged,) = runner.get_flowfiles_for_relationship("merged")
    assert json.loads(merged.content) == SEED_OUTPUT
    merged.assert_attribute_equals(ATTR_ENGINE, "local")
