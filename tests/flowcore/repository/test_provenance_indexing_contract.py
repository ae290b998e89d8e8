"""The provenance repository contract, indexing: batches, trimming, the crash window,
restart, truncation, age-off by time; against DuckDB and the in-memory twin."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from flowcore.errors import RepositoryError
from flowcore.model.provenance import ContentRef, ProvenanceEvent
from flowcore.repository import ProvenanceQuery

ALL = ProvenanceQuery(limit=1_000_000)


class TrimSpy:
    """Wraps a journal; records each trim with what the repository held at that moment."""

    def __init__(self, journal: Any) -> None:
        self.journal = journal
        self.repository: Any = None
        self.trims: list[tuple[int, int, bool]] = []
        self.fail_next_trim = False

    def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
        return self.journal.read_journal(after_event_id, limit)  # type: ignore[no-any-return]

    def trim_journal(self, through_event_id: int) -> int:
        if self.fail_next_trim:
            self.fail_next_trim = False
            raise OSError("simulated crash after the DuckDB commit, before the trim")
        if self.repository is not None:
            committed = self.repository.get_event(through_event_id) is not None
            self.trims.append((through_event_id, self.repository.indexed_through(), committed))
        return self.journal.trim_journal(through_event_id)  # type: ignore[no-any-return]


def append(journal: Any, event: Any, count: int, **fields: Any) -> list[ProvenanceEvent]:
    made = [
        event("CREATE", f"ff-{i}", event_time=1_700_000_000_000 + i, **fields) for i in range(count)
    ]
    return journal.append(made)  # type: ignore[no-any-return]


def ids(events: list[ProvenanceEvent]) -> list[int]:
    return [e.event_id for e in events]


def test_empty_repository(provenance_factory: Any) -> None:
    repository = provenance_factory()
    assert repository.indexed_through() == -1
    assert repository.event_count() == 0
    assert repository.index_pending() == 0
    assert repository.get_event(0) is None
    assert repository.search(ALL) == []


def test_index_pending_reads_batches_and_trims_only_after_each_commit(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    spy = TrimSpy(journal)
    repository = provenance_factory(journal=spy, index_batch_size=3)
    spy.repository = repository
    append(journal, event, 10)

    assert repository.index_pending() == 10

    # One trim per batch of three, each after its batch was committed and visible.
    assert spy.trims == [(2, 2, True), (5, 5, True), (8, 8, True), (9, 9, True)]
    assert journal.size() == 0
    assert repository.event_count() == 10
    assert repository.indexed_through() == 9
    assert repository.index_pending() == 0


def test_events_round_trip_with_every_field(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    repository = provenance_factory()
    full = event(
        "CONTENT_MODIFIED",
        "ff-a",
        event_time=1_700_000_000_123,
        component_id="proc-7",
        component_type="ReplaceText",
        entry_date=1_700_000_000_001,
        lineage_start_date=1_700_000_000_000,
        event_duration=42,
        parent_uuids=["p-1"],
        child_uuids=["c-1", "c-2"],
        previous_attributes={"filename": "a.txt", "gone": "x", "ünï": "çødé"},
        updated_attributes={"filename": "b.txt", "gone": None},
        previous_content=ContentRef("default", "12", "1700-1", 0, 10),
        current_content=ContentRef("default", "13", "1700-2", 512, 20),
        details="replaced 3 lines",
        relationship="success",
        transit_uri="file:///tmp/b.txt",
        source_system_flowfile_id="urn:nifi:abc",
        alternate_identifier="alt-1",
        source_queue_id="queue-1",
        size=20,
    )
    sparse = event("DROP", "ff-b")
    stored = journal.append([full, sparse])
    repository.index_pending()

    assert repository.get_event(stored[0].event_id) == stored[0]
    assert repository.get_event(stored[1].event_id) == stored[1]
    assert repository.get_event(stored[1].event_id + 1) is None


def test_crash_between_commit_and_trim_loses_and_duplicates_nothing(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    spy = TrimSpy(journal)
    repository = provenance_factory(journal=spy, index_batch_size=4)
    append(journal, event, 6)
    spy.fail_next_trim = True

    with pytest.raises(OSError, match="simulated crash"):
        repository.index_pending()
    # The first batch is committed in DuckDB but still in the journal.
    assert repository.indexed_through() == 3
    assert journal.size() == 6
    repository.close()

    reopened = provenance_factory(journal=spy)
    # Opening finishes the trim that the crash prevented.
    assert journal.size() == 2
    assert reopened.indexed_through() == 3
    assert reopened.index_pending() == 2
    assert ids(reopened.search(ALL)) == [5, 4, 3, 2, 1, 0]
    assert journal.size() == 0


class StaleJournal:
    """A journal that reads from ``after_event_id`` inclusive and never forgets."""

    def __init__(self, events: list[ProvenanceEvent]) -> None:
        self.events = events

    def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
        return [e for e in self.events if e.event_id >= after_event_id][:limit]

    def trim_journal(self, through_event_id: int) -> int:
        return 0


def test_events_at_or_below_indexed_through_are_never_stored_twice(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    stored = append(journal, event, 5)
    repository = provenance_factory(index_batch_size=3)
    repository.index_pending()
    repository.close()

    stale = StaleJournal(stored)
    reopened = provenance_factory(journal=stale, index_batch_size=3)
    assert reopened.index_pending() == 0
    assert reopened.event_count() == 5

    stale.events = [*stored, *append(journal, event, 2)]
    assert reopened.index_pending() == 2
    assert ids(reopened.search(ALL)) == [6, 5, 4, 3, 2, 1, 0]


def test_restart_keeps_the_max_event_id_and_new_events_continue(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    # NiFi testMaxEventIdRestored / testWriteAfterRecoveringRepo (spec section 6, 24).
    repository = provenance_factory(index_batch_size=7)
    append(journal, event, 20)
    repository.index_pending()
    repository.close()

    reopened = provenance_factory(index_batch_size=7)
    assert reopened.indexed_through() == 19
    assert reopened.event_count() == 20
    append(journal, event, 8)
    assert reopened.index_pending() == 8
    assert ids(reopened.search(ALL)) == list(range(27, -1, -1))


def test_restart_after_everything_aged_off_keeps_the_max_event_id(
    provenance_factory: Any, journal: Any, event: Any, clock: Any
) -> None:
    # NiFi testInitEmptyFile (spec section 6, 25): an empty store does not reset ids.
    repository = provenance_factory(max_storage_time="1 min")
    append(journal, event, 5)
    repository.index_pending()
    assert repository.age_off(clock.now_ms() + 3_600_000) == 5
    assert repository.event_count() == 0
    repository.close()

    reopened = provenance_factory()
    assert reopened.indexed_through() == 4
    append(journal, event, 1)
    reopened.index_pending()
    assert ids(reopened.search(ALL)) == [5]


def test_long_attribute_values_are_truncated_on_write(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    repository = provenance_factory(max_attribute_length=8)
    stored = journal.append(
        [
            event(
                "ATTRIBUTES_MODIFIED",
                "ff-1",
                previous_attributes={"long": "abcdefghijkl", "short": "abc", "exact": "12345678"},
                updated_attributes={"new": "zyxwvutsrqpo", "removed": None},
            )
        ]
    )
    repository.index_pending()

    found = repository.get_event(stored[0].event_id)
    assert found is not None
    assert found.previous_attributes == {"long": "abcdefgh", "short": "abc", "exact": "12345678"}
    assert found.updated_attributes == {"new": "zyxwvuts", "removed": None}
    hits = repository.search(ProvenanceQuery(attributes={"new": "zyxwvuts"}))
    assert ids(hits) == [stored[0].event_id]


def test_searches_run_while_another_thread_indexes(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    repository = provenance_factory(index_batch_size=5)
    rounds = 20
    failures: list[BaseException] = []
    done = threading.Event()

    def produce_and_index() -> None:
        try:
            for _ in range(rounds):
                append(journal, event, 7)
                repository.index_pending()
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(error)
        finally:
            done.set()

    writer = threading.Thread(target=produce_and_index)
    writer.start()
    seen = 0
    while not done.is_set():
        hits = repository.search(ProvenanceQuery(event_type="CREATE", limit=10_000))
        # Committed events only, newest first, without gaps, never fewer than before.
        assert ids(hits) == list(range(len(hits) - 1, -1, -1))
        assert len(hits) >= seen
        seen = len(hits)
    writer.join()
    assert failures == []
    assert repository.event_count() == rounds * 7
    assert repository.indexed_through() == rounds * 7 - 1


def test_closed_repository_refuses_work_and_closes_once(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    repository = provenance_factory()
    repository.close()
    repository.close()
    with pytest.raises(RepositoryError, match="closed"):
        repository.index_pending()
    with pytest.raises(RepositoryError, match="closed"):
        repository.search(ALL)


def test_age_off_by_time_removes_exactly_the_events_older_than_the_limit(
    provenance_factory: Any, journal: Any, event: Any, clock: Any
) -> None:
    hour_ms = 3_600_000
    repository = provenance_factory(max_storage_time="1 hour")
    start = clock.now_ms()
    journal.append(
        [
            event("CREATE", "old", event_time=start),
            event("FORK", "old", event_time=start + 1, parent_uuids=["old"], child_uuids=["kid"]),
            event("DROP", "kid", event_time=start + hour_ms),
            event("DROP", "new", event_time=start + 2 * hour_ms),
        ]
    )
    repository.index_pending()

    assert repository.age_off(clock.now_ms()) == 0
    clock.advance(2 * 3600)  # now = start + 2 h: the cutoff is start + 1 h
    assert repository.age_off(clock.now_ms()) == 2

    # Exactly at the cutoff is not older than the limit.
    assert ids(repository.search(ALL)) == [3, 2]
    assert repository.search(ProvenanceQuery(flowfile_uuid="old")) == []
    assert ids(repository.search(ProvenanceQuery(flowfile_uuid="kid"))) == [2]
    assert {n.id for n in repository.lineage("kid").nodes} == {"2"}
    assert repository.indexed_through() == 3
    assert repository.age_off(clock.now_ms()) == 0
