"""Fixtures for the DuckDB provenance repository's own tests (the contract every
provenance repository keeps is in ``tests/flowcore/repository/``).

The repository reads events from a ``ProvenanceJournal``. Every test runs against each
journal in ``JOURNALS``: a small in-memory one and the real journal of the LMDB FlowFile
repository. Both assign event ids on append, as the FlowFile repository does inside its
commit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

import msgspec
import pytest

from flowcore.clock import ManualClock
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository import FlowFileRepository, ProvenanceRepository
from flowcore.repository.registry import load_repository_class
from tests.flowcore.repository.journal import FlowFileRepositoryJournal


class JournalDriver(Protocol):
    """A ``ProvenanceJournal`` that tests can also append to and measure."""

    def append(self, events: Sequence[ProvenanceEvent]) -> list[ProvenanceEvent]:
        """Journal ``events``; returns them with their assigned ids."""
        ...

    def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]: ...

    def trim_journal(self, through_event_id: int) -> int: ...

    def size(self) -> int: ...


class MemoryJournal:
    """The journal kept in a dict, ids assigned from 0 on append."""

    def __init__(self) -> None:
        self._events: dict[int, ProvenanceEvent] = {}
        self._next_id = 0
        self._lock = threading.Lock()

    def append(self, events: Sequence[ProvenanceEvent]) -> list[ProvenanceEvent]:
        stored = []
        with self._lock:
            for event in events:
                copy = msgspec.structs.replace(event, event_id=self._next_id)
                self._events[self._next_id] = copy
                self._next_id += 1
                stored.append(copy)
        return stored

    def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
        with self._lock:
            ids = sorted(i for i in self._events if i > after_event_id)[:limit]
            return [self._events[i] for i in ids]

    def trim_journal(self, through_event_id: int) -> int:
        with self._lock:
            doomed = [i for i in self._events if i <= through_event_id]
            for event_id in doomed:
                del self._events[event_id]
            return len(doomed)

    def size(self) -> int:
        with self._lock:
            return len(self._events)

    def journal_size(self) -> int:
        return self.size()


JOURNALS = ["memory", "lmdb"]
JournalFactory = Callable[[], JournalDriver]
ProvenanceFactory = Callable[..., ProvenanceRepository]


@pytest.fixture(params=JOURNALS)
def journal_factory(
    request: pytest.FixtureRequest, settings_factory: Any, closing: Any
) -> JournalFactory:
    """Make an empty journal of the parametrised kind."""

    def build() -> JournalDriver:
        if request.param == "memory":
            return MemoryJournal()
        cls = load_repository_class(request.param)
        repository: FlowFileRepository = closing(cls(settings_factory(), ManualClock()))
        return FlowFileRepositoryJournal(repository)

    return build


@pytest.fixture
def journal(journal_factory: JournalFactory) -> JournalDriver:
    return journal_factory()


@pytest.fixture
def provenance_factory(
    journal: JournalDriver, settings_factory: Any, clock: ManualClock
) -> Iterator[ProvenanceFactory]:
    """Open the DuckDB provenance repository under tmp_path.

    ``journal`` defaults to the test's journal; keyword arguments override
    ``settings.provenance`` fields. Opening again reopens the same directory.
    Repositories still open at the end of the test are closed.
    """
    default_journal = journal
    opened: list[ProvenanceRepository] = []

    def build(journal: Any = None, **provenance: Any) -> ProvenanceRepository:
        settings = settings_factory(provenance={"implementation": "duckdb", **provenance})
        cls = load_repository_class("duckdb")
        repository: ProvenanceRepository = cls(
            settings, clock, default_journal if journal is None else journal
        )
        opened.append(repository)
        return repository

    yield build
    for repository in reversed(opened):
        repository.close()
