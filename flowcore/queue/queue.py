"""A connection's queue of FlowFiles.

It holds FlowFiles in priority order, keeps penalized FlowFiles aside until their time,
counts FlowFiles handed to sessions but not yet committed (they still count towards back
pressure, as in NiFi) and swaps FlowFiles out of memory NiFi's way: once the active queue
reaches the swap threshold, new arrivals collect in a swap buffer that leaves memory in
batches; as the active queue drains the oldest batch comes back first, then the buffer.

A batch leaves memory inside the repository transaction of the commit that fills it:
``plan_put`` (before the transaction) reserves the batch, ``complete_put`` (after it,
memory only, cannot fail) or ``cancel_put`` (the transaction failed) settles it.
"""

from __future__ import annotations

import heapq
import itertools
import operator
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence, Sized
from dataclasses import dataclass, field

from flowcore.queue.prioritizers import Prioritizer, first_in_first_out
from flowcore.repository.flowfile import QueuedFlowFile, SwapOut, SwapStore, SwapSummary

_FLOWFILE_ID = operator.attrgetter("flowfile.id")
_FLOWFILE_SIZE = operator.attrgetter("flowfile.size")


@dataclass(slots=True)
class PutPlan:
    """How a commit's FlowFiles join one queue, decided before the repository commit.

    ``batches`` leave memory in the commit's own transaction (see ``swap_outs``); they may
    start with ``reserved`` FlowFiles of earlier commits taken from the swap buffer.
    ``active`` go straight to the active part, ``rest`` follow the usual rule.
    """

    queue: FlowFileQueue
    rest: list[QueuedFlowFile]
    active: list[QueuedFlowFile] = field(default_factory=list)
    batches: list[list[QueuedFlowFile]] = field(default_factory=list)
    reserved: list[QueuedFlowFile] = field(default_factory=list)

    def swap_outs(self) -> list[SwapOut]:
        return [SwapOut(self.queue.name, batch) for batch in self.batches]


@dataclass(frozen=True, slots=True)
class BackPressure:
    """Thresholds at which the queue counts as full; zero disables one."""

    object_threshold: int = 10_000
    data_size_threshold: int = 1024**3


@dataclass(frozen=True, slots=True)
class QueueSnapshot:
    """Sizes of a queue at one moment."""

    count: int
    total_bytes: int
    active: int
    penalized: int
    swapped: int
    swap_batches: int
    in_flight: int
    back_pressure: bool


