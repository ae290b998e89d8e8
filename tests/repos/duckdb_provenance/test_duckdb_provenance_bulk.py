"""Bulk indexing: a large backlog shares transactions of whole row groups.

Row groups are made as small as DuckDB allows here (2,048 rows), so a backlog of a few
thousand events takes the bulk path that a real store takes from 122,880 events on.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

from flowcore.errors import RepositoryError
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository import ProvenanceQuery
from repos.duckdb_provenance import DuckDbProvenanceRepository
from repos.duckdb_provenance.arrow_batch import build_batch, merge_batches, split_batch
from repos.duckdb_provenance.store import ProvenanceStore
from tests.repos.duckdb_provenance.uuid_keys import keyed, uuid_key_rows

ALL = ProvenanceQuery(limit=1_000_000)
ROWS = 2048  # rows per row group in these tests; bulk transactions hold 2 * ROWS events
BATCH = 300  # journal batch size: bulk transactions end inside a batch


@pytest.fixture(autouse=True)
def tiny_row_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(DuckDbProvenanceRepository, "row_group_rows", ROWS)


class TrimSpy:
    """Wraps a journal; records each trim with the repository's state at that moment."""

    def __init__(self, journal: Any) -> None:
        self.journal = journal
        self.repository: Any = None
        self.trims: list[tuple[int, int, int]] = []
        self.reads = 0
        self.fail_read_after: int | None = None
        self.fail_next_trim = False

    def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
        self.reads += 1
        if self.fail_read_after is not None and after_event_id >= self.fail_read_after:
            self.fail_read_after = None
            raise OSError("simulated journal read failure")
        return self.journal.read_journal(after_event_id, limit)  # type: ignore[no-any-return]

    def trim_journal(self, through_event_id: int) -> int:
        if self.fail_next_trim:
            self.fail_next_trim = False
            raise OSError("simulated crash after the DuckDB commit, before the trim")
        if self.repository is not None:
            self.trims.append(
                (through_event_id, self.repository.indexed_through(), self.repository.event_count())
            )
        return self.journal.trim_journal(through_event_id)  # type: ignore[no-any-return]


def flow(journal: Any, event: Any, count: int) -> list[ProvenanceEvent]:
    """``count`` events; every third one forks its FlowFile into two children."""
    made = []
    for i in range(count):
        if i % 3 == 2:
            made.append(
                event("FORK", f"ff-{i}", parent_uuids=[f"ff-{i}"], child_uuids=[f"a-{i}", f"b-{i}"])
            )
        else:
            made.append(event("CREATE", f"ff-{i}", event_time=1_700_000_000_000 + i))
    return journal.append(made)  # type: ignore[no-any-return]


def uuid_rows(settings: Any) -> list[tuple[int, int]]:
    return uuid_key_rows(settings.provenance_dir / "provenance.duckdb")


def expected_uuid_rows(count: int) -> list[tuple[int, int]]:
    rows: list[tuple[str, int]] = []
    for i in range(count):
        names = [f"a-{i}", f"b-{i}", f"ff-{i}"] if i % 3 == 2 else [f"ff-{i}"]
        rows.extend((name, i) for name in names)
    return keyed(rows)


def row_group_sizes(settings: Any) -> list[int]:
    path = settings.provenance_dir / "provenance.duckdb"
    with duckdb.connect(str(path), read_only=True) as database:
        rows = database.execute(
            "SELECT row_group_id, sum(count) FROM pragma_storage_info('provenance_events') "
            "WHERE column_name = 'event_id' AND segment_type <> 'VALIDITY' "
            "GROUP BY row_group_id ORDER BY row_group_id"
        ).fetchall()
    return [int(count) for _, count in rows]


def test_a_large_backlog_is_indexed_in_transactions_of_whole_row_groups(
    provenance_factory: Any, journal: Any, event: Any, settings: Any
) -> None:
    spy = TrimSpy(journal)
    repository = provenance_factory(journal=spy, index_batch_size=BATCH)
    spy.repository = repository
    total = 3 * 2 * ROWS + 1000
    flow(journal, event, total)

    assert repository.index_pending() == total

    # Two row groups per transaction while the backlog lasts (batches split at the end),
    # then one batch per transaction; each trim follows its commit, which holds every
    # event up to that point and no more.
    throughs = [through for through, _, _ in spy.trims]
    assert throughs[:3] == [2 * ROWS - 1, 4 * ROWS - 1, 6 * ROWS - 1]
    assert throughs[-1] == total - 1
    assert all(0 < b - a <= BATCH for a, b in itertools.pairwise(throughs[3:]))
    assert spy.trims == [(through, through, through + 1) for through in throughs]
    assert journal.size() == 0
    assert [e.event_id for e in repository.search(ALL)] == list(range(total - 1, -1, -1))
    assert [e.event_id for e in repository.search(ProvenanceQuery(flowfile_uuid="b-4097"))] == [
        4097
    ]
    repository.close()
    assert uuid_rows(settings) == expected_uuid_rows(total)
    # The bulk transactions left whole row groups; the small ones filled the last.
    assert row_group_sizes(settings) == [ROWS] * 6 + [1000]


