"""What a process session knows about one FlowFile it holds."""

from __future__ import annotations

from dataclasses import dataclass

from flowcore.model.flowfile import FlowFile
from flowcore.queue.queue import FlowFileQueue
from flowcore.repository.flowfile import QueuedFlowFile


@dataclass(slots=True)
class SessionRecord:
    """One FlowFile's life in this session."""

    original: FlowFile | None
    current: FlowFile
    source: FlowFileQueue | None = None
    taken: QueuedFlowFile | None = None
    relationship: str | None = None
    to_source: bool = False
    removed: bool = False
    auto_terminated: bool = False
    owns_claim: bool = False
    entered_ms: int = 0
    transfer_seq: int = 0


def describe(flowfile: FlowFile) -> str:
    """A FlowFile as error messages name it."""
    return f"FlowFile[id={flowfile.id}, uuid={flowfile.uuid}]"
