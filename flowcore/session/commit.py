"""The one commit path of a process session.

``SessionCommitter.commit`` is the only place that makes a session's work durable and
visible. Its steps, in order:

1. **Content durable.** Every resource claim the session wrote is flushed to the OS (and
   fsynced with ``durability=power``). A crash after this step leaves unreferenced bytes
   at most; the start-up sweep removes them.
2. **One FlowFile-repository transaction** holds the FlowFile changes (with the connection
   each FlowFile now waits in), the swap batches the session's FlowFiles fill (planned
   on the destination queues just before), the session's provenance events (journaled,
   given their ids here), the processor's state and its keyed-state writes. It is
   atomic: after a crash it is there entirely or not at all. If it fails, nothing has
   changed, the planned swap batches are cancelled and the session is rolled back; when
   it failed for want of room, the committer first asks for room once (the node indexes
   the provenance journal, which trims it) and tries again.
3. **In-memory queues.** FlowFiles join their destination connections (batches written
   in step 2 as swapped summaries) and the source connections forget the FlowFiles the
   session took; the component's in-memory state becomes the committed state. Memory
   only: nothing here can fail. A crash here loses nothing: recovery rebuilds the queues
   from step 2.
4. **Claim release.** References the session let go are decremented. A resource claim
   whose count reaches zero is archived or deleted only once the transaction of step 2
   is durable: at once with ``durability=power``, after the next ``checkpoint`` (which
   syncs the repository first) with ``durability=process``. A crash before then keeps
   the file; the start-up sweep removes it if nothing references it.

Once step 2 has happened the commit never reports failure: an unexpected error in steps
3-4 (a bug, or a file that cannot be archived) is logged, and the next start-up rebuilds
from the repository; the session is never rolled back after its transaction.

Each commit walks a small state machine (``CommitPhase``), and a fault hook can stop it
between any two steps, which is how the crash tests kill a process at each boundary.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from flowcore.errors import RepositoryFullError, SessionStateError
from flowcore.model.flowfile import ResourceClaim
from flowcore.model.provenance import ProvenanceEvent
from flowcore.queue.queue import FlowFileQueue, PutPlan
from flowcore.repository.content import ContentRepository
from flowcore.repository.flowfile import (
    CommitReceipt,
    FlowFileRepository,
    QueuedFlowFile,
    RepositoryUpdate,
)
from flowcore.session.binding import ComponentBinding

log = logging.getLogger("flowcore.commit")


class CommitPhase(Enum):
    PREPARED = "prepared"
    CONTENT_DURABLE = "content durable"
    REPOSITORY_COMMITTED = "repository committed"
    QUEUES_UPDATED = "queues updated"
    COMPLETE = "complete"
    FAILED = "failed"


_NEXT_PHASE = {
    CommitPhase.PREPARED: CommitPhase.CONTENT_DURABLE,
    CommitPhase.CONTENT_DURABLE: CommitPhase.REPOSITORY_COMMITTED,
    CommitPhase.REPOSITORY_COMMITTED: CommitPhase.QUEUES_UPDATED,
    CommitPhase.QUEUES_UPDATED: CommitPhase.COMPLETE,
}


@dataclass(slots=True)
class SessionChanges:
    """Everything a session hands to the commit path."""

    binding: ComponentBinding
    puts: list[tuple[FlowFileQueue, QueuedFlowFile]] = field(default_factory=list)
    deletes: list[int] = field(default_factory=list)
    events: list[ProvenanceEvent] = field(default_factory=list)
    state: dict[str, str] | None = None
    keyed_state: dict[bytes, bytes | None] = field(default_factory=dict)
    taken: dict[FlowFileQueue, list[QueuedFlowFile]] = field(default_factory=dict)
    written: set[ResourceClaim] = field(default_factory=set)
    released: list[ResourceClaim] = field(default_factory=list)
    durable: bool = False
    """Set once step 2 has committed: from then on the session must not roll back."""
    flowfiles_in: int = 0
    bytes_in: int = 0
    flowfiles_out: int = 0
    bytes_out: int = 0
    counters: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class CommitListener:
    """Called after step 3 of every successful commit (metrics, provenance indexing)."""

    on_commit: Callable[[SessionChanges, float], None]


class SessionCommit:
    """One commit's progress through the steps; refuses to go back or skip."""

    __slots__ = ("phase",)

    def __init__(self) -> None:
        self.phase = CommitPhase.PREPARED

    def advance(self, to: CommitPhase) -> None:
        if _NEXT_PHASE.get(self.phase) is not to:
            msg = f"a commit cannot go from '{self.phase.value}' to '{to.value}'"
            raise SessionStateError(msg)
        self.phase = to

    def fail(self) -> None:
        self.phase = CommitPhase.FAILED


