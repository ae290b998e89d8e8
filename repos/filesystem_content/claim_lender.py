"""Lends resource claims to writers: a pooled, partly filled one or a new file.

Small contents share pooled claims; a large one gets a new file of its own. A claim
goes back to the pool while its file is below the appendable size and is frozen
otherwise (handle closed, no more appends). Any failure while writing freezes the claim,
so the bytes after its last complete content are never pointed at. New files are
created with ``O_EXCL`` and never take the name of an archived one, so no file from
before a restart is ever appended to.

``write`` is the hot path for a whole content: one pooled claim taken and offered back
without a lock, one ``os.write``, one checksum of the bytes, one locked claimant-count
increment. Creating a file
costs its ``O_EXCL`` open and one ``lstat`` (the archived name); a section directory is
made only when that open finds it missing. New files come from the ``FileStock``, which
creates them ahead on a background thread; the writer creates one itself only when the
stock is empty.
"""

from __future__ import annotations

import errno
import itertools
import logging
import os
import threading

from flowcore.clock import Clock
from flowcore.errors import RepositoryError, RepositoryFullError, RepositoryUnavailableError
from flowcore.model.flowfile import ContentClaim
from flowcore.repository.checksum import checksum_of
from repos.filesystem_content.appendable import AppendableClaim, AppendablePool
from repos.filesystem_content.claimant_counts import ClaimantCounts
from repos.filesystem_content.durability import SyncTracker
from repos.filesystem_content.file_stock import FileStock
from repos.filesystem_content.layout import ARCHIVE_DIR, ContainerLayout

_log = logging.getLogger(__name__)

_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC
_NAME_ATTEMPTS = 10_000
# A write failing with one of these found no room: the repository is full.
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
CONTAINERS_SETTING = "content.containers"
# New files kept created ahead (a writer of 1 KB contents needs one every 50 contents).
FILE_STOCK_SIZE = 4


