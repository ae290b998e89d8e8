"""FileSystemContentRepository: the content repository contract on local directories.

This module wires the parts together: the layout names files, the appendable pool
shares partly filled claims between writers, the claimant counts decide what may be
released, the archive keeps released content for a while and the read-handle cache
serves ``os.pread``. What lives here is the write path (new claims, freezing, failure
handling), durability (``flush``), reads and recovery.
"""

from __future__ import annotations

import errno
import itertools
import os
import threading
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor

from flowcore.clock import Clock
from flowcore.errors import ContentNotFoundError, RepositoryError
from flowcore.model.flowfile import ContentClaim, ResourceClaim
from flowcore.repository.content import ContentRepository, ContentWriter
from flowcore.settings import EngineSettings
from flowcore.units import parse_data_size, parse_time_period_ms
from repos.filesystem_content.appendable import AppendableClaim, AppendablePool
from repos.filesystem_content.archive import Archive
from repos.filesystem_content.claimant_counts import ClaimantCounts
from repos.filesystem_content.layout import ARCHIVE_DIR, ContainerLayout
from repos.filesystem_content.read_handles import ReadHandle, ReadHandleCache
from repos.filesystem_content.writer import FileSystemContentWriter

_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_CLOEXEC
_NAME_ATTEMPTS = 10_000
# A flush of at least this many files fsyncs them from this many threads.
_PARALLEL_FSYNC_FROM = 8
_FSYNC_THREADS = 16


