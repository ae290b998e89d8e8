"""Fixtures for the filesystem content repository: a builder with overridable settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.settings import ContentRepositorySettings, EngineSettings
from repos.filesystem_content import FileSystemContentRepository


class ContentRepoFactory:
    """Builds repositories over the same directories, so a second build is a restart."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.clock = ManualClock()
        self.built: list[FileSystemContentRepository] = []

    def containers(self, count: int) -> list[Path]:
        return [self.root / f"container{index}" for index in range(count)]

    def settings(
        self, *, containers: int = 1, durability: str = "process", **content: Any
    ) -> EngineSettings:
        content_settings = ContentRepositorySettings(
            containers=self.containers(containers), **content
        )
        return EngineSettings(
            data_dir=self.root / "data", durability=durability, content=content_settings
        )

    def __call__(
        self,
        *,
        containers: int = 1,
        durability: str = "process",
        clock: ManualClock | None = None,
        max_open_appendable: int = 1024,
        read_handle_capacity: int = 256,
        whole_fs_sync: bool = True,
        **content: Any,
    ) -> FileSystemContentRepository:
        repo = FileSystemContentRepository(
            self.settings(containers=containers, durability=durability, **content),
            clock or self.clock,
            max_open_appendable=max_open_appendable,
            read_handle_capacity=read_handle_capacity,
            whole_fs_sync=whole_fs_sync,
        )
        self.built.append(repo)
        return repo


@pytest.fixture
def content_repo_factory(tmp_path: Path) -> Iterator[ContentRepoFactory]:
    factory = ContentRepoFactory(tmp_path)
    yield factory
    for repo in factory.built:
        repo.close()
