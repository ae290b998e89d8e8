"""The data directory's identity in each content container, and the containers' probe."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from flowcore.clock import ManualClock
from flowcore.repository.identity import RepositoryIdentity
from flowcore.settings import EngineSettings
from repos.filesystem_content import FileSystemContentRepository

SettingsFactory = Callable[..., EngineSettings]


def two_containers(settings_factory: SettingsFactory, tmp_path: Path) -> EngineSettings:
    return settings_factory(content={"containers": [tmp_path / "c0", tmp_path / "c1"]})


def test_each_container_carries_the_identity_and_its_index(
    settings_factory: SettingsFactory, tmp_path: Path
) -> None:
    settings = two_containers(settings_factory, tmp_path)
    repository = FileSystemContentRepository(settings, ManualClock(), file_stock_size=0)
    try:
        repository.write_identity(RepositoryIdentity("node-a", 4), durable=True)
    finally:
        repository.close()
    probes = FileSystemContentRepository.probe(settings)
    assert [(p.container, p.identity, p.damaged) for p in probes] == [
        (0, RepositoryIdentity("node-a", 4), None),
        (1, RepositoryIdentity("node-a", 4), None),
    ]
    stored = json.loads((tmp_path / "c1" / "flowcore-container.json").read_text())
    assert stored == {"node_id": "node-a", "generation": 4, "container": 1}


def test_a_container_moved_to_another_index_is_damage(
    settings_factory: SettingsFactory, tmp_path: Path
) -> None:
    settings = two_containers(settings_factory, tmp_path)
    repository = FileSystemContentRepository(settings, ManualClock(), file_stock_size=0)
    repository.write_identity(RepositoryIdentity("node-a", 1), durable=False)
    repository.close()
    swapped = settings_factory(content={"containers": [tmp_path / "c1", tmp_path / "c0"]})
    probes = FileSystemContentRepository.probe(swapped)
    assert all(p.damaged and "configured here as container" in p.damaged for p in probes)


def test_probe_tells_missing_empty_and_unmarked_containers_with_claims_apart(
    settings_factory: SettingsFactory, tmp_path: Path
) -> None:
    settings = two_containers(settings_factory, tmp_path)
    repository = FileSystemContentRepository(settings, ManualClock(), file_stock_size=0)
    try:
        repository.write(b"some content")
    finally:
        repository.close()
    written = [p for p in FileSystemContentRepository.probe(settings) if p.holds_data]
    assert len(written) == 1 and written[0].identity is None
    shutil.rmtree(written[0].location)
    probes = FileSystemContentRepository.probe(settings)
    assert [p.missing for p in probes].count(True) >= 1
    assert not any(p.holds_data for p in probes)