class FileSystemContentRepository(ContentRepository):
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
    ) -> None:
        content = settings.content
        self._clock = clock
        self._layout = ContainerLayout(settings.content_containers, content.sections)
        self._max_appendable = parse_data_size(content.max_appendable_size)
        self._counts = ClaimantCounts()
        self._pool = AppendablePool(max_open_appendable)
        self._reads = ReadHandleCache(read_handle_capacity, self._open_for_read)
        self._archive = Archive(
            self._layout,
            enabled=content.archive_enabled,
            retention_ms=parse_time_period_ms(content.archive_max_retention_period),
            max_usage_percentage=content.archive_max_usage_percentage,
            on_delete=self._reads.evict,
        )
        self._sequence = itertools.count()
        self._dir_lock = threading.Lock()
        self._ready_dirs: set[str] = set()
        self._dirs_to_sync: set[str] = set()
        # Claims with bytes handed to the OS but not yet fsynced. Single set operations
        # (add, remove, discard) are atomic, which is all this set is used with.
        self._unsynced: set[ResourceClaim] = set()
        self._fsync_executor: ThreadPoolExecutor | None = None
        self._closed = False

    # -- writing -------------------------------------------------------------------

    def create_writer(self) -> ContentWriter:
        self._check_open()
        return FileSystemContentWriter(self)

    def write(self, data: bytes | bytearray | memoryview) -> ContentClaim:
        """One whole content in one call: the hot path, so no writer object and no buffer."""
        size = data.nbytes if isinstance(data, memoryview) else len(data)
        claim = self.acquire(size)
        offset = claim.length
        if size:
            self.append(claim, data, size)
        resource = claim.resource
        self._counts.increment(resource)
        self.give_back(claim)
        return ContentClaim(resource, offset, size)

    def append(
        self, claim: AppendableClaim, data: bytes | bytearray | memoryview, size: int
    ) -> None:
        """Write to a held claim; on any failure the claim is frozen and never reused."""
        try:
            claim.append(data, size)
        except OSError as exc:
            self._freeze(claim)
            raise RepositoryError(_write_failure(claim.path, exc)) from exc
        except BaseException:
            self._freeze(claim)
            raise
        self._unsynced.add(claim.resource)

    def complete(self, claim: AppendableClaim, offset: int, length: int) -> ContentClaim:
        """Count the new content claim (claimant count +1) and give the resource back."""
        self._counts.increment(claim.resource)
        self.give_back(claim)
        return ContentClaim(claim.resource, offset, length)

    def give_back(self, claim: AppendableClaim) -> None:
        """Pool the claim while it is below the appendable size, else freeze it."""
        if claim.length < self._max_appendable and not self._closed and self._pool.offer(claim):
            if self._closed:  # closed meanwhile: do not leave a handle in the pool
                for pooled in self._pool.drain():
                    self._freeze(pooled)
            return
        self._freeze(claim)

    def acquire(self, size_hint: int) -> AppendableClaim:
        """A claim for a writer: pooled for small contents, a new file for large ones."""
        if self._closed:
            self._check_open()
        if size_hint < self._max_appendable:
            pooled = self._pool.take()
            if pooled is not None:
                return pooled
        return self._create_claim()

    def _check_open(self) -> None:
        if self._closed:
            msg = "the content repository is closed"
            raise RepositoryError(msg)

    def _create_claim(self) -> AppendableClaim:
        for _ in range(_NAME_ATTEMPTS):
            resource = self._layout.new_resource(next(self._sequence), self._clock.now_ms())
            section_dir = self._layout.section_dir(resource)
            self._ensure_dir(section_dir)
            path = os.path.join(section_dir, resource.id)
            if os.path.lexists(os.path.join(section_dir, ARCHIVE_DIR, resource.id)):
                continue  # a claim of that name existed before: never reuse it
            try:
                fd = os.open(path, _CREATE_FLAGS, 0o644)
            except FileExistsError:
                continue
            except OSError as exc:
                raise RepositoryError(_write_failure(path, exc)) from exc
            self._counts.mark_writable(resource)
            with self._dir_lock:
                self._dirs_to_sync.add(section_dir)
            return AppendableClaim(resource, path, fd)
        msg = f"could not find an unused resource-claim name after {_NAME_ATTEMPTS} tries"
        raise RepositoryError(msg)

    def _ensure_dir(self, section_dir: str) -> None:
        if section_dir in self._ready_dirs:
            return
        try:
            os.makedirs(section_dir, exist_ok=True)
        except OSError as exc:
            raise RepositoryError(_write_failure(section_dir, exc)) from exc
        with self._dir_lock:
            self._ready_dirs.add(section_dir)
            self._dirs_to_sync.add(os.path.dirname(section_dir))

    def _freeze(self, claim: AppendableClaim) -> None:
        try:
            os.close(claim.fd)
        except OSError:
            pass
        self._counts.freeze(claim.resource)

    # -- durability ----------------------------------------------------------------

    def flush(self, resources: Iterable[ResourceClaim], fsync: bool) -> None:
        """Bytes are handed to the OS when each writer closes; fsync only if asked.

        Many files are fsynced from a few threads at once: the file system then folds
        them into fewer journal commits.
        """
        if not fsync or not (self._unsynced or self._dirs_to_sync):
            return
        pending: list[ResourceClaim] = []
        for resource in resources:
            try:
                self._unsynced.remove(resource)
            except KeyError:
                continue
            pending.append(resource)
        if len(pending) >= _PARALLEL_FSYNC_FROM:
            failures = [f for f in self._fsync_pool().map(self._fsync_resource, pending) if f]
        else:
            failures = [f for f in map(self._fsync_resource, pending) if f]
        with self._dir_lock:
            dirs, self._dirs_to_sync = self._dirs_to_sync, set()
        for directory in dirs:
            try:
                _fsync_dir(directory)
            except OSError as exc:
                with self._dir_lock:
                    self._dirs_to_sync.add(directory)
                failures.append(f"directory {directory}: {exc}")
        if failures:
            msg = f"could not make content durable: {'; '.join(failures)}"
            raise RepositoryError(msg)

    def _fsync_pool(self) -> ThreadPoolExecutor:
        with self._dir_lock:
            if self._fsync_executor is None:
                self._fsync_executor = ThreadPoolExecutor(
                    _FSYNC_THREADS, thread_name_prefix="content-fsync"
                )
            return self._fsync_executor

    def _fsync_resource(self, resource: ResourceClaim) -> str | None:
        """fsync one claim's file; a description of the failure, or None."""
        try:
            handle = self._reads.acquire(resource)
        except ContentNotFoundError:
            return None  # released since: nothing references it any more
        except RepositoryError as exc:
            self._unsynced.add(resource)
            return str(exc)
        try:
            os.fsync(handle.fd)
        except OSError as exc:
            self._unsynced.add(resource)
            return f"resource claim {resource}: {exc}"
        finally:
            self._reads.release(handle)
        return None

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
            return data
        except OSError as exc:
            msg = f"could not read content claim {_describe(claim)}: {exc}"
            raise ContentNotFoundError(msg) from exc
        finally:
            self._reads.release(handle)

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
        released = 0
        for resource in resources:
            if self._release_one(resource):
                released += 1
        return released

    def _release_one(self, resource: ResourceClaim) -> bool:
        try:
            done = self._counts.release_if_unused(resource, lambda: self._archive.retire(resource))
        except ContentNotFoundError:
            return False  # names no container of ours
        if done:
            self._unsynced.discard(resource)
        return done

    # -- recovery and archive --------------------------------------------------------

    def recover(self, references: Mapping[ResourceClaim, int]) -> int:
        for claim in self._pool.drain():
            self._freeze(claim)  # nothing from before this point is appended to again
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
        self._closed = True
        for claim in self._pool.drain():
            self._freeze(claim)
        with self._dir_lock:
            executor, self._fsync_executor = self._fsync_executor, None
        if executor is not None:
            executor.shutdown()
        self._reads.close()


def _describe(claim: ContentClaim) -> str:
    return f"{claim.resource} (offset {claim.offset}, length {claim.length})"


def _torn(claim: ContentClaim, size: int) -> str:
    return (
        f"content claim {_describe(claim)} is incomplete on disk: its file ends at byte "
        f"{size} (a write torn by a crash, or a truncated file)"
    )


def _write_failure(path: str, exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return f"content repository is out of disk space writing {path} (ENOSPC)"
    if exc.errno == errno.EMFILE:
        return f"content repository has too many open files writing {path} (EMFILE)"
    return f"content repository could not write {path}: {exc.strerror or exc}"


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
