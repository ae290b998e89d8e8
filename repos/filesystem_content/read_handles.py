"""A bounded LRU of read-only file descriptors, shared by reading threads.

Reads use ``os.pread`` on a cached descriptor, so no seek position is shared and no
file is reopened per read. A descriptor is closed only when it has left the cache *and*
no reader still holds it; ``evict`` is called when a file is deleted so that its disk
space is freed and it is not read after deletion.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable

from flowcore.model.flowfile import ResourceClaim


class ReadHandle:
    """One cached descriptor and how many readers hold it."""

    __slots__ = ("evicted", "fd", "users")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.users = 0
        self.evicted = False


class ReadHandleCache:
    """LRU map resource claim -> read descriptor, with reference-counted closing."""

    def __init__(self, capacity: int, opener: Callable[[ResourceClaim], int]) -> None:
        if capacity < 1:
            msg = f"read handle capacity must be at least 1, got {capacity}"
            raise ValueError(msg)
        self._capacity = capacity
        self._opener = opener
        self._handles: OrderedDict[ResourceClaim, ReadHandle] = OrderedDict()
        self._lock = threading.Lock()
        self._evictions = 0

    def acquire(self, resource: ResourceClaim) -> ReadHandle:
        """A held descriptor for the claim; the opener's exception if it cannot be opened."""
        with self._lock:
            handle = self._handles.get(resource)
            if handle is not None:
                self._handles.move_to_end(resource)
                handle.users += 1
                return handle
            evictions = self._evictions
        fd = self._opener(resource)  # outside the lock: opening may be slow
        with self._lock:
            handle = self._handles.get(resource)
            if handle is not None:
                os.close(fd)
                self._handles.move_to_end(resource)
                handle.users += 1
                return handle
            handle = ReadHandle(fd)
            handle.users = 1
            if evictions != self._evictions:
                # A file may have been deleted while we opened it: use once, do not cache.
                handle.evicted = True
                return handle
            self._handles[resource] = handle
            while len(self._handles) > self._capacity:
                _, oldest = self._handles.popitem(last=False)
                self._retire(oldest)
            return handle

    def release(self, handle: ReadHandle) -> None:
        with self._lock:
            handle.users -= 1
            if handle.evicted and handle.users == 0:
                os.close(handle.fd)

    def evict(self, resource: ResourceClaim) -> None:
        with self._lock:
            self._evictions += 1
            handle = self._handles.pop(resource, None)
            if handle is not None:
                self._retire(handle)

    def close(self) -> None:
        with self._lock:
            self._evictions += 1
            for handle in self._handles.values():
                self._retire(handle)
            self._handles.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._handles)

    def _retire(self, handle: ReadHandle) -> None:
        handle.evicted = True
        if handle.users == 0:
            os.close(handle.fd)
