"""The provenance reporter: events a processor reports about its FlowFiles.

Events are collected in the session and rebuilt at commit with the FlowFiles' final
attributes and content (NiFi's enrichment), except SEND and UPLOAD, which describe the
FlowFile as it was when sent, and CLONE, which describes the parent at clone time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from flowcore.model.flowfile import FlowFile
from flowcore.model.provenance import ProvenanceEvent, ProvenanceEventType

T = ProvenanceEventType


@dataclass(slots=True)
class ReportedEvent:
    """An event as reported, before enrichment."""

    event_type: ProvenanceEventType
    flowfile: FlowFile
    time_ms: int
    details: str | None = None
    transit_uri: str | None = None
    source_system_flowfile_id: str | None = None
    alternate_identifier: str | None = None
    relationship: str | None = None
    duration_ms: int = -1
    parents: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)
    frozen: ProvenanceEvent | None = None

    @property
    def uuid(self) -> str:
        return self.flowfile.uuid


class ProvenanceReporter:
    """NiFi's ProvenanceReporter verbs, recording into the owning session."""

    def __init__(
        self,
        add: Callable[[ReportedEvent], None],
        now_ms: Callable[[], int],
        freeze: Callable[[ReportedEvent], ProvenanceEvent],
        write_now: Callable[[ProvenanceEvent], None],
    ) -> None:
        self._add = add
        self._now = now_ms
        self._freeze = freeze
        self._write_now = write_now

    def _report(
        self, event_type: ProvenanceEventType, flowfile: FlowFile, **fields: object
    ) -> None:
        self._add(ReportedEvent(event_type, flowfile, self._now(), **fields))  # type: ignore[arg-type]

    @staticmethod
    def _require(value: str | None, what: str, event_type: ProvenanceEventType) -> None:
        if not value:
            msg = f"a {event_type.value} event needs a {what}"
            raise ValueError(msg)

    def receive(
        self,
        flowfile: FlowFile,
        transit_uri: str,
        *,
        source_system_flowfile_id: str | None = None,
        details: str | None = None,
        duration_ms: int = -1,
    ) -> None:
        self._require(transit_uri, "transit URI", T.RECEIVE)
        self._report(
            T.RECEIVE,
            flowfile,
            transit_uri=transit_uri,
            details=details,
            source_system_flowfile_id=source_system_flowfile_id,
            duration_ms=duration_ms,
        )

    def fetch(
        self,
        flowfile: FlowFile,
        transit_uri: str,
        *,
        details: str | None = None,
        duration_ms: int = -1,
    ) -> None:
        self._require(transit_uri, "transit URI", T.FETCH)
        self._report(
            T.FETCH, flowfile, transit_uri=transit_uri, details=details, duration_ms=duration_ms
        )

    def send(
        self,
        flowfile: FlowFile,
        transit_uri: str,
        *,
        details: str | None = None,
        duration_ms: int = -1,
        force: bool = False,
    ) -> None:
        """Report a SEND, enriched now; ``force`` writes it even if the session rolls back."""
        self._sent(T.SEND, flowfile, transit_uri, details, duration_ms, force)

    def upload(
        self,
        flowfile: FlowFile,
        transit_uri: str,
        *,
        details: str | None = None,
        duration_ms: int = -1,
        force: bool = False,
    ) -> None:
        self._sent(T.UPLOAD, flowfile, transit_uri, details, duration_ms, force)

    def _sent(
        self,
        event_type: ProvenanceEventType,
        flowfile: FlowFile,
        transit_uri: str,
        details: str | None,
        duration_ms: int,
        force: bool,
    ) -> None:
        self._require(transit_uri, "transit URI", event_type)
        event = ReportedEvent(
            event_type,
            flowfile,
            self._now(),
            details=details,
            transit_uri=transit_uri,
            duration_ms=duration_ms,
        )
        event.frozen = self._freeze(event)
        if force:
            self._write_now(event.frozen)
        else:
            self._add(event)

    def remote_invocation(
        self, flowfile: FlowFile, transit_uri: str, *, details: str | None = None
    ) -> None:
        self._require(transit_uri, "transit URI", T.REMOTE_INVOCATION)
        self._report(T.REMOTE_INVOCATION, flowfile, transit_uri=transit_uri, details=details)

    def download(self, flowfile: FlowFile, transit_uri: str, *, details: str | None = None) -> None:
        self._report(T.DOWNLOAD, flowfile, transit_uri=transit_uri, details=details)

    def route(
        self,
        flowfile: FlowFile,
        relationship: str,
        *,
        details: str | None = None,
        duration_ms: int = -1,
    ) -> None:
        self._require(relationship, "relationship", T.ROUTE)
        self._report(
            T.ROUTE,
            flowfile,
            relationship=str(relationship),
            details=details,
            duration_ms=duration_ms,
        )

    def associate(self, flowfile: FlowFile, namespace: str, identifier: str) -> None:
        """ADDINFO: tie the FlowFile to an alternate identifier ``namespace:identifier``."""
        self._require(identifier, "alternate identifier", T.ADDINFO)
        alternate = f"{namespace}:{identifier}" if namespace else identifier
        self._report(T.ADDINFO, flowfile, alternate_identifier=alternate)

    def add_info(self, flowfile: FlowFile, namespace: str, identifier: str) -> None:
        """The same as ``associate`` (a method, since mypyc cannot compile a method alias)."""
        self.associate(flowfile, namespace, identifier)

    def modify_content(
        self, flowfile: FlowFile, *, details: str | None = None, duration_ms: int = -1
    ) -> None:
        self._report(T.CONTENT_MODIFIED, flowfile, details=details, duration_ms=duration_ms)

    def modify_attributes(self, flowfile: FlowFile, *, details: str | None = None) -> None:
        self._report(T.ATTRIBUTES_MODIFIED, flowfile, details=details)

    def create(self, flowfile: FlowFile, *, details: str | None = None) -> None:
        self._report(T.CREATE, flowfile, details=details)

    def drop(self, flowfile: FlowFile, *, details: str | None = None) -> None:
        self._report(T.DROP, flowfile, details=details)

    def expire(self, flowfile: FlowFile, *, details: str | None = None) -> None:
        self._report(T.EXPIRE, flowfile, details=details)

    def clone(self, parent: FlowFile, child: FlowFile) -> None:
        event = ReportedEvent(T.CLONE, parent, self._now(), children=[child.uuid])
        event.frozen = self._freeze(event)
        self._add(event)

    def join(
        self, parents: Sequence[FlowFile], child: FlowFile, *, details: str | None = None
    ) -> None:
        self._report(T.JOIN, child, parents=[p.uuid for p in parents], details=details)

    def fork(
        self, parent: FlowFile, children: Sequence[FlowFile], *, details: str | None = None
    ) -> None:
        self._report(T.FORK, parent, children=[c.uuid for c in children], details=details)