def test_a_small_backlog_keeps_one_transaction_per_batch(
    provenance_factory: Any, journal: Any, event: Any
) -> None:
    spy = TrimSpy(journal)
    repository = provenance_factory(journal=spy, index_batch_size=BATCH)
    spy.repository = repository
    total = ROWS - 1  # less than a row group: the probe one row group ahead finds nothing
    flow(journal, event, total)

    assert repository.index_pending() == total
    assert [through for through, _, _ in spy.trims] == [
        *range(BATCH - 1, total - 1, BATCH),
        total - 1,
    ]


def test_crash_between_a_bulk_commit_and_its_trim_loses_and_duplicates_nothing(
    provenance_factory: Any, journal: Any, event: Any, settings: Any
) -> None:
    spy = TrimSpy(journal)
    repository = provenance_factory(journal=spy, index_batch_size=BATCH)
    total = 3 * ROWS
    flow(journal, event, total)
    spy.fail_next_trim = True

    with pytest.raises(OSError, match="simulated crash"):
        repository.index_pending()
    assert repository.indexed_through() == 2 * ROWS - 1
    assert repository.event_count() == 2 * ROWS
    assert journal.size() == total
    repository.close()

    reopened = provenance_factory(journal=spy, index_batch_size=BATCH)
    assert journal.size() == total - 2 * ROWS
    assert reopened.index_pending() == total - 2 * ROWS
    assert [e.event_id for e in reopened.search(ALL)] == list(range(total - 1, -1, -1))
    reopened.close()
    assert uuid_rows(settings) == expected_uuid_rows(total)


def test_a_failure_inside_a_bulk_transaction_rolls_all_of_it_back(
    provenance_factory: Any, journal: Any, event: Any, settings: Any
) -> None:
    spy = TrimSpy(journal)
    repository = provenance_factory(journal=spy, index_batch_size=BATCH)
    spy.repository = repository
    total = 5 * ROWS
    flow(journal, event, total)
    # Fails in the middle of the second bulk transaction, with batches of it inserted.
    spy.fail_read_after = 3 * ROWS

    with pytest.raises(OSError, match="simulated journal read failure"):
        repository.index_pending()
    assert repository.indexed_through() == 2 * ROWS - 1
    assert repository.event_count() == 2 * ROWS
    assert spy.trims == [(2 * ROWS - 1, 2 * ROWS - 1, 2 * ROWS)]
    assert journal.size() == total - 2 * ROWS

    assert repository.index_pending() == total - 2 * ROWS
    assert [e.event_id for e in repository.search(ALL)] == list(range(total - 1, -1, -1))
    repository.close()
    assert uuid_rows(settings) == expected_uuid_rows(total)


