"""Factories for the repository contract suites: each test runs against the durable
implementation (found by name through the registry, as the engine finds it) and the
in-memory twin of ``flowcore.testing``.

A factory called twice in a test opens the same repository again: the same directory for
a durable one, the same store for a twin. That is a restart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.repository import (
    ContentRepository,
    FlowFileRepository,
    ProvenanceRepository,
)
from flowcore.repository.registry import load_repository_class
from flowcore.settings import EngineSettings
from flowcore.testing.memory_content import InMemoryContentRepository, MemoryContentStore
from flowcore.testing.memory_flowfile import InMemoryFlowFileRepository, MemoryFlowFileStore
from flowcore.testing.memory_provenance import (
    InMemoryProvenanceRepository,
    MemoryProvenanceStore,
)
from tests.flowcore.repository.journal import FlowFileRepositoryJournal

MEMORY = "memory"
FlowFileFactory = Callable[..., FlowFileRepository]


def _settings(tmp_path: Path, **overrides: Any) -> EngineSettings:
    return EngineSettings.model_validate({"data_dir": tmp_path / "data", **overrides})


@pytest.fixture(params=["lmdb", MEMORY])
def repo_factory(request: pytest.FixtureRequest, tmp_path: Path, closing: Any) -> FlowFileFactory:
    """Build a FlowFile repository; ``ff={...}`` overrides ``flowfile_repository``
    settings, other keywords the engine settings."""
    stores: dict[Path, MemoryFlowFileStore] = {}

    def build(**overrides: Any) -> FlowFileRepository:
        ff = overrides.pop("ff", {})
        settings = _settings(tmp_path, flowfile_repository=ff, **overrides)
        if request.param == MEMORY:
            store = stores.setdefault(settings.data_dir, MemoryFlowFileStore())
            repo: FlowFileRepository = InMemoryFlowFileRepository(settings, ManualClock(), store)
        else:
            repo = load_repository_class(request.param)(settings, ManualClock())
        return closing(repo)  # type: ignore[no-any-return]

    return build


class ContentFactory:
    """Builds content repositories over the same containers (or store): a restart."""

    def __init__(self, kind: str, root: Path) -> None:
        self.kind = kind
        self.root = root
        self.clock = ManualClock()
        self.store = MemoryContentStore()
        self.built: list[ContentRepository] = []

    def __call__(self, **content: Any) -> ContentRepository:
        settings = _settings(
            self.root, content={"containers": [self.root / "container0"], **content}
        )
        if self.kind == MEMORY:
            repo: ContentRepository = InMemoryContentRepository(settings, self.clock, self.store)
        else:
            # Files created on the writer's path, none ahead: a sweep counts only claims.
            repo = load_repository_class(self.kind)(settings, self.clock, file_stock_size=0)
        self.built.append(repo)
        return repo


@pytest.fixture(params=["filesystem", MEMORY])
def content_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ContentFactory]:
    factory = ContentFactory(request.param, tmp_path)
    yield factory
    for repo in factory.built:
        repo.close()


# (provenance repository, the FlowFile repository whose journal it indexes)
PROVENANCE = [("duckdb", "lmdb"), (MEMORY, MEMORY)]


@pytest.fixture(params=PROVENANCE, ids=[p for p, _ in PROVENANCE])
def provenance_kind(request: pytest.FixtureRequest) -> tuple[str, str]:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def journal(
    provenance_kind: tuple[str, str], tmp_path: Path, closing: Any
) -> FlowFileRepositoryJournal:
    """An empty journal of the FlowFile repository paired with the provenance one."""
    settings = _settings(tmp_path)
    kind = provenance_kind[1]
    if kind == MEMORY:
        repository: FlowFileRepository = InMemoryFlowFileRepository(settings, ManualClock())
    else:
        repository = load_repository_class(kind)(settings, ManualClock())
    return FlowFileRepositoryJournal(closing(repository))


ProvenanceFactory = Callable[..., ProvenanceRepository]


@pytest.fixture
def provenance_factory(
    provenance_kind: tuple[str, str],
    journal: FlowFileRepositoryJournal,
    tmp_path: Path,
    clock: ManualClock,
) -> Iterator[ProvenanceFactory]:
    """Open the provenance repository; ``journal`` defaults to the test's journal and
    keyword arguments override ``settings.provenance`` fields. Opening again reopens the
    same repository. Repositories still open at the end of the test are closed."""
    kind = provenance_kind[0]
    store = MemoryProvenanceStore()
    opened: list[ProvenanceRepository] = []

    def build(journal: Any = None, **provenance: Any) -> ProvenanceRepository:
        source = default_journal if journal is None else journal
        if kind == MEMORY:
            settings = _settings(tmp_path, provenance=provenance)
            repository: ProvenanceRepository = InMemoryProvenanceRepository(
                settings, clock, source, store
            )
        else:
            settings = _settings(tmp_path, provenance={"implementation": kind, **provenance})
            repository = load_repository_class(kind)(settings, clock, source)
        opened.append(repository)
        return repository

    default_journal = journal
    yield build
    for repository in reversed(opened):
        repository.close()
