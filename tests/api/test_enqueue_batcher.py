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


# -- the commit queue over a real Node ---------------------------------------------------------

FLOW: dict[str, Any] = {
    "flow": {
        "name": "group-commit",
        "input_ports": ["in"],
        "processors": {
            "hold": {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]}
        },
        "connections": [{"from": "in", "to": "hold", "name": "incoming"}],
    }
}


def real_node(data_dir: Path, **overrides: Any) -> Node:
    settings = EngineSettings.model_validate({"data_dir": data_dir, **overrides})
    return Node.from_flow(settings, parse_flow(FLOW), ManualClock())


def queued_names(node: Node) -> list[str]:
    listing = node.connections["incoming"].queue.listing()
    return [record.flowfile.attributes["n"] for record in listing]


async def _post_all(app: Any, posts: list[tuple[str, bytes, dict[str, str]]]) -> list[Any]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        return list(
            await asyncio.gather(
                *(client.post(path, content=body, headers=headers) for path, body, headers in posts)
            )
        )


def test_a_failed_group_commit_answers_each_request_with_the_error_and_stores_none(
    tmp_path: Path,
) -> None:
    # A 1 MB LMDB map: 30 FlowFiles with a 40 KB attribute each cannot fit in one commit.
    data_dir = tmp_path / "data"
    limits = {"flowfile_repository": {"map_size": "1 MB", "max_map_size": "1 MB"}}
    node = real_node(data_dir, **limits)
    commits: list[int] = []
    real_enqueue = node.enqueue

    def counting(port: str, items: Any) -> list[str]:
        commits.append(len(items))
        return real_enqueue(port, items)

    node.enqueue = counting  # type: ignore[method-assign]
    pad = "p" * 40_000
    posts = [
        (
            "/api/v1/ports/in/flowfiles",
            b"c",
            {"X-FlowFile-Attributes": f'{{"n": "{i}", "pad": "{pad}"}}'},
        )
        for i in range(30)
    ]
    try:
        responses = run(_post_all(create_app(node), posts))
        assert commits == [30]  # one group
        assert [r.status_code for r in responses] == [507] * 30
        details = {r.json()["detail"] for r in responses}
        assert len(details) == 1 and "flowfile_repository.max_map_size" in details.pop()
        assert all(r.headers["connection"] == "close" for r in responses)
        assert queued_names(node) == []
    finally:
        node.close()
    reopened = real_node(data_dir, **limits)
    try:
        assert queued_names(reopened) == []  # nothing of the group became durable
        [ok] = run(
            _post_all(
                create_app(reopened),
                [("/api/v1/ports/in/flowfiles", b"c", {"X-FlowFile-Attributes": '{"n": "after"}'})],
            )
        )
        assert ok.status_code == 201
        assert queued_names(reopened) == ["after"]
    finally:
        reopened.close()


def test_a_request_whose_client_hangs_up_mid_body_never_joins_its_group(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    node = real_node(tmp_path / "data")
    app = create_app(node)
    commits: list[int] = []
    real_enqueue = node.enqueue

    def counting(port: str, items: Any) -> list[str]:
        commits.append(len(items))
        return real_enqueue(port, items)

    node.enqueue = counting  # type: ignore[method-assign]

    async def hang_up() -> list[dict[str, Any]]:
        """Headers promise 1000 bytes; 500 come, then the client is gone."""
        messages = iter(
            [
                {"type": "http.request", "body": b"h" * 500, "more_body": True},
                {"type": "http.disconnect"},
            ]
        )
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            await asyncio.sleep(0)
            return next(messages)

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/api/v1/ports/in/flowfiles",
            "raw_path": b"/api/v1/ports/in/flowfiles",
            "root_path": "",
            "query_string": b"",
            "headers": [(b"content-length", b"1000"), (b"x-flowfile-attributes", b'{"n": "gone"}')],
            "client": ("127.0.0.1", 1),
            "server": ("test", 80),
        }
        await app(scope, receive, send)
        return sent

    async def scenario() -> tuple[list[dict[str, Any]], list[Any]]:
        posts = [
            (
                "/api/v1/ports/in/flowfiles",
                f"c{i}".encode(),
                {"X-FlowFile-Attributes": f'{{"n": "{i}"}}'},
            )
            for i in range(10)
        ]
        gone, answers = await asyncio.gather(hang_up(), _post_all(app, posts))
        return gone, answers

    try:
        with caplog.at_level("WARNING", logger="flowcore.api"):
            gone, answers = run(scenario())
        assert gone == []  # nobody to answer
        assert [r.status_code for r in answers] == [201] * 10
        assert sum(commits) == 10
        assert sorted(queued_names(node), key=int) == [str(i) for i in range(10)]
        assert "client disconnected during POST /api/v1/ports/in/flowfiles" in caplog.text
    finally:
        node.close()


@pytest.mark.parametrize("offload", [False, True], ids=["singles-on-loop", "all-on-thread"])
def test_flowfiles_join_a_port_in_arrival_order_across_singles_batches_and_uploads(
    tmp_path: Path, offload: bool
) -> None:
    node = real_node(tmp_path / "data")
    batcher = EnqueueBatcher(node, offload=offload)

    def item(name: str) -> EnqueueItem:
        return EnqueueItem(name.encode(), {"n": name})

    async def scenario() -> list[Any]:
        upload = node.open_upload("in", {"n": "upload"})
        upload.write(b"streamed")
        works = [
            batcher.enqueue("in", item("s0")),
            batcher.enqueue("in", item("s1")),
            batcher.enqueue_all("in", [item("b0"), item("b1")]),
            batcher.enqueue("in", item("s2")),
            batcher.commit_upload("in", upload),
            batcher.enqueue("in", item("s3")),
        ]
        tasks = [asyncio.ensure_future(work) for work in works]  # arrive in this order
        answers = await asyncio.gather(*tasks)
        await batcher.close()
        return list(answers)

    try:
        answers = run(scenario())
        assert queued_names(node) == ["s0", "s1", "b0", "b1", "s2", "upload", "s3"]
        listing = node.connections["incoming"].queue.listing()
        uuids = [record.flowfile.uuid for record in listing]
        assert answers == [uuids[0], uuids[1], uuids[2:4], uuids[4], uuids[5], uuids[6]]
    finally:
        node.close()
