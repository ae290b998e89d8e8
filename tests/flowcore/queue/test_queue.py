"""Connection queues: order, prioritizers, penalties, back pressure and swapping."""

from __future__ import annotations

from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.errors import ConfigurationError
from flowcore.model import FlowFile
from flowcore.queue import BackPressure, FlowFileQueue, resolve_prioritizers
from flowcore.repository import QueuedFlowFile, RepositoryUpdate
from repos.lmdb_flowfile import LmdbFlowFileRepository


def record(
    queue: FlowFileQueue,
    ident: int,
    *,
    size: int = 0,
    entry: int = 0,
    penalty: int = 0,
    **attrs: str,
) -> QueuedFlowFile:
    flowfile = FlowFile(
        id=ident,
        attributes={"uuid": f"u{ident}", "filename": "f", "path": "./", **attrs},
        claim=None,
        claim_offset=0,
        size=size,
        entry_date=entry,
        lineage_start_date=0,
        penalty_expiration=penalty,
    )
    return QueuedFlowFile(queue.name, queue.next_seq(), flowfile)


def ids(records: list[QueuedFlowFile]) -> list[int]:
    return [r.flowfile.id for r in records]


def test_fifo_by_default() -> None:
    queue = FlowFileQueue("q")
    queue.put_all([record(queue, i) for i in (5, 3, 9)], now_ms=0)
    assert ids(queue.poll_batch(10, now_ms=0)) == [5, 3, 9]


@pytest.mark.parametrize(
    ("prioritizer", "expected"),
    [
        ("OldestFlowFileFirstPrioritizer", [2, 3, 1]),
        ("NewestFlowFileFirstPrioritizer", [1, 3, 2]),
        ("FirstInFirstOutPrioritizer", [1, 2, 3]),
    ],
)
def test_entry_date_prioritizers(prioritizer: str, expected: list[int]) -> None:
    queue = FlowFileQueue("q", prioritizers=resolve_prioritizers([prioritizer]))
    queue.put_all(
        [record(queue, 1, entry=30), record(queue, 2, entry=10), record(queue, 3, entry=20)],
        now_ms=0,
    )
    assert ids(queue.poll_batch(10, now_ms=0)) == expected


def test_priority_attribute_numbers_first_then_text_then_missing() -> None:
    queue = FlowFileQueue("q", prioritizers=resolve_prioritizers(["PriorityAttribute"]))
    queue.put_all(
        [
            record(queue, 1),
            record(queue, 2, priority="b"),
            record(queue, 3, priority="10"),
            record(queue, 4, priority="2"),
            record(queue, 5, priority="a"),
        ],
        now_ms=0,
    )
    assert ids(queue.poll_batch(10, now_ms=0)) == [4, 3, 5, 2, 1]


def test_unknown_prioritizer_is_a_clear_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown prioritizer 'Random'"):
        resolve_prioritizers(["Random"])


def test_penalized_flowfiles_wait_for_their_time() -> None:
    clock = ManualClock(start_ms=1_000)
    queue = FlowFileQueue("q")
    queue.put_all([record(queue, 1, penalty=6_000), record(queue, 2)], now_ms=clock.now_ms())
    assert ids(queue.poll_batch(10, clock.now_ms())) == [2]
    assert not queue.has_available(clock.now_ms())
    assert queue.next_penalty_expiration() == 6_000
    clock.advance(5)
    assert ids(queue.poll_batch(10, clock.now_ms())) == [1]


def test_back_pressure_counts_in_flight_flowfiles() -> None:
    queue = FlowFileQueue(
        "q", back_pressure=BackPressure(object_threshold=2, data_size_threshold=100)
    )
    queue.put_all([record(queue, 1, size=10)], now_ms=0)
    assert not queue.is_full()
    queue.put_all([record(queue, 2, size=10)], now_ms=0)
    assert queue.is_full()
    taken = queue.poll_batch(2, now_ms=0)
    assert queue.is_full(), "FlowFiles in a session still count"
    queue.acknowledge(taken)
    assert not queue.is_full() and queue.size == 0


def test_back_pressure_by_data_size() -> None:
    queue = FlowFileQueue(
        "q", back_pressure=BackPressure(object_threshold=0, data_size_threshold=100)
    )
    queue.put_all([record(queue, 1, size=99)], now_ms=0)
    assert not queue.is_full()
    queue.put_all([record(queue, 2, size=1)], now_ms=0)
    assert queue.is_full()


def test_requeue_puts_flowfiles_back_in_front_in_order() -> None:
    queue = FlowFileQueue("q")
    queue.put_all([record(queue, i) for i in range(4)], now_ms=0)
    taken = queue.poll_batch(2, now_ms=0)
    queue.requeue(taken, now_ms=0)
    assert ids(queue.poll_batch(10, now_ms=0)) == [0, 1, 2, 3]


@pytest.fixture
def lmdb_repo(settings: Any, closing: Any) -> LmdbFlowFileRepository:
    repo: LmdbFlowFileRepository = closing(LmdbFlowFileRepository(settings, ManualClock()))
    return repo


def test_swapping_keeps_fifo_order_and_memory_bounded(lmdb_repo: LmdbFlowFileRepository) -> None:
    queue = FlowFileQueue(
        "q",
        swap_threshold=100,
        swap_batch_size=40,
        swap_store=lmdb_repo,
        back_pressure=BackPressure(0, 0),
    )
    records = [record(queue, i) for i in range(300)]
    lmdb_repo.commit(RepositoryUpdate(puts=records))
    for start in range(0, 300, 10):
        queue.put_all(records[start : start + 10], now_ms=0)
    snapshot = queue.snapshot()
    assert snapshot.count == 300
    assert (snapshot.swap_batches, snapshot.swapped, snapshot.active) == (5, 200, 100)
    assert len(lmdb_repo.recover().queues["q"]) == 100
    out: list[int] = []
    while batch := queue.poll_batch(7, now_ms=0):
        out.extend(ids(batch))
        queue.acknowledge(batch)
    assert out == list(range(300))
    assert queue.size == 0


def test_restore_from_recovery_resumes_with_swapped_batches(
    lmdb_repo: LmdbFlowFileRepository,
) -> None:
    queue = FlowFileQueue("q", swap_threshold=10, swap_batch_size=10, swap_store=lmdb_repo)
    records = [record(queue, i) for i in range(35)]
    lmdb_repo.commit(RepositoryUpdate(puts=records))
    queue.put_all(records, now_ms=0)
    state = lmdb_repo.recover()
    again = FlowFileQueue("q", swap_threshold=10, swap_batch_size=10, swap_store=lmdb_repo)
    again.restore(state.queues["q"], state.swapped["q"], state.next_seq["q"])
    assert again.size == 35
    drained: list[int] = []
    while batch := again.poll_batch(100, now_ms=0):
        drained.extend(ids(batch))
    assert drained == list(range(35))
    assert again.next_seq() == 35
