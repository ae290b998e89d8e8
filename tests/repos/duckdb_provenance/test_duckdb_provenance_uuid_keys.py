"""The uuid key table: keys that collide, keys computed by another ``hash``, version 1 files.

Look-ups go through 64-bit keys of the uuids (schema.py). These tests make the cases
that a real run almost never meets happen on purpose: two uuids sharing a key, a DuckDB
whose ``hash`` gives other keys than the one that wrote the file, and a file written by
schema version 1, which kept the uuid text.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import duckdb
import pytest

from flowcore.errors import RepositoryError
from flowcore.repository import ProvenanceQuery
from repos.duckdb_provenance.schema import SCHEMA_VERSION
from tests.repos.duckdb_provenance.uuid_keys import keyed, uuid_key_rows

# A (created, forked into two) lineage and an unrelated FlowFile.
EXPECTED_ROWS = [("root", 0), ("root", 1), ("kid-1", 1), ("kid-2", 1), ("other", 2)]


def _index_flow(provenance_factory: Any, journal: Any, event: Any) -> Path:
    """Index the flow above, close the repository; the database file."""
    repository = provenance_factory()
    journal.append(
        [
            event("CREATE", "root"),
            event("FORK", "root", parent_uuids=["root"], child_uuids=["kid-1", "kid-2"]),
            event("CREATE", "other"),
        ]
    )
    repository.index_pending()
    repository.close()
    return Path(repository.path)


def _execute(path: Path, *statements: str) -> None:
    with duckdb.connect(str(path)) as database:
        for statement in statements:
            database.execute(statement)


def test_a_uuid_whose_key_also_points_at_another_event_finds_only_its_own(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    path = _index_flow(provenance_factory, journal, event)
    # A collision: the key of "root" now also leads to event 2, which is "other"'s.
    _execute(path, "INSERT INTO provenance_event_uuids VALUES (hash('root'), 2)")

    repository = provenance_factory()
    found = repository.search(ProvenanceQuery(flowfile_uuid="root"))
    assert sorted(e.event_id for e in found) == [0, 1]
    lineage = repository.lineage("root")
    assert {n.id for n in lineage.nodes if n.node_type == "EVENT"} == {"0", "1"}
    assert [e.event_id for e in repository.search(ProvenanceQuery(flowfile_uuid="kid-2"))] == [1]


def test_keys_made_by_another_hash_are_rebuilt_from_the_events_on_open(
    provenance_factory: Any, journal: Any, event: Any, caplog: pytest.LogCaptureFixture
) -> None:
    path = _index_flow(provenance_factory, journal, event)
    # As if another DuckDB version had written the keys: different keys, different probe.
    _execute(
        path,
        "DROP INDEX provenance_event_uuids_key",
        "UPDATE provenance_event_uuids SET uuid_key = uuid_key + 1",
        "CREATE INDEX provenance_event_uuids_key ON provenance_event_uuids (uuid_key)",
        "UPDATE provenance_meta SET uuid_key_probe = uuid_key_probe + 1",
    )

    with caplog.at_level(logging.WARNING, logger="repos.duckdb_provenance.store"):
        repository = provenance_factory()
    assert "DuckDB's hash function changed" in caplog.text
    assert {n.id for n in repository.lineage("kid-1").nodes if n.node_type == "EVENT"} == {
        "0",
        "1",
    }
    repository.close()
    assert uuid_key_rows(path) == keyed(EXPECTED_ROWS)

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="repos.duckdb_provenance.store"):
        provenance_factory().close()
    assert "rebuilt" not in caplog.text  # the probe matches again: nothing to redo


def test_a_version_1_file_is_upgraded_with_its_events_kept(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    path = _index_flow(provenance_factory, journal, event)
    # Turn the file back into what version 1 wrote: the uuid text, indexed, no probe.
    _execute(
        path,
        "DROP TABLE provenance_event_uuids",
        "CREATE TABLE provenance_event_uuids (uuid VARCHAR NOT NULL, event_id BIGINT NOT NULL)",
        "INSERT INTO provenance_event_uuids VALUES "
        + ", ".join(f"('{uuid}', {event_id})" for uuid, event_id in EXPECTED_ROWS),
        "CREATE INDEX provenance_event_uuids_uuid ON provenance_event_uuids (uuid)",
        "ALTER TABLE provenance_meta DROP COLUMN uuid_key_probe",
        "UPDATE provenance_meta SET schema_version = 1",
    )

    repository = provenance_factory()
    assert repository.indexed_through() == 2
    assert repository.event_count() == 3
    assert sorted(e.event_id for e in repository.search(ProvenanceQuery(flowfile_uuid="root"))) == [
        0,
        1,
    ]
    repository.close()
    assert uuid_key_rows(path) == keyed(EXPECTED_ROWS)
    with duckdb.connect(str(path), read_only=True) as database:
        assert database.execute("SELECT schema_version FROM provenance_meta").fetchall() == [
            (SCHEMA_VERSION,)
        ]


def test_a_file_of_a_newer_schema_version_is_refused(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    path = _index_flow(provenance_factory, journal, event)
    _execute(path, f"UPDATE provenance_meta SET schema_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(RepositoryError, match=f"schema version {SCHEMA_VERSION + 1}"):
        provenance_factory()
