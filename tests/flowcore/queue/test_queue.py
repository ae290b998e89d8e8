"""Connection queues: order, prioritizers, penalties, back pressure and swapping."""

from __future__ import annotations

import threading

import pytest

from flowcore.clock import ManualClock
from flowcore.errors import CommitFailedError, ConfigurationError
from flowcore.model import FlowFile
from flowcore.queue import BackPressure, FlowFileQueue, PutPlan, resolve_prioritizers
from flowcore.repository import QueuedFlowFile, SwapOut, SwapSummary


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


def put(queue: FlowFileQueue, records: list[QueuedFlowFile], now_ms: int) -> None:
    """Enqueue committed FlowFiles as the commit path does (no swap store: no batch)."""
    queue.complete_put(queue.plan_put(records), [], now_ms)


def ids(records: list[QueuedFlowFile]) -> list[int]:
    return [r.flowfile.id for r in records]


def test_fifo_by_default() -> None:
    queue = FlowFileQueue("q")
    put(queue, [record(queue, i) for i in (5, 3, 9)], now_ms=0)
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
    put(
        queue,
        [record(queue, 1, entry=30), record(queue, 2, entry=10), record(queue, 3, entry=20)],
        now_ms=0,
    )
    assert ids(queue.poll_batch(10, now_ms=0)) == expected


