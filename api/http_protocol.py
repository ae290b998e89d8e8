"""uvicorn's httptools protocol, writing a response's head and first body chunk at once.

uvicorn writes the status line and headers as soon as the application sends
``http.response.start``, then the body as a second write: two socket writes (two system
calls, two loopback deliveries) for every small answer, the largest single cost of an
enqueue's HTTP round trip once the rest is lean. This protocol holds the head until the
first ``http.response.body`` and writes both in one call. Nothing else changes: the
bytes on the wire are the same, an application that fails before its body still gets
uvicorn's 500 (the held head was never sent), and a streamed body's later chunks are
written as they come.

It relies on uvicorn's ``RequestResponseCycle`` (the version is pinned in the project's
dependencies): each new cycle is given this subclass before its task first runs.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

__all__ = ["OneWriteHttpToolsProtocol"]


class _Held:
    """Stands in for the transport while a head and a body chunk are written."""

    __slots__ = ("chunks", "transport")

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self.chunks: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.chunks.append(data)

    def flush(self) -> None:
        if self.chunks:
            self.transport.write(b"".join(self.chunks))
            self.chunks.clear()

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class _OneWriteCycle(RequestResponseCycle):
    _head: Any = None

    async def send(self, message: Any) -> None:
        if message["type"] == "http.response.start" and not self.response_started:
            self._head = message
            return
        head = self._head
        if head is None:
            await super().send(message)
            return
        self._head = None
        transport = self.transport
        held = _Held(transport)
        self.transport = held  # type: ignore[assignment]
        try:
            await super().send(head)
            await super().send(message)
        finally:
            self.transport = transport
            held.flush()


class OneWriteHttpToolsProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` whose responses start with one write (see the module)."""

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        cycle = self.cycle
        if cycle is not None and type(cycle) is RequestResponseCycle:
            cycle.__class__ = _OneWriteCycle
