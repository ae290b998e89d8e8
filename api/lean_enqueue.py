"""The lean path of ``POST /api/v1/ports/{port}/flowfiles``: pure ASGI, before FastAPI.

A single enqueue of a small body is the API's hottest request, and FastAPI's middleware,
routing, dependency solving and response validation cost more than the group commit
does for it. ``FlowcoreAPI`` (a ``FastAPI``) first offers every request to its
``LeanEnqueue``, which answers exactly that request
(method POST, the path of an existing or unknown port, a ``Content-Length`` of ASCII
digits up to ``small_body``) itself: the same checks in the same order as the FastAPI
route (bearer token 401/403, attributes 400/422 with ``uuid``, port 404), the
body read whole, handed to the group commit (``EnqueueBatcher``) and answered 201
``{"uuid": ...}`` once its group is durable, or with the group's error (503 + Retry-After,
507 + Connection: close). Anything else (a larger or unsized body, another path) passes
on untouched to FastAPI, whose route stays the one the OpenAPI schema documents (and
serves the request alike when the app runs without its lean path).
"""

from __future__ import annotations

import json

from fastapi import FastAPI, HTTPException
from starlette.types import Message, Receive, Scope, Send

from api.enqueue_batcher import EnqueueBatcher
from api.inputs import BadInput, Tokens, parse_attribute_header, parse_count, repository_detail
from flowcore.engine.node import BackPressureError, EnqueueItem, Node
from flowcore.errors import RepositoryError, RepositoryFullError
from flowcore.logsafe import safe_logger

__all__ = ["FlowcoreAPI", "LeanEnqueue"]

log = safe_logger("flowcore.api")

_JSON = (b"content-type", b"application/json")


class FlowcoreAPI(FastAPI):
    """FastAPI, with the small single enqueues answered by ``lean`` before anything else."""

    lean: LeanEnqueue | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        lean = self.lean
        if lean is None or not await lean(scope, receive, send):
            await super().__call__(scope, receive, send)


class LeanEnqueue:
    """Answers a small single enqueue (``__call__`` is True) or declines it (False)."""

    def __init__(
        self,
        *,
        node: Node,
        batcher: EnqueueBatcher,
        tokens: Tokens,
        prefix: str,
        small_body: int,
        max_body: int,
        retry_after_seconds: int,
    ) -> None:
        self._node = node
        self._batcher = batcher
        self._tokens = tokens
        self._prefix = f"{prefix}/ports/"
        self._small = min(small_body, max_body)
        self._retry_after = str(retry_after_seconds).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> bool:
        if scope["type"] != "http" or scope["method"] != "POST":
            return False
        port = self._port(scope)
        declared: int | None = None
        authorization: str | None = None
        attributes: str | None = None
        if port is not None:
            for name, value in scope["headers"]:
                if name == b"content-length":
                    declared = parse_count(value.decode("latin-1").strip())
                elif name == b"x-flowfile-attributes" and attributes is None:
                    attributes = value.decode("latin-1")
                elif name == b"authorization" and authorization is None:
                    authorization = value.decode("latin-1")
        if port is None or declared is None or declared > self._small:
            return False
        try:
            uuid = await self._enqueue(scope, port, authorization, attributes, receive)
        except _Gone:
            return True
        except HTTPException as exc:
            headers = [
                (k.lower().encode("latin-1"), v.encode("latin-1"))
                for k, v in (exc.headers or {}).items()
            ]
            await _answer(send, exc.status_code, exc.detail, headers)
            return True
        except BadInput as exc:
            closing = [(b"connection", b"close")] if exc.status == 413 else []
            await _answer(send, exc.status, exc.detail, closing)
            return True
        except BackPressureError as exc:
            await _answer(send, 503, str(exc), [(b"retry-after", self._retry_after)])
            return True
        except RepositoryError as exc:
            detail = repository_detail(exc)
            log.warning("POST %s failed: %s", scope["path"], detail)
            if isinstance(exc, RepositoryFullError):
                await _answer(send, 507, detail, [(b"connection", b"close")])
            else:
                await _answer(send, 503, detail, [(b"retry-after", self._retry_after)])
            return True
        body = b'{"uuid":"' + uuid.encode("ascii") + b'"}'  # a uuid needs no escaping
        await send(
            {
                "type": "http.response.start",
                "status": 201,
                "headers": [_JSON, (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})
        return True

    def _port(self, scope: Scope) -> str | None:
        """The port named by the path, if it is ``{prefix}/ports/{port}/flowfiles``."""
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        if not path.startswith(self._prefix) or not path.endswith("/flowfiles"):
            return None
        port = path[len(self._prefix) : -len("/flowfiles")]
        if not port or "/" in port:
            return None
        return port

    async def _enqueue(
        self,
        scope: Scope,
        port: str,
        authorization: str | None,
        header: str | None,
        receive: Receive,
    ) -> str:
        self._tokens.check(authorization, "POST")
        attributes = parse_attribute_header(header)
        if port not in self._node.input_ports:
            raise HTTPException(404, f"no input port named '{port}'")
        content = await _read(receive, scope["path"])
        return await self._batcher.enqueue(port, EnqueueItem(content, attributes))


class _Gone(Exception):
    """The client hung up before its body was whole: nothing to answer, nothing enqueued."""


async def _read(receive: Receive, path: str) -> bytes:
    message: Message = await receive()
    if message["type"] == "http.request" and not message.get("more_body", False):
        return bytes(message.get("body", b""))
    chunks: list[bytes] = []
    while True:
        if message["type"] == "http.disconnect":
            log.warning(
                "client disconnected during POST %s before the body arrived; nothing was enqueued",
                path,
            )
            raise _Gone
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)
        message = await receive()


async def _answer(send: Send, status: int, detail: str, headers: list[tuple[bytes, bytes]]) -> None:
    """An error answer as FastAPI's handlers give it: JSON ``{"detail": ...}``."""
    body = json.dumps({"detail": detail}, ensure_ascii=False, separators=(",", ":")).encode()
    raw = [_JSON, (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