def test_a_database_failure_inside_a_bulk_transaction_rolls_it_back(
    provenance_factory: Any, journal: Any, event: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repository = provenance_factory(index_batch_size=BATCH)
    total = 5 * ROWS
    flow(journal, event, total)
    real_append = ProvenanceStore.append

    def failing_append(store: ProvenanceStore, batch: Any) -> None:
        if batch.max_event_id > 3 * ROWS:
            raise duckdb.IOException("simulated disk failure")
        real_append(store, batch)

    monkeypatch.setattr(ProvenanceStore, "append", failing_append)
    with pytest.raises(duckdb.IOException, match="simulated disk failure"):
        repository.index_pending()
    assert repository.indexed_through() == 2 * ROWS - 1
    assert repository.event_count() == 2 * ROWS
    assert journal.size() == total - 2 * ROWS

    monkeypatch.setattr(ProvenanceStore, "append", real_append)
    assert repository.index_pending() == total - 2 * ROWS
    assert [e.event_id for e in repository.search(ALL)] == list(range(total - 1, -1, -1))


def test_store_transactions_refuse_misuse(tmp_path: Any, event: Any) -> None:
    store = ProvenanceStore(tmp_path / "p.duckdb", ROWS)
    events = [
        ProvenanceEvent(**{**_fields(event("CREATE", f"ff-{i}")), "event_id": i}) for i in range(6)
    ]
    first, second = build_batch(events[:3], 100), build_batch(events[3:], 100)
    try:
        with pytest.raises(RepositoryError, match="no provenance indexing transaction"):
            store.append(first)
        store.begin()
        with pytest.raises(RepositoryError, match="already open"):
            store.begin()
        store.append(first)
        with pytest.raises(RepositoryError, match="at or below event 2"):
            store.append(first)
        with pytest.raises(RepositoryError, match="rolled back"):
            store.append(second)  # the duplicate abandoned the transaction
        store.rollback()
        assert store.indexed_through == -1
        store.begin()
        store.append(first)
        store.append(second)
        assert store.commit() == 5
        assert store.indexed_through == 5
        assert store.fetch_one("SELECT count(*) FROM provenance_db.main.provenance_events") == (6,)
    finally:
        store.close()


def _fields(made: ProvenanceEvent) -> dict[str, Any]:
    return {name: getattr(made, name) for name in made.__struct_fields__}


def test_split_and_merge_keep_each_event_with_its_id(event: Any) -> None:
    events = [
        ProvenanceEvent(
            **{
                **_fields(event("FORK", f"ff-{i}", child_uuids=[f"c-{i}"], parent_uuids=["p"])),
                "event_id": 10 + i,
            }
        )
        for i in range(5)
    ]
    batch = build_batch(events, 100)
    head, tail = split_batch(batch, 2)
    assert (head.min_event_id, head.max_event_id, head.rows) == (10, 11, 2)
    assert (tail.min_event_id, tail.max_event_id, tail.rows) == (12, 14, 3)
    assert head.events.column("event_id").to_pylist() == [10, 11]
    assert tail.events.column("event_id").to_pylist() == [12, 13, 14]
    assert [
        json.loads(text)["flowfile_uuid"] for text in tail.events.column("event").to_pylist()
    ] == [
        "ff-2",
        "ff-3",
        "ff-4",
    ]
    merged = merge_batches([head, tail])
    assert merged.events.to_pylist() == batch.events.to_pylist()
    assert (merged.min_event_id, merged.max_event_id) == (10, 14)


_CRASHING_INDEXER = """
import os, sys
from flowcore.clock import ManualClock
from flowcore.model.provenance import ProvenanceEvent
from flowcore.settings import EngineSettings
from repos.duckdb_provenance import DuckDbProvenanceRepository

class Journal:
    def __init__(self, events):
        self.events = events
    def read_journal(self, after_event_id, limit):
        return [e for e in self.events if e.event_id > after_event_id][:limit]
    def trim_journal(self, through_event_id):
        return 0

DuckDbProvenanceRepository.row_group_rows = 2048
events = [
    ProvenanceEvent(
        event_id=i, event_time=1_700_000_000_000 + i, event_type="FORK",
        flowfile_uuid=f"ff-{i}", component_id="c", component_type="T",
        child_uuids=[f"kid-{i}"],
    )
    for i in range(int(sys.argv[2]))
]
settings = EngineSettings.model_validate(
    {"data_dir": sys.argv[1], "provenance": {"implementation": "duckdb", "index_batch_size": 300}}
)
repository = DuckDbProvenanceRepository(settings, ManualClock(), Journal(events))
repository.index_pending()
os._exit(0)  # killed: no close, no checkpoint; the commits are in DuckDB's WAL only
"""


def test_bulk_transactions_survive_a_crash_before_any_checkpoint(
    tmp_path: Path, provenance_factory: Any, settings_factory: Any
) -> None:
    total = 5 * ROWS + 123
    data_dir = settings_factory().data_dir
    script = tmp_path / "crash.py"
    script.write_text(_CRASHING_INDEXER)
    root = str(Path(__file__).resolve().parents[3])
    subprocess.run(
        [sys.executable, str(script), str(data_dir), str(total)],
        check=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": root},
    )

    class Empty:
        def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
            return []

        def trim_journal(self, through_event_id: int) -> int:
            return 0

    reopened = provenance_factory(journal=Empty())
    assert reopened.indexed_through() == total - 1
    assert reopened.event_count() == total
    for i in (0, 2 * ROWS - 1, 2 * ROWS, 4 * ROWS + 7, total - 1):
        found = reopened.search(ProvenanceQuery(flowfile_uuid=f"kid-{i}"))
        assert [e.event_id for e in found] == [i]
        assert {n.id for n in reopened.lineage(f"ff-{i}").nodes} >= {str(i)}
