"""FileSystemContentRepository: the content repository contract on local directories.

This module wires the parts together and serves what is left: reads (``os.pread`` on
cached descriptors, falling back to the archive, detecting torn files, checking the
checksum of a whole claim), claimant counts, release and the recovery sweep. The layout
names files, the claim lender runs the write path (which takes the checksums), the sync
tracker makes writes durable, the archive keeps released content for a while.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

from flowcore.clock import Clock
from flowcore.errors import (
    ContentCorruptedError,
    ContentNotFoundError,
    RepositoryError,
    RepositoryUnavailableError,
)
from flowcore.model.flowfile import ContentClaim, ResourceClaim
from flowcore.repository.checksum import checksum_of, corrupted_message
from flowcore.repository.content import ContentRepository, ContentWriter
from flowcore.settings import EngineSettings
from flowcore.units import parse_data_size, parse_time_period_ms
from repos.filesystem_content.archive import Archive
from repos.filesystem_content.claim_lender import FILE_STOCK_SIZE, ClaimLender
from repos.filesystem_content.claimant_counts import ClaimantCounts
from repos.filesystem_content.durability import SyncTracker
from repos.filesystem_content.identity import ContentIdentity
from repos.filesystem_content.layout import ContainerLayout
from repos.filesystem_content.read_handles import ReadHandle, ReadHandleCache
from repos.filesystem_content.whole_fs_sync import WholeFileSystemSync
from repos.filesystem_content.writer import FileSystemContentWriter

_READ_FLAGS = os.O_RDONLY | os.O_CLOEXEC
# ``read_many``: whole claims of one file at most this far apart are read in one call,
# of at most ``_SPAN_MAX`` bytes (the bytes between them are read and dropped).
_SPAN_GAP = 64 * 1024
_SPAN_MAX = 4 * 1024 * 1024


class FileSystemContentRepository(ContentIdentity, ContentRepository):
    """Resource claims as files in ``<container>/<section>/<id>``, appended, never rewritten.

    Thread-safe. Call ``recover`` once at startup, before any write, with the claimant
    counts rebuilt from the FlowFile repository and swap files.
    """

    def __init__(
        self,
        settings: EngineSettings,
        clock: Clock,
        *,
        max_open_appendable: int = 1024,
        read_handle_capacity: int = 256,
        whole_fs_sync: bool = True,
        file_stock_size: int = FILE_STOCK_SIZE,
    ) -> None:
        """``whole_fs_sync``: fsync passes over many files use ``syncfs`` where that is
        as strong as ``fsync`` (see ``whole_fs_sync.py``); False: always file by file.
        ``file_stock_size``: new files created ahead per container (``file_stock.py``);
        0 creates every file on the writer's path, in a deterministic order."""
        content = settings.content
        self._layout = ContainerLayout(settings.content_containers, content.sections)
        self._counts = ClaimantCounts()
        self._reads = ReadHandleCache(read_handle_capacity, self._open_for_read)
        self._durability = SyncTracker(
            self._fsync_resource,
            self._layout.section_dir,
            WholeFileSystemSync.from_libc() if whole_fs_sync else None,
        )
        self._lender = ClaimLender(
            self._layout,
            self._counts,
            self._durability,
            clock,
            max_appendable=parse_data_size(content.max_appendable_size),
            max_open_appendable=max_open_appendable,
            file_stock_size=file_stock_size,
            archive_enabled=content.archive_enabled,
        )
        self._archive = Archive(
            self._layout,
            enabled=content.archive_enabled,
            retention_ms=parse_time_period_ms(content.archive_max_retention_period),
            max_usage_percentage=content.archive_max_usage_percentage,
            on_delete=self._reads.evict,
            if_unused=self._counts.release_if_unused,
        )

    # -- writing -------------------------------------------------------------------

    def create_writer(self) -> ContentWriter:
        self._lender.check_open()
        return FileSystemContentWriter(self._lender)

    def write(self, data: bytes | bytearray | memoryview) -> ContentClaim:
        """One whole content in one call: the hot path, with no writer and no buffer."""
        return self._lender.write(data, data.nbytes if isinstance(data, memoryview) else len(data))

    def flush(self, resources: Iterable[ResourceClaim], fsync: bool) -> None:
        """Bytes reach the OS when each write or writer completes; fsync only if asked."""
        if fsync:
            self._durability.sync(resources)

    def _fsync_resource(self, resource: ResourceClaim) -> None:
        try:
            handle = self._reads.acquire(resource)
        except ContentNotFoundError:
            return  # released since: nothing references it any more
        except RepositoryError as exc:
            raise OSError(str(exc)) from exc
        try:
            os.fsync(handle.fd)
        finally:
            self._reads.release(handle)

    # -- reading -------------------------------------------------------------------

    def read(self, claim: ContentClaim, offset: int = 0, length: int = -1) -> bytes:
        if length == -1:
            length = claim.length - offset
        if offset < 0 or length < 0 or offset + length > claim.length:
            msg = (
                f"range offset={offset} length={length} is outside content claim "
                f"{claim.resource} of {claim.length} bytes"
            )
            raise ValueError(msg)
        handle = self._acquire_read(claim)
        try:
            position = claim.offset + offset
            data = os.pread(handle.fd, length, position)
            while len(data) < length:
                more = os.pread(handle.fd, length - len(data), position + len(data))
                if not more:
                    raise ContentNotFoundError(_torn(claim, position + len(data)))
                data += more
            if offset + length < claim.length:
                size = os.fstat(handle.fd).st_size
                if size < claim.offset + claim.length:
                    raise ContentNotFoundError(_torn(claim, size))
            elif offset == 0 and claim.checksum is not None:
                actual = checksum_of(data)
                if actual != claim.checksum:
                    raise ContentCorruptedError(
                        corrupted_message(claim, actual), repository="content"
                    )
            return data
        except OSError as exc:
            # The file is there (its descriptor is open) but the read failed (EIO, ...):
            # a fault of the repository, not missing content, so the FlowFile is kept and
            # retried rather than removed as missing.
            msg = (
                f"could not read content claim {_describe(claim)}: {exc}; nothing was "
                "changed: the FlowFile stays queued and is read again"
            )
            raise RepositoryUnavailableError(msg, repository="content") from exc
        finally:
            self._reads.release(handle)

    def read_many(self, ranges: Sequence[tuple[ContentClaim, int, int]]) -> list[bytes]:
        """As ``read`` for each range, in order; whole claims that lie close together in
        one file (small contents share a file, usually adjacent) are read with one
        ``pread`` and each checked against its checksum. Anything unexpected (a missing or
        torn file, a damaged claim, a bad range) reads every range again one by one, so
        the error raised is the one ``read`` gives for the first range that fails."""
        try:
            return self._read_spans(ranges)
        except (OSError, RepositoryError, ValueError):
            return super().read_many(ranges)

    def _read_spans(self, ranges: Sequence[tuple[ContentClaim, int, int]]) -> list[bytes]:
        """``read_many``'s fast path: raises on anything that is not plain success."""
        results: list[bytes] = [b""] * len(ranges)
        by_resource: dict[ResourceClaim, list[tuple[int, int, int, ContentClaim]]] = {}
        for index, (claim, offset, length) in enumerate(ranges):
            if offset == 0 and claim.length > 0 and length in (-1, claim.length):
                by_resource.setdefault(claim.resource, []).append(
                    (claim.offset, claim.offset + claim.length, index, claim)
                )
            else:
                results[index] = self.read(claim, offset, length)
        for resource, pieces in by_resource.items():
            pieces.sort()
            handle = self._reads.acquire(resource)
            try:
                first = 0
                while first < len(pieces):
                    start, end = pieces[first][0], pieces[first][1]
                    last = first + 1
                    while last < len(pieces):
                        next_start, next_end = pieces[last][0], pieces[last][1]
                        if next_start - end > _SPAN_GAP or next_end - start > _SPAN_MAX:
                            break
                        end = max(end, next_end)
                        last += 1
                    data = os.pread(handle.fd, end - start, start)
                    if len(data) < end - start:
                        raise ContentNotFoundError(_torn(pieces[first][3], start + len(data)))
                    for piece_start, piece_end, index, claim in pieces[first:last]:
                        if piece_start == start and piece_end == end:
                            piece = data
                        else:
                            piece = data[piece_start - start : piece_end - start]
                        if claim.checksum is not None and checksum_of(piece) != claim.checksum:
                            raise ContentCorruptedError(
                                corrupted_message(claim, checksum_of(piece)), repository="content"
                            )
                        results[index] = piece
                    first = last
            finally:
                self._reads.release(handle)
        return results

    def exists(self, claim: ContentClaim) -> bool:
        try:
            handle = self._acquire_read(claim)
        except RepositoryError:
            return False
        try:
            return os.fstat(handle.fd).st_size >= claim.offset + claim.length
        except OSError:
            return False
        finally:
            self._reads.release(handle)

    def _acquire_read(self, claim: ContentClaim) -> ReadHandle:
        try:
            return self._reads.acquire(claim.resource)
        except ContentNotFoundError as exc:
            msg = f"content claim {_describe(claim)} not found: {exc}"
            raise ContentNotFoundError(msg) from exc

    def _open_for_read(self, resource: ResourceClaim) -> int:
        """A read descriptor on the live file, else on the archived one."""
        for path in (self._layout.live_path(resource), self._layout.archive_path(resource)):
            try:
                return os.open(path, _READ_FLAGS)
            except FileNotFoundError:
                continue
            except OSError as exc:
                msg = f"could not open resource claim {resource} at {path}: {exc}"
                raise RepositoryError(msg) from exc
        msg = f"resource claim {resource} is neither in its section nor in the archive"
        raise ContentNotFoundError(msg)

    # -- claimant counts and release -------------------------------------------------

    def increment(self, resource: ResourceClaim, amount: int = 1) -> int:
        return self._counts.increment(resource, amount)

    def decrement(self, resource: ResourceClaim, amount: int = 1) -> int:
        return self._counts.decrement(resource, amount)

    def claimant_count(self, resource: ResourceClaim) -> int:
        return self._counts.count(resource)

    def take_release_candidates(self) -> list[ResourceClaim]:
        return self._counts.take_candidates()

    def release(self, resources: Iterable[ResourceClaim]) -> int:
        return sum(1 for resource in resources if self._release_one(resource))

    def _release_one(self, resource: ResourceClaim) -> bool:
        try:
            done = self._counts.release_if_unused(resource, lambda: self._archive.retire(resource))
        except ContentNotFoundError:
            return False  # names no container of ours
        if done:
            self._durability.forget(resource)
        return done

    # -- recovery and archive --------------------------------------------------------

    def recover(self, references: Mapping[ResourceClaim, int]) -> int:
        self._lender.freeze_pooled()  # nothing from before this point is appended to again
        self._counts.reset(references)
        swept = 0
        for resource, _ in list(self._layout.live_files()):
            if not self._counts.is_writable(resource) and self._release_one(resource):
                swept += 1
        for index in range(len(self._layout.containers)):
            self._archive.rescan(index)
        return swept

    def cleanup_archive(self, now_ms: int) -> int:
        return self._archive.cleanup(now_ms)

    def archived_file_count(self) -> int:
        """How many files the archives hold (counted at recovery, kept up to date)."""
        return sum(
            self._archive.archived_count(index) for index in range(len(self._layout.containers))
        )

    def close(self) -> None:
        self._lender.close()
        self._durability.close()
        self._reads.close()


def _describe(claim: ContentClaim) -> str:
    return f"{claim.resource} (offset {claim.offset}, length {claim.length})"


def _torn(claim: ContentClaim, size: int) -> str:
    return (
        f"content claim {_describe(claim)} is incomplete on disk: its file ends at byte "
        f"{size} (a write torn by a crash, or a truncated file)"
    )
