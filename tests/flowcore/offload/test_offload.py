"""ComputeServices: the shared SparkSession, the staging area and Spark's failures."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from flowcore.errors import SparkJobError, SparkUnavailableError
from flowcore.offload import ComputeServices, SparkProvider, check_reachable
from flowcore.offload.provider import master_endpoints
from flowcore.settings import EngineSettings, SparkSettings
from tests.flowcore.offload.spark_cluster import free_port


def _compute(tmp_path: Path, **spark: Any) -> ComputeServices:
    return ComputeServices(EngineSettings(data_dir=tmp_path, spark=SparkSettings(**spark)))


def test_master_endpoints() -> None:
    assert master_endpoints("local[*]") == []
    assert master_endpoints("spark://a:7077,b:7078") == [("a", 7077), ("b", 7078)]
    assert master_endpoints("sc://h") == [("h", 15002)]
    assert master_endpoints("sc://h:1234/;token=x") == [("h", 1234)]
    with pytest.raises(SparkUnavailableError, match="not of the form"):
        master_endpoints("spark://nohost")
    for bad in ("sc://h:abc", "sc://h:99999", "spark://h:0", "spark://h:70000"):
        with pytest.raises(SparkUnavailableError, match="not of the form"):
            master_endpoints(bad)


@pytest.mark.parametrize("master", ["sc://h:abc", "spark://h:99999", "spark://nohost"])
def test_a_master_that_does_not_parse_is_refused_by_the_settings(master: str) -> None:
    with pytest.raises(ValueError, match=r"spark\.master[\s\S]*not of the form"):
        EngineSettings.model_validate({"spark": {"master": master}})
    assert SparkSettings(master="yarn").master == "yarn"  # other masters go to Spark as is


@pytest.mark.parametrize("scheme", ["spark", "sc"])
def test_unreachable_master_fails_fast_with_the_reason(tmp_path: Path, scheme: str) -> None:
    master = f"{scheme}://127.0.0.1:{free_port()}"
    compute = _compute(tmp_path, master=master, connect_timeout="2 sec")
    started = time.monotonic()
    with pytest.raises(SparkUnavailableError) as caught:
        compute.spark_session()
    assert time.monotonic() - started < 2
    assert caught.value.reason.startswith(f"Spark master {master} is unreachable: ")
    assert "refused" in caught.value.reason.lower()
    assert master not in SparkProvider.running()


def test_reachable_endpoint_passes() -> None:
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_reachable(f"spark://127.0.0.1:{server.getsockname()[1]}", 1.0)


def test_staging_job_is_fresh_and_removed(tmp_path: Path) -> None:
    compute = _compute(tmp_path)
    root = tmp_path / "content_repository" / "staging"
    with compute.staging_job("merge bin/1") as first, compute.staging_job("merge") as second:
        assert first.parent == root and second.parent == root and first != second
        assert first.name.startswith("merge-bin-1-")
        (first / "part.parquet").write_bytes(b"x")
    assert list(root.iterdir()) == []


def test_staging_dir_setting_and_sweep(tmp_path: Path) -> None:
    staging = tmp_path / "elsewhere"
    compute = _compute(tmp_path, staging_dir=staging)
    job = f"merge-by-key-{'ab' * 16}"
    for name in (job, f"merge-entities-{'0f' * 16}"):
        (staging / name).mkdir(parents=True)
        (staging / name / "x.parquet").write_bytes(b"x")
    # What is not a job directory of ours is left alone: a misdirected staging_dir loses
    # nothing.
    (staging / "left-over").mkdir()
    (staging / "stray").write_bytes(b"x")
    (staging / f"file-{'ab' * 16}").write_bytes(b"x")
    assert compute.sweep_staging() == 2
    assert sorted(p.name for p in staging.iterdir()) == [f"file-{'ab' * 16}", "left-over", "stray"]
    assert compute.sweep_staging() == 0
    with compute.staging_job("merge by key") as directory:
        assert directory.parent == staging
        assert compute.sweep_staging() == 1  # what a job makes is what the sweep takes


def test_the_node_sweeps_staging_at_start_and_gives_processors_compute(tmp_path: Path) -> None:
    from flowcore.testing import TestRunner

    leftover = tmp_path / "content_repository" / "staging" / f"merge-{'de' * 16}"
    leftover.mkdir(parents=True)
    settings = EngineSettings(data_dir=tmp_path, spark=SparkSettings(master="local[3]"))
    with TestRunner("GenerateFlowFile", settings=settings) as runner:
        assert not leftover.exists()
        context = runner.node.processors["processor-under-test"].context()
        assert context.compute is runner.node.compute
        assert context.compute.settings.master == "local[3]"


def test_a_context_outside_an_engine_has_compute() -> None:
    from flowcore.clock import ManualClock
    from flowcore.processor.context import ProcessContext

    context = ProcessContext(
        component_id="x", name="x", descriptors={}, properties={}, clock=ManualClock()
    )
    assert context.compute.settings.master == "local[*]"


def test_pyspark_is_not_imported_by_the_engine() -> None:
    import subprocess
    import sys

    code = (
        "import sys, flowcore.engine.node, flowcore.offload, flowcore.testing; "
        "sys.exit(any(m.startswith(('pyspark', 'py4j')) for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# -- with the shared local[2] session -----------------------------------------------------


def test_the_session_is_started_once_and_reused(
    spark_compute: ComputeServices, tmp_path: Path
) -> None:
    session = spark_compute.spark_session()
    assert session is spark_compute.spark_session()
    # Any embedded master is served by the running local session (one per process).
    assert _compute(tmp_path, master="local[*]").spark_session() is session
    assert session.sparkContext.master == "local[2]"


def test_another_cluster_while_local_runs_is_refused(
    spark_compute: ComputeServices, tmp_path: Path
) -> None:
    import socket

    spark_compute.spark_session()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        master = f"spark://127.0.0.1:{server.getsockname()[1]}"
        with pytest.raises(SparkUnavailableError, match="already runs a Spark session on local"):
            _compute(tmp_path, master=master).spark_session()


def test_a_failing_job_raises_spark_job_error(spark_compute: ComputeServices) -> None:
    session = spark_compute.spark_session()
    with (
        pytest.raises(SparkJobError) as caught,
        spark_compute.staging_job("missing") as job,
        spark_compute.spark_errors("read"),
    ):
        session.read.parquet(f"file://{job}/nothing-here").count()
    assert caught.value.reason.startswith("Spark job 'read' failed: ")
    assert "PATH_NOT_FOUND" in caught.value.reason or "does not exist" in caught.value.reason


def _explode(batches: Any) -> Any:
    for _batch in batches:
        raise ValueError("the fold blew up")
    yield from ()


def test_a_failing_python_task_raises_spark_job_error_with_its_reason(
    spark_compute: ComputeServices,
) -> None:
    session = spark_compute.spark_session()
    frame = session.range(4)
    with pytest.raises(SparkJobError) as caught, spark_compute.spark_errors("fold"):
        frame.mapInArrow(_explode, frame.schema).count()
    assert "ValueError: the fold blew up" in caught.value.reason


def test_a_relative_data_dir_stages_at_absolute_paths_spark_can_read(
    spark_compute: ComputeServices, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    monkeypatch.chdir(tmp_path)
    compute = ComputeServices(EngineSettings(data_dir=Path("relative-data")))
    with compute.staging_job("relative") as job:
        assert job.is_absolute() and job.is_relative_to(tmp_path)
        pq.write_table(pa.table({"x": [1, 2, 3]}), job / "in.parquet")
        frame = spark_compute.spark_session().read.parquet(str(job / "in.parquet"))
        assert frame.count() == 3
