"""Resource claims open for appending, and the bounded pool that shares them.

A writer takes an ``AppendableClaim`` out of the pool, so two writers never append to
the same file at once, and offers it back when it closes. The pool holds at most
``capacity`` claims, which bounds the number of append handles kept open.

The pool takes no lock: taking and offering are single ``deque`` operations, which are
atomic, so the common single-writer case pays two C calls per content. A claim is in
the deque or held by exactly one writer, never both.
"""

from __future__ import annotations

import errno
import os
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
            self.write_rest(data, written)
        self.length += size

    def write_rest(self, data: bytes | bytearray | memoryview, written: int) -> None:
        """Finish a short ``os.write`` that took only ``written`` bytes of ``data``."""
        view = memoryview(data).cast("B")[written:]
        while view:
            written = os.write(self.fd, view)
            if written <= 0:
                raise OSError(errno.EIO, "write made no progress", self.path)
            view = view[written:]


class AppendablePool:
    """A bounded, thread-safe (lock-free) stack of claims that still take appends."""

    __slots__ = ("_capacity", "_claims")

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            msg = f"pool capacity must not be negative, got {capacity}"
            raise ValueError(msg)
        self._capacity = capacity
        self._claims: deque[AppendableClaim] = deque()

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def claims(self) -> deque[AppendableClaim]:
        """The pooled claims, for a caller that inlines ``take`` and ``offer``: pop one to
        take it; append one only below the capacity, then call ``trim``."""
        return self._claims

    def take(self) -> AppendableClaim | None:
        """The most recently returned claim (it is the warmest), or None if empty."""
        try:
            return self._claims.pop()
        except IndexError:
            return None

    def offer(self, claim: AppendableClaim) -> AppendableClaim | None:
        """Put a claim back; returns a claim the caller must freeze, or None.

        That is ``claim`` itself when the pool is full. Two threads offering at once
        may both find room for one: the loser then gets the oldest pooled claim back,
        so the pool never stays above its capacity.
        """
        claims = self._claims
        if len(claims) >= self._capacity:
            return claim
        claims.append(claim)
        return self.trim()

    def trim(self) -> AppendableClaim | None:
        """After an append: the oldest claim if racing offers overfilled the pool."""
        claims = self._claims
        if len(claims) > self._capacity:
            try:
                return claims.popleft()
            except IndexError:  # pragma: no cover - emptied by takers meanwhile
                return None
        return None

    def drain(self) -> list[AppendableClaim]:
        """Take every pooled claim (one atomic pop at a time)."""
        claims = self._claims
        drained: list[AppendableClaim] = []
        while True:
            try:
                drained.append(claims.popleft())
            except IndexError:
                return drained

    def __len__(self) -> int:
        return len(self._claims)