class ClaimLender:
    """The write side of the repository; implements the writer's ``ClaimOwner``."""

    def __init__(
        self,
        layout: ContainerLayout,
        counts: ClaimantCounts,
        durability: SyncTracker,
        clock: Clock,
        *,
        max_appendable: int,
        max_open_appendable: int,
        file_stock_size: int = FILE_STOCK_SIZE,
        archive_enabled: bool = False,
    ) -> None:
        """``archive_enabled``: a new section directory gets its archive directory too."""
        self._layout = layout
        self._archive_enabled = archive_enabled
        self._counts = counts
        self._durability = durability
        self._clock = clock
        self._max_appendable = max_appendable
        self._pool = AppendablePool(max_open_appendable)
        self._sequence = itertools.count()  # names new files
        self._stripe = itertools.count()  # picks the container of the next file handed out
        self._dirs_lock = threading.Lock()
        self._ready_dirs: set[str] = set()
        self._closed = False
        self._stock = FileStock(
            self._create_file,
            self._discard_unused,
            containers=len(layout.containers),
            size=file_stock_size,
        )
        # What the hot path uses, looked up once.
        self._pooled = self._pool.claims
        self._pool_capacity = self._pool.capacity
        self._take = self._pool.take
        self._offer = self._pool.offer
        self._wrote = durability.wrote
        self._count_new = counts.count_new_content

    def write(self, data: bytes | bytearray | memoryview, size: int) -> ContentClaim:
        """Write one whole content of ``size`` bytes: the repository's hot path.

        ``acquire``, ``append`` and ``complete`` in one call, with the pool's ``take`` and
        ``offer`` inlined (same semantics, see ``AppendablePool``).
        """
        if self._closed:
            self.check_open()
        max_appendable = self._max_appendable
        pooled = self._pooled
        claim = None
        if size < max_appendable and pooled:
            try:
                claim = pooled.pop()
            except IndexError:  # taken meanwhile by another writer
                pass
        if claim is None:
            claim = self._create()
        offset = claim.length
        resource = claim.resource
        if size:
            try:
                written = os.write(claim.fd, data)
                if written != size:
                    claim.write_rest(data, written)
            except OSError as exc:
                self.freeze(claim)
                raise write_failure(claim.path, exc) from exc
            except BaseException:
                self.freeze(claim)
                raise
            claim.length = offset + size
            self._wrote(resource)
        self._count_new(resource)
        if offset + size < max_appendable and len(pooled) < self._pool_capacity:
            pooled.append(claim)
            if self._closed or len(pooled) > self._pool_capacity:
                self._after_offer()
        else:
            self.give_back(claim)
        return ContentClaim(resource, offset, size, checksum_of(data))

    def acquire(self, size_hint: int) -> AppendableClaim:
        """A claim held exclusively: pooled for small contents, a new file for large ones."""
        if self._closed:
            self.check_open()
        if size_hint < self._max_appendable:
            pooled = self._take()
            if pooled is not None:
                return pooled
        return self._create()

    def append(
        self, claim: AppendableClaim, data: bytes | bytearray | memoryview, size: int
    ) -> None:
        """Write to a held claim; on any failure the claim is frozen and never reused."""
        try:
            claim.append(data, size)
        except OSError as exc:
            self.freeze(claim)
            raise write_failure(claim.path, exc) from exc
        except BaseException:
            self.freeze(claim)
            raise
        self._wrote(claim.resource)

    def complete(
        self, claim: AppendableClaim, offset: int, length: int, checksum: int
    ) -> ContentClaim:
        """Count the new content claim (claimant count +1) and give the resource back."""
        resource = claim.resource
        self._count_new(resource)
        self.give_back(claim)
        return ContentClaim(resource, offset, length, checksum)

    def _after_offer(self) -> None:
        """A claim was put back without ``offer``: redo what ``offer`` and ``give_back``
        do when offers race or the repository closed meanwhile."""
        overflow = self._pool.trim()
        if overflow is not None:
            self.freeze(overflow)
        if self._closed:
            self.freeze_pooled()

    def give_back(self, claim: AppendableClaim) -> None:
        """Pool the claim while it is below the appendable size, else freeze it."""
        if claim.length < self._max_appendable and not self._closed:
            overflow = self._offer(claim)
            if overflow is not None:
                self.freeze(overflow)
            if self._closed:  # closed meanwhile: leave no handle in the pool
                self.freeze_pooled()
            return
        self.freeze(claim)

    def freeze(self, claim: AppendableClaim) -> None:
        try:
            os.close(claim.fd)
        except OSError:
            pass
        self._counts.freeze(claim.resource)

    def freeze_pooled(self) -> None:
        for claim in self._pool.drain():
            self.freeze(claim)

    def check_open(self) -> None:
        if self._closed:
            msg = "the content repository is closed"
            raise RepositoryError(msg)

    def close(self) -> None:
        self._closed = True
        self._stock.close()
        self.freeze_pooled()

    def _create(self) -> AppendableClaim:
        """A new, empty resource-claim file that takes appends: stocked, else made now."""
        container = next(self._stripe) % len(self._layout.containers)
        claim = self._stock.take(container)
        if claim is None:
            claim = self._create_file(container)
        # Its directory entry must be durable with the first content committed in it.
        self._durability.new_entry_in(os.path.dirname(claim.path))
        return claim

    def _discard_unused(self, claim: AppendableClaim) -> None:
        """Remove a stocked file that was never handed out (it holds nothing)."""
        try:
            os.close(claim.fd)
            os.unlink(claim.path)
        except OSError:
            pass  # an orphan: the next recovery sweep removes it
        self._counts.discard(claim.resource)

    def _create_file(self, container: int) -> AppendableClaim:
        """Create a new, empty resource-claim file in ``container`` that takes appends.

        The entry of a section directory it makes is reported for syncing at once (a
        writer may put another file there before this one is handed out); the file's
        own entry only when it is handed out (``_create``).
        """
        layout = self._layout
        for _ in range(_NAME_ATTEMPTS):
            resource = layout.new_resource(container, next(self._sequence), self._clock.now_ms())
            section_dir = layout.section_dir(resource)
            if os.path.lexists(os.path.join(section_dir, ARCHIVE_DIR, resource.id)):
                continue  # a claim of that name existed before: never reuse it
            path = os.path.join(section_dir, resource.id)
            try:
                fd = self._open_new(path, section_dir)
            except FileExistsError:
                continue
            except OSError as exc:
                raise write_failure(path, exc) from exc
            self._counts.mark_writable(resource)
            return AppendableClaim(resource, path, fd)
        msg = f"could not find an unused resource-claim name after {_NAME_ATTEMPTS} tries"
        raise RepositoryError(msg)

    def _open_new(self, path: str, section_dir: str) -> int:
        """Create ``path``; its section directory is made first if it is missing.

        No ``mkdir`` is tried for a directory that exists. The first file of a section
        in this process is created under the directory lock, so a directory made by
        another thread has its entry reported before any file in it is handed out; one
        that already existed was made durable by whoever made it.
        """
        if section_dir in self._ready_dirs:
            return os.open(path, _CREATE_FLAGS, 0o644)
        with self._dirs_lock:
            try:
                fd = os.open(path, _CREATE_FLAGS, 0o644)
            except FileNotFoundError:
                self._make_dir(section_dir)
                fd = os.open(path, _CREATE_FLAGS, 0o644)
            self._ready_dirs.add(section_dir)
            return fd

    def _make_dir(self, section_dir: str) -> None:
        """Make a section directory (and its container); report the new entries."""
        container = os.path.dirname(section_dir)
        try:
            os.mkdir(section_dir)
            self._durability.new_entry_in(container)
        except FileNotFoundError:
            os.makedirs(section_dir, exist_ok=True)  # the container is new too
            self._durability.new_entry_in(container)
            self._durability.new_entry_in(os.path.dirname(container) or ".")
        except FileExistsError:
            return  # made meanwhile by someone else, who makes its entry durable
        if self._archive_enabled:
            _make_archive_dir(section_dir)


