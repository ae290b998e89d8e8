"""What only the DuckDB provenance repository does when indexing: its database file.

The contract every provenance repository keeps is in ``tests/flowcore/repository/``.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pytest

from flowcore.errors import RepositoryError
from flowcore.model.provenance import ProvenanceEvent


def append(journal: Any, event: Any, count: int, **fields: Any) -> list[ProvenanceEvent]:
    made = [
        event("CREATE", f"ff-{i}", event_time=1_700_000_000_000 + i, **fields) for i in range(count)
    ]
    return journal.append(made)  # type: ignore[no-any-return]


def test_database_file_lives_in_the_provenance_dir(
    provenance_factory: Any, journal: Any, event: Any, settings: Any
) -> None:
    repository = provenance_factory()
    append(journal, event, 3)
    repository.index_pending()
    repository.close()

    path = settings.provenance_dir / "provenance.duckdb"
    with duckdb.connect(str(path), read_only=True) as database:
        counts = database.execute(
            "SELECT (SELECT count(*) FROM provenance_events), "
            "(SELECT count(*) FROM provenance_event_uuids), "
            "(SELECT indexed_through FROM provenance_meta)"
        ).fetchone()
    assert counts == (3, 3, 2)


def test_a_file_that_is_not_a_database_fails_to_open_with_a_clear_error(
    provenance_factory: Any, settings: Any
) -> None:
    settings.provenance_dir.mkdir(parents=True)
    (settings.provenance_dir / "provenance.duckdb").write_bytes(b"not a database" * 1000)
    with pytest.raises(RepositoryError, match="cannot open the provenance database"):
        provenance_factory()
