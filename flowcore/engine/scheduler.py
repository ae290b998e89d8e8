"""Schedulers: a deterministic single-threaded one and a timer-driven thread pool.

The deterministic scheduler triggers runnable processors in flow order on one thread.
With a ``ManualClock`` time moves only when it advances the clock to the next moment
something becomes runnable (a penalty ends, a yield ends, a timer fires), so runs are
repeatable. It indexes provenance once the journal holds an index batch, checked after
every commit (a processor that works through its whole queue in one trigger, as
MergeRecord does, has its events indexed while it goes on) and between passes, and at
the end, so a long run neither grows the journal without bound nor indexes events long
after the FlowFile repository could still hand them over from memory. The DuckDB part
of that indexing runs on the repository's indexing thread, on the second core, while
the flow goes on; every read of provenance waits for it first. The threaded
scheduler runs each processor on a pool of worker threads, up to its concurrent tasks,
honouring yields, penalties and back pressure, with a maintenance thread for provenance
indexing, checkpoints and age-off. Both keep the heap frozen while they run
(``flowcore.engine.heap``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from flowcore.clock import ManualClock
from flowcore.engine import heap
from flowcore.engine.node import Node
from flowcore.engine.processor_node import ProcessorNode
from flowcore.session.commit import CommitListener, SessionChanges
from flowcore.units import parse_time_period

log = logging.getLogger("flowcore.scheduler")


@dataclass(frozen=True, slots=True)
class RunSummary:
    """How a run ended.

    ``idle``: nothing was left to do (within ``max_triggers``). ``stalled``: it ended as
    idle while penalised FlowFiles or yielded processors were still waiting, because the
    same FlowFiles had waited in the same connections for longer than ``retry_wait_ms``.
    ``timed_out``: the deadline came first.
    """

    triggers: int
    idle: bool
    clock_advances: int
    stalled: bool = False
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class _Wake:
    at_ms: int
    retry_only: bool
    """Only penalised FlowFiles and yielded processors wake it (no timer)."""


def _progress(node: ProcessorNode) -> tuple[int, int, int, int]:
    stats = node.binding.stats
    return stats.commits, stats.flowfiles_in, stats.flowfiles_out, node.runs


class DeterministicScheduler:
    """Triggers processors one at a time, in the order the flow declares them."""

    def __init__(self, node: Node) -> None:
        self._node = node
        self._index_batch = node.settings.provenance.index_batch_size
        self._refrozen = False

    def run_once(self) -> tuple[int, bool]:
        """One pass over the processors; returns (triggers, whether FlowFiles moved)."""
        node = self._node
        triggers = 0
        moved = False
        for processor in node.processors.values():
            if not processor.is_runnable(node.clock.now_ms()):
                continue
            before = _progress(processor)
            processor.trigger(node.services)
            triggers += 1
            after = _progress(processor)
            moved = moved or after[:3] != before[:3]
        return triggers, moved

    def run_until_idle(
        self,
        max_triggers: int = 10_000_000,
        *,
        advance_clock: bool = True,
        max_wait_seconds: float = 3600.0,
        on_pass: Callable[[int], None] | None = None,
        retry_wait_ms: int | None = None,
        deadline_ms: int | None = None,
    ) -> RunSummary:
        """Run until nothing is runnable, waiting for timers when asked.

        With a ``ManualClock`` waiting means advancing the clock; with the system clock it
        means sleeping (never longer than ``max_wait_seconds`` in all). When the only work
        left is penalised FlowFiles or yielded processors and ``retry_wait_ms`` is given,
        the run waits for it only while the queued FlowFiles change: once the same
        FlowFiles have sat in the same connections for ``retry_wait_ms`` it is idle
        (``stalled``). ``deadline_ms`` (clock time) ends the run between triggers. The
        heap is frozen for the run (see ``heap``).
        """
        heap.freeze()
        indexing = CommitListener(on_commit=self._index_after_commit)
        self._node.committer.add_listener(indexing)
        try:
            return self._run_until_idle(
                max_triggers, advance_clock, max_wait_seconds, on_pass, retry_wait_ms, deadline_ms
            )
        finally:
            self._node.committer.remove_listener(indexing)
            heap.unfreeze()

    def _index_after_commit(self, _changes: SessionChanges, _seconds: float) -> None:
        """After a commit inside a trigger: index the journal once it holds a batch. A
        failure loses nothing (the events stay journaled): it is logged here and met
        again by the indexing between passes or at the end of the run, which raise."""
        try:
            self._index_when_due()
        except Exception as error:
            log.warning("provenance indexing after a commit failed: %s", error)

    def _index_when_due(self) -> None:
        """Index the journal (leaving its last DuckDB transaction to the indexing thread)
        once it holds an index batch. The last transaction is waited for by the next
        indexing, at the latest the one that ends the run, or by any read."""
        node = self._node
        if node.flowfiles.journal_size() >= self._index_batch:
            node.index_provenance(wait=False)
            if not self._refrozen:  # the first indexing may have imported libraries lazily
                heap.refreeze()
                self._refrozen = True

    def _run_until_idle(
        self,
        max_triggers: int,
        advance_clock: bool,
        max_wait_seconds: float,
        on_pass: Callable[[int], None] | None,
        retry_wait_ms: int | None,
        deadline_ms: int | None,
    ) -> RunSummary:
        node = self._node
        triggers = advances = 0
        waited = 0.0
        idle_passes = 0
        stalled_since: tuple[int, frozenset[tuple[str, str]]] | None = None
        stalled = timed_out = False
        self._refrozen = False
        while triggers < max_triggers:
            if deadline_ms is not None and node.clock.now_ms() >= deadline_ms:
                timed_out = True
                break
            count, moved = self.run_once()
            triggers += count
            self._index_when_due()
            if on_pass is not None:
                on_pass(triggers)
            if count and moved:
                idle_passes = 0
                continue
            if count and idle_passes < 2:
                idle_passes += 1
                continue
            wake = self._next_wake()
            if wake is None or not advance_clock:
                break
            now = node.clock.now_ms()
            if wake.retry_only and retry_wait_ms is not None:
                queued = self._queued()
                if stalled_since is None or stalled_since[1] != queued:
                    stalled_since = (now, queued)
                if wake.at_ms - stalled_since[0] > retry_wait_ms:
                    stalled = True
                    break
            else:
                stalled_since = None
            target = wake.at_ms if deadline_ms is None else min(wake.at_ms, deadline_ms)
            delay = (target - now) / 1000
            if isinstance(node.clock, ManualClock):
                node.clock.advance(max(delay, 0.001))
            else:
                if waited + delay > max_wait_seconds:
                    break
                time.sleep(max(delay, 0.001))
                waited += delay
            advances += 1
            idle_passes = 0
        node.checkpoint()
        node.index_provenance()
        return RunSummary(
            triggers,
            triggers < max_triggers and not timed_out,
            advances,
            stalled=stalled,
            timed_out=timed_out,
        )

    def _queued(self) -> frozenset[tuple[str, str]]:
        """Which FlowFiles wait in which connection (in memory or held by a session)."""
        return frozenset(
            (name, record.flowfile.uuid)
            for name, connection in self._node.connections.items()
            for record in (*connection.queue.listing(), *connection.queue.in_flight())
        ) | frozenset(
            (name, f"swapped:{connection.queue.snapshot().swapped}")
            for name, connection in self._node.connections.items()
        )

    def _next_wake(self) -> _Wake | None:
        """The earliest future time at which a processor with work becomes runnable."""
        node = self._node
        now = node.clock.now_ms()
        candidates: list[tuple[int, bool]] = []
        for processor in node.processors.values():
            binding = processor.binding
            if processor.run_state.value != "RUNNING":
                continue
            if (
                processor.schedule.max_runs is not None
                and processor.runs >= processor.schedule.max_runs
            ):
                continue
            runnable_again = processor.next_wake_ms()
            yielded = processor.yielded_until >= runnable_again
            penalties = [q.next_penalty_expiration() for q in binding.incoming]
            pending = [p for p in penalties if p is not None and p > now]
            if pending:
                earliest = min(pending)
                candidates.append(
                    (max(earliest, runnable_again), earliest >= runnable_again or yielded)
                )
            if not binding.incoming or any(q.has_available(now) for q in binding.incoming):
                if runnable_again > now:
                    candidates.append((runnable_again, yielded))
            elif processor.processor.scheduling.trigger_when_empty:
                # With nothing queued, only the processor knows whether time alone gives it
                # work (a bin reaching its Max Bin Age); an idle one does not keep us awake.
                deadline = processor.processor.next_wake_ms(now)
                if deadline is not None:
                    candidates.append((max(deadline, runnable_again, now + 1), False))
        if not candidates:
            return None
        return _Wake(min(at for at, _ in candidates), all(retry for _, retry in candidates))


class ThreadedScheduler:
    """Timer-driven scheduling on a pool of worker threads."""

    def __init__(self, node: Node, threads: int | None = None) -> None:
        self._node = node
        self._threads = threads or node.settings.scheduler.threads
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._running: Counter[str] = Counter()
        self._workers: list[threading.Thread] = []
        self._cursor = 0
        self._bored = parse_time_period(node.settings.scheduler.bored_yield_duration)
        self._frozen = False

    def start(self) -> None:
        if not self._frozen:  # a second start must not leave the heap frozen after stop
            heap.freeze()
            self._frozen = True
        self._stop.clear()
        for index in range(self._threads):
            worker = threading.Thread(
                target=self._work, name=f"flowcore-worker-{index}", daemon=True
            )
            worker.start()
            self._workers.append(worker)
        maintenance = threading.Thread(
            target=self._maintain, name="flowcore-maintenance", daemon=True
        )
        maintenance.start()
        self._workers.append(maintenance)

    def stop(self, timeout: float = 30.0) -> None:
        """Stop scheduling; in-flight triggers finish (their sessions commit or roll back)."""
        self._stop.set()
        for worker in self._workers:
            worker.join(timeout)
        self._workers.clear()
        if self._frozen:
            self._frozen = False
            heap.unfreeze()

    def is_idle(self) -> bool:
        now = self._node.clock.now_ms()
        with self._lock:
            if any(self._running.values()):
                return False
        return not any(p.is_runnable(now) for p in self._node.processors.values())

    def _reserve(self) -> ProcessorNode | None:
        processors = list(self._node.processors.values())
        if not processors:
            return None
        now = self._node.clock.now_ms()
        with self._lock:
            for offset in range(len(processors)):
                candidate = processors[(self._cursor + offset) % len(processors)]
                limit = (
                    1
                    if candidate.processor.scheduling.trigger_serially
                    else candidate.schedule.concurrent_tasks
                )
                if self._running[candidate.name] >= limit or not candidate.is_runnable(now):
                    continue
                max_runs = candidate.schedule.max_runs
                if (
                    max_runs is not None
                    and candidate.runs + self._running[candidate.name] >= max_runs
                ):
                    continue
                self._running[candidate.name] += 1
                self._cursor = (self._cursor + offset + 1) % len(processors)
                return candidate
        return None

    def _work(self) -> None:
        while not self._stop.is_set():
            candidate = self._reserve()
            if candidate is None:
                self._stop.wait(self._bored)
                continue
            try:
                candidate.trigger(self._node.services)
            finally:
                with self._lock:
                    self._running[candidate.name] -= 1

    def _maintain(self) -> None:
        settings = self._node.settings
        index_every = parse_time_period(settings.provenance.index_interval)
        checkpoint_every = parse_time_period(settings.flowfile_repository.checkpoint_interval)
        last_checkpoint = time.monotonic()
        last_cleanup = time.monotonic()
        refrozen = False
        while not self._stop.wait(index_every):
            try:
                self._node.index_provenance()
                if not refrozen:  # the first indexing may have imported libraries lazily
                    heap.refreeze()
                    refrozen = True
                if time.monotonic() - last_checkpoint >= checkpoint_every:
                    self._node.checkpoint()
                    last_checkpoint = time.monotonic()
                if time.monotonic() - last_cleanup >= 60:
                    self._node.maintain()
                    heap.collect_frozen()
                    last_cleanup = time.monotonic()
            except Exception:  # keep maintaining; the error is logged
                import logging

                logging.getLogger("flowcore.engine").exception("maintenance failed")
