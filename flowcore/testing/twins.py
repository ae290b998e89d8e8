"""The three in-memory twins opened together, as ``open_repositories`` opens the durable ones."""

from __future__ import annotations

from dataclasses import dataclass, field

from flowcore.clock import Clock
from flowcore.engine.repositories import Repositories
from flowcore.repository.identity import RepositoryIdentity
from flowcore.settings import EngineSettings
from flowcore.testing.memory_content import InMemoryContentRepository, MemoryContentStore
from flowcore.testing.memory_flowfile import InMemoryFlowFileRepository, MemoryFlowFileStore
from flowcore.testing.memory_provenance import (
    InMemoryProvenanceRepository,
    MemoryProvenanceStore,
)

TWIN_IDENTITY = RepositoryIdentity("in-memory", 1)


@dataclass(slots=True)
class MemoryStores:
    """What the twins hold; opening twins again on the same stores is a restart."""

    flowfiles: MemoryFlowFileStore = field(default_factory=MemoryFlowFileStore)
    content: MemoryContentStore = field(default_factory=MemoryContentStore)
    provenance: MemoryProvenanceStore = field(default_factory=MemoryProvenanceStore)


def memory_repositories(
    settings: EngineSettings, clock: Clock, stores: MemoryStores | None = None
) -> Repositories:
    """The FlowFile, content and provenance twins (the provenance twin indexes from the
    FlowFile twin's journal), on fresh stores unless given ``stores``."""
    stores = stores or MemoryStores()
    flowfiles = InMemoryFlowFileRepository(settings, clock, stores.flowfiles)
    content = InMemoryContentRepository(settings, clock, stores.content)
    provenance = InMemoryProvenanceRepository(settings, clock, flowfiles, stores.provenance)
    return Repositories(flowfiles, content, provenance, TWIN_IDENTITY)
