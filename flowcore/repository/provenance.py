"""The provenance repository contract: indexed, searchable provenance events.

Events are first written to a journal inside the FlowFile repository's commit
transaction. The provenance repository indexes them from that journal in batches and
trims the journal only after its own store has committed them, so that a crash at any
point loses no event and stores none twice.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository.identity import IdentifiedRepository

if TYPE_CHECKING:
    from flowcore.settings import EngineSettings


class ProvenanceJournal(Protocol):
    """The durable journal events are indexed from (a role of the FlowFile repository).

    Events enter it through ``WriteAheadLog.commit``, which gives them their ids.
    """

    @abstractmethod
    def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
        """Journaled provenance events with ids above ``after_event_id``, in id order."""

    @abstractmethod
    def trim_journal(self, through_event_id: int) -> int:
        """Forget journaled events up to and including an id; returns how many."""

    @abstractmethod
    def journal_size(self) -> int:
        """How many events wait in the journal."""


@dataclass(slots=True)
class ProvenanceQuery:
    """Search criteria; every given criterion must match. Results come newest first.

    ``details`` matches as a case-insensitive substring. ``before_event_id`` is the cursor:
    only events with a smaller id are returned.
    """

    flowfile_uuid: str | None = None
    event_type: str | None = None
    component_id: str | None = None
    start_ms: int | None = None
    end_ms: int | None = None
    details: str | None = None
    attributes: dict[str, str] = field(default_factory=dict)
    limit: int = 100
    before_event_id: int | None = None


@dataclass(frozen=True, slots=True)
class LineageNode:
    """A FlowFile node (id = its uuid) or an event node (id = str(event id))."""

    id: str
    node_type: Literal["FLOWFILE", "EVENT"]
    flowfile_uuid: str
    timestamp: int
    event_type: str | None = None
    event_id: int | None = None


@dataclass(frozen=True, slots=True)
class LineageLink:
    source_id: str
    target_id: str
    flowfile_uuid: str
    timestamp: int


@dataclass(slots=True)
class LineageGraph:
    nodes: list[LineageNode]
    links: list[LineageLink]


class ProvenanceRepository(IdentifiedRepository):
    """Stores provenance events and answers search, lineage and event look-ups."""

    @classmethod
    def restart_at(cls, settings: EngineSettings, event_id: int) -> None:
        """For ``flowcore repair``, on the closed repository: a repository holding no
        events (created if absent) continues after ``event_id - 1`` (its
        ``indexed_through``), the events before having been lost."""
        raise NotImplementedError

    @abstractmethod
    def index_pending(self, *, wait: bool = True) -> int:
        """Index journaled events in batches until the journal is empty; returns how many
        were stored and trimmed from the journal by this call.

        ``wait=False`` lets the last transaction finish in the background: its events
        are stored, and trimmed from the journal, by the next call (or ``close``), and
        counted there. A caller with other work to do (a scheduler after a commit) gets
        on with it meanwhile; a failure of that transaction is raised by the next call.
        Such a call may index less than everything, never waiting for DuckDB in between:
        one journal batch at a time, and nothing while a transaction is still in the
        background and less than a batch more is journaled. What it indexes depends only
        on the journal, never on the indexing thread's timing; a reader sees every event
        a call has taken.
        """

    @abstractmethod
    def indexed_through(self) -> int:
        """The highest event id stored (-1 if none)."""

    @abstractmethod
    def search(self, query: ProvenanceQuery) -> list[ProvenanceEvent]: ...

    @abstractmethod
    def get_event(self, event_id: int) -> ProvenanceEvent | None: ...

    @abstractmethod
    def lineage(self, flowfile_uuid: str) -> LineageGraph:
        """Every ancestor and descendant through FORK, CLONE, JOIN and REPLAY."""

    @abstractmethod
    def age_off(self, now_ms: int) -> int:
        """Remove events older than the maximum storage time or beyond the maximum size."""

    @abstractmethod
    def event_count(self) -> int: ...

    @abstractmethod
    def close(self) -> None: ...
