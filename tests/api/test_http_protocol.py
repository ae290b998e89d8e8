"""uvicorn's cycle under ``OneWriteHttpToolsProtocol``: a response's head and first body
chunk leave in one write; a failure before the body still gets uvicorn's 500."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

import pytest
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from api.http_protocol import OneWriteHttpToolsProtocol, _OneWriteCycle


class Transport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed, "written after close"
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


def cycle(transport: Transport, keep_alive: bool = True) -> _OneWriteCycle:
    return _OneWriteCycle(
        scope={"type": "http", "method": "POST", "path": "/", "headers": []},  # type: ignore[typeddict-item]
        transport=transport,  # type: ignore[arg-type]
        flow=SimpleNamespace(write_paused=False),  # type: ignore[arg-type]
        logger=logging.getLogger("test.uvicorn"),
        access_logger=logging.getLogger("test.uvicorn.access"),
        access_log=False,
        default_headers=[],
        message_event=asyncio.Event(),
        expect_100_continue=False,
        keep_alive=keep_alive,
        on_response=lambda: None,
    )


async def answer(scope: Any, receive: Any, send: Any) -> None:
    await send(
        {"type": "http.response.start", "status": 201, "headers": [(b"content-length", b"2")]}
    )
    await send({"type": "http.response.body", "body": b"ok"})


def test_the_head_and_the_body_leave_in_one_write() -> None:
    transport = Transport()
    asyncio.run(cycle(transport).run_asgi(answer))
    [write] = transport.writes
    assert write.startswith(b"HTTP/1.1 201 Created\r\n") and write.endswith(b"\r\n\r\nok")
    assert not transport.closed


def test_a_closing_answer_is_written_whole_before_the_close() -> None:
    transport = Transport()
    asyncio.run(cycle(transport, keep_alive=False).run_asgi(answer))
    [write] = transport.writes
    assert b"connection: close\r\n" in write and write.endswith(b"ok")
    assert transport.closed


def test_an_app_that_fails_after_its_head_still_gets_a_500_alone() -> None:
    async def failing(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 201, "headers": []})
        raise RuntimeError("boom")

    transport = Transport()
    asyncio.run(cycle(transport).run_asgi(failing))
    [write] = transport.writes  # the held 201 head never went out
    assert write.startswith(b"HTTP/1.1 500 ") and write.endswith(b"Internal Server Error")


def test_streamed_chunks_after_the_first_are_written_as_they_come() -> None:
    async def streaming(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"a", "more_body": True})
        await send({"type": "http.response.body", "body": b"b", "more_body": False})

    transport = Transport()
    asyncio.run(cycle(transport).run_asgi(streaming))
    assert len(transport.writes) == 2
    assert transport.writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert transport.writes[0].endswith(b"1\r\na\r\n")
    assert transport.writes[1] == b"1\r\nb\r\n0\r\n\r\n"


def test_the_protocol_gives_each_new_cycle_the_one_write_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    protocol = OneWriteHttpToolsProtocol.__new__(OneWriteHttpToolsProtocol)
    plain = RequestResponseCycle.__new__(RequestResponseCycle)

    def made_a_cycle(self: Any) -> None:  # what uvicorn's own method does, in short
        self.cycle = plain

    monkeypatch.setattr(HttpToolsProtocol, "on_headers_complete", made_a_cycle)
    protocol.on_headers_complete()
    assert type(protocol.cycle) is _OneWriteCycle