def test_priority_attribute_numbers_first_then_text_then_missing() -> None:
    queue = FlowFileQueue("q", prioritizers=resolve_prioritizers(["PriorityAttribute"]))
    put(
        queue,
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


@pytest.mark.parametrize(
    ("prioritizers", "expected"),
    [
        ([], [[0], [1, 2], [3, 4], [5, 6]]),
        (["NewestFlowFileFirstPrioritizer"], [[6, 5, 4, 3], [2, 1], [0], []]),
    ],
)
def test_a_size_limited_poll_takes_in_order_while_under_the_bytes(
    prioritizers: list[str], expected: list[list[int]]
) -> None:
    """As NiFi's size-based filter: the first is always taken, then more while the ones
    taken hold fewer bytes than the limit; the count limit still holds."""
    queue = FlowFileQueue("q", prioritizers=resolve_prioritizers(prioritizers))
    sizes = [400, 50, 30, 900, 10, 10, 10]
    put(queue, [record(queue, i, size=s, entry=i) for i, s in enumerate(sizes)], now_ms=0)
    polls = [(10, 100), (10, 70), (2, 10_000), (10, 10_000)]
    taken = [ids(queue.poll_batch(n, now_ms=0, max_bytes=b)) for n, b in polls]
    assert taken == expected
    assert queue.poll_batch(10, now_ms=0, max_bytes=10_000) == []


def test_unknown_prioritizer_is_a_clear_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown prioritizer 'Random'"):
        resolve_prioritizers(["Random"])


def test_penalized_flowfiles_wait_for_their_time() -> None:
    clock = ManualClock(start_ms=1_000)
    queue = FlowFileQueue("q")
    put(queue, [record(queue, 1, penalty=6_000), record(queue, 2)], now_ms=clock.now_ms())
    assert ids(queue.poll_batch(10, clock.now_ms())) == [2]
    assert not queue.has_available(clock.now_ms())
    assert queue.next_penalty_expiration() == 6_000
    clock.advance(5)
    assert ids(queue.poll_batch(10, clock.now_ms())) == [1]


def test_back_pressure_counts_in_flight_flowfiles() -> None:
    queue = FlowFileQueue(
        "q", back_pressure=BackPressure(object_threshold=2, data_size_threshold=100)
    )
    put(queue, [record(queue, 1, size=10)], now_ms=0)
    assert not queue.is_full()
    put(queue, [record(queue, 2, size=10)], now_ms=0)
    assert queue.is_full()
    taken = queue.poll_batch(2, now_ms=0)
    assert queue.is_full(), "FlowFiles in a session still count"
    queue.acknowledge(taken)
    assert not queue.is_full() and queue.size == 0


def test_back_pressure_by_data_size() -> None:
    queue = FlowFileQueue(
        "q", back_pressure=BackPressure(object_threshold=0, data_size_threshold=100)
    )
    put(queue, [record(queue, 1, size=99)], now_ms=0)
    assert not queue.is_full()
    put(queue, [record(queue, 2, size=1)], now_ms=0)
    assert queue.is_full()


def test_requeue_puts_flowfiles_back_in_front_in_order() -> None:
    queue = FlowFileQueue("q")
    put(queue, [record(queue, i) for i in range(4)], now_ms=0)
    taken = queue.poll_batch(2, now_ms=0)
    queue.requeue(taken, now_ms=0)
    assert ids(queue.poll_batch(10, now_ms=0)) == [0, 1, 2, 3]


class MemorySwapStore:
    """A swap store in memory: what the FlowFile repository does with ``swap_outs``."""

    def __init__(self) -> None:
        self.batches: dict[str, list[QueuedFlowFile]] = {}

    def write(self, swap_outs: list[SwapOut]) -> list[SwapSummary]:
        summaries = []
        for swap in swap_outs:
            location = f"{swap.queue}/{len(self.batches)}"
            self.batches[location] = list(swap.records)
            summaries.append(
                SwapSummary(
                    queue=swap.queue,
                    location=location,
                    count=len(swap.records),
                    total_bytes=sum(r.flowfile.size for r in swap.records),
                    max_flowfile_id=max(r.flowfile.id for r in swap.records),
                    min_seq=min(r.seq for r in swap.records),
                    max_seq=max(r.seq for r in swap.records),
                    resource_claims=[],
                )
            )
        return summaries

    def swap_in(self, summary: SwapSummary) -> list[QueuedFlowFile]:
        return self.batches.pop(summary.location)


def commit_put(queue: FlowFileQueue, records: list[QueuedFlowFile], store: MemorySwapStore) -> None:
    """What the commit path does: plan, write the batches, complete."""
    plan = queue.plan_put(records)
    queue.complete_put(plan, store.write(plan.swap_outs()), now_ms=0)


def swapping_queue(store: MemorySwapStore, threshold: int, batch: int) -> FlowFileQueue:
    return FlowFileQueue(
        "q",
        swap_threshold=threshold,
        swap_batch_size=batch,
        swap_store=store,
        back_pressure=BackPressure(0, 0),
    )


def drain(queue: FlowFileQueue, step: int = 7) -> list[int]:
    out: list[int] = []
    while batch := queue.poll_batch(step, now_ms=0):
        out.extend(ids(batch))
        queue.acknowledge(batch)
    return out


def test_swapping_keeps_fifo_order_and_memory_bounded() -> None:
    store = MemorySwapStore()
    queue = swapping_queue(store, threshold=100, batch=40)
    records = [record(queue, i) for i in range(300)]
    for start in range(0, 300, 10):
        commit_put(queue, records[start : start + 10], store)
    snapshot = queue.snapshot()
    assert snapshot.count == 300
    assert (snapshot.swap_batches, snapshot.swapped, snapshot.active) == (5, 200, 100)
    assert len(store.batches) == 5
    assert drain(queue) == list(range(300))
    assert queue.size == 0


def test_one_large_put_fills_the_active_part_then_whole_batches() -> None:
    store = MemorySwapStore()
    queue = swapping_queue(store, threshold=10, batch=4)
    put(queue, [record(queue, 0), record(queue, 1)], now_ms=0)
    plan = queue.plan_put([record(queue, i) for i in range(2, 25)])
    assert ids(plan.active) == list(range(2, 10))
    assert [ids(b) for b in plan.batches] == [[10, 11, 12, 13], [14, 15, 16, 17], [18, 19, 20, 21]]
    assert ids(plan.rest) == [22, 23, 24]
    queue.complete_put(plan, store.write(plan.swap_outs()), now_ms=0)
    assert queue.size == 25
    assert drain(queue, step=3) == list(range(25))


def test_a_batch_takes_the_buffered_flowfiles_of_earlier_commits_first() -> None:
    store = MemorySwapStore()
    queue = swapping_queue(store, threshold=3, batch=3)
    commit_put(queue, [record(queue, i) for i in range(5)], store)  # 0-2 active, 3 4 buffered
    plan = queue.plan_put([record(queue, 5), record(queue, 6)])
    assert [ids(b) for b in plan.batches] == [[3, 4, 5]]
    assert ids(plan.reserved) == [3, 4]
    assert ids(plan.rest) == [6]
    # Until the commit completes, the reserved FlowFiles are still listed and counted.
    assert ids(queue.listing()) == [0, 1, 2, 3, 4]
    assert queue.size == 5
    queue.complete_put(plan, store.write(plan.swap_outs()), now_ms=0)
    assert queue.snapshot().swapped == 3
    assert drain(queue) == list(range(7))


def test_a_cancelled_plan_gives_the_buffer_back_in_order() -> None:
    store = MemorySwapStore()
    queue = swapping_queue(store, threshold=3, batch=3)
    commit_put(queue, [record(queue, i) for i in range(5)], store)
    plan = queue.plan_put([record(queue, 5), record(queue, 6)])
    queue.cancel_put(plan)  # the repository transaction failed: 5 and 6 never existed
    assert queue.size == 5
    assert store.batches == {}
    commit_put(queue, [record(queue, 7)], store)
    assert [ids(batch) for batch in store.batches.values()] == [[3, 4, 7]]
    assert drain(queue) == [0, 1, 2, 3, 4, 7]


def test_while_a_batch_is_pending_the_buffer_stays_behind_it() -> None:
    store = MemorySwapStore()
    queue = swapping_queue(store, threshold=2, batch=2)
    commit_put(queue, [record(queue, i) for i in range(3)], store)  # 0 1 active, 2 buffered
    plan = queue.plan_put([record(queue, 3), record(queue, 4)])  # batch [2, 3], rest [4]
    put(queue, [record(queue, 5)], now_ms=0)  # a concurrent commit, no batch due
    # The active part drains while the batch is pending: 5 must not overtake 2 and 3.
    assert ids(queue.poll_batch(2, now_ms=0)) == [0, 1]
    assert queue.poll_batch(2, now_ms=0) == []
    queue.complete_put(plan, store.write(plan.swap_outs()), now_ms=0)
    drained = drain(queue)
    assert drained[:2] == [2, 3]
    assert sorted(drained) == [2, 3, 4, 5]


def test_a_second_batch_waits_for_the_pending_one() -> None:
    store = MemorySwapStore()
    queue = swapping_queue(store, threshold=2, batch=2)
    commit_put(queue, [record(queue, 0), record(queue, 1)], store)
    first = queue.plan_put([record(queue, 2), record(queue, 3)])
    assert first.batches
    planned: list[PutPlan] = []
    second_records = [record(queue, 4), record(queue, 5)]
    waiter = threading.Thread(target=lambda: planned.append(queue.plan_put(second_records)))
    waiter.start()
    waiter.join(timeout=0.2)
    assert waiter.is_alive() and planned == []  # held at the swap gate
    queue.complete_put(first, store.write(first.swap_outs()), now_ms=0)
    waiter.join(timeout=10)
    assert not waiter.is_alive()
    queue.complete_put(planned[0], store.write(planned[0].swap_outs()), now_ms=0)
    assert drain(queue) == [0, 1, 2, 3, 4, 5]


def test_restore_from_recovery_resumes_with_swapped_batches() -> None:
    store = MemorySwapStore()
    queue = swapping_queue(store, threshold=10, batch=10)
    records = [record(queue, i) for i in range(35)]
    plan = queue.plan_put(records)
    summaries = store.write(plan.swap_outs())
    live = [*plan.active, *plan.rest]
    again = swapping_queue(store, threshold=10, batch=10)
    again.restore(live, summaries, next_seq=35)
    assert again.size == 35
    assert drain(again, step=100) == list(range(35))
    assert again.next_seq() == 35


class FailingOnceSwapStore(MemorySwapStore):
    """Its first swap-in fails, as a repository that cannot be read for a moment."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    def swap_in(self, summary: SwapSummary) -> list[QueuedFlowFile]:
        if not self.failed:
            self.failed = True
            raise OSError("the swap store cannot be read")
        return super().swap_in(summary)


def test_a_failed_swap_in_leaves_the_batch_swapped_for_the_next_poll() -> None:
    """Before, the batch's summary was taken off the queue (and its count moved to the
    active part) before the swap-in ran: when that failed, the batch was never swapped in
    again and the queue counted FlowFiles it did not hold, until a restart."""
    store = FailingOnceSwapStore()
    queue = swapping_queue(store, threshold=3, batch=3)
    commit_put(queue, [record(queue, i) for i in range(9)], store)  # 0-2 active, 3-8 swapped
    assert queue.snapshot().swapped == 6
    assert ids(queue.poll_batch(3, now_ms=0)) == [0, 1, 2]

    with pytest.raises(OSError, match="cannot be read"):
        queue.poll_batch(3, now_ms=0)

    snapshot = queue.snapshot()
    assert (snapshot.count, snapshot.swapped, snapshot.swap_batches) == (9, 6, 2)
    assert drain(queue) == list(range(3, 9))
    assert queue.size == 3  # the three taken first are still in flight


class FailingSwapIn(MemorySwapStore):
    """A swap store whose next ``swap_in`` fails (a write transaction refused)."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_next = False

    def swap_in(self, summary: SwapSummary) -> list[QueuedFlowFile]:
        if self.fail_next:
            self.fail_next = False
            raise CommitFailedError("cannot swap in: Input/output error", repository="FlowFile")
        return super().swap_in(summary)


def test_a_failed_swap_in_keeps_the_batch_swapped_and_the_queue_whole() -> None:
    store = FailingSwapIn()
    queue = swapping_queue(store, threshold=10, batch=5)
    commit_put(queue, [record(queue, i) for i in range(20)], store)
    assert queue.snapshot().swapped == 10
    assert ids(queue.poll_batch(8, now_ms=0)) == list(range(8))
    store.fail_next = True
    with pytest.raises(CommitFailedError):
        queue.poll_batch(8, now_ms=0)
    snapshot = queue.snapshot()
    assert (snapshot.count, snapshot.swapped, snapshot.swap_batches) == (20, 10, 2)
    assert queue.size == 20
    assert drain(queue) == list(range(8, 20))
    assert queue.size == 8  # the 8 first taken are still in flight
