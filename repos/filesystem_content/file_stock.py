"""A few new, empty resource-claim files made ahead of need by a background thread.

Creating a file costs tens to hundreds of microseconds in the kernel (17-550 us on the
reference VM's ext4, depending on recent deletes), paid once every 50 KB of small
contents: as much as, or more than, the ``write`` calls of those contents. The stock
moves it off the writer's path: a thread keeps ``size`` files created and open, and a
writer that needs a new file takes one in a single ``deque`` pop. ``os.open`` releases
the GIL, so the kernel work runs beside the writer on another core.

A claim file's name carries the time it was made, and the archive ages files off by that
time; a stocked file may wait before it takes its first content. That is no new
imprecision: a pooled claim already takes appends long after its name's time, until it
is full, as in NiFi.

Nothing about durability changes: a stocked file is empty and no FlowFile refers to it
until a content written into it is committed, so after a crash it is an orphan like any
other claim file without references and the recovery sweep removes it. ``close`` removes
the files still in stock. A failure to create a file stops the stock until the next
take; the writer then creates its file itself and meets the error with its own message.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable

from repos.filesystem_content.appendable import AppendableClaim

_log = logging.getLogger(__name__)


class FileStock:
    """Up to ``size`` pre-created claim files per container; the thread starts at the first
    ``take``. The caller chooses the container of each file it takes, so striping across
    containers stays exactly as without the stock."""

    def __init__(
        self,
        create: Callable[[int], AppendableClaim],
        discard: Callable[[AppendableClaim], None],
        *,
        containers: int,
        size: int,
    ) -> None:
        self._create = create
        self._discard = discard
        self._size = size
        # Per container, oldest first.
        self._stocks: tuple[deque[AppendableClaim], ...] = tuple(deque() for _ in range(containers))
        self._wanted = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def take(self, container: int) -> AppendableClaim | None:
        """A stocked file of ``container``, or None (the caller creates one); asks for a
        refill."""
        if self._size <= 0:
            return None
        claim: AppendableClaim | None = None
        try:
            claim = self._stocks[container].popleft()
        except IndexError:
            if self._thread is None:
                self._start()
        self._wanted.set()
        return claim

    def __len__(self) -> int:
        return sum(map(len, self._stocks))

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None or self._closed:
                return
            self._thread = threading.Thread(
                target=self._refill, name="content-file-stock", daemon=True
            )
            self._thread.start()

    def _refill(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if not self.fill() or self._closed:
                return

    def fill(self) -> bool:
        """Top every container's stock up on the calling thread (the stock's thread runs
        this after each take); False once closed."""
        size = self._size
        for container, files in enumerate(self._stocks):
            while True:
                with self._lock:
                    if self._closed:
                        return False
                    if len(files) >= size:
                        break
                    try:
                        claim = self._create(container)
                    except Exception as exc:
                        _log.debug("content file stock paused: %s", exc)
                        return True
                    files.append(claim)
        return True

    def close(self) -> None:
        """Stop the thread and remove the files still in stock (never written to)."""
        with self._lock:
            self._closed = True
        self._wanted.set()
        thread = self._thread
        if thread is not None:
            thread.join()
        for files in self._stocks:
            while files:
                self._discard(files.popleft())
