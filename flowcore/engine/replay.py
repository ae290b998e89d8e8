"""Provenance replay: a FlowFile again on the connection a provenance event took it from.

As in NiFi, the new FlowFile has the content and attributes the event's FlowFile had
before the event, a new ``uuid`` and ``flowfile.replay`` attributes, and a REPLAY event
links it to the original. It enters through an ordinary session of the replayed
component (its id and type, bound to that connection), so the claim reference, the
FlowFile record and the event commit together through the one commit path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from flowcore.engine.connection import Connection
from flowcore.errors import ContentNotFoundError, FlowCoreError
from flowcore.model.flowfile import ContentClaim, CoreAttribute, FlowFile, ResourceClaim
from flowcore.model.provenance import ProvenanceEvent, ProvenanceEventType
from flowcore.repository.content import ContentRepository
from flowcore.repository.provenance import ProvenanceRepository
from flowcore.session.binding import ComponentBinding
from flowcore.session.session import ProcessSession


class ReplayError(FlowCoreError):
    """A provenance event that cannot be replayed, with NiFi's reason.

    ``reason`` says which rule refused it: ``join`` (JOIN events are never replayed),
    ``no-content`` (the event has no content claim), ``no-connection`` (the connection
    it came from is unknown or gone) or ``content-gone`` (the content has aged off, or
    fails its checksum).
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class Replayer:
    """Replays provenance events into the node's connections."""

    def __init__(
        self,
        provenance: ProvenanceRepository,
        content: ContentRepository,
        connections: Mapping[str, Connection],
        session_for: Callable[[ComponentBinding], ProcessSession],
        now_ms: Callable[[], int],
    ) -> None:
        self._provenance = provenance
        self._content = content
        self._connections = connections
        self._session_for = session_for
        self._now = now_ms

    def replay(self, event_id: int) -> str:
        """Replay an indexed event; returns the new FlowFile's uuid once it is durable.

        Raises ``KeyError`` for an unknown event and ``ReplayError`` for one that cannot
        be replayed (nothing is then changed).
        """
        event = self._provenance.get_event(event_id)
        if event is None:
            raise KeyError(f"no provenance event with id {event_id}")
        parent, connection = self._replayable(event)
        session = self._session_for(_binding_of(event, connection))
        try:
            child = session.replay(parent, connection.queue, f"Replay of event {event_id}")
            # The content is checked once the session holds its claimant reference: from
            # then on the archive's age-off keeps the file (it deletes only unused claims).
            self._check_content(parent)
            session.transfer(child)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return child.uuid

    def _replayable(self, event: ProvenanceEvent) -> tuple[FlowFile, Connection]:
        """The FlowFile as the event saw it before, and the connection it came from."""
        if event.event_type == ProvenanceEventType.JOIN:
            raise ReplayError("join", "cannot replay a JOIN event")
        ref = event.previous_content or event.current_content
        attributes = event.previous_attributes if event.previous_content else event.attributes
        if ref is None:
            raise ReplayError("no-content", "the event has no content to replay")
        connection = self._connections.get(event.source_queue_id or "")
        if connection is None:
            raise ReplayError(
                "no-connection",
                "the connection the FlowFile came from no longer exists"
                if event.source_queue_id
                else "the event has no source connection",
            )
        claim = ContentClaim(
            ResourceClaim(ref.container, ref.section, ref.identifier),
            ref.offset,
            ref.size,
            ref.checksum,
        )
        now = self._now()
        parent = FlowFile(
            id=-1,  # never stored: the replayed FlowFile gets an id of its own
            attributes={**attributes, CoreAttribute.UUID.value: event.flowfile_uuid},
            claim=claim,
            claim_offset=0,
            size=ref.size,
            entry_date=event.entry_date,
            lineage_start_date=event.lineage_start_date or now,
        )
        return parent, connection

    def _check_content(self, parent: FlowFile) -> None:
        """``ReplayError`` (content-gone) unless the content is there and whole."""
        claim = parent.claim
        assert claim is not None  # _replayable refuses an event without content
        gone = "the content of the event is no longer available"
        if claim.checksum is None:
            if not self._content.exists(claim):
                raise ReplayError("content-gone", gone)
            return
        try:
            self._content.verify(claim)  # one read: never replay damaged bytes
        except ContentNotFoundError as exc:
            if self._content.exists(claim):
                gone = f"the content of the event cannot be read whole: {exc}"
            raise ReplayError("content-gone", gone) from exc


def _binding_of(event: ProvenanceEvent, connection: Connection) -> ComponentBinding:
    """The replayed component as its replay session sees it: the event's component,
    taking from the connection the FlowFile came from."""
    return ComponentBinding(
        component_id=event.component_id,
        component_type=event.component_type,
        incoming=[connection.queue],
        outgoing={},
        auto_terminated=frozenset(),
        relationships=frozenset(),
    )
