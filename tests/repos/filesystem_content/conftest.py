"""Fixtures for the filesystem content repository: a builder with overridable settings.

Repositories built here create their files on the writer's path, in a deterministic
order (``file_stock_size=0``), unless a test asks for the stock of files created ahead
(``test_fscontent_file_stock.py``); engine and contract tests run with the stock.
"""

from __future__ import annotations

import os
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
        file_stock_size: int = 0,
        **content: Any,
    ) -> FileSystemContentRepository:
        repo = FileSystemContentRepository(
            self.settings(containers=containers, durability=durability, **content),
            clock or self.clock,
            max_open_appendable=max_open_appendable,
            read_handle_capacity=read_handle_capacity,
            whole_fs_sync=whole_fs_sync,
            file_stock_size=file_stock_size,
        )
        self.built.append(repo)
        return repo


@pytest.fixture
def content_repo_factory(tmp_path: Path) -> Iterator[ContentRepoFactory]:
    factory = ContentRepoFactory(tmp_path)
    yield factory
    for repo in factory.built:
        repo.close()


@pytest.fixture
def counted_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every descriptor ``os.fsync`` is called with from now on (the calls still sync)."""
    synced: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    return synced
