"""What has been written but not yet fsynced, and the fsync pass that makes it durable.

Writers report each resource claim they append to and each directory that gets a new
entry; ``flush`` with fsync syncs the asked claims and every pending directory. Passes
are serialised, so no caller returns while another pass is still syncing something its
content depends on, and many files in one pass are synced from a few threads, which lets
the file system fold them into fewer journal commits. A pass with very many files syncs
each file system whole instead, where that is as strong (see ``whole_fs_sync``).

Reporting a write is one lock-free ``set.add`` (the writer's hot path): the pass never
replaces that set, it only removes what it syncs, so an add racing a pass is either
synced by it or left for the next one, and it is always reported after its bytes
reached the OS.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

from flowcore.errors import RepositoryError, RepositoryFullError, RepositoryUnavailableError
from flowcore.model.flowfile import ResourceClaim
from repos.filesystem_content.whole_fs_sync import WholeFileSystemSync

# A pass with at least this many files and directories uses this many threads.
_PARALLEL_FROM = 8
_THREADS = 16
# A pass with at least this many files and directories syncs whole file systems.
WHOLE_FS_FROM = 256


class SyncTracker:
    """Pending fsyncs of resource-claim files and directories."""

    def __init__(
        self,
        fsync_resource: Callable[[ResourceClaim], None],
        locate: Callable[[ResourceClaim], str] | None = None,
        whole_fs: WholeFileSystemSync | None = None,
    ) -> None:
        """``fsync_resource`` syncs a claim's file; ``OSError`` if it cannot.

        ``locate`` gives the directory of a claim's file and ``whole_fs`` syncs whole
        file systems; without both, every pass syncs file by file.
        """
        self._fsync_resource = fsync_resource
        self._locate = locate
        self._whole_fs = whole_fs if locate is not None else None
        self._lock = threading.Lock()
        self._pass_lock = threading.Lock()
        self._resources: set[ResourceClaim] = set()
        self._dirs: set[str] = set()
        self._executor: ThreadPoolExecutor | None = None
        #: Report a write to a claim: lock-free, for the hot path (see the module doc).
        self.wrote: Callable[[ResourceClaim], None] = self._resources.add

    def new_entry_in(self, directory: str) -> None:
        with self._lock:
            self._dirs.add(directory)

    def forget(self, resource: ResourceClaim) -> None:
        """The claim was released: its file no longer needs syncing."""
        with self._lock:
            self._resources.discard(resource)

    def sync(self, resources: Iterable[ResourceClaim]) -> None:
        """fsync these claims' files and every pending directory; cheap if none is owed."""
        with self._pass_lock:
            with self._lock:
                if not (self._resources or self._dirs):
                    return
                pending: list[ResourceClaim] = []
                owed = self._resources
                for resource in resources:
                    if resource in owed:
                        owed.remove(resource)
                        pending.append(resource)
                dirs, self._dirs = self._dirs, set()
            whole_fs, locate = self._whole_fs, self._locate
            big = len(pending) + len(dirs) >= WHOLE_FS_FROM
            if big and whole_fs is not None and locate is not None:
                pending, dirs = _sync_whole(whole_fs, locate, pending, dirs)
            jobs = [partial(self._sync_resource, r) for r in pending]
            jobs += [partial(self._sync_dir, d) for d in dirs]
            if len(jobs) >= _PARALLEL_FROM:
                outcomes = list(self._pool().map(_call, jobs))
            else:
                outcomes = [job() for job in jobs]
        failures = [failure for failure in outcomes if failure is not None]
        if failures:
            raise _sync_failure(failures)

    def close(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown()

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(_THREADS, thread_name_prefix="content-fsync")
            return self._executor

    def _sync_resource(self, resource: ResourceClaim) -> _Failure | None:
        try:
            self._fsync_resource(resource)
        except OSError as exc:
            self.wrote(resource)  # still owed
            return _Failure(f"resource claim {resource}: {exc}", self._where(resource), exc.errno)
        return None

    def _where(self, resource: ResourceClaim) -> str:
        """The directory of a claim's file, for messages."""
        try:
            return self._locate(resource) if self._locate is not None else str(resource)
        except RepositoryError:
            return str(resource)

    def _sync_dir(self, directory: str) -> _Failure | None:
        try:
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            self.new_entry_in(directory)  # still owed
            return _Failure(f"directory {directory}: {exc}", directory, exc.errno)
        return None


@dataclass(frozen=True, slots=True)
class _Failure:
    """One file or directory that could not be synced: what, where, and the OS error."""

    message: str
    where: str
    errno: int | None


def _sync_failure(failures: list[_Failure]) -> RepositoryError:
    """One error for a failed pass: ``RepositoryFullError`` when the disk had no room
    (fsync can report ENOSPC for writes the file system had deferred)."""
    detail = "; ".join(failure.message for failure in failures)
    full = [failure for failure in failures if failure.errno in (errno.ENOSPC, errno.EDQUOT)]
    if full:
        msg = (
            f"the content repository is full (out of disk space) making content durable: "
            f"{detail}; nothing was committed: free space under {full[0].where} or add a "
            "container (content.containers)"
        )
        return RepositoryFullError(msg, repository="content", setting="content.containers")
    msg = f"could not make content durable: {detail}"
    return RepositoryUnavailableError(msg, repository="content")


def _call(job: Callable[[], _Failure | None]) -> _Failure | None:
    return job()


def _sync_whole(
    whole_fs: WholeFileSystemSync,
    locate: Callable[[ResourceClaim], str],
    pending: list[ResourceClaim],
    dirs: set[str],
) -> tuple[list[ResourceClaim], set[str]]:
    """Sync whole file systems; returns the claims and directories still to sync."""
    where: dict[ResourceClaim, str] = {}
    for resource in pending:
        try:
            where[resource] = locate(resource)
        except RepositoryError:
            continue  # names no directory of ours: synced (and reported) file by file
    covered = whole_fs.sync(set(where.values()) | dirs)
    if not covered:
        return pending, dirs
    rest = [resource for resource in pending if where.get(resource) not in covered]
    return rest, {directory for directory in dirs if directory not in covered}
