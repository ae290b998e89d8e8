"""Age-off: drop events past the maximum storage time, then the oldest past the size.

Time: every event with ``event_time < now - max_storage_time`` goes, exactly (NiFi drops
whole event files by modification time, so it keeps some older events for a while).

Size: the size is DuckDB's used blocks after a checkpoint (see ``ProvenanceStore.used_bytes``).
While it exceeds ``max_storage_size``, the oldest events (lowest ids) go in chunks. A chunk
is estimated from the average bytes per event, count x (excess / used bytes), but never
under 1 % of the events, and the size is measured again after each chunk, since DuckDB
frees whole blocks only: the estimate is checked, never trusted. A round that frees
nothing doubles the next chunk. Event ids are never reused: ``indexed_through`` lives in
the metadata row, not in the events.
"""

from __future__ import annotations

import math

from repos.duckdb_provenance.schema import EVENTS_TABLE
from repos.duckdb_provenance.store import ProvenanceStore

_MIN_CHUNK_FRACTION = 0.01
_MAX_ROUNDS = 64


def age_off_by_time(store: ProvenanceStore, cutoff_ms: int) -> int:
    """Delete every event older than ``cutoff_ms``; returns how many."""
    oldest = store.fetch_one(f"SELECT min(event_time) FROM {EVENTS_TABLE}")
    if oldest is None or oldest[0] is None or oldest[0] >= cutoff_ms:
        return 0
    return store.delete_events("event_time < ?", [cutoff_ms])


def age_off_by_size(store: ProvenanceStore, max_bytes: int) -> int:
    """Delete the oldest events until the store uses at most ``max_bytes``."""
    removed = 0
    size = store.used_bytes()
    boost = 1.0
    for _ in range(_MAX_ROUNDS):
        if size <= max_bytes:
            break
        counted = store.fetch_one(f"SELECT count(*) FROM {EVENTS_TABLE}")
        count = 0 if counted is None else int(counted[0])
        if count == 0:
            break
        share = max((size - max_bytes) / size, _MIN_CHUNK_FRACTION)
        chunk = min(count, math.ceil(count * share * boost))
        threshold = store.fetch_one(
            f"SELECT event_id FROM {EVENTS_TABLE} ORDER BY event_id LIMIT 1 OFFSET ?",
            [chunk - 1],
        )
        if threshold is None:  # pragma: no cover - chunk never exceeds the count
            break
        removed += store.delete_events("event_id <= ?", [int(threshold[0])])
        new_size = store.used_bytes()
        boost = boost * 2 if new_size >= size else 1.0
        size = new_size
    return removed
