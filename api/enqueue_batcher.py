"""Group commit for REST enqueues: one writer drains a commit queue, many requests wait.

Every enqueue request hands its work to the node's ``EnqueueBatcher`` and waits: a small
single enqueue (content read whole), an NDJSON batch (all or none), or a streamed upload
whose content is already in the content repository. One task drains the queue: it takes
whatever has gathered (up to ``max_batch`` works), commits it, and answers every request
once its commit is durable. While a commit runs the next requests gather, so the busier
the API, the larger the group.

Per port, the small single enqueues that gathered between two sequence points form one
group and one session (``Node.enqueue``): one LMDB transaction and one content sync for
the lot. A batch or an upload is committed on its own, after the group gathered before it
and before the one after it, so FlowFiles join a port's connections in arrival order.

All or none within a group, as for one session: an error (back pressure, a full
repository) fails every request of that group with the same error and stores none of
them. A request is checked before it joins (a ``uuid`` attribute is refused), so one bad
item never fails the others, and a request whose client hangs up before its body is whole
never joins.

Where a commit runs: on the event loop's thread. With ``durability=process`` a commit is
a short LMDB transaction, cheaper than the thread switches it would take to run it
elsewhere; measured on 2 cores, running the commits of batches and uploads on a thread of
their own (so that the loop parses meanwhile) was ahead in 4 of 7 alternated runs, within
the noise, so the simpler way stays. ``offload=True`` (for ``durability=power``, whose
fsyncs must never stall the loop) runs every drain on one dedicated thread instead: one
hop per drain, never one per request.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from flowcore.engine import EnqueueItem, Node
from flowcore.engine.node import PortUpload

__all__ = ["EnqueueBatcher"]


@dataclass(slots=True)
class _Single:
    port: str
    item: EnqueueItem
    answer: asyncio.Future[str]


@dataclass(slots=True)
class _Alone:
    """A commit of its own: an NDJSON batch (all or none) or a streamed upload."""

    port: str
    commit: Callable[[], list[str]]
    answer: asyncio.Future[list[str]]


_Work = _Single | _Alone


@dataclass(slots=True)
class _Group:
    port: str
    singles: list[_Single]


@dataclass(slots=True)
class _Outcome:
    futures: list[asyncio.Future[str]] | asyncio.Future[list[str]]
    result: list[str] | None = None
    error: BaseException | None = None


class EnqueueBatcher:
    """The node's commit queue for REST enqueues, drained by one writer."""

    def __init__(self, node: Node, max_batch: int = 1000, *, offload: bool = False) -> None:
        self._node = node
        self._max_batch = max_batch
        self._offload = offload
        self._executor: ThreadPoolExecutor | None = None
        self._pending: deque[_Work] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wakeup: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    async def enqueue(self, port: str, item: EnqueueItem) -> str:
        """The uuid of the FlowFile made of ``item``, once its group's commit is durable."""
        answer: asyncio.Future[str] = self._ready().create_future()
        self._submit(_Single(port, item, answer))
        return await answer

    async def enqueue_all(self, port: str, items: list[EnqueueItem]) -> list[str]:
        """The uuids of ``items`` committed in one session of their own (all or none)."""
        return await self._alone(port, lambda: self._node.enqueue(port, items))

    async def commit_upload(self, port: str, upload: PortUpload) -> str:
        """Commit a streamed upload in arrival order with the port's other enqueues."""
        uuids = await self._alone(port, lambda: [upload.commit()])
        return uuids[0]

    async def close(self) -> None:
        """Stop the writer (requests still waiting get ``CancelledError``)."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, RuntimeError):
                pass
        self._task = None
        self._loop = None
        for work in self._pending:
            work.answer.cancel()
        self._pending.clear()
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    # -- the writer -------------------------------------------------------------------------

    def _ready(self) -> asyncio.AbstractEventLoop:
        """The running loop, with the writer task started on it (again after a restart)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._task is None or self._task.done():
            self._loop = loop
            self._wakeup = asyncio.Event()
            self._task = loop.create_task(self._drain(self._wakeup))
        return loop

    def _submit(self, work: _Work) -> None:
        self._pending.append(work)
        assert self._wakeup is not None
        self._wakeup.set()

    async def _alone(self, port: str, commit: Callable[[], list[str]]) -> list[str]:
        answer: asyncio.Future[list[str]] = self._ready().create_future()
        self._submit(_Alone(port, commit, answer))
        return await answer

    async def _drain(self, wakeup: asyncio.Event) -> None:
        pending = self._pending
        while True:
            await wakeup.wait()
            wakeup.clear()
            await self._gather()
            while pending:
                works = [pending.popleft() for _ in range(min(len(pending), self._max_batch))]
                try:
                    if self._offload:
                        if self._executor is None:
                            self._executor = ThreadPoolExecutor(1, "flowcore-api-commit")
                        loop = asyncio.get_running_loop()
                        outcomes = await loop.run_in_executor(self._executor, self._commit, works)
                    else:
                        outcomes = self._commit(works)
                except BaseException:  # stopped mid-commit: nobody may wait for ever
                    for work in works:
                        work.answer.cancel()
                    raise
                _answer(outcomes)
                await self._gather()

    async def _gather(self) -> None:
        """Let the requests whose bytes have already arrived reach the queue before a
        group is taken, so that it is as large as it can be: yield to the loop until two
        turns in a row bring nothing (a request needs one turn to be read, one to run)."""
        pending = self._pending
        quiet = 0
        while quiet < 2 and len(pending) < self._max_batch:
            before = len(pending)
            await asyncio.sleep(0)
            quiet = quiet + 1 if len(pending) == before else 0

    def _commit(self, works: list[_Work]) -> list[_Outcome]:
        """Commit ``works`` in arrival order per port: a group per port between the
        sequence points (a batch or an upload), each of those on its own."""
        outcomes: list[_Outcome] = []
        groups: dict[str, _Group] = {}
        for work in works:
            if isinstance(work, _Single):
                group = groups.get(work.port)
                if group is None:
                    groups[work.port] = group = _Group(work.port, [])
                group.singles.append(work)
                continue
            before = groups.pop(work.port, None)
            if before is not None:
                outcomes.append(self._commit_group(before))
            outcome = _Outcome(work.answer)
            try:
                outcome.result = work.commit()
            except Exception as exc:  # answered to its request
                outcome.error = exc
            outcomes.append(outcome)
        outcomes.extend(self._commit_group(group) for group in groups.values())
        return outcomes

    def _commit_group(self, group: _Group) -> _Outcome:
        outcome = _Outcome([single.answer for single in group.singles])
        try:
            outcome.result = self._node.enqueue(
                group.port, [single.item for single in group.singles]
            )
        except Exception as exc:  # every request of the group gets the same error
            outcome.error = exc
        return outcome


def _answer(outcomes: list[_Outcome]) -> None:
    for outcome in outcomes:
        futures = outcome.futures
        if isinstance(futures, list):
            for index, future in enumerate(futures):
                if future.done():  # its request was cancelled: nothing to answer
                    continue
                if outcome.error is not None:
                    future.set_exception(outcome.error)
                else:
                    assert outcome.result is not None
                    future.set_result(outcome.result[index])
        elif not futures.done():
            if outcome.error is not None:
                futures.set_exception(outcome.error)
            else:
                assert outcome.result is not None
                futures.set_result(outcome.result)