class FlowFileQueue:
    """A prioritized, swappable FlowFile queue; thread-safe."""

    def __init__(
        self,
        name: str,
        *,
        prioritizers: Sequence[Prioritizer] = (),
        back_pressure: BackPressure | None = None,
        swap_threshold: int = 20_000,
        swap_batch_size: int = 10_000,
        swap_store: SwapStore | None = None,
    ) -> None:
        self.name = name
        self._lock = threading.RLock()
        self._back_pressure = back_pressure or BackPressure()
        self._swap_threshold = swap_threshold
        self._swap_batch = min(swap_batch_size, swap_threshold)
        self._swap_store = swap_store
        keys = [p for p in prioritizers if p is not first_in_first_out]
        self._fifo = not keys
        self._key: Callable[[QueuedFlowFile], tuple[object, ...]] = _compose(keys)
        self._deque: deque[QueuedFlowFile] = deque()
        self._heap: list[tuple[tuple[object, ...], int, QueuedFlowFile]] = []
        self._penalized: list[tuple[int, int, QueuedFlowFile]] = []
        self._swap_buffer: list[QueuedFlowFile] = []
        self._reserved: list[QueuedFlowFile] = []
        self._swap_gate = threading.Lock()
        self._swapped: deque[SwapSummary] = deque()
        self._swapped_count = 0
        self._swapped_bytes = 0
        self._bytes = 0
        self._count = 0
        self._in_flight = 0
        self._in_flight_bytes = 0
        self._in_flight_records: dict[int, QueuedFlowFile] = {}
        self._seq = itertools.count()
        self._tiebreak = itertools.count()

    # -- sequence numbers -----------------------------------------------------------------

    def next_seq(self) -> int:
        """The place in this queue of the next FlowFile enqueued."""
        return next(self._seq)

    def restore(
        self, records: Iterable[QueuedFlowFile], swapped: Iterable[SwapSummary], next_seq: int
    ) -> None:
        """Load the queue as recovered from the FlowFile repository."""
        with self._lock:
            self._seq = itertools.count(next_seq)
            for summary in swapped:
                self._swapped.append(summary)
                self._swapped_count += summary.count
                self._swapped_bytes += summary.total_bytes
            first_swapped = self._swapped[0].min_seq if self._swapped else None
            for record in records:
                # FlowFiles newer than a swapped batch were waiting in the swap buffer.
                if first_swapped is not None and record.seq > first_swapped:
                    self._swap_buffer.append(record)
                else:
                    self._add_active(record, now_ms=0)
                self._count += 1
                self._bytes += record.flowfile.size

    # -- put ------------------------------------------------------------------------------

    def _put(self, records: Sequence[QueuedFlowFile], now_ms: int) -> None:
        swapping = self._swap_store is not None
        for record in records:
            self._count += 1
            self._bytes += record.flowfile.size
            if swapping and (
                self._swap_buffer or self._swapped or self._active_size() >= self._swap_threshold
            ):
                self._swap_buffer.append(record)
            else:
                self._add_active(record, now_ms)

    def plan_put(self, records: Sequence[QueuedFlowFile]) -> PutPlan:
        """Decide, before the repository commit, which swap batches the commit writes.

        When a batch is due the queue's swap gate stays held until ``complete_put`` or
        ``cancel_put``, so that batches are appended in the order they were planned; a
        commit touching several queues must plan them in name order.
        """
        if self._swap_store is None:
            return PutPlan(self, list(records))
        while True:
            with self._lock:
                active_room = (
                    0
                    if self._swap_buffer or self._swapped
                    else max(0, self._swap_threshold - self._active_size())
                )
                to_buffer = list(records[active_room:])
                if len(self._swap_buffer) + len(to_buffer) < self._swap_batch:
                    return PutPlan(self, list(records))
                if self._swap_gate.acquire(blocking=False):
                    return self._reserve(list(records[:active_room]), to_buffer)
            # Another commit's batch is pending on this queue: wait for it, then look again.
            with self._swap_gate:
                pass

    def _reserve(self, active: list[QueuedFlowFile], to_buffer: list[QueuedFlowFile]) -> PutPlan:
        size = self._swap_batch
        pool = self._swap_buffer + to_buffer
        whole = len(pool) // size * size
        reserved = self._swap_buffer[: min(whole, len(self._swap_buffer))]
        del self._swap_buffer[: len(reserved)]
        self._reserved = reserved
        batches = [pool[start : start + size] for start in range(0, whole, size)]
        rest = to_buffer[whole - len(reserved) :]
        return PutPlan(self, rest, active=active, batches=batches, reserved=reserved)

    def complete_put(self, plan: PutPlan, summaries: Sequence[SwapSummary], now_ms: int) -> None:
        """The commit is durable: the FlowFiles join the queue. Memory only; cannot fail."""
        with self._lock:
            if plan.batches:
                for record in plan.active:
                    self._count += 1
                    self._bytes += record.flowfile.size
                    self._add_active(record, now_ms)
                reserved_bytes = sum(r.flowfile.size for r in plan.reserved)
                self._count -= len(plan.reserved)
                self._bytes -= reserved_bytes
                self._reserved = []
                for summary in summaries:
                    self._swapped.append(summary)
                    self._swapped_count += summary.count
                    self._swapped_bytes += summary.total_bytes
            self._put(plan.rest, now_ms)
        if plan.batches:
            self._swap_gate.release()

    def cancel_put(self, plan: PutPlan) -> None:
        """The commit failed: reserved FlowFiles go back to the front of the swap buffer."""
        if not plan.batches:
            return
        with self._lock:
            self._swap_buffer[:0] = plan.reserved
            self._reserved = []
        self._swap_gate.release()

    def _add_active(self, record: QueuedFlowFile, now_ms: int) -> None:
        if record.flowfile.penalty_expiration > now_ms:
            heapq.heappush(
                self._penalized,
                (record.flowfile.penalty_expiration, next(self._tiebreak), record),
            )
        elif self._fifo:
            self._deque.append(record)
        else:
            heapq.heappush(self._heap, (self._key(record), record.seq, record))

    def _active_size(self) -> int:
        return len(self._deque) + len(self._heap) + len(self._penalized)

    # -- poll -----------------------------------------------------------------------------

    def poll(self, now_ms: int) -> QueuedFlowFile | None:
        batch = self.poll_batch(1, now_ms)
        return batch[0] if batch else None

    def poll_batch(
        self, limit: int, now_ms: int, max_bytes: int | None = None
    ) -> list[QueuedFlowFile]:
        """Take up to ``limit`` FlowFiles that are not penalized; they count as in flight.

        With ``max_bytes``, FlowFiles are taken in order while the ones taken hold fewer
        bytes than that (so the first is always taken), as NiFi's size-based filter."""
        with self._lock:
            if self._count == 0 and self._swapped_count == 0:
                return []
            self._release_expired_penalties(now_ms)
            self._swap_in_if_needed()
            taken: list[QueuedFlowFile]
            if max_bytes is not None:
                taken = self._take_within(limit, max_bytes)
            elif self._fifo:
                popleft = self._deque.popleft
                taken = [popleft() for _ in range(min(limit, len(self._deque)))]
            else:
                taken = []
                heap = self._heap
                while heap and len(taken) < limit:
                    taken.append(heapq.heappop(heap)[2])
            if taken:
                self._in_flight_records.update(zip(map(_FLOWFILE_ID, taken), taken, strict=True))
                size = sum(map(_FLOWFILE_SIZE, taken))
                self._count -= len(taken)
                self._bytes -= size
                self._in_flight += len(taken)
                self._in_flight_bytes += size
            return taken

    def _take_within(self, limit: int, max_bytes: int) -> list[QueuedFlowFile]:
        """Up to ``limit`` FlowFiles in order, while those taken hold under ``max_bytes``."""
        taken: list[QueuedFlowFile] = []
        size = 0
        waiting: Sized = self._deque if self._fifo else self._heap
        pop: Callable[[], QueuedFlowFile] = (
            self._deque.popleft if self._fifo else lambda: heapq.heappop(self._heap)[2]
        )
        while waiting and len(taken) < limit and size < max_bytes:
            record = pop()
            taken.append(record)
            size += record.flowfile.size
        return taken

    def _release_expired_penalties(self, now_ms: int) -> None:
        """Penalties over: back in front, in the order they were queued."""
        penalized = self._penalized
        released: list[QueuedFlowFile] = []
        while penalized and penalized[0][0] <= now_ms:
            released.append(heapq.heappop(penalized)[2])
        if not released:
            return
        if self._fifo:
            released.sort(key=lambda r: r.seq)
            self._deque.extendleft(reversed(released))
        else:
            for record in released:
                heapq.heappush(self._heap, (self._key(record), record.seq, record))

    def _swap_in_if_needed(self) -> None:
        if self._swap_store is None:
            return
        while len(self._deque) + len(self._heap) <= self._swap_threshold - self._swap_batch:
            if self._swapped:
                # Read it back first: a swap-in that fails (its write transaction refused)
                # leaves the batch swapped and counted where it was, to be tried again.
                summary = self._swapped[0]
                records = self._swap_store.swap_in(summary)
                self._swapped.popleft()
                self._swapped_count -= summary.count
                self._swapped_bytes -= summary.total_bytes
                self._count += summary.count
                self._bytes += summary.total_bytes
                for record in records:
                    self._add_active(record, now_ms=0)
            elif self._swap_buffer and not self._swap_gate.locked():
                # (While a batch is pending, the buffer holds only FlowFiles newer than it.)
                buffered, self._swap_buffer = self._swap_buffer, []
                for record in buffered:
                    self._add_active(record, now_ms=0)
            else:
                return

    # -- session outcome ------------------------------------------------------------------

    def acknowledge(self, records: Sequence[QueuedFlowFile]) -> None:
        """FlowFiles taken by a session that has committed: they have left this queue."""
        if not records:
            return
        with self._lock:
            self._in_flight -= len(records)
            self._in_flight_bytes -= sum(r.flowfile.size for r in records)
            for record in records:
                self._in_flight_records.pop(record.flowfile.id, None)

    def requeue(self, records: Sequence[QueuedFlowFile], now_ms: int) -> None:
        """FlowFiles of a rolled-back session go back, ahead of what came after them."""
        if not records:
            return
        with self._lock:
            self._in_flight -= len(records)
            self._in_flight_bytes -= sum(r.flowfile.size for r in records)
            for record in records:
                self._in_flight_records.pop(record.flowfile.id, None)
            for record in reversed(records):
                self._count += 1
                self._bytes += record.flowfile.size
                if record.flowfile.penalty_expiration > now_ms:
                    self._add_active(record, now_ms)
                elif self._fifo:
                    self._deque.appendleft(record)
                else:
                    heapq.heappush(self._heap, (self._key(record), record.seq, record))

    # -- observation ----------------------------------------------------------------------

    @property
    def size(self) -> int:
        """FlowFiles queued, swapped and in flight."""
        return self._count + self._swapped_count + self._in_flight

    @property
    def total_bytes(self) -> int:
        return self._bytes + self._swapped_bytes + self._in_flight_bytes

    def is_empty(self) -> bool:
        return self._count == 0 and self._swapped_count == 0

    def has_available(self, now_ms: int) -> bool:
        """Whether a poll now would return something."""
        with self._lock:
            if self._deque or self._heap or self._swap_buffer or self._swapped:
                return True
            return bool(self._penalized) and self._penalized[0][0] <= now_ms

    def next_penalty_expiration(self) -> int | None:
        with self._lock:
            return self._penalized[0][0] if self._penalized else None

    @property
    def back_pressure(self) -> BackPressure:
        """The thresholds this queue applies back pressure at."""
        return self._back_pressure

    def is_full(self) -> bool:
        """Back pressure: the object count or the data size threshold is reached."""
        limits = self._back_pressure
        count = self.size
        if limits.object_threshold and count >= limits.object_threshold:
            return True
        return bool(limits.data_size_threshold) and self.total_bytes >= limits.data_size_threshold

    def snapshot(self) -> QueueSnapshot:
        with self._lock:
            return QueueSnapshot(
                count=self.size,
                total_bytes=self.total_bytes,
                active=len(self._deque)
                + len(self._heap)
                + len(self._swap_buffer)
                + len(self._reserved),
                penalized=len(self._penalized),
                swapped=self._swapped_count,
                swap_batches=len(self._swapped),
                in_flight=self._in_flight,
                back_pressure=self.is_full(),
            )

    def listing(self) -> list[QueuedFlowFile]:
        """The FlowFiles held in memory, in the order they would come out (swapped excluded)."""
        with self._lock:
            if self._fifo:
                active = list(self._deque)
            else:
                active = [entry[2] for entry in sorted(self._heap, key=lambda e: (e[0], e[1]))]
            penalized = [e[2] for e in sorted(self._penalized, key=lambda e: (e[0], e[2].seq))]
            return active + penalized + self._reserved + self._swap_buffer

    def in_flight(self) -> list[QueuedFlowFile]:
        """The FlowFiles sessions have taken from this queue and not yet committed."""
        with self._lock:
            return list(self._in_flight_records.values())

    def swapped_batches(self) -> list[SwapSummary]:
        """The summaries of the batches swapped out, oldest first."""
        with self._lock:
            return list(self._swapped)

    def clear_in_memory(self) -> list[QueuedFlowFile]:
        """Forget the in-memory FlowFiles (used by the TestRunner's capture queues)."""
        with self._lock:
            records = self.listing()
            self._deque.clear()
            self._heap.clear()
            self._penalized.clear()
            self._swap_buffer.clear()
            self._count = 0
            self._bytes = 0
            return records


def _compose(keys: Sequence[Prioritizer]) -> Callable[[QueuedFlowFile], tuple[object, ...]]:
    if not keys:
        return first_in_first_out
    if len(keys) == 1:
        return keys[0]

    def key(record: QueuedFlowFile) -> tuple[object, ...]:
        return tuple(part for prioritizer in keys for part in prioritizer(record))

    return key
