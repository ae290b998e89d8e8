"""The writer of one content claim, appending into a claim it holds exclusively.

Small writes are gathered in a bounded buffer and handed to the OS at the latest when
the writer closes, so ``close`` never returns a claim whose bytes are still in Python.
The resource claim is taken only when the first bytes go to the OS: by then the writer
knows whether the content is small (it shares a pooled claim) or large (it gets a file
of its own, so one small FlowFile never pins a big file). A failed write poisons the
writer: its claim is frozen by the owner and nothing it wrote is ever referenced.

The common content is one ``write`` then ``close``: a first write of ``bytes`` (which
cannot change) is kept by reference rather than copied, and a writer that has sent
nothing to the OS before ``close`` hands its content to the owner's one-call ``write``.

The claim's checksum is taken as bytes go to the OS, each byte once: by the running
checksum here, or by the owner's one-call ``write`` for content that never left the
buffer.
"""

from __future__ import annotations

from typing import NoReturn, Protocol

from flowcore.errors import RepositoryError
from flowcore.model.flowfile import ContentClaim
from flowcore.repository.checksum import RunningChecksum
from flowcore.repository.content import ContentWriter
from repos.filesystem_content.appendable import AppendableClaim

# Writes are gathered up to this size before going to the OS; larger ones go straight.
BUFFER_LIMIT = 64 * 1024

_OPEN, _CLOSED, _ABORTED, _FAILED = range(4)
_STATES = {_CLOSED: "closed", _ABORTED: "aborted", _FAILED: "failed on an earlier write"}


class ClaimOwner(Protocol):
    """What the writer needs from the repository that lends it a claim."""

    def write(self, data: bytes | bytearray | memoryview, size: int) -> ContentClaim:
        """Write one whole content into a claim, count it and give the claim back."""

    def acquire(self, size_hint: int) -> AppendableClaim:
        """A claim held exclusively; a fresh one if ``size_hint`` is a large content."""

    def append(
        self, claim: AppendableClaim, data: bytes | bytearray | memoryview, size: int
    ) -> None:
        """Write to the claim; on failure freeze it and raise ``RepositoryError``."""

    def complete(
        self, claim: AppendableClaim, offset: int, length: int, checksum: int
    ) -> ContentClaim:
        """Count the new content claim and give the resource claim back."""

    def give_back(self, claim: AppendableClaim) -> None:
        """Return the resource claim unused (to the pool, or frozen)."""


class FileSystemContentWriter(ContentWriter):
    """Writes one content claim into an exclusively held resource claim."""

    __slots__ = ("_buffer", "_checksum", "_claim", "_offset", "_owner", "_state", "_written")

    def __init__(self, owner: ClaimOwner) -> None:
        self._owner = owner
        self._claim: AppendableClaim | None = None
        self._checksum: RunningChecksum | None = None  # from the first bytes sent to the OS
        self._offset = 0
        self._written = 0
        # Bytes not yet handed to the OS: a caller's ``bytes`` object as is, or a copy.
        self._buffer: bytes | bytearray | None = None
        self._state = _OPEN

    @property
    def bytes_written(self) -> int:
        return self._written

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._state != _OPEN:
            self._refuse()
        size = data.nbytes if isinstance(data, memoryview) else len(data)
        if not size:
            return
        buffer = self._buffer
        if buffer is not None and len(buffer) + size > BUFFER_LIMIT:
            self._drain_buffer(self._written + size)
            buffer = None
        if size >= BUFFER_LIMIT:
            self._append(data, size, self._written + size)
        elif buffer is None:
            self._buffer = data if type(data) is bytes else bytearray(data)
        elif type(buffer) is bytes:
            self._buffer = bytearray(buffer) + data
        else:
            buffer += data
        self._written += size

    def close(self) -> ContentClaim:
        if self._state != _OPEN:
            self._refuse()
        claim, checksum = self._claim, self._checksum
        if claim is None or checksum is None:  # both are set by the first ``_append``
            # Nothing reached the OS yet: the whole content goes in one call.
            buffer = self._buffer
            self._buffer = None
            self._state = _FAILED  # until the owner has written and counted it
            written = self._owner.write(b"" if buffer is None else buffer, self._written)
            self._state = _CLOSED
            return written
        self._drain_buffer(self._written)
        self._state = _CLOSED
        return self._owner.complete(claim, self._offset, self._written, checksum.value)

    def abort(self) -> None:
        if self._state != _OPEN:
            return
        self._state = _ABORTED
        self._buffer = None
        if self._claim is not None:
            self._owner.give_back(self._claim)

    def _drain_buffer(self, size_hint: int) -> None:
        buffer = self._buffer
        if buffer is not None:
            self._buffer = None
            self._append(buffer, len(buffer), size_hint)

    def _append(self, data: bytes | bytearray | memoryview, size: int, size_hint: int) -> None:
        try:
            claim = self._claim
            checksum = self._checksum
            if claim is None or checksum is None:
                claim = self._owner.acquire(size_hint)
                checksum = RunningChecksum()
                self._claim, self._checksum = claim, checksum
                self._offset = claim.length
            self._owner.append(claim, data, size)
            checksum.update(data)
        except BaseException:
            self._state = _FAILED
            self._buffer = None
            raise

    def _refuse(self) -> NoReturn:
        msg = f"content writer is {_STATES[self._state]}"
        raise RepositoryError(msg)
