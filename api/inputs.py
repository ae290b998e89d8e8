"""What a request brings, checked: attributes, numbers, bearer tokens; and error wording.

Shared by the FastAPI handlers (``api/routers/``) and the lean single-enqueue route
(``api/lean_enqueue.py``), so both refuse the same input with the same status and words.
"""

from __future__ import annotations

import hmac
import json
import re
from datetime import UTC, datetime
from typing import Any

from fastapi import HTTPException, Request

from api.settings import ApiSettings, Role
from flowcore.errors import RepositoryError
from flowcore.model.flowfile import CoreAttribute

_DIGITS = re.compile(r"[0-9]+")
MAX_INT64 = 2**63 - 1


class BadInput(Exception):
    """A request the client must change: answered with ``status`` and ``detail``."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def is_unicode(text: str) -> bool:
    """Whether the text can be stored: JSON's ``\\ud800`` escapes decode to lone
    surrogates, which UTF-8 (and so every repository) refuses."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_attributes(value: Any, where: str) -> dict[str, str]:
    """Validate an attributes object: a JSON object of strings, without ``uuid``."""
    if not isinstance(value, dict):
        raise BadInput(422, f"{where} must be a JSON object of string values")
    for key, item in value.items():
        if not isinstance(item, str):
            raise BadInput(
                422, f"{where}: attribute '{key}' must be a string, not {type(item).__name__}"
            )
        if not (key.isascii() and item.isascii()) and not (is_unicode(key) and is_unicode(item)):
            raise BadInput(
                422, f"{where}: attribute {key!r} is not valid Unicode (a lone surrogate escape)"
            )
    if CoreAttribute.UUID.value in value:
        raise BadInput(422, f"{where}: the 'uuid' attribute cannot be set")
    return value


def parse_attribute_header(header: str | None) -> dict[str, str]:
    """The ``X-FlowFile-Attributes`` header's attributes (none when absent or blank)."""
    if header is None or not header.strip():
        return {}
    try:
        value = json.loads(header)
    except json.JSONDecodeError as exc:
        raise BadInput(400, f"X-FlowFile-Attributes is not valid JSON: {exc}") from None
    except RecursionError:
        raise BadInput(400, "X-FlowFile-Attributes is nested too deeply") from None
    return check_attributes(value, "X-FlowFile-Attributes")


def parse_count(text: str) -> int | None:
    """A non-negative integer written in ASCII digits only, else None; above
    ``MAX_INT64`` for any longer than the largest 64-bit integer.

    ``str.isdigit`` also accepts other scripts' digits and superscripts (``"²"``), which
    ``int`` then refuses or reads differently: every number from a client goes through
    here instead.
    """
    if not _DIGITS.fullmatch(text):
        return None
    if len(text) > len(str(MAX_INT64)):
        return MAX_INT64 + 1  # too large for anything here (and for ``int``'s digit limit)
    return int(text)


def repository_detail(exc: RepositoryError) -> str:
    """The error's message, with its repository and setting named if it does not."""
    detail = str(exc)
    if exc.repository and exc.repository.lower() not in detail.lower():
        detail = f"the {exc.repository} repository: {detail}"
    if exc.setting and exc.setting not in detail:
        detail = f"{detail} (setting: {exc.setting})"
    return detail


class Tokens:
    """The configured bearer tokens: who may call what (none configured: everyone)."""

    def __init__(self, settings: ApiSettings) -> None:
        self._tokens = [
            (t.token.get_secret_value().encode("utf-8"), t.role) for t in settings.tokens
        ]

    @property
    def open(self) -> bool:
        return not self._tokens

    def check(self, authorization: str | None, method: str) -> None:
        """Raise 401 (no or unknown token) or 403 (a read token on a write) as FastAPI's
        ``HTTPBearer`` reads the ``Authorization`` header."""
        if not self._tokens:
            return
        challenge = {"WWW-Authenticate": "Bearer"}
        scheme, _, given_text = (authorization or "").partition(" ")
        given_text = given_text.strip()
        if not (authorization and scheme and given_text) or scheme.lower() != "bearer":
            raise HTTPException(401, "a bearer token is required", headers=challenge)
        given = given_text.encode("utf-8")
        role: Role | None = None
        for token, token_role in self._tokens:  # compare with every token: no early exit
            if hmac.compare_digest(given, token) and role is None:
                role = token_role
        if role is None:
            raise HTTPException(401, "the bearer token is not valid", headers=challenge)
        needed: Role = "read" if method in ("GET", "HEAD") else "write"
        if needed == "write" and role != "write":
            raise HTTPException(403, "this endpoint needs a token with the 'write' role")


def check_declared_size(request: Request, limit: int) -> int | None:
    """The declared ``Content-Length`` (None if there is none); refuse (413) a body that
    passes ``limit`` before reading it, and (400) one that is not ASCII digits."""
    declared = request.headers.get("content-length")
    if declared is None:
        return None
    size = parse_count(declared.strip())
    if size is None:
        raise BadInput(400, f"Content-Length must be a number of bytes, not '{declared}'")
    if size > limit:
        raise BadInput(413, f"the body exceeds the maximum size of {limit} bytes")
    return size


async def read_body(request: Request, limit: int) -> bytes:
    """Read the body in chunks, refusing (413) as soon as it passes ``limit``."""
    check_declared_size(request, limit)
    buffer = bytearray()
    async for chunk in request.stream():
        buffer += chunk
        if len(buffer) > limit:
            raise BadInput(413, f"the body exceeds the maximum size of {limit} bytes")
    return bytes(buffer)


def parse_bounded(text: str, name: str, what: str) -> int:
    """A query value that must be an integer from 0 to the largest event id or time."""
    number = parse_count(text)
    if number is None or number > MAX_INT64:
        raise BadInput(422, f"'{name}' must be {what}, not '{text}'")
    return number


def parse_time(value: str | None, name: str) -> int | None:
    """Epoch milliseconds, or an ISO 8601 time (UTC when it names no zone)."""
    if value is None:
        return None
    text = value.strip()
    problem = f"'{name}' must be epoch milliseconds or an ISO 8601 time, not '{value}'"
    millis = parse_count(text.removeprefix("-"))
    if millis is not None:
        if millis > MAX_INT64:
            raise BadInput(422, problem)
        return -millis if text.startswith("-") else millis
    if not text.isascii():
        raise BadInput(422, problem)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return int(moment.timestamp() * 1000)
    except (ValueError, OverflowError):
        raise BadInput(422, problem) from None
