"""A provenance database that cannot be written or read: RepositoryUnavailableError, nothing
lost (the events wait in the journal), the repository named with the setting to change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flowcore.errors import RepositoryError, RepositoryUnavailableError
from flowcore.repository import ProvenanceQuery

ALL = ProvenanceQuery(limit=1_000_000)
# DuckDB's file: a 12 KB header, then blocks of 256 KB, each starting with its checksum.
HEADER_BYTES = 3 * 4096
BLOCK_BYTES = 256 * 1024


def append(journal: Any, event: Any, count: int) -> None:
    journal.append(
        [event("CREATE", f"ff-{i}", event_time=1_700_000_000_000 + i) for i in range(count)]
    )


def database(settings_factory: Any) -> Path:
    return Path(settings_factory().provenance_dir) / "provenance.duckdb"


def test_a_wal_that_cannot_be_written_fails_indexing_and_loses_nothing(
    provenance_factory: Any, journal: Any, event: Any, settings_factory: Any
) -> None:
    provenance_factory().close()
    repository = provenance_factory()
    wal = database(settings_factory).with_name("provenance.duckdb.wal")
    assert not wal.exists()
    wal.mkdir()  # DuckDB cannot open its WAL for writing
    append(journal, event, 5)

    with pytest.raises(RepositoryUnavailableError) as raised:
        repository.index_pending()
    error = raised.value
    assert (error.repository, error.setting) == ("provenance", "provenance.max_storage_size")
    assert "provenance.max_storage_size" in str(error)
    assert journal.size() == 5  # still in the journal
    assert repository.indexed_through() == -1

    wal.rmdir()
    assert repository.index_pending() == 5
    assert sorted(e.flowfile_uuid for e in repository.search(ALL)) == [f"ff-{i}" for i in range(5)]
    assert journal.size() == 0


def test_a_corrupted_block_fails_the_query_with_a_clear_error(
    provenance_factory: Any, journal: Any, event: Any, settings_factory: Any
) -> None:
    append(journal, event, 300)
    repository = provenance_factory()
    repository.index_pending()
    repository.close()
    path = database(settings_factory)
    pristine = path.read_bytes()
    failed_queries = 0
    for block in range((len(pristine) - HEADER_BYTES) // BLOCK_BYTES):
        garbled = bytearray(pristine)
        start = HEADER_BYTES + block * BLOCK_BYTES + 64
        garbled[start : start + 16] = b"\xff" * 16
        path.write_bytes(bytes(garbled))
        try:
            repository = provenance_factory()
        except RepositoryError:
            continue  # a block read at open: refused there (another test's concern)
        try:
            repository.search(ALL)
        except RepositoryUnavailableError as error:
            failed_queries += 1
            assert error.repository == "provenance"
            assert str(path) in str(error)
        finally:
            repository.close()
    assert failed_queries >= 1  # some block holds events only: the query meets it
