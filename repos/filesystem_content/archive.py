"""The archive: where released claims go, and how they age off.

Released files are moved to ``<section>/archive/<id>`` (or deleted when archiving is
off, or when the move fails) so that provenance replay can still read recent content.
Age-off deletes archived files older than the retention period, then the oldest ones
while the container's file system is fuller than the allowed percentage.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections.abc import Callable

from flowcore.model.flowfile import ResourceClaim
from repos.filesystem_content.layout import ContainerLayout

_log = logging.getLogger(__name__)

# Re-measure the file system after this many deletions (as NiFi does), estimating between.
_USAGE_RECHECK_EVERY = 25


class Archive:
    """Moves released claims aside and ages them off; keeps a count per container."""

    def __init__(
        self,
        layout: ContainerLayout,
        *,
        enabled: bool,
        retention_ms: int,
        max_usage_percentage: int,
        on_delete: Callable[[ResourceClaim], None],
        if_unused: Callable[[ResourceClaim, Callable[[], bool]], bool] = lambda _r, act: act(),
    ) -> None:
        """``if_unused(resource, action)`` runs ``action`` only while no claimant holds the
        claim, checked under the lock its increments take (``ClaimantCounts``): an archived
        file that a provenance replay references again is kept until it is let go."""
        self._layout = layout
        self._if_unused = if_unused
        self._enabled = enabled
        self._retention_ms = retention_ms
        self._max_usage = max_usage_percentage
        self._on_delete = on_delete
        self._lock = threading.Lock()
        self._counts: list[int | None] = [None] * len(layout.containers)

    def archived_count(self, container: int) -> int:
        """How many files the container's archive holds (scanned on first use)."""
        with self._lock:
            known = self._counts[container]
        if known is not None:
            return known
        return self.rescan(container)

    def rescan(self, container: int) -> int:
        found = sum(1 for _ in self._layout.archived_files(container))
        with self._lock:
            self._counts[container] = found
        return found

    def retire(self, resource: ResourceClaim) -> bool:
        """Archive (or delete) a released claim's file; False if there was no file."""
        live = self._layout.live_path(resource)
        if self._enabled:
            target = self._layout.archive_path(resource)
            try:
                _move(live, target)
            except FileNotFoundError:
                if not os.path.exists(live):
                    return False
                return self._delete_live(resource, live)
            except OSError as exc:
                _log.warning("could not archive %s (%s); deleting it instead", live, exc)
                return self._delete_live(resource, live)
            self._on_delete(resource)
            self._adjust(resource, +1)
            return True
        return self._delete_live(resource, live)

    def cleanup(self, now_ms: int) -> int:
        """Delete archived files by age, then by usage; returns how many were deleted."""
        deleted = 0
        for index in range(len(self._layout.containers)):
            if self.archived_count(index) == 0:
                continue
            deleted += self._cleanup_container(index, now_ms)
        return deleted

    def _cleanup_container(self, index: int, now_ms: int) -> int:
        files: list[tuple[int, str, int, ResourceClaim]] = []
        for resource, entry in self._layout.archived_files(index):
            try:
                stat = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            created = _created_ms(entry.name, stat.st_mtime_ns)
            files.append((created, entry.path, stat.st_size, resource))
        files.sort(key=lambda item: (item[0], item[1]))
        cutoff = now_ms - self._retention_ms
        deleted = 0
        keep_from = 0
        for created, path, _, resource in files:
            if created >= cutoff:
                break
            keep_from += 1
            deleted += self._delete_archived(resource, path)
        remaining = files[keep_from:]
        deleted += self._cleanup_by_usage(index, remaining)
        self.rescan(index)
        return deleted

    def _cleanup_by_usage(
        self, index: int, files: list[tuple[int, str, int, ResourceClaim]]
    ) -> int:
        container = self._layout.containers[index]
        deleted = 0
        since_check = _USAGE_RECHECK_EVERY
        used = total = 0
        for _, path, size, resource in files:
            if since_check >= _USAGE_RECHECK_EVERY:
                try:
                    usage = shutil.disk_usage(container)
                except OSError:
                    return deleted
                used, total, since_check = usage.used, usage.total, 0
            if total <= 0 or used * 100 <= self._max_usage * total:
                break
            if self._delete_archived(resource, path):
                deleted += 1
                used -= size
            since_check += 1
        return deleted

    def _delete_archived(self, resource: ResourceClaim, path: str) -> int:
        """Delete one archived file unless a claimant holds it again (a replayed FlowFile
        points at the archived content until it is let go, and then it ages off)."""
        if not self._if_unused(resource, lambda: _unlinked(path, "archived", logging.WARNING)):
            return 0
        self._on_delete(resource)
        return 1

    def _delete_live(self, resource: ResourceClaim, path: str) -> bool:
        if not _unlinked(path, "released", logging.ERROR):
            return False
        self._on_delete(resource)
        return True

    def _adjust(self, resource: ResourceClaim, delta: int) -> None:
        index = int(resource.container)
        with self._lock:
            known = self._counts[index]
            if known is not None:
                self._counts[index] = max(0, known + delta)


def _unlinked(path: str, kind: str, level: int) -> bool:
    """Whether ``path`` was deleted now (False if it was gone already or, logged, if the
    deletion failed)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        _log.log(level, "could not delete %s content %s: %s", kind, path, exc)
        return False
    return True


def _move(source: str, target: str) -> None:
    """Rename into the archive directory, creating it only when the rename finds it missing
    (once per section, or again if it was removed): no ``mkdir`` per archived claim."""
    try:
        os.rename(source, target)
    except FileNotFoundError:
        if not os.path.exists(source):
            raise
        try:
            os.mkdir(os.path.dirname(target))  # the section exists: it holds the source
        except FileExistsError:
            pass  # created meanwhile by another thread
        os.rename(source, target)


def _created_ms(name: str, mtime_ns: int) -> int:
    prefix, dash, _ = name.partition("-")
    if dash and prefix.isdigit():
        return int(prefix)
    return mtime_ns // 1_000_000
