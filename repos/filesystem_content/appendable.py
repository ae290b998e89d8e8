"""Resource claims open for appending, and the bounded pool that shares them.

A writer takes an ``AppendableClaim`` out of the pool, so two writers never append to
the same file at once, and offers it back when it closes. The pool holds at most
``capacity`` claims, which bounds the number of append handles kept open.
"""

from __future__ import annotations

import errno
import os
import threading
from collections import deque
from dataclasses import dataclass

from flowcore.model.flowfile import ResourceClaim


@dataclass(slots=True, eq=False)
class AppendableClaim:
    """A resource-claim file open for appending, held by at most one writer at a time."""

    resource: ResourceClaim
    path: str
    fd: int
    length: int = 0

    def append(self, data: bytes | bytearray | memoryview, size: int) -> None:
        """Hand ``size`` bytes to the OS (no Python buffering); ``OSError`` on failure.

        ``length`` grows only when every byte is written, so after a failure nothing
        that follows the last complete content is ever pointed at.
        """
        written = os.write(self.fd, data)
        if written != size:
            view = memoryview(data).cast("B")[written:]
            while view:
                written = os.write(self.fd, view)
                if written <= 0:
                    raise OSError(errno.EIO, "write made no progress", self.path)
                view = view[written:]
        self.length += size


class AppendablePool:
    """A bounded, thread-safe stack of claims that still take appends."""

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            msg = f"pool capacity must not be negative, got {capacity}"
            raise ValueError(msg)
        self._capacity = capacity
        self._claims: deque[AppendableClaim] = deque()
        self._lock = threading.Lock()

    def take(self) -> AppendableClaim | None:
        """The most recently returned claim (it is the warmest), or None if empty."""
        with self._lock:
            return self._claims.pop() if self._claims else None

    def offer(self, claim: AppendableClaim) -> bool:
        """Put a claim back; False if the pool is full (the caller then freezes it)."""
        with self._lock:
            if len(self._claims) >= self._capacity:
                return False
            self._claims.append(claim)
            return True

    def drain(self) -> list[AppendableClaim]:
        with self._lock:
            claims = list(self._claims)
            self._claims.clear()
            return claims

    def __len__(self) -> int:
        with self._lock:
            return len(self._claims)
