"""Group commit for single enqueues: concurrent small uploads into a port share a commit.

Each ``POST /ports/{port}/flowfiles`` with a small body hands its item to the port's
batcher and waits. One task per port takes whatever has gathered (up to ``max_batch``),
enqueues it with ``Node.enqueue`` (one session, one durable commit) on a worker thread,
and answers every request of the batch with its uuid once that commit is durable. While
a commit runs, the next requests gather: the busier the port, the larger the batch.

All or none within a batch, as for one session: an error (back pressure, a full
repository) fails every request of that batch with the same error and stores none of
them. A request is checked before it joins (a ``uuid`` attribute is refused), so one bad
item never fails the others.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from fastapi.concurrency import run_in_threadpool

from flowcore.engine import EnqueueItem, Node

__all__ = ["EnqueueBatcher"]


@dataclass(slots=True)
class _Waiting:
    item: EnqueueItem
    answer: asyncio.Future[str]


@dataclass(slots=True)
class _PortQueue:
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[_Waiting] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None


class EnqueueBatcher:
    """Per input port, one task that commits what concurrent requests hand it."""

    def __init__(self, node: Node, max_batch: int = 1000) -> None:
        self._node = node
        self._max_batch = max_batch
        self._ports: dict[str, _PortQueue] = {}

    async def enqueue(self, port: str, item: EnqueueItem) -> str:
        """The uuid of the FlowFile made of ``item``, once its commit is durable."""
        loop = asyncio.get_running_loop()
        entry = self._ports.get(port)
        if entry is None or entry.loop is not loop or entry.task is None or entry.task.done():
            entry = _PortQueue(loop)
            entry.task = loop.create_task(self._drain(port, entry.queue))
            self._ports[port] = entry
        answer: asyncio.Future[str] = loop.create_future()
        entry.queue.put_nowait(_Waiting(item, answer))
        return await answer

    async def _drain(self, port: str, queue: asyncio.Queue[_Waiting]) -> None:
        while True:
            batch = [await queue.get()]
            while len(batch) < self._max_batch and not queue.empty():
                batch.append(queue.get_nowait())
            try:
                uuids = await run_in_threadpool(
                    self._node.enqueue, port, [waiting.item for waiting in batch]
                )
            except Exception as exc:  # every request of the batch gets the same error
                for waiting in batch:
                    if not waiting.answer.done():
                        waiting.answer.set_exception(exc)
                continue
            for waiting, uuid in zip(batch, uuids, strict=True):
                if not waiting.answer.done():
                    waiting.answer.set_result(uuid)

    async def close(self) -> None:
        """Stop the tasks (requests still waiting get ``CancelledError``)."""
        for entry in self._ports.values():
            if entry.task is not None:
                entry.task.cancel()
        self._ports.clear()
