"""MergeRecord merging by key on real Spark (the shared local session) and without it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import processors.merge
import processors.record  # noqa: F401 - registers the record services
from flowcore.offload import ComputeServices
from flowcore.settings import EngineSettings, SparkSettings
from flowcore.testing import TestRunner
from tests.flowcore.offload.spark_cluster import free_port

EXPECTED = "id,ts,status,op\no1,9,shipped,U\no2,6,paid,U\no4,2,new,I\n"  # o2: stale delete
CHANGES = (
    "id,ts,status,op\no1,5,new,I\no2,1,new,I\no1,3,stale,U\no3,,new,I\n",
    "id,ts,status,op\no2,6,paid,U\no1,9,shipped,U\no4,2,new,I\no3,1,gone,D\no2,2,late,D\n",
)


@pytest.fixture
def runner_factory(tmp_path: Path) -> Iterator[Any]:
    made: list[TestRunner] = []

    def make(engine: str, **spark: Any) -> TestRunner:
        settings = EngineSettings(data_dir=tmp_path / str(len(made)), spark=SparkSettings(**spark))
        runner = TestRunner("MergeRecord", settings=settings)
        made.append(runner)
        runner.add_controller_service("reader", "CSVReader", {"Treat First Line as Header": "true"})
        runner.add_controller_service("writer", "CSVRecordSetWriter", {})
        for name, value in {
            "Record Reader": "reader",
            "Record Writer": "writer",
            "Record Key Field(s)": "id",
            "Ordering Field(s)": "ts",
            "Record Merge Mode": "EVENT_TIME_ORDERING",
            "Operation Field": "op",
            "Merge Engine": engine,
        }.items():
            runner.set_property(name, value)
        for content in CHANGES:
            runner.enqueue(content)
        runner.run(2)
        return runner

    yield make
    for runner in made:
        runner.close()


def test_spark_and_local_write_the_same_bytes(
    spark_compute: ComputeServices, runner_factory: Any
) -> None:
    local = runner_factory("local").get_flowfiles_for_relationship("merged")
    spark = runner_factory("spark", master="local[2]").get_flowfiles_for_relationship("merged")
    assert len(local) == len(spark) == 1
    assert spark[0].content == local[0].content
    assert spark[0].content.decode() == EXPECTED
    spark[0].assert_attribute_equals("merge.engine", "spark")
    local[0].assert_attribute_equals("merge.engine", "local")


def test_an_unreachable_master_routes_the_bin_to_failure(runner_factory: Any) -> None:
    master = f"spark://127.0.0.1:{free_port()}"
    runner = runner_factory("spark", master=master, connect_timeout="2 sec")
    runner.assert_transfer_count("merged", 0)
    failed = runner.get_flowfiles_for_relationship("failure")
    assert [f.content.decode() for f in failed] == list(CHANGES)
    reason = failed[0].get_attribute("merge.failure.reason") or ""
    assert reason.startswith(f"Spark: Spark master {master} is unreachable: ")


def test_an_unreachable_master_falls_back_to_local_when_allowed(runner_factory: Any) -> None:
    master = f"spark://127.0.0.1:{free_port()}"
    runner = runner_factory("spark", master=master, fallback_to_local=True)
    runner.assert_transfer_count("failure", 0)
    out = runner.get_flowfiles_for_relationship("merged")
    assert len(out) == 1
    out[0].assert_content_equals(EXPECTED)
    out[0].assert_attribute_equals("merge.engine", "local")
    assert (out[0].get_attribute("merge.engine.fallback") or "").startswith(
        f"Spark master {master} is unreachable"
    )
    runner.assert_transfer_count("original", 2)
