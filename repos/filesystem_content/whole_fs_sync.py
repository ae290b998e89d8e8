"""One ``syncfs(2)`` per file system instead of one ``fsync`` per file, for big passes.

Making a thousand small files durable one ``fsync`` at a time costs a thousand waits
for the journal (measured on ext4: 0.10-0.15 s for 1,000 files of 50 KB and their
directories, against 0.01-0.05 s for one ``syncfs`` of the same file system). ``syncfs``
writes back every dirty file and directory of the file system and commits its journal,
which is a superset of what the pass owes, so it is used only where it is known to be
as strong as ``fsync``:

* Linux 5.8 or later: older kernels do not report writeback errors from ``syncfs``;
* a local file system known to implement it fully (``SAFE_FILE_SYSTEMS``); on others
  (network, FUSE, unknown) the pass keeps using ``fsync``;
* any failure (of the open or of ``syncfs`` itself) covers nothing: the caller falls back
  to ``fsync`` per file and directory, which attributes the error to the right file.

It also writes back other processes' dirty data on that file system, which is why the
sync tracker uses it only for passes with many files.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import platform
import re
import sys
from collections.abc import Callable, Iterable

_log = logging.getLogger(__name__)

SAFE_FILE_SYSTEMS = frozenset({"ext4", "xfs", "btrfs"})
_MIN_KERNEL = (5, 8)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
MOUNTINFO = "/proc/self/mountinfo"


@functools.cache
def _load_syncfs() -> Callable[[int], int] | None:
    """libc's ``syncfs`` (looked up once), or None where it cannot be trusted."""
    if not sys.platform.startswith("linux"):
        return None
    if kernel_version(platform.release()) < _MIN_KERNEL:
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).syncfs  # libc is loaded already
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int
    syncfs: Callable[[int], int] = function
    return syncfs


def kernel_version(release: str) -> tuple[int, int]:
    """(major, minor) of a kernel release string such as ``6.1.0-18-amd64``."""
    match = re.match(r"(\d+)\.(\d+)", release)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def file_system_types(mountinfo: str = MOUNTINFO) -> dict[int, str]:
    """``st_dev`` -> file system type of every mount, from ``/proc/self/mountinfo``."""
    types: dict[int, str] = {}
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                fields = line.split()
                try:
                    major, minor = fields[2].split(":")
                    fstype = fields[fields.index("-", 6) + 1]
                except (IndexError, ValueError):
                    continue
                types.setdefault(os.makedev(int(major), int(minor)), fstype)
    except OSError:
        return {}
    return types


class WholeFileSystemSync:
    """``syncfs`` of the file systems holding a set of directories, where it is safe."""

    def __init__(
        self,
        syncfs: Callable[[int], int] | None,
        types: Callable[[], dict[int, str]] = file_system_types,
    ) -> None:
        """``syncfs`` takes a descriptor and returns 0 or -1; None never syncs whole."""
        self._syncfs = syncfs
        self._types = types

    @classmethod
    def from_libc(cls) -> WholeFileSystemSync:
        """With libc's ``syncfs`` where it can be trusted, else never syncing whole."""
        return cls(_load_syncfs())

    @property
    def available(self) -> bool:
        return self._syncfs is not None

    def sync(self, directories: Iterable[str]) -> set[str]:
        """Sync the file systems of ``directories``; returns the directories covered.

        A directory is covered when the file system it lives on was synced whole, which
        makes it, its entries and the contents of its files durable. The others are
        left to the caller.
        """
        syncfs = self._syncfs
        if syncfs is None:
            return set()
        by_device: dict[int, list[str]] = {}
        for directory in directories:
            try:
                device = os.stat(directory).st_dev
            except OSError:
                continue  # the caller's fsync reports it
            by_device.setdefault(device, []).append(directory)
        if not by_device:
            return set()
        types = self._types()
        covered: set[str] = set()
        for device, members in by_device.items():
            if types.get(device) in SAFE_FILE_SYSTEMS and _sync_one(syncfs, members[0]):
                covered.update(members)
        return covered


def _sync_one(syncfs: Callable[[int], int], directory: str) -> bool:
    try:
        fd = os.open(directory, _DIR_FLAGS)
    except OSError:
        return False
    try:
        if syncfs(fd) != 0:
            error = ctypes.get_errno()
            _log.warning(
                "syncfs of the file system of %s failed (%s); syncing file by file",
                directory,
                os.strerror(error),
            )
            return False
        return True
    finally:
        os.close(fd)
