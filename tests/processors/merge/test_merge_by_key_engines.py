"""Engine selection for merging by key, with a fake Spark engine module (no Spark here)."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import processors.merge
import processors.record  # registers the record services
from flowcore.errors import SparkJobError, SparkUnavailableError
from flowcore.settings import EngineSettings, SparkSettings
from flowcore.testing import TestRunner
from processors.merge.mergers import KeyedMergeSpec, merge_locally

SPARK_MODULE = "processors.merge.mergers.spark_engine"


SPARK_ERRORS = (SparkUnavailableError, SparkJobError)


class FakeSpark:
    """Stands in for ``spark_engine``: records calls, merges locally or raises."""

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.error: Exception | None = None

    def merge_on_spark(self, compute: Any, parts: Sequence[pa.Table], spec: KeyedMergeSpec) -> Any:
        self.calls.append(sum(p.num_rows for p in parts))
        if self.error is not None:
            raise self.error
        return replace(merge_locally(parts, spec), engine="spark")


@pytest.fixture
def fake_spark(monkeypatch: pytest.MonkeyPatch) -> FakeSpark:
    fake = FakeSpark()
    module = types.ModuleType(SPARK_MODULE)
    module.merge_on_spark = fake.merge_on_spark  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, SPARK_MODULE, module)
    return fake


def make_runner(tmp_path: Path, spark: SparkSettings) -> TestRunner:
    runner = TestRunner("MergeRecord", settings=EngineSettings(data_dir=tmp_path, spark=spark))
    runner.add_controller_service("reader", "CSVReader", {"Treat First Line as Header": "true"})
    runner.add_controller_service("writer", "CSVRecordSetWriter", {})
    runner.set_property("Record Reader", "reader")
    runner.set_property("Record Writer", "writer")
    runner.set_property("Record Key Field(s)", "id")
    return runner


@pytest.fixture
def runner_factory(tmp_path: Path) -> Iterator[Any]:
    made: list[TestRunner] = []

    def make(**spark: Any) -> TestRunner:
        runner = make_runner(tmp_path / str(len(made)), SparkSettings(**spark))
        made.append(runner)
        return runner

    yield make
    for runner in made:
        runner.close()


TWO = ("id,v\n1,a\n2,b\n", "id,v\n1,c\n")


def run_two(runner: TestRunner) -> None:
    for content in TWO:
        runner.enqueue(content)
    runner.run(2)


def test_spark_engine_merges_when_chosen(runner_factory: Any, fake_spark: FakeSpark) -> None:
    runner = runner_factory()
    runner.set_property("Merge Engine", "spark")
    run_two(runner)
    out = runner.get_flowfiles_for_relationship("merged")
    assert len(out) == 1
    out[0].assert_content_equals("id,v\n1,c\n2,b\n")
    out[0].assert_attribute_equals("merge.engine", "spark")
    assert fake_spark.calls == [3]


def test_auto_uses_the_offload_thresholds(runner_factory: Any, fake_spark: FakeSpark) -> None:
    by_records = runner_factory(offload_min_records=3)
    run_two(by_records)
    by_records.get_flowfiles_for_relationship("merged")[0].assert_attribute_equals(
        "merge.engine", "spark"
    )
    by_bytes = runner_factory(offload_min_records=100, offload_min_bytes="20 B")
    run_two(by_bytes)  # 15 + 10 bytes of input
    by_bytes.get_flowfiles_for_relationship("merged")[0].assert_attribute_equals(
        "merge.engine", "spark"
    )
    local = runner_factory(offload_min_records=4, offload_min_bytes="1 KB")
    run_two(local)
    local.get_flowfiles_for_relationship("merged")[0].assert_attribute_equals(
        "merge.engine", "local"
    )
    assert fake_spark.calls == [3, 3]


@pytest.mark.parametrize("which", [0, 1])
def test_spark_failure_routes_the_bin_to_failure_with_the_reason(
    runner_factory: Any,
    fake_spark: FakeSpark,
    which: int,
) -> None:
    fake_spark.error = SPARK_ERRORS[which]("master spark://127.0.0.1:1 unreachable")
    runner = runner_factory()
    runner.set_property("Merge Engine", "spark")
    run_two(runner)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    failed = runner.get_flowfiles_for_relationship("failure")
    assert [f.content.decode() for f in failed] == list(TWO)
    for flowfile in failed:
        flowfile.assert_attribute_equals(
            "merge.failure.reason", "Spark: master spark://127.0.0.1:1 unreachable"
        )
    assert not [e for e in runner.get_provenance_events() if e.event_type == "JOIN"]


def test_spark_failure_falls_back_to_local_when_allowed(
    runner_factory: Any,
    fake_spark: FakeSpark,
) -> None:
    fake_spark.error = SparkJobError("job aborted")
    runner = runner_factory(fallback_to_local=True)
    runner.set_property("Merge Engine", "spark")
    run_two(runner)
    runner.assert_transfer_count("failure", 0)
    out = runner.get_flowfiles_for_relationship("merged")
    assert len(out) == 1
    out[0].assert_content_equals("id,v\n1,c\n2,b\n")
    out[0].assert_attribute_equals("merge.engine", "local")
    out[0].assert_attribute_equals("merge.engine.fallback", "job aborted")
    runner.assert_transfer_count("original", 2)


def test_missing_spark_engine_is_spark_unavailable(
    runner_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, SPARK_MODULE, None)  # import raises ImportError
    runner = runner_factory()
    runner.set_property("Merge Engine", "spark")
    run_two(runner)
    failed = runner.get_flowfiles_for_relationship("failure")
    assert len(failed) == 2
    assert (
        failed[0]
        .attributes["merge.failure.reason"]
        .startswith("Spark: the Spark engine is not available")
    )


def test_local_engine_never_calls_spark(runner_factory: Any, fake_spark: FakeSpark) -> None:
    runner = runner_factory(offload_min_records=1)
    runner.set_property("Merge Engine", "local")
    run_two(runner)
    runner.get_flowfiles_for_relationship("merged")[0].assert_attribute_equals(
        "merge.engine", "local"
    )
    assert fake_spark.calls == []
    assert processors.merge.MergeRecord is not None
