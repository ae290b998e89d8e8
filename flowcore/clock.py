"""The injected clock: every time the engine reads comes from here.

Times are integer milliseconds since the epoch, as NiFi keeps them. A ``ManualClock``
makes runs deterministic: time moves only when a test or the deterministic scheduler
advances it.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """A source of the current time in epoch milliseconds."""

    def now_ms(self) -> int: ...


class SystemClock:
    """Wall-clock time."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


class ManualClock:
    """A clock that moves only when told to; thread-safe."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self._now = start_ms
        self._lock = threading.Lock()

    def now_ms(self) -> int:
        return self._now

    def advance(self, seconds: float) -> int:
        """Move time forward by ``seconds`` and return the new time."""
        if seconds < 0:
            msg = f"time cannot go backwards (asked to advance by {seconds} s)"
            raise ValueError(msg)
        with self._lock:
            self._now += round(seconds * 1000)
            return self._now

    def set(self, now_ms: int) -> None:
        with self._lock:
            if now_ms < self._now:
                msg = "time cannot go backwards"
                raise ValueError(msg)
            self._now = now_ms
