"""The content repository contract: immutable, claim-based content storage.

Content is appended into resource claims (files) and addressed by content claims
(offset and length). Nothing is modified in place: a write makes a new claim. Each
resource claim has a claimant count, the number of FlowFile references to its content
claims. A resource claim whose count is zero and which no longer takes appends is a
*release candidate*; it is archived or deleted only by ``release``, which the commit path
calls once the change that dropped the last reference is durable.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from flowcore.model.flowfile import ContentClaim, ResourceClaim
from flowcore.repository.identity import RepositoryIdentity, RepositoryProbe

if TYPE_CHECKING:
    from flowcore.settings import EngineSettings


class ContentWriter(ABC):
    """Writes one new content claim; ``close`` returns it with a claimant count of one."""

    @abstractmethod
    def write(self, data: bytes | bytearray | memoryview) -> None: ...

    @property
    @abstractmethod
    def bytes_written(self) -> int: ...

    @abstractmethod
    def close(self) -> ContentClaim: ...

    @abstractmethod
    def abort(self) -> None:
        """Give up: the bytes written so far are never referenced."""


class ContentRepository(ABC):
    """Resource claims in containers and sections, with claimant counts and an archive."""

    @classmethod
    def probe(cls, settings: EngineSettings) -> list[RepositoryProbe]:
        """Each container as found on disk, read without opening it for writing (nothing is
        created or changed); empty if the implementation cannot tell (then unchecked)."""
        return []

    @abstractmethod
    def write_identity(self, identity: RepositoryIdentity, *, durable: bool) -> None:
        """Record the data directory's identity; on disk at return, fsynced if ``durable``."""

    @abstractmethod
    def create_writer(self) -> ContentWriter: ...

    def write(self, data: bytes | bytearray | memoryview) -> ContentClaim:
        """Write ``data`` as one new content claim (claimant count incremented)."""
        writer = self.create_writer()
        try:
            writer.write(data)
        except BaseException:
            writer.abort()
            raise
        return writer.close()

    @abstractmethod
    def read(self, claim: ContentClaim, offset: int = 0, length: int = -1) -> bytes:
        """Bytes of a claim (a range of it if asked); ``ContentNotFoundError`` if missing."""

    @abstractmethod
    def exists(self, claim: ContentClaim) -> bool:
        """Whether every byte of the claim can still be read (live or archived)."""

    @abstractmethod
    def increment(self, resource: ResourceClaim, amount: int = 1) -> int: ...

    @abstractmethod
    def decrement(self, resource: ResourceClaim, amount: int = 1) -> int:
        """Drop references; a claim reaching zero becomes a release candidate."""

    @abstractmethod
    def claimant_count(self, resource: ResourceClaim) -> int: ...

    @abstractmethod
    def flush(self, resources: Iterable[ResourceClaim], fsync: bool) -> None:
        """Make the content written to these resource claims durable (step 1 of a commit)."""

    @abstractmethod
    def take_release_candidates(self) -> list[ResourceClaim]:
        """Hand over the claims that reached zero since the last call."""

    @abstractmethod
    def release(self, resources: Iterable[ResourceClaim]) -> int:
        """Archive (or delete) those claims still at zero and frozen; returns how many."""

    @abstractmethod
    def recover(self, references: Mapping[ResourceClaim, int]) -> int:
        """Set claimant counts from the FlowFile repository and sweep unreferenced files.

        No claim that existed before the restart is appended to again. Returns the number
        of orphaned resource claims archived or deleted.
        """

    @abstractmethod
    def cleanup_archive(self, now_ms: int) -> int:
        """Age off archived claims by retention period and usage; returns how many."""

    @abstractmethod
    def close(self) -> None: ...
