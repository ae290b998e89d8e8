"""What a session is bound to: its component's queues and the engine's shared services."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from flowcore.queue.queue import FlowFileQueue


@dataclass(slots=True)
class ComponentStats:
    """Running totals of one component, updated after each committed session."""

    flowfiles_in: int = 0
    bytes_in: int = 0
    flowfiles_out: int = 0
    bytes_out: int = 0
    commits: int = 0
    rollbacks: int = 0
    counters: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(
        self,
        flowfiles_in: int,
        bytes_in: int,
        flowfiles_out: int,
        bytes_out: int,
        counters: Mapping[str, int] | None = None,
    ) -> None:
        with self._lock:
            self.flowfiles_in += flowfiles_in
            self.bytes_in += bytes_in
            self.flowfiles_out += flowfiles_out
            self.bytes_out += bytes_out
            self.commits += 1
            for name, delta in (counters or {}).items():
                self.counters[name] = self.counters.get(name, 0) + delta


@dataclass(slots=True)
class ComponentState:
    """A component's committed LOCAL state, as last written by a committed session."""

    values: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class ComponentBinding:
    """One component's place in the flow, as its sessions need it."""

    component_id: str
    component_type: str
    incoming: list[FlowFileQueue]
    outgoing: dict[str, list[FlowFileQueue]]
    auto_terminated: frozenset[str]
    relationships: frozenset[str]
    penalty_ms: int = 30_000
    state: ComponentState = field(default_factory=ComponentState)
    stats: ComponentStats = field(default_factory=ComponentStats)
    poll_index: int = 0


class IdGenerator:
    """FlowFile ids: a counter that recovery starts past every id in the repository."""

    def __init__(self, start: int = 0) -> None:
        self._counter = itertools.count(start)

    def next(self) -> int:
        return next(self._counter)