class SessionCommitter:
    """Orders every session commit (see the module docstring for the steps)."""

    def __init__(self, flowfiles: FlowFileRepository, content: ContentRepository) -> None:
        self._flowfiles = flowfiles
        self._content = content
        self._power = flowfiles.durability == "power"
        self._listeners: list[CommitListener] = []
        self._checkpoint_lock = threading.Lock()
        self._unsynced: list[ResourceClaim] = []
        """Release candidates taken by a checkpoint whose sync failed."""
        self.fault_hook: Callable[[CommitPhase], None] | None = None
        self.make_room: Callable[[], bool] | None = None
        """Called once when the FlowFile repository is full; True if it freed room."""

    @property
    def flowfiles(self) -> FlowFileRepository:
        """The FlowFile repository the commits go to (sessions read keyed state from it)."""
        return self._flowfiles

    def add_listener(self, listener: CommitListener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: CommitListener) -> None:
        """Stop calling ``listener`` (one added with ``add_listener``)."""
        self._listeners.remove(listener)

    def commit(self, changes: SessionChanges, now_ms: int) -> CommitReceipt:
        """Make a session's changes durable and visible, in the documented order.

        Raises only before step 2 is durable; then nothing has changed.
        """
        started = time.perf_counter()
        commit = SessionCommit()
        hook = self.fault_hook
        plans: list[PutPlan] = []
        try:
            # Step 1: content durable.
            if changes.written:
                self._content.flush(changes.written, fsync=self._power)
            commit.advance(CommitPhase.CONTENT_DURABLE)
            if hook is not None:
                hook(commit.phase)
            # Step 2: one FlowFile-repository transaction (FlowFiles, swap batches, events,
            # state).
            plans = _plan_puts(changes.puts)
            receipt = self._write(changes, plans)
            commit.advance(CommitPhase.REPOSITORY_COMMITTED)
            changes.durable = True
        except BaseException:
            commit.fail()
            for plan in plans:
                plan.queue.cancel_put(plan)
            raise
        try:
            if hook is not None:
                hook(commit.phase)
            # Step 3: in-memory queues and state (memory only).
            summaries = iter(receipt.swapped)
            for plan in plans:
                plan.queue.complete_put(plan, [next(summaries) for _ in plan.batches], now_ms)
            for queue, records in changes.taken.items():
                queue.acknowledge(records)
            if changes.state is not None:
                changes.binding.state.values = dict(changes.state)
            changes.binding.stats.record(
                changes.flowfiles_in,
                changes.bytes_in,
                changes.flowfiles_out,
                changes.bytes_out,
                changes.counters,
            )
            commit.advance(CommitPhase.QUEUES_UPDATED)
            if hook is not None:
                hook(commit.phase)
            # Step 4: claim release, once the transaction of step 2 is durable. The
            # references of one resource claim are dropped together (many small contents
            # share a file).
            for resource, count in Counter(changes.released).items():
                self._content.decrement(resource, count)
            if self._power:
                self._content.release(self._content.take_release_candidates())
            commit.advance(CommitPhase.COMPLETE)
            elapsed = time.perf_counter() - started
            for listener in self._listeners:
                listener.on_commit(changes, elapsed)
        except Exception:
            log.exception(
                "a commit of %s failed after its repository transaction (%s); its changes "
                "are durable and the next start-up rebuilds from them",
                changes.binding.component_id,
                commit.phase.value,
            )
        return receipt

    def _write(self, changes: SessionChanges, plans: list[PutPlan]) -> CommitReceipt:
        """Step 2, tried once more after ``make_room`` when the repository is full."""
        swap_outs = [swap for plan in plans for swap in plan.swap_outs()]
        if swap_outs:
            puts = [record for plan in plans for record in (*plan.active, *plan.rest)]
        else:
            puts = [record for _queue, record in changes.puts]
        update = RepositoryUpdate(
            puts=puts,
            deletes=changes.deletes,
            events=changes.events,
            state=(
                {changes.binding.component_id: changes.state} if changes.state is not None else {}
            ),
            keyed_state=(
                {changes.binding.component_id: changes.keyed_state} if changes.keyed_state else {}
            ),
            swap_outs=swap_outs,
        )
        try:
            return self._flowfiles.commit(update)
        except RepositoryFullError:
            make_room = self.make_room
            if make_room is None or not make_room():
                raise
            log.warning("the FlowFile repository was full; room was made, committing again")
            return self._flowfiles.commit(update)

    def record_events(self, events: list[ProvenanceEvent]) -> CommitReceipt:
        """Journal provenance events outside any session (forced SENDs, replays)."""
        return self._flowfiles.commit(RepositoryUpdate(events=events))

    def checkpoint(self) -> int:
        """Sync the FlowFile repository, then release the claims that waited for it.

        If the sync fails, the claims taken for release wait for the next checkpoint
        (the content repository hands each candidate out once: dropped here, its file
        would be kept until the next start-up)."""
        with self._checkpoint_lock:
            taken = self._content.take_release_candidates()
            candidates = list(dict.fromkeys([*self._unsynced, *taken]))
            self._unsynced = candidates
            self._flowfiles.sync()
            self._unsynced = []
            return self._content.release(candidates) if candidates else 0


def _plan_puts(puts: list[tuple[FlowFileQueue, QueuedFlowFile]]) -> list[PutPlan]:
    """Plan each destination queue, in name order (swap gates are taken in that order)."""
    by_queue: dict[FlowFileQueue, list[QueuedFlowFile]] = {}
    for queue, record in puts:
        by_queue.setdefault(queue, []).append(record)
    plans: list[PutPlan] = []
    try:
        for queue in sorted(by_queue, key=lambda q: q.name):
            plans.append(queue.plan_put(by_queue[queue]))
    except BaseException:
        for plan in plans:
            plan.queue.cancel_put(plan)
        raise
    return plans
