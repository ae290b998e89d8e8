"""Concurrent single enqueues share one commit; an error fails exactly its batch."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.enqueue_batcher import EnqueueBatcher
from flowcore.clock import ManualClock
from flowcore.engine import EnqueueItem, Node
from flowcore.flow import parse_flow
from flowcore.settings import EngineSettings


class RecordingNode:
    """Stands in for ``Node.enqueue``: records each call's batch, can fail once."""

    def __init__(self, fail_first: bool = False) -> None:
        self.batches: list[list[bytes]] = []
        self._fail = fail_first

    def enqueue(self, port: str, items: list[EnqueueItem]) -> list[str]:
        self.batches.append([item.content for item in items])
        if self._fail:
            self._fail = False
            raise RuntimeError("the repository is full")
        return [f"{port}-{item.content.decode()}" for item in items]


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_requests_that_gather_while_none_is_committing_share_one_commit() -> None:
    node = RecordingNode()
    batcher = EnqueueBatcher(node)  # type: ignore[arg-type]

    async def scenario() -> list[str]:
        answers = await asyncio.gather(
            *(batcher.enqueue("in", EnqueueItem(str(i).encode())) for i in range(10))
        )
        await batcher.close()
        return list(answers)

    assert run(scenario()) == [f"in-{i}" for i in range(10)]
    assert node.batches == [[str(i).encode() for i in range(10)]]


def test_a_failed_commit_fails_its_batch_and_the_next_batch_goes_through() -> None:
    node = RecordingNode(fail_first=True)
    batcher = EnqueueBatcher(node)  # type: ignore[arg-type]

    async def scenario() -> tuple[list[Any], str]:
        first = await asyncio.gather(
            *(batcher.enqueue("in", EnqueueItem(str(i).encode())) for i in range(3)),
            return_exceptions=True,
        )
        later = await batcher.enqueue("in", EnqueueItem(b"9"))
        await batcher.close()
        return list(first), later

    first, later = run(scenario())
    assert all(isinstance(answer, RuntimeError) for answer in first)
    assert later == "in-9"
    assert node.batches == [[b"0", b"1", b"2"], [b"9"]]


def test_concurrent_http_enqueues_are_all_stored_with_fewer_commits(tmp_path: Path) -> None:
    flow = {
        "flow": {
            "name": "batched",
            "input_ports": ["in"],
            "processors": {
                "hold": {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]}
            },
            "connections": [{"from": "in", "to": "hold", "name": "incoming"}],
        }
    }
    settings = EngineSettings(data_dir=tmp_path / "data")
    node = Node.from_flow(settings, parse_flow(flow), ManualClock())
    commits: list[int] = []
    real_enqueue = node.enqueue

    def counting(port: str, items: Any) -> list[str]:
        commits.append(len(items))
        return real_enqueue(port, items)

    node.enqueue = counting  # type: ignore[method-assign]
    app = create_app(node)

    async def scenario() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return list(
                await asyncio.gather(
                    *(
                        client.post(
                            "/api/v1/ports/in/flowfiles",
                            content=f"c{i}".encode(),
                            headers={"X-FlowFile-Attributes": f'{{"n": "{i}"}}'},
                        )
                        for i in range(40)
                    )
                )
            )

    try:
        responses = run(scenario())
        assert [r.status_code for r in responses] == [201] * 40
        assert sum(commits) == 40 and len(commits) < 40
        queued = node.connections["incoming"].queue.listing()
        by_n = {r.flowfile.attributes["n"]: r.flowfile for r in queued}
        assert sorted(by_n, key=int) == [str(i) for i in range(40)]
        for i, response in enumerate(responses):
            flowfile = by_n[str(i)]
            assert response.json()["uuid"] == flowfile.uuid
            assert node.content.read(flowfile.claim, 0, flowfile.size) == f"c{i}".encode()  # type: ignore[arg-type]
        refused = run(_post_uuid(app))
        assert refused.status_code == 422
    finally:
        node.close()


async def _post_uuid(app: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        return await client.post(
            "/api/v1/ports/in/flowfiles",
            content=b"x",
            headers={"X-FlowFile-Attributes": '{"uuid": "u"}'},
        )


@pytest.fixture(autouse=True)
def _no_leftover_loop() -> None:
    asyncio.set_event_loop(None)
