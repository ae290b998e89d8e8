"""A content repository that can be made full, for tests of what a full disk does.

``FullContent.install(node)`` puts it in front of the node's content repository. While
``full`` is set, every write (a new writer, a one-call write, a write or close through a
writer already open) raises ``RepositoryFullError`` as a full content disk does; reads,
claimant counts and releases go through untouched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from flowcore.errors import RepositoryFullError
from flowcore.model.flowfile import ContentClaim
from flowcore.repository.content import ContentRepository, ContentWriter

if TYPE_CHECKING:
    from flowcore.engine.node import Node

MESSAGE = (
    "the content repository is full (test: out of disk space, ENOSPC); nothing was "
    "stored: free space or add a container (content.containers)"
)


class FullContent:
    """The node's content repository, with a switch that makes it full."""

    def __init__(self, inner: ContentRepository) -> None:
        self._inner = inner
        self.full = False
        self.full_after: int | None = None
        """Writes (of any kind) still allowed before the repository becomes full."""
        self.refused = 0
        """How many writes were refused."""
        self.wrapped = False
        """Raise the fault wrapped in an ``OSError`` (``from`` it), as a library writing to
        a session's sink may hand it back."""

    @classmethod
    def install(cls, node: Node) -> FullContent:
        wrapper = cls(node.services.content)
        node.services.content = cast(ContentRepository, wrapper)
        return wrapper

    def check(self) -> None:
        if self.full_after is not None:
            if self.full_after <= 0:
                self.full, self.full_after = True, None
            else:
                self.full_after -= 1
        if self.full:
            self.refused += 1
            fault = RepositoryFullError(MESSAGE, repository="content", setting="content.containers")
            if self.wrapped:
                raise OSError(f"write failed: {fault}") from fault
            raise fault

    def create_writer(self) -> ContentWriter:
        self.check()
        return cast(ContentWriter, _Writer(self._inner.create_writer(), self))

    def write(self, data: bytes | bytearray | memoryview) -> ContentClaim:
        self.check()
        return self._inner.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Writer:
    def __init__(self, inner: ContentWriter, owner: FullContent) -> None:
        self._inner = inner
        self._owner = owner
        self._aborted = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._owner.check()
        self._inner.write(data)

    @property
    def bytes_written(self) -> int:
        return self._inner.bytes_written

    def close(self) -> ContentClaim:
        if self._owner.full or self._owner.full_after == 0:
            self.abort()  # a refused close leaves nothing behind, as the real one
            self._owner.check()
        return self._inner.close()

    def abort(self) -> None:
        if not self._aborted:
            self._aborted = True
            self._inner.abort()
