"""The uuid key table as tests read it: rows of (uuid key, event id)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb


def uuid_key_rows(database_path: Path) -> list[tuple[int, int]]:
    """The (uuid key, event id) rows of a closed provenance database, sorted."""
    with duckdb.connect(str(database_path), read_only=True) as database:
        rows = database.execute(
            "SELECT uuid_key, event_id FROM provenance_event_uuids ORDER BY event_id, uuid_key"
        ).fetchall()
    return [(int(key), int(event_id)) for key, event_id in rows]


def keyed(rows: Sequence[tuple[str, int]]) -> list[tuple[int, int]]:
    """(uuid, event id) rows as ``uuid_key_rows`` gives them: the uuid as its key."""
    with duckdb.connect() as database:
        keys = database.execute(
            "SELECT hash(u) FROM unnest(?::VARCHAR[]) AS t(u)", [[uuid for uuid, _ in rows]]
        ).fetchall()
    pairs = [(int(key), event_id) for (key,), (_, event_id) in zip(keys, rows, strict=True)]
    return sorted(pairs, key=lambda pair: (pair[1], pair[0]))
