"""The DuckDB provenance repository's identity, probe, restart and damage at open."""

from __future__ import annotations

from typing import Any

import pytest

from flowcore.errors import RepositoryDamagedError, RepositoryError, RepositoryUnavailableError
from flowcore.repository.identity import RepositoryIdentity
from flowcore.settings import EngineSettings
from repos.duckdb_provenance.repository import DuckDbProvenanceRepository


def database(settings: EngineSettings) -> Any:
    return settings.provenance_dir / "provenance.duckdb"


def test_probe_of_a_missing_database_creates_nothing(settings: EngineSettings) -> None:
    (probe,) = DuckDbProvenanceRepository.probe(settings)
    assert probe.missing and probe.repository == "provenance"
    assert not settings.provenance_dir.exists()


def test_the_identity_is_written_and_probed_read_only(
    provenance_factory: Any, journal: Any, event: Any, settings: EngineSettings
) -> None:
    repository = provenance_factory()
    journal.append([event(), event()])
    repository.index_pending()
    repository.write_identity(RepositoryIdentity("node-a", 3), durable=False)
    repository.close()
    before = database(settings).read_bytes()

    (probe,) = DuckDbProvenanceRepository.probe(settings)

    assert probe.identity == RepositoryIdentity("node-a", 3)
    assert (probe.indexed_through, probe.holds_data) == (1, True)
    assert database(settings).read_bytes() == before
    reopened = provenance_factory()
    assert reopened.indexed_through() == 1  # the added columns do not disturb the schema


def test_a_database_without_identity_probes_as_unmarked(
    provenance_factory: Any, settings: EngineSettings
) -> None:
    provenance_factory().close()
    (probe,) = DuckDbProvenanceRepository.probe(settings)
    assert (probe.identity, probe.holds_data, probe.indexed_through) == (None, False, -1)


def test_a_garbled_header_block_is_damage_at_open_and_in_the_probe(
    provenance_factory: Any, settings: EngineSettings
) -> None:
    provenance_factory().close()
    with open(database(settings), "r+b") as handle:
        handle.seek(100)
        handle.write(b"\xa5" * 512)
    (probe,) = DuckDbProvenanceRepository.probe(settings)
    assert probe.damaged is not None and "Corrupt" in probe.damaged
    with pytest.raises(RepositoryDamagedError, match="flowcore repair --data-dir") as damaged:
        provenance_factory()
    assert damaged.value.repository == "provenance"


def test_restart_at_continues_an_empty_database_after_the_given_event(
    provenance_factory: Any, journal: Any, event: Any, settings: EngineSettings
) -> None:
    DuckDbProvenanceRepository.restart_at(settings, 40)
    repository = provenance_factory()
    assert repository.indexed_through() == 39


def test_restart_at_refuses_a_database_holding_events(
    provenance_factory: Any, journal: Any, event: Any, settings: EngineSettings
) -> None:
    repository = provenance_factory()
    journal.append([event()])
    repository.index_pending()
    repository.close()
    with pytest.raises(RepositoryError, match="holds 1 events"):
        DuckDbProvenanceRepository.restart_at(settings, 40)


def test_a_database_in_use_is_unavailable_not_damaged(
    provenance_factory: Any, settings: EngineSettings
) -> None:
    provenance_factory()  # still open in this process
    with pytest.raises(RepositoryUnavailableError, match="in use"):
        DuckDbProvenanceRepository.probe(settings)
