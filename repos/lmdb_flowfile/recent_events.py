"""The provenance events of the latest commits, held in memory for the indexer.

Every committed event is in the LMDB journal, where the provenance repository reads it
from to index it. Reading it back means decoding it again, which costs more than the
commit spent encoding it; yet the indexer usually asks, within a second, for exactly the
events just committed. So the repository also keeps the newest events it committed (the
same objects, with their ids) and serves a read from them when it starts inside what is
held. What is held is always a suffix of the journal, ids contiguous up to the last
committed event, so such a read returns exactly what reading LMDB would. Anything older
(after a restart, or a backlog beyond ``capacity``) is read from LMDB as before.
Durability does not depend on this: nothing leaves LMDB until it is trimmed.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from flowcore.model.provenance import ProvenanceEvent


class RecentEvents:
    """Up to ``capacity`` of the newest committed events, ids contiguous. Thread-safe."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._events: list[ProvenanceEvent] = []
        self._first_id = 0  # the id of _events[0]
        self._lock = threading.Lock()

    def add(self, events: Sequence[ProvenanceEvent]) -> None:
        """Events just committed, in id order, following the last ones added."""
        if not events or self._capacity <= 0:
            return
        with self._lock:
            held = self._events
            if held and events[0].event_id != self._first_id + len(held):
                held.clear()  # not contiguous (cannot happen in order): start again
            if not held:
                self._first_id = events[0].event_id
            held.extend(events)
            excess = len(held) - self._capacity
            if excess > 0:
                del held[:excess]
                self._first_id += excess

    def read(self, after_event_id: int, limit: int) -> list[ProvenanceEvent] | None:
        """The events after ``after_event_id`` (at most ``limit``), or None when the
        first of them is not held (the caller reads the journal instead)."""
        with self._lock:
            start = after_event_id + 1 - self._first_id
            if not self._events or start < 0:
                return None
            return self._events[start : start + limit]

    def trim(self, through_event_id: int) -> None:
        """Forget the events up to ``through_event_id`` (they left the journal)."""
        with self._lock:
            count = through_event_id + 1 - self._first_id
            if count <= 0:
                return
            del self._events[:count]
            self._first_id = through_event_id + 1

    def __len__(self) -> int:
        return len(self._events)
