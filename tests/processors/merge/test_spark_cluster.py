"""Offloading to a real Spark cluster (standalone, Spark Connect), and to one not there.

The standalone cluster (master and worker on 127.0.0.1) is started with the installed
pyspark's ``spark-class``, the Connect server with its ``spark-submit``. A process holds
one kind of Spark session and the test process already has the shared ``local[2]`` one,
so each offloaded merge runs in a child process whose output is compared, written by the
same Parquet writer, with the local engine's.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flowcore.errors import SparkUnavailableError
from flowcore.offload import ComputeServices
from flowcore.settings import EngineSettings, SparkSettings
from processors.merge.mergers import (
    DeleteMarkers,
    KeyedMergeSpec,
    PartialUpdateMode,
    RecordMergeMode,
    merge_locally,
)
from processors.merge.mergers.spark_engine import merge_on_spark
from tests.flowcore.offload.spark_cluster import (
    free_port,
    spark_connect_server,
    spark_standalone_cluster,
)

CHILD = textwrap.dedent(
    """
    import pickle, sys, time
    started = time.monotonic()
    from pathlib import Path
    import pyarrow.parquet as pq
    from flowcore.offload import ComputeServices, SparkProvider
    from flowcore.settings import EngineSettings, SparkSettings
    from processors.merge.mergers.spark_engine import merge_on_spark

    work, master = Path(sys.argv[1]), sys.argv[2]
    parts = [pq.read_table(p) for p in sorted((work / "parts").iterdir())]
    specs = pickle.loads((work / "specs.pickle").read_bytes())
    config = {"spark.executor.memory": "512m", "spark.sql.shuffle.partitions": "2"}
    if master.startswith("sc://"):
        config = {}  # the server's configuration rules
    spark = SparkSettings(master=master, config=config)
    compute = ComputeServices(EngineSettings(data_dir=work / "node", spark=spark))
    compute.spark_session()
    for index, spec in enumerate(specs):
        merged = merge_on_spark(compute, parts, spec)
        assert merged.engine == "spark"
        pq.write_table(merged.table, work / f"spark-{index}.parquet")
        print(f"merged {index} at {time.monotonic() - started:.1f} s", flush=True)
    SparkProvider.stop_all()
    """
)


def _bin() -> list[pa.Table]:
    first = pa.table(
        {
            "id": ["o1", "o2", "o1", "o3", "o2"],
            "ts": [5, 1, 3, None, 4],
            "status": ["new", "new", "paid", "new", None],
            "op": ["I", "I", "U", "I", "D"],
        }
    )
    second = pa.table(
        {"id": ["o2", "o1", "o4", "o3"], "ts": [6, 9, 2, 1], "op": ["U", "U", "I", "D"]}
    )
    return [first, second]


SPECS = [
    KeyedMergeSpec(
        ("id",),
        ("ts",),
        RecordMergeMode.EVENT_TIME_ORDERING,
        delete_markers=DeleteMarkers(operation_field="op"),
    ),
    KeyedMergeSpec(
        ("id",),
        ("ts",),
        RecordMergeMode.EVENT_TIME_ORDERING,
        delete_markers=DeleteMarkers(operation_field="op"),
        partial_update_mode=PartialUpdateMode.KEEP_VALUES,
        keep_tombstones=True,
    ),
]


def merge_in_a_child(work: Path, master: str) -> None:
    """Run both specs' merges on ``master`` in a child process; compare its Parquet bytes
    with the local engine's."""
    parts = _bin()
    (work / "parts").mkdir()
    for index, part in enumerate(parts):
        pq.write_table(part, work / "parts" / f"{index}.parquet")
    (work / "specs.pickle").write_bytes(pickle.dumps(SPECS))
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(work), master],
        capture_output=True,
        env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"},
        text=True,
        timeout=300,
        check=False,
    )
    assert child.returncode == 0, child.stderr[-4000:]
    for index, spec in enumerate(SPECS):
        pq.write_table(merge_locally(parts, spec).table, work / f"local-{index}.parquet")
        local_bytes = (work / f"local-{index}.parquet").read_bytes()
        assert (work / f"spark-{index}.parquet").read_bytes() == local_bytes
    assert not list((work / "node" / "content_repository" / "staging").iterdir())


@pytest.mark.slow
def test_offloaded_merge_on_a_standalone_cluster(tmp_path: Path) -> None:
    with spark_standalone_cluster(tmp_path / "cluster") as master:
        merge_in_a_child(tmp_path, master)


@pytest.mark.slow
def test_offloaded_merge_over_spark_connect(tmp_path: Path) -> None:
    with spark_connect_server(tmp_path / "connect") as master:
        merge_in_a_child(tmp_path, master)


def test_an_unreachable_master_fails_fast_with_the_reason(tmp_path: Path) -> None:
    master = f"spark://127.0.0.1:{free_port()}"
    compute = ComputeServices(
        EngineSettings(
            data_dir=tmp_path, spark=SparkSettings(master=master, connect_timeout="3 sec")
        )
    )
    started = time.monotonic()
    with pytest.raises(SparkUnavailableError) as caught:
        merge_on_spark(compute, _bin(), KeyedMergeSpec(("id",)))
    assert time.monotonic() - started < 3
    assert caught.value.reason.startswith(f"Spark master {master} is unreachable: ")
    assert not list((tmp_path / "content_repository" / "staging").glob("*"))
