"""What a process session holds and did, kept apart from the verbs that write it.

The session's verbs (get, create, clone, write, transfer, remove, report...) write the
ledger; the commit planner (``flowcore.session.planner``) reads it and adds where each
FlowFile goes, and the ``EventBuilder`` turns it into provenance events. A session starts
each unit of work with a fresh ledger.
"""

from __future__ import annotations

from flowcore.errors import ContentNotFoundError
from flowcore.model.flowfile import ContentClaim, FlowFile, ResourceClaim
from flowcore.queue.queue import FlowFileQueue
from flowcore.repository.content import ContentWriter
from flowcore.session.keyed_state import KeyedState
from flowcore.session.records import SessionRecord
from flowcore.session.reporter import ReportedEvent


class SessionLedger:
    """The records of one session's unit of work."""

    __slots__ = (
        "auto_drops",
        "clone_events",
        "content_missing",
        "counters",
        "destinations",
        "forks",
        "joins",
        "keyed",
        "open",
        "records",
        "reported",
        "state",
        "taken",
        "transfers",
        "written",
    )

    def __init__(self) -> None:
        self.records: dict[int, SessionRecord] = {}
        """Every FlowFile the session holds, by FlowFile id."""
        self.taken: dict[int, SessionRecord] = {}
        """By FlowFile id, in the order taken: a migration hands a few over in O(1) each."""
        self.reported: list[ReportedEvent] = []
        """The events the processor (or the framework's replay) reported, in order."""
        self.forks: dict[int, list[int]] = {}
        """Parent id -> the ids of the children created from it (a FORK at commit)."""
        self.joins: list[tuple[int, list[FlowFile]]] = []
        """Child id and the parents it was created from (a JOIN at commit)."""
        self.written: set[ResourceClaim] = set()
        """Resource claims the session wrote to (made durable in step 1 of the commit)."""
        self.state: dict[str, str] | None = None
        """The LOCAL state set in this session, or None if unchanged."""
        self.keyed: KeyedState | None = None
        self.content_missing: dict[int, tuple[ContentClaim, ContentNotFoundError]] = {}
        """FlowFile id -> the claim that could not be read and why."""
        self.counters: dict[str, int] = {}
        self.transfers = 0
        """How many transfers so far: each record's ``transfer_seq`` comes from it."""
        self.open: dict[int, ContentWriter] = {}
        """FlowFile id -> its content writer still open (``ProcessSession.open_write``)."""
        # Written by the commit planner: where each FlowFile goes, and what that adds.
        self.destinations: dict[int, list[FlowFileQueue]] = {}
        self.clone_events: list[ReportedEvent] = []
        self.auto_drops: list[SessionRecord] = []

    def is_empty(self) -> bool:
        """Nothing to commit or roll back."""
        return (
            not (self.records or self.reported or self.counters)
            and self.state is None
            and (self.keyed is None or not self.keyed.changed)
        )
