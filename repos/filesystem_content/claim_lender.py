"""Lends resource claims to writers: a pooled, partly filled one or a new file.

Small contents share pooled claims; a large one gets a new file of its own. A claim
goes back to the pool while its file is below the appendable size and is frozen
otherwise (handle closed, no more appends). Any failure while writing freezes the claim,
so the bytes after its last complete content are never pointed at. New files are
created with ``O_EXCL`` and never take the name of an archived one, so no file from
before a restart is ever appended to.
"""

from __future__ import annotations

import errno
import itertools
import os
import threading

from flowcore.clock import Clock
from flowcore.errors import RepositoryError
from flowcore.model.flowfile import ContentClaim
from repos.filesystem_content.appendable import AppendableClaim, AppendablePool
from repos.filesystem_content.claimant_counts import ClaimantCounts
from repos.filesystem_content.durability import SyncTracker
from repos.filesystem_content.layout import ARCHIVE_DIR, ContainerLayout

_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC
_NAME_ATTEMPTS = 10_000


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
    ) -> None:
        self._layout = layout
        self._counts = counts
        self._durability = durability
        self._clock = clock
        self._max_appendable = max_appendable
        self._pool = AppendablePool(max_open_appendable)
        self._sequence = itertools.count()
        self._dirs_lock = threading.Lock()
        self._ready_dirs: set[str] = set()
        self._closed = False

    def acquire(self, size_hint: int) -> AppendableClaim:
        """A claim held exclusively: pooled for small contents, a new file for large ones."""
        if self._closed:
            self.check_open()
        if size_hint < self._max_appendable:
            pooled = self._pool.take()
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
            raise RepositoryError(write_failure(claim.path, exc)) from exc
        except BaseException:
            self.freeze(claim)
            raise
        self._durability.wrote(claim.resource)

    def complete(self, claim: AppendableClaim, offset: int, length: int) -> ContentClaim:
        """Count the new content claim (claimant count +1) and give the resource back."""
        resource = claim.resource
        self._counts.increment(resource)
        self.give_back(claim)
        return ContentClaim(resource, offset, length)

    def give_back(self, claim: AppendableClaim) -> None:
        """Pool the claim while it is below the appendable size, else freeze it."""
        if claim.length < self._max_appendable and not self._closed and self._pool.offer(claim):
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
        self.freeze_pooled()

    def _create(self) -> AppendableClaim:
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
                raise RepositoryError(write_failure(path, exc)) from exc
            self._counts.mark_writable(resource)
            self._durability.new_entry_in(section_dir)
            return AppendableClaim(resource, path, fd)
        msg = f"could not find an unused resource-claim name after {_NAME_ATTEMPTS} tries"
        raise RepositoryError(msg)

    def _ensure_dir(self, section_dir: str) -> None:
        if section_dir in self._ready_dirs:
            return
        container = os.path.dirname(section_dir)
        try:
            try:
                os.mkdir(section_dir)
                self._durability.new_entry_in(container)
            except FileNotFoundError:
                os.makedirs(section_dir, exist_ok=True)  # the container is new too
                self._durability.new_entry_in(container)
                self._durability.new_entry_in(os.path.dirname(container) or ".")
            except FileExistsError:
                pass  # made before: its entry in the container is already durable
        except OSError as exc:
            raise RepositoryError(write_failure(section_dir, exc)) from exc
        with self._dirs_lock:
            self._ready_dirs.add(section_dir)


def write_failure(path: str, exc: OSError) -> str:
    """A clear message for an OS error while writing content."""
    if exc.errno == errno.ENOSPC:
        return f"content repository is out of disk space writing {path} (ENOSPC)"
    if exc.errno == errno.EMFILE:
        return f"content repository has too many open files writing {path} (EMFILE)"
    return f"content repository could not write {path}: {exc.strerror or exc}"
