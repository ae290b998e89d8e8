"""Age-off by maximum storage time and by maximum storage size."""

from __future__ import annotations

import random
from typing import Any

import pytest

from flowcore.repository import ProvenanceQuery
from repos.duckdb_provenance import DuckDbProvenanceRepository
from tests.repos.duckdb_provenance.uuid_keys import keyed, uuid_key_rows

ALL = ProvenanceQuery(limit=1_000_000)
HOUR_MS = 3_600_000


def test_age_off_by_time_removes_exactly_the_events_older_than_the_limit(
    provenance_factory: Any, journal: Any, event: Any, clock: Any, settings: Any
) -> None:
    repository = provenance_factory(max_storage_time="1 hour")
    start = clock.now_ms()
    journal.append(
        [
            event("CREATE", "old", event_time=start),
            event("FORK", "old", event_time=start + 1, parent_uuids=["old"], child_uuids=["kid"]),
            event("DROP", "kid", event_time=start + HOUR_MS),
            event("DROP", "new", event_time=start + 2 * HOUR_MS),
        ]
    )
    repository.index_pending()

    assert repository.age_off(clock.now_ms()) == 0
    clock.advance(2 * 3600)  # now = start + 2 h: the cutoff is start + 1 h
    assert repository.age_off(clock.now_ms()) == 2

    # Exactly at the cutoff is not older than the limit.
    assert [e.event_id for e in repository.search(ALL)] == [3, 2]
    assert repository.search(ProvenanceQuery(flowfile_uuid="old")) == []
    assert [e.event_id for e in repository.search(ProvenanceQuery(flowfile_uuid="kid"))] == [2]
    assert {n.id for n in repository.lineage("kid").nodes} == {"2"}
    assert repository.indexed_through() == 3
    assert repository.age_off(clock.now_ms()) == 0
    repository.close()

    # The uuid key rows of the removed events went with them.
    path = settings.provenance_dir / "provenance.duckdb"
    assert uuid_key_rows(path) == keyed([("kid", 2), ("new", 3)])


def test_age_off_by_size_drops_the_oldest_events_until_the_store_fits(
    provenance_factory: Any,
    journal: Any,
    event: Any,
    clock: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Small row groups, so that a few megabytes span many of them: DuckDB gives space
    # back a whole row group at a time.
    monkeypatch.setattr(DuckDbProvenanceRepository, "row_group_rows", 2048)
    repository: Any = provenance_factory(max_storage_size="6 MB", index_batch_size=4096)
    rng = random.Random(5)
    total = 8 * 2048
    journal.append(
        [
            # Random text does not compress: about 1 KB per event once stored.
            event("CREATE", f"ff-{i}", event_time=clock.now_ms(), details=rng.randbytes(1000).hex())
            for i in range(total)
        ]
    )
    repository.index_pending()
    assert repository.storage_bytes() > 12 * 1024 * 1024

    removed = repository.age_off(clock.now_ms())

    assert repository.storage_bytes() <= 6 * 1024 * 1024
    remaining = [e.event_id for e in repository.search(ALL)]
    assert removed + len(remaining) == total
    # The oldest went first; no more than needed plus one round of rounding went.
    assert remaining == list(range(total - 1, removed - 1, -1))
    assert 4 * 2048 <= removed <= 7 * 2048
    assert repository.search(ProvenanceQuery(flowfile_uuid="ff-0")) == []
    assert repository.indexed_through() == total - 1
    assert repository.age_off(clock.now_ms()) == 0


def test_age_off_by_size_empties_a_store_smaller_than_its_smallest_footprint(
    provenance_factory: Any, journal: Any, event: Any, clock: Any
) -> None:
    repository = provenance_factory(max_storage_size="1 KB")
    journal.append([event("CREATE", f"ff-{i}") for i in range(10)])
    repository.index_pending()
    assert repository.age_off(clock.now_ms()) == 10
    assert repository.event_count() == 0
    assert repository.indexed_through() == 9
