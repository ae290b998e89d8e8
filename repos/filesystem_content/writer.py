"""The writer of one content claim, appending into a claim it holds exclusively.

Small writes are gathered in a bounded buffer and handed to the OS at the latest when
the writer closes, so ``close`` never returns a claim whose bytes are still in Python.
The resource claim is taken only when the first bytes go to the OS: by then the writer
knows whether the content is small (it shares a pooled claim) or large (it gets a file
of its own, so one small FlowFile never pins a big file). A failed write poisons the
writer: its claim is frozen by the owner and nothing it wrote is ever referenced.
"""

from __future__ import annotations

from typing import Protocol

from flowcore.errors import RepositoryError
from flowcore.model.flowfile import ContentClaim
from flowcore.repository.content import ContentWriter
from repos.filesystem_content.appendable import AppendableClaim

# Writes are gathered up to this size before going to the OS; larger ones go straight.
BUFFER_LIMIT = 64 * 1024

_OPEN, _CLOSED, _ABORTED, _FAILED = range(4)


class ClaimOwner(Protocol):
    """What the writer needs from the repository that lends it a claim."""

    def acquire(self, size_hint: int) -> AppendableClaim:
        """A claim held exclusively; a fresh one if ``size_hint`` is a large content."""

    def append(
        self, claim: AppendableClaim, data: bytes | bytearray | memoryview, size: int
    ) -> None:
        """Write to the claim; on failure freeze it and raise ``RepositoryError``."""

    def complete(self, claim: AppendableClaim, offset: int, length: int) -> ContentClaim:
        """Count the new content claim and give the resource claim back."""

    def give_back(self, claim: AppendableClaim) -> None:
        """Return the resource claim unused (to the pool, or frozen)."""


class FileSystemContentWriter(ContentWriter):
    """Writes one content claim into an exclusively held resource claim."""

    __slots__ = ("_buffer", "_claim", "_offset", "_owner", "_state", "_written")

    def __init__(self, owner: ClaimOwner) -> None:
        self._owner = owner
        self._claim: AppendableClaim | None = None
        self._offset = 0
        self._written = 0
        self._buffer = bytearray()
        self._state = _OPEN

    @property
    def bytes_written(self) -> int:
        return self._written

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._check_open()
        size = data.nbytes if isinstance(data, memoryview) else len(data)
        if not size:
            return
        if len(self._buffer) + size > BUFFER_LIMIT:
            self._drain_buffer(self._written + size)
            if size >= BUFFER_LIMIT:
                self._append(data, size, self._written + size)
                self._written += size
                return
        self._buffer += data
        self._written += size

    def close(self) -> ContentClaim:
        self._check_open()
        self._drain_buffer(self._written)
        claim = self._claim or self._hold(0)
        self._state = _CLOSED
        return self._owner.complete(claim, self._offset, self._written)

    def abort(self) -> None:
        if self._state != _OPEN:
            return
        self._state = _ABORTED
        self._buffer = bytearray()
        if self._claim is not None:
            self._owner.give_back(self._claim)

    def _hold(self, size_hint: int) -> AppendableClaim:
        claim = self._owner.acquire(size_hint)
        self._claim = claim
        self._offset = claim.length
        return claim

    def _drain_buffer(self, size_hint: int) -> None:
        if self._buffer:
            buffered = self._buffer
            self._buffer = bytearray()
            self._append(buffered, len(buffered), size_hint)

    def _append(self, data: bytes | bytearray | memoryview, size: int, size_hint: int) -> None:
        try:
            claim = self._claim or self._hold(size_hint)
            self._owner.append(claim, data, size)
        except BaseException:
            self._state = _FAILED
            self._buffer = bytearray()
            raise

    def _check_open(self) -> None:
        if self._state == _OPEN:
            return
        what = {_CLOSED: "closed", _ABORTED: "aborted", _FAILED: "failed on an earlier write"}
        msg = f"content writer is {what[self._state]}"
        raise RepositoryError(msg)
