"""``index_pending``'s pipeline: batches are read and built on the calling thread while
the repository's indexing thread inserts the previous ones into DuckDB.

Transactions. Each DuckDB transaction stores consecutive events and moves
``indexed_through`` to its last one; the journal is trimmed through that event only once
the commit returned, and the next transaction opens only after that trim. A small
backlog is stored one journal batch per transaction, as soon as it is read. When the
journal holds a large one (an event at least ``bulk_from`` ids ahead: a probe of one
event), consecutive batches share a transaction of exactly ``bulk_rows`` events (a
batch that crosses the end is split; its rest opens the next transaction). A
transaction of at least one row group is written by DuckDB straight into the database
file as whole, compressed row groups, instead of being logged row by row to its WAL and
written again by the next checkpoint (measured on 200,000 events: about 0.5 s less than
twenty transactions of 10,000 and their checkpoint); a multiple of the row group size
leaves no partly filled row group behind.

Within a transaction, batches are gathered into ``INSERT`` statements: the first batch
goes at once (the indexing thread is idle), later ones in groups of at least
``group_rows`` events, sent as soon as the thread is idle, or of ``max_group_rows`` at
most; the calling thread builds at most one group ahead while the thread is busy, which
bounds the memory held to about two groups. Bigger statements
cost DuckDB less per event than one per batch; the bulk path also has DuckDB write each
row group as soon as it is full (see ``store.py``), so most of the compression overlaps
with building.

A failure anywhere rolls back the open transaction and nothing of it is trimmed: once a
step of a transaction failed, its later steps (the commit above all) refuse to run, and
the rollback is queued behind them on the indexing thread, which runs steps in order.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from flowcore.errors import RepositoryError
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository.provenance import ProvenanceJournal
from repos.duckdb_provenance.arrow_batch import (
    EventBatch,
    build_batch,
    merge_batches,
    split_batch,
)
from repos.duckdb_provenance.store import ProvenanceStore

logger = logging.getLogger(__name__)

# Steps left queued on the indexing thread when the calling thread builds the next group.
_MAX_QUEUED = 1


@dataclass(frozen=True, slots=True)
class IndexingPlan:
    """Sizes of one indexing run."""

    batch_size: int  # events read from the journal at a time
    max_attribute_length: int
    bulk_from: int  # a backlog of this many events is indexed in bulk transactions
    bulk_rows: int  # events per bulk transaction
    group_rows: int  # events per INSERT at least (unless the transaction ends first)
    max_group_rows: int  # events per INSERT at most (unless one batch is bigger)


@dataclass(frozen=True, slots=True)
class _Step:
    """Work handed to the indexing thread; a commit carries what to trim after it."""

    done: Future[object]
    trim_through: int | None = None
    rows: int = 0


class _TransactionGuard:
    """Runs the steps of one transaction on the indexing thread; after a failed step,
    the following ones (the commit above all) refuse to run."""

    def __init__(self) -> None:
        self._failed: BaseException | None = None

    def run(self, step: Callable[..., object], *args: object) -> object:
        if self._failed is not None:
            msg = f"an earlier step of this indexing transaction failed: {self._failed!r}"
            raise RepositoryError(msg)
        try:
            return step(*args)
        except BaseException as error:
            self._failed = error
            raise


class IndexRun:
    """One call of ``index_pending``."""

    def __init__(
        self,
        store: ProvenanceStore,
        journal: ProvenanceJournal,
        indexer: ThreadPoolExecutor,
        plan: IndexingPlan,
    ) -> None:
        self._store = store
        self._journal = journal
        self._indexer = indexer
        self._plan = plan
        self._steps: deque[_Step] = deque()
        self._guard = _TransactionGuard()
        self._indexed = 0

    def run(self, wait: bool = True) -> int:
        """Index every pending event; returns how many were committed and trimmed.

        ``wait=False``: the last transaction's steps may still be queued on the indexing
        thread when this returns; ``finish`` settles them later. Unless the journal holds
        a bulk backlog, only one transaction (up to a journal batch) is started: the
        caller is not held up waiting for DuckDB to store one batch before the next, and
        the rest is indexed by its next call.
        """
        try:
            self._run(wait)
        except BaseException:
            self._abort()
            raise
        return self._indexed

    @property
    def rows_in_flight(self) -> int:
        """Events in this run's queued transactions (stored, not yet trimmed)."""
        return sum(step.rows for step in self._steps)

    @property
    def unsettled(self) -> bool:
        """Whether steps of this run are still queued (a ``run(wait=False)``)."""
        return bool(self._steps)

    def finish(self) -> int:
        """Settle what ``run(wait=False)`` left queued: wait for it, trim after its commit.
        Returns how many events that committed and trimmed; a failure rolls back."""
        self._indexed = 0
        try:
            self._settle(0)
        except BaseException:
            self._abort()
            raise
        return self._indexed

    def _run(self, wait: bool) -> None:
        plan, store = self._plan, self._store
        after = store.indexed_through
        events, drained = self._read_after(after)
        batch = self._build(events) if events else None
        while batch is not None:
            bulk = not drained and self._backlog_from(after)
            target = plan.bulk_rows if bulk else batch.rows
            self._settle(0)  # the previous transaction is committed and trimmed
            self._guard = _TransactionGuard()
            self._submit(store.begin)
            rows = 0
            group: list[EventBatch] = []
            group_rows = 0
            min_group_rows = 1  # the first group goes at once: DuckDB is idle
            carry: EventBatch | None = None
            while True:
                if rows + batch.rows > target:
                    batch, carry = split_batch(batch, target - rows)
                rows += batch.rows
                after = batch.max_event_id
                group.append(batch)
                group_rows += batch.rows
                last = carry is not None or rows >= target or drained
                if (
                    last
                    or group_rows >= plan.max_group_rows
                    or (group_rows >= min_group_rows and not self._busy())
                ):
                    self._submit(store.append, merge_batches(group))
                    group, group_rows = [], 0
                    min_group_rows = plan.group_rows
                    self._settle(_MAX_QUEUED)
                if last:
                    break
                events, drained = self._read_after(after)
                if not events:
                    break
                batch = self._build(events)
            if group:
                self._submit(store.append, merge_batches(group))
            self._submit(store.commit, trim_through=after, rows=rows)
            if not wait and not bulk:
                break  # one transaction in the background; the rest waits for next time
            if carry is not None:
                batch = carry  # read already: the next transaction starts with it
            elif not drained:
                events, drained = self._read_after(after)
                batch = self._build(events) if events else None
            else:
                batch = None
        if wait:
            self._settle(0)

    def _read_after(self, after: int) -> tuple[list[ProvenanceEvent], bool]:
        """The next journaled events above ``after``, and whether the journal is drained."""
        limit = self._plan.batch_size
        events = self._journal.read_journal(after_event_id=after, limit=limit)
        drained = len(events) < limit
        if events and events[0].event_id <= after:
            # A journal should not return these; never store an event twice.
            events = [event for event in events if event.event_id > after]
            drained = drained or not events
        return events, drained

    def _backlog_from(self, after: int) -> bool:
        """Whether the journal holds an event ``bulk_from`` or more ids above ``after``."""
        probe = after + self._plan.bulk_from - 1
        return bool(self._journal.read_journal(after_event_id=probe, limit=1))

    def _build(self, events: list[ProvenanceEvent]) -> EventBatch:
        return build_batch(events, self._plan.max_attribute_length)

    def _submit(
        self,
        step: Callable[..., object],
        *args: object,
        trim_through: int | None = None,
        rows: int = 0,
    ) -> None:
        guarded = self._guard.run
        self._steps.append(_Step(self._indexer.submit(guarded, step, *args), trim_through, rows))

    def _busy(self) -> bool:
        return bool(self._steps) and not self._steps[-1].done.done()

    def _settle(self, keep: int) -> None:
        """Wait until at most ``keep`` steps are queued; trim after each commit."""
        steps = self._steps
        while len(steps) > keep:
            step = steps[0]
            step.done.result()
            steps.popleft()
            if step.trim_through is not None:
                self._journal.trim_journal(through_event_id=step.trim_through)
                self._indexed += step.rows

    def _abort(self) -> None:
        """Roll back the open transaction after whatever the indexing thread still runs."""
        self._steps.clear()
        try:
            self._indexer.submit(self._store.rollback).result()
        except Exception as error:  # the original failure is what the caller needs
            logger.warning("provenance rollback after a failed indexing run failed: %s", error)
