"""Input ports: FlowFiles entering the flow, whole (``enqueue``) or streamed (uploads).

An input port is a component with one relationship, ``success``, whose connections the
wiring fills in. Every FlowFile enters through a session of the port's binding, with a
RECEIVE event, so it is durable before its uuid is handed back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from flowcore.errors import FlowCoreError
from flowcore.model.flowfile import CoreAttribute
from flowcore.session.binding import ComponentBinding
from flowcore.session.session import OpenContent, ProcessSession

PORT_RELATIONSHIP = "success"
"""The one relationship of an input port (and the default of a connection from one)."""


@dataclass(frozen=True, slots=True)
class EnqueueItem:
    """One FlowFile for an input port: content and attributes."""

    content: bytes
    attributes: Mapping[str, str] = field(default_factory=dict)


class BackPressureError(FlowCoreError):
    """An input port's connection is full: nothing was enqueued."""

    def __init__(self, port: str, connection: str) -> None:
        super().__init__(
            f"back pressure is engaged on connection '{connection}' of input port '{port}'"
        )
        self.port = port
        self.connection = connection


def port_binding(name: str) -> ComponentBinding:
    """A new input port's binding; the wiring gives it its connections."""
    return ComponentBinding(
        component_id=name,
        component_type="InputPort",
        incoming=[],
        outgoing={},
        auto_terminated=frozenset(),
        relationships=frozenset({PORT_RELATIONSHIP}),
    )


class InputPorts:
    """Enqueueing into the flow's input ports, each through a session of its binding."""

    def __init__(
        self,
        ports: Mapping[str, ComponentBinding],
        session_for: Callable[[ComponentBinding], ProcessSession],
    ) -> None:
        self._ports = ports
        self._session_for = session_for

    def enqueue(self, port: str, items: Iterable[EnqueueItem]) -> list[str]:
        """Create FlowFiles at an input port in one session; returns their uuids once durable.

        Raises ``KeyError`` for an unknown port, ``BackPressureError`` if a connection of
        the port is full (nothing is enqueued) and ``ValueError`` for an attempt to set
        ``uuid``.
        """
        binding = self._open(port)
        session = self._session_for(binding)
        uuids: list[str] = []
        try:
            for item in items:
                if CoreAttribute.UUID in item.attributes:
                    msg = "the 'uuid' attribute cannot be set"
                    raise ValueError(msg)
                flowfile = session.create()
                if item.attributes:
                    flowfile = session.put_all_attributes(flowfile, item.attributes)
                flowfile = session.write(flowfile, item.content)
                session.provenance.receive(flowfile, f"flowcore://input-port/{port}")
                session.transfer(flowfile, PORT_RELATIONSHIP)
                uuids.append(flowfile.uuid)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return uuids

    def open_upload(self, port: str, attributes: Mapping[str, str]) -> PortUpload:
        """Start one FlowFile at an input port whose content arrives in chunks.

        The content streams into the content repository as it comes (never whole in
        memory); ``commit`` makes the FlowFile durable and returns its uuid, ``abort``
        leaves nothing behind. Raises as ``enqueue`` does for an unknown port, back
        pressure or a ``uuid`` attribute.
        """
        if port not in self._ports:
            msg = f"no input port named '{port}'"
            raise KeyError(msg)
        if CoreAttribute.UUID in attributes:
            msg = "the 'uuid' attribute cannot be set"
            raise ValueError(msg)
        session = self._session_for(self._open(port))
        flowfile = session.create()
        if attributes:
            flowfile = session.put_all_attributes(flowfile, attributes)
        return PortUpload(port, session, session.open_write(flowfile))

    def _open(self, port: str) -> ComponentBinding:
        """The port's binding, refused while one of its connections is full."""
        binding = self._ports.get(port)
        if binding is None:
            msg = f"no input port named '{port}'"
            raise KeyError(msg)
        for queue in binding.outgoing.get(PORT_RELATIONSHIP, []):
            if queue.is_full():
                raise BackPressureError(port, queue.name)
        return binding


class PortUpload:
    """One FlowFile being uploaded into an input port (see ``InputPorts.open_upload``)."""

    def __init__(self, port: str, session: ProcessSession, content: OpenContent) -> None:
        self._port = port
        self._session = session
        self._content = content
        self._done = False

    @property
    def size(self) -> int:
        return self._content.bytes_written

    def write(self, chunk: bytes | bytearray | memoryview) -> None:
        self._content.write(chunk)

    def commit(self) -> str:
        """Close the content, commit durably, and return the new FlowFile's uuid."""
        if self._done:
            msg = "the upload is already finished"
            raise ValueError(msg)
        self._done = True
        session = self._session
        try:
            flowfile = self._content.close()
            session.provenance.receive(flowfile, f"flowcore://input-port/{self._port}")
            session.transfer(flowfile, PORT_RELATIONSHIP)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return flowfile.uuid

    def abort(self) -> None:
        """Drop the upload: nothing is enqueued and the partial content is released."""
        if not self._done:
            self._done = True
            self._session.rollback()
