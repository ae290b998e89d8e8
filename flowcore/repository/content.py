"""The content repository contract: immutable, claim-based content storage.

Content is appended into resource claims (files) and addressed by content claims
(offset and length). Nothing is modified in place: a write makes a new claim. Each
resource claim has a claimant count, the number of FlowFile references to its content
claims. A resource claim whose count is zero and which no longer takes appends is a
*release candidate*; it is archived or deleted only by ``release``, which the commit path
calls once the change that dropped the last reference is durable.

A content claim carries the checksum its repository took while writing it
(``checksum.py``); every read of the whole claim, at once (``read``) or in chunks
(``stream``), checks it and raises ``ContentCorruptedError`` on a mismatch. A read of part
of a claim is not checked.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence

from flowcore.model.flowfile import ContentClaim, ResourceClaim
from flowcore.repository.checksum import RunningChecksum, check
from flowcore.repository.identity import IdentifiedRepository

# What ``stream`` hands over at a time unless told otherwise.
STREAM_CHUNK = 1 << 20


class ContentWriter(ABC):
    """Writes one new content claim; ``close`` returns it with a claimant count of one.

    The claim returned carries the checksum of every byte written, taken as they came.
    """

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


class ContentRepository(IdentifiedRepository):
    """Resource claims in containers and sections, with claimant counts and an archive."""

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
        """Bytes of a claim (a range of it if asked); ``ContentNotFoundError`` if missing.

        Reading the whole claim checks its checksum: ``ContentCorruptedError`` if damaged.
        """

    def read_many(self, ranges: Sequence[tuple[ContentClaim, int, int]]) -> list[bytes]:
        """The bytes of many ranges (claim, offset, length), in order, as ``read`` gives
        each: the same checks, and the error of the first range that fails.

        A repository may read ranges that lie close together in one file with one call
        (many small contents share a file); this one reads them one by one."""
        return [self.read(claim, offset, length) for claim, offset, length in ranges]

    def stream(
        self, claim: ContentClaim, offset: int = 0, length: int = -1, chunk: int = STREAM_CHUNK
    ) -> Iterator[bytes]:
        """A range of a claim (all of it by default) in chunks of at most ``chunk`` bytes.

        Streaming the whole claim checks its checksum as the chunks go by, and holds back
        the last chunk until it matches: a reader never receives all of a damaged content
        (it gets ``ContentCorruptedError`` instead of the last chunk).
        """
        if length == -1:
            length = claim.length - offset
        end = offset + length
        if claim.checksum is None or offset != 0 or length != claim.length or length <= chunk:
            # Unchecked (a part, or no checksum) or one read, which checks the whole itself.
            for start in range(offset, end, chunk):
                yield self.read(claim, start, min(chunk, end - start))
            return
        running = RunningChecksum()
        last_start = end - (length - 1) % chunk - 1
        for start in range(0, last_start, chunk):
            data = self.read(claim, start, chunk)
            running.update(data)
            yield data
        data = self.read(claim, last_start, end - last_start)
        running.update(data)
        check(claim, running.value)
        yield data

    def verify(self, claim: ContentClaim) -> None:
        """Read the whole claim in chunks to check it (``ContentNotFoundError``,
        ``ContentCorruptedError``); a claim without a checksum is only read."""
        for _ in self.stream(claim):
            pass

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