def _make_archive_dir(section_dir: str) -> None:
    """Make a new section's archive directory with the section (NiFi makes it on the first
    archive; the place is the same), so releasing the section's first claim is one rename,
    and the ``mkdir`` runs where the section is made: usually the file stock's thread.
    Best effort: the archive makes the directory itself when a rename finds it missing."""
    try:
        os.mkdir(os.path.join(section_dir, ARCHIVE_DIR))
    except OSError as exc:
        _log.debug("archive directory of %s not made ahead: %s", section_dir, exc)


def write_failure(path: str, exc: OSError) -> RepositoryError:
    """The error for an OS error while writing content: a full disk is
    ``RepositoryFullError``, naming where to free space and the setting to change."""
    if exc.errno in FULL_ERRNOS:
        return content_full(path, exc)
    if exc.errno == errno.EMFILE:
        msg = f"content repository has too many open files writing {path} (EMFILE)"
        return RepositoryUnavailableError(msg, repository="content")
    msg = f"content repository could not write {path}: {exc.strerror or exc}"
    return RepositoryError(msg, repository="content")


def content_full(path: str, exc: OSError) -> RepositoryFullError:
    """``path`` (a claim file or directory) could not be written for lack of space."""
    code = errno.errorcode.get(exc.errno or 0, "ENOSPC")
    container = _container_of(path)
    msg = (
        f"the content repository is full (out of disk space, {code}) writing {path}; "
        f"nothing was stored: free space under {container} or add a container "
        f"({CONTAINERS_SETTING})"
    )
    return RepositoryFullError(msg, repository="content", setting=CONTAINERS_SETTING)


def _container_of(path: str) -> str:
    """The container directory of a claim file (``<container>/<section>/<id>``)."""
    return os.path.dirname(os.path.dirname(path)) or path
