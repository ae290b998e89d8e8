"""Content checksums in provenance events: stored, read back, added to older files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from flowcore.model.provenance import ContentRef
from flowcore.repository import ProvenanceQuery

BIG = 0xFFFF_FFFF_FFFF_FFFE  # the unsigned 64-bit range, beyond BIGINT


def test_content_checksums_are_indexed_and_read_back(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    repository = provenance_factory()
    before = ContentRef("0", "3", "a", 0, 10, 12345)
    after = ContentRef("0", "4", "b", 50, 7, BIG)
    unchecked = ContentRef("0", "5", "c", 0, 3)
    journal.append(
        [
            event("CONTENT_MODIFIED", "x", previous_content=before, current_content=after),
            event("CREATE", "y", current_content=unchecked),
        ]
    )
    repository.index_pending()
    modified = repository.get_event(0)
    created = repository.get_event(1)
    assert modified is not None and created is not None
    assert (modified.previous_content, modified.current_content) == (before, after)
    assert created.current_content == unchecked and created.previous_content is None


def test_a_file_written_without_checksum_columns_gains_them_on_open(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    repository = provenance_factory()
    journal.append([event("CREATE", "old", current_content=ContentRef("0", "1", "x", 0, 4))])
    repository.index_pending()
    repository.close()
    path = Path(repository.path)
    with duckdb.connect(str(path)) as database:
        for column in ("previous_content_checksum", "current_content_checksum"):
            database.execute(f"ALTER TABLE provenance_events DROP COLUMN {column}")

    reopened = provenance_factory()
    (old,) = reopened.search(ProvenanceQuery(flowfile_uuid="old"))
    assert old.current_content == ContentRef("0", "1", "x", 0, 4, None)
    journal.append([event("CREATE", "new", current_content=ContentRef("0", "1", "y", 4, 4, 9))])
    reopened.index_pending()
    (new,) = reopened.search(ProvenanceQuery(flowfile_uuid="new"))
    assert new.current_content is not None and new.current_content.checksum == 9
