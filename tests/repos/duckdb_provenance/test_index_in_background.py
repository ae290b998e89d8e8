"""``index_pending(wait=False)``: the last transaction is stored in the background and
settled (waited for, then the journal trimmed) by the next call, a reader, or close."""

from __future__ import annotations

from typing import Any

import pytest

from flowcore.errors import RepositoryError
from flowcore.repository import ProvenanceQuery
from repos.duckdb_provenance.store import ProvenanceStore

ALL = ProvenanceQuery(limit=10_000)


def creates(journal: Any, event: Any, count: int, start: int = 0) -> None:
    journal.append([event("CREATE", f"ff-{start + i}") for i in range(count)])


def test_the_next_call_settles_and_counts_the_background_transaction(
    journal: Any, event: Any, provenance_factory: Any
) -> None:
    repository = provenance_factory()
    creates(journal, event, 40)

    first = repository.index_pending(wait=False)

    assert first == 0  # the one transaction is still being stored: nothing trimmed yet
    assert journal.size() == 40
    creates(journal, event, 5, start=40)
    assert repository.index_pending() == 45
    assert journal.size() == 0
    assert sorted(e.event_id for e in repository.search(ALL)) == list(range(45))


def test_a_reader_sees_the_background_transaction_whole(
    journal: Any, event: Any, provenance_factory: Any
) -> None:
    repository = provenance_factory()
    creates(journal, event, 30)
    repository.index_pending(wait=False)

    assert repository.indexed_through() == 29
    assert repository.event_count() == 30
    assert journal.size() == 0  # settled by the reader: trimmed after the commit


def test_close_settles_the_background_transaction(
    journal: Any, event: Any, provenance_factory: Any
) -> None:
    repository = provenance_factory()
    creates(journal, event, 25)
    repository.index_pending(wait=False)
    repository.close()

    assert journal.size() == 0
    reopened = provenance_factory()
    assert reopened.event_count() == 25 and reopened.indexed_through() == 24


def test_a_failed_background_transaction_is_raised_next_and_loses_nothing(
    journal: Any, event: Any, provenance_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repository = provenance_factory()
    creates(journal, event, 20)
    commit = ProvenanceStore.commit
    failures = iter([True])

    def failing_once(store: ProvenanceStore) -> int:
        if next(failures, False):
            raise RepositoryError("simulated: the disk is full at the commit")
        return commit(store)

    monkeypatch.setattr(ProvenanceStore, "commit", failing_once)
    assert repository.index_pending(wait=False) == 0

    with pytest.raises(RepositoryError):
        repository.index_pending()
    assert journal.size() == 20  # rolled back: nothing trimmed, nothing stored
    assert repository.index_pending() == 20
    assert sorted(e.event_id for e in repository.search(ALL)) == list(range(20))
    assert journal.size() == 0


def test_a_call_that_does_not_wait_starts_one_batch_and_leaves_the_rest(
    journal: Any, event: Any, provenance_factory: Any
) -> None:
    repository = provenance_factory(index_batch_size=10)
    creates(journal, event, 35)

    assert repository.index_pending(wait=False) == 0

    assert repository.event_count() == 10  # the reader settles the one transaction
    assert journal.size() == 25
    assert repository.index_pending() == 25
    assert sorted(e.event_id for e in repository.search(ALL)) == list(range(35))


def test_a_call_that_does_not_wait_takes_nothing_while_less_than_a_batch_follows(
    journal: Any, event: Any, provenance_factory: Any
) -> None:
    repository = provenance_factory(index_batch_size=10)
    creates(journal, event, 10)
    repository.index_pending(wait=False)
    creates(journal, event, 9, start=10)

    assert repository.index_pending(wait=False) == 0  # nine beyond the ten in flight
    assert journal.size() == 19  # nothing settled, nothing taken
    creates(journal, event, 1, start=19)
    assert repository.index_pending(wait=False) == 10  # a batch more: the first settles
    assert journal.size() == 10
    assert repository.indexed_through() == 19  # the reader settles the second
    assert journal.size() == 0
