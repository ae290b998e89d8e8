"""Repository contracts. Durable implementations live in the ``repos`` package, in-memory
twins in ``flowcore.testing``.

The FlowFile repository plays five roles, each its own narrow interface: the
``WriteAheadLog`` (commit, recover, sync), the ``SwapStore``, the ``ProcessorStateStore``,
the ``KeyedStateStore`` and the ``ProvenanceJournal``. Callers depend on the narrowest
role they use.
"""

from flowcore.repository.content import ContentRepository, ContentWriter
from flowcore.repository.flowfile import (
    CommitReceipt,
    FlowFileRepository,
    KeyedStateItem,
    KeyedStateStore,
    ProcessorStateStore,
    QueuedFlowFile,
    RecoveredState,
    RepositoryUpdate,
    SwapOut,
    SwapStore,
    SwapSummary,
    WriteAheadLog,
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
    "KeyedStateItem",
    "KeyedStateStore",
    "LineageGraph",
    "LineageLink",
    "LineageNode",
    "ProcessorStateStore",
    "ProvenanceJournal",
    "ProvenanceQuery",
    "ProvenanceRepository",
    "QueuedFlowFile",
    "RecoveredState",
    "RepositoryUpdate",
    "SwapOut",
    "SwapStore",
    "SwapSummary",
    "WriteAheadLog",
]
