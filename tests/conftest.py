"""Shared factory fixtures: every repository and node lives under the test's tmp_path."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.model.provenance import ProvenanceEvent
from flowcore.settings import EngineSettings

SettingsFactory = Callable[..., EngineSettings]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def settings_factory(tmp_path: Path) -> SettingsFactory:
    """Build engine settings under tmp_path; keyword arguments override fields."""

    def build(**overrides: Any) -> EngineSettings:
        data = {"data_dir": tmp_path / "data", **overrides}
        return EngineSettings.model_validate(data)

    return build


@pytest.fixture
def settings(settings_factory: SettingsFactory) -> EngineSettings:
    return settings_factory()


@pytest.fixture
def closing() -> Iterator[Callable[[Any], Any]]:
    """Register objects with a close() method to be closed after the test."""
    opened: list[Any] = []

    def register(thing: Any) -> Any:
        opened.append(thing)
        return thing

    yield register
    for thing in reversed(opened):
        thing.close()


@pytest.fixture(scope="session")
def spark_compute(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """ONE embedded ``local[2]`` SparkSession for the whole test run, started through
    ComputeServices so that every later ComputeServices of this process reuses it."""
    from flowcore.offload import ComputeServices, SparkProvider
    from flowcore.settings import SparkSettings

    data_dir = tmp_path_factory.mktemp("spark-node")
    spark = SparkSettings(master="local[2]", config={"spark.sql.shuffle.partitions": "2"})
    compute = ComputeServices(EngineSettings(data_dir=data_dir, spark=spark))
    compute.spark_session()
    yield compute
    SparkProvider.stop_all()


SmallDisk = Callable[[str], Path]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    """Mount a tmpfs of a given size (``"1m"``) under tmp_path: a real disk that fills up.

    Writes past its size fail with ENOSPC from the kernel, as on a full disk. Mounting
    needs root (CAP_SYS_ADMIN), which the test environment has; each mount is lazily
    unmounted after the test.
    """
    mounts: list[Path] = []

    def mount(size: str) -> Path:
        point = tmp_path / f"small-disk-{len(mounts)}"
        point.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(point)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(f"cannot mount a {size} tmpfs (needs root): {done.stderr.strip()}")
        mounts.append(point)
        return point

    yield mount
    for point in reversed(mounts):
        subprocess.run(["umount", "-l", str(point)], check=False)


EventFactory = Callable[..., ProvenanceEvent]


def make_event(
    event_type: str = "CREATE",
    flowfile_uuid: str = "ff-1",
    *,
    event_time: int = 1_700_000_000_000,
    component_id: str = "proc-1",
    **fields: Any,
) -> ProvenanceEvent:
    """An event with the required fields filled in; ``fields`` set the rest."""
    return ProvenanceEvent(
        event_time=event_time,
        event_type=event_type,
        flowfile_uuid=flowfile_uuid,
        component_id=component_id,
        component_type=fields.pop("component_type", "TestProcessor"),
        **fields,
    )


@pytest.fixture
def event() -> EventFactory:
    """``event(type, uuid, event_time=..., **fields)`` builds a ``ProvenanceEvent``."""
    return make_event
