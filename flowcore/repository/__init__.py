"""Repository contracts. Implementations live in the ``repos`` package."""

from flowcore.repository.content import ContentRepository, ContentWriter
from flowcore.repository.flowfile import (
    CommitReceipt,
    FlowFileRepository,
    QueuedFlowFile,
    RecoveredState,
    RepositoryUpdate,
    SwapOut,
    SwapSummary,
)
from flowcore.repository.provenance import (
    LineageGraph,
    LineageLink,
    LineageNode,
    ProvenanceJournal,
    ProvenanceQuery,
    ProvenanceRepository,
)

__all__ = [
    "CommitReceipt",
    "ContentRepository",
    "ContentWriter",
    "FlowFileRepository",
    "LineageGraph",
    "LineageLink",
    "LineageNode",
    "ProvenanceJournal",
    "ProvenanceQuery",
    "ProvenanceRepository",
    "QueuedFlowFile",
    "RecoveredState",
    "RepositoryUpdate",
    "SwapOut",
    "SwapSummary",
]
