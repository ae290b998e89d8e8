"""Events served from memory (``RecentEvents``) are exactly those in the LMDB journal.

The repository answers ``read_journal`` from the events it just committed when it can;
a second repository opened on the same directory has none in memory and reads LMDB.
Both must give the same events, for any start and limit, before and after trims.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from flowcore.clock import ManualClock
from flowcore.model import ContentRef, ProvenanceEvent
from flowcore.repository import RepositoryUpdate
from flowcore.settings import EngineSettings
from repos.lmdb_flowfile import LmdbFlowFileRepository
from repos.lmdb_flowfile.recent_events import RecentEvents


def event(number: int) -> ProvenanceEvent:
    return ProvenanceEvent(
        event_time=1_700_000_000_000 + number,
        event_type="CREATE" if number % 3 else "ATTRIBUTES_MODIFIED",
        flowfile_uuid=f"uuid-{number}",
        component_id="generate",
        component_type="GenerateFlowFile",
        updated_attributes={"uuid": f"uuid-{number}", "n": str(number)},
        current_content=ContentRef("0", "1", f"claim-{number // 10}", number % 10, 1),
        size=1,
    )


def numbered(first: int, count: int) -> list[ProvenanceEvent]:
    events = [event(n) for n in range(first, first + count)]
    for offset, made in enumerate(events):
        made.event_id = first + offset
    return events


# -- RecentEvents alone ------------------------------------------------------------------


def test_reads_are_slices_of_what_is_held_and_none_before_it() -> None:
    recent = RecentEvents(capacity=100)
    assert recent.read(-1, 10) is None  # nothing held: read the journal
    recent.add(numbered(5, 3))
    recent.add(numbered(8, 2))
    assert [e.event_id for e in recent.read(4, 10) or []] == [5, 6, 7, 8, 9]
    assert [e.event_id for e in recent.read(6, 2) or []] == [7, 8]
    assert recent.read(9, 10) == []  # caught up: nothing newer exists
    assert recent.read(3, 10) is None  # event 4 is not held


def test_capacity_keeps_the_newest_and_trim_forgets_the_oldest() -> None:
    recent = RecentEvents(capacity=4)
    recent.add(numbered(0, 6))
    assert len(recent) == 4
    assert recent.read(0, 10) is None  # 1 was dropped
    assert [e.event_id for e in recent.read(1, 10) or []] == [2, 3, 4, 5]
    recent.trim(3)
    assert [e.event_id for e in recent.read(3, 10) or []] == [4, 5]
    recent.trim(9)
    assert len(recent) == 0
    recent.add(numbered(6, 1))  # still contiguous with what was trimmed
    assert [e.event_id for e in recent.read(5, 10) or []] == [6]


def test_a_gap_starts_over_from_the_new_events() -> None:
    recent = RecentEvents(capacity=10)
    recent.add(numbered(0, 2))
    recent.add(numbered(5, 2))
    assert recent.read(0, 10) is None
    assert [e.event_id for e in recent.read(4, 10) or []] == [5, 6]


# -- in the repository ---------------------------------------------------------------------


@pytest.fixture
def settings(tmp_path: Path) -> EngineSettings:
    return EngineSettings(data_dir=tmp_path)


def test_reads_from_memory_equal_reads_from_lmdb(
    settings: EngineSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("repos.lmdb_flowfile.repository.RECENT_EVENTS", 25)
    repo = LmdbFlowFileRepository(settings, ManualClock())
    stored = repo._read_stored_journal
    try:
        for size in (7, 1, 12, 9, 4):  # 33 events: the first 8 no longer held
            repo.commit(RepositoryUpdate(events=[event(n) for n in range(size)]))
        for after in (-1, 0, 7, 8, 20, 31, 32, 40):
            for limit in (1, 5, 100):
                read = repo.read_journal(after, limit)
                assert read == stored(after, limit), (after, limit)
                assert [e.event_id for e in read] == list(
                    range(after + 1, min(after + 1 + limit, 33))
                )
        repo.trim_journal(20)
        assert repo.read_journal(-1, 100) == stored(-1, 100)
        assert [e.event_id for e in repo.read_journal(-1, 100)] == list(range(21, 33))
    finally:
        repo.close()

    reopened = LmdbFlowFileRepository(settings, ManualClock())  # nothing in memory
    try:
        assert [e.event_id for e in reopened.read_journal(-1, 100)] == list(range(21, 33))
    finally:
        reopened.close()


def test_a_failed_commit_puts_nothing_in_memory(settings: EngineSettings) -> None:
    small = settings.model_copy(
        update={
            "flowfile_repository": settings.flowfile_repository.model_copy(
                update={"map_size": "64 KB", "max_map_size": "64 KB"}
            )
        }
    )
    repo = LmdbFlowFileRepository(small, ManualClock())
    try:
        repo.commit(RepositoryUpdate(events=[event(0)]))
        with pytest.raises(Exception, match="full"):
            repo.commit(RepositoryUpdate(events=[event(n) for n in range(1, 2000)]))
        assert [e.event_id for e in repo.read_journal(-1, 10)] == [0]
        repo.commit(RepositoryUpdate(events=[event(7)]))
        assert [(e.event_id, e.flowfile_uuid) for e in repo.read_journal(-1, 10)] == [
            (0, "uuid-0"),
            (1, "uuid-7"),
        ]
    finally:
        repo.close()
