"""Bytes per second for a listener's request bodies (ListenHTTP's Max Data to Receive per
Second, NiFi's LeakyBucketStreamThrottler): every request of the listener shares one
budget; a read of a chunk waits until the chunks before it have had their time at the
rate. It paces real network reads, so it keeps real time (``time.monotonic``), not the
flow's clock: a manual clock would never let a request finish.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

_LARGEST_CHUNK = 64 * 1024


class Readable(Protocol):
    """What a body is read from (a request's ``rfile``)."""

    def read(self, size: int = -1, /) -> bytes: ...


class ByteThrottle:
    """At most ``rate`` bytes per second through ``read``, across threads."""

    def __init__(
        self,
        rate: int,
        *,
        monotonic: Callable[[], float] | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        """``monotonic`` and ``sleep``: ``time``'s, looked up now, unless given."""
        if rate <= 0:
            msg = f"a throttle needs a positive rate, not {rate}"
            raise ValueError(msg)
        self._rate = rate
        self._chunk = max(1, min(_LARGEST_CHUNK, rate // 10))
        self._monotonic = monotonic or time.monotonic
        self._sleep = sleep or time.sleep
        self._lock = threading.Lock()
        self._free_at = 0.0
        """When the bytes let through so far have had their time at the rate."""

    def pass_bytes(self, count: int) -> None:
        """Wait until ``count`` more bytes may pass (the first pass at once)."""
        with self._lock:
            now = self._monotonic()
            start = max(now, self._free_at)
            self._free_at = start + count / self._rate
        if start > now:
            self._sleep(start - now)

    def read(self, stream: Readable, length: int) -> bytes:
        """``length`` bytes of ``stream`` (fewer if it ends first), read in chunks of a
        tenth of a second's worth, each let through by ``pass_bytes``."""
        parts: list[bytes] = []
        left = length
        while left > 0:
            size = min(self._chunk, left)
            self.pass_bytes(size)
            part = stream.read(size)
            if not part:
                break
            parts.append(part)
            left -= len(part)
        return b"".join(parts)
