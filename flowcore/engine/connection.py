"""A connection: a queue between a source component and a destination processor."""

from __future__ import annotations

from dataclasses import dataclass

from flowcore.queue.queue import FlowFileQueue


@dataclass(slots=True)
class Connection:
    """``destination`` is None for the TestRunner's capture connections."""

    name: str
    source: str
    relationships: tuple[str, ...]
    destination: str | None
    queue: FlowFileQueue
