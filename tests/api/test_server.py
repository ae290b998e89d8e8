"""The REST API against a real ``flowcore serve`` process (uvicorn on a loopback port)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.api.conftest import Server, tokens_env

WRITE = "write-token-5f2a9c"
READ = "read-token-81b3d7"
API = "/api/v1"

FLOW: dict[str, Any] = {
    "flow": {
        "name": "api-test",
        "input_ports": ["in", "tiny", "bulk"],
        "processors": {
            "tag": {"type": "UpdateAttribute", "properties": {"stage": "tagged"}},
            "hold": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            "tiny_hold": {
                "type": "Funnel",
                "auto_terminate": ["success"],
                "run_state": "STOPPED",
            },
            "bulk_tag": {"type": "UpdateAttribute", "properties": {"stage": "bulk"}},
            "bulk_hold": {
                "type": "Funnel",
                "auto_terminate": ["success"],
                "run_state": "STOPPED",
            },
        },
        "connections": [
            {"from": "in", "to": "tag", "name": "incoming"},
            {"from": "tag", "relationships": ["success"], "to": "hold", "name": "tagged"},
            {
                "from": "tiny",
                "to": "tiny_hold",
                "name": "tiny",
                "back_pressure": {"object_threshold": 2},
            },
            {"from": "bulk", "to": "bulk_tag", "name": "bulk_in"},
            {
                "from": "bulk_tag",
                "relationships": ["success"],
                "to": "bulk_hold",
                "name": "bulk_tagged",
            },
        ],
    }
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("api-server")
    env = {**tokens_env(**{WRITE: "write", READ: "read"}), "FLOWCORE_API_MAX_BODY_SIZE": "4 KB"}
    srv = Server(tmp, FLOW, env)
    srv.start()
    yield srv
    code = srv.terminate()
    assert code == 0, srv.log()


@pytest.fixture(scope="module")
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {WRITE}"}, timeout=10.0
    ) as c:
        yield c


def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def queued(client: httpx.Client, connection: str) -> int:
    flow = client.get(f"{API}/flow").json()
    (found,) = [c for c in flow["connections"] if c["name"] == connection]
    return int(found["queued_count"]) + int(found["in_flight"])


def listing(client: httpx.Client, connection: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    offset = 0
    while True:
        page = client.get(
            f"{API}/connections/{connection}/flowfiles", params={"offset": offset, "limit": 500}
        ).json()
        found.extend(page["flowfiles"])
        offset += 500
        if offset >= page["total"]:
            return found


def events(client: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    response = client.get(f"{API}/provenance/events", params={"wait_for_index": True, **params})
    assert response.status_code == 200, response.text
    return list(response.json()["events"])


# -- the round trip -------------------------------------------------------------------------


def test_round_trip(client: httpx.Client) -> None:
    response = client.post(
        f"{API}/ports/in/flowfiles",
        content=b"hello, flow",
        headers={"X-FlowFile-Attributes": json.dumps({"filename": "hello.txt", "origin": "rt"})},
    )
    assert response.status_code == 201, response.text
    uuid = response.json()["uuid"]

    wait_for(lambda: client.get(f"{API}/flowfiles/{uuid}").json().get("connection") == "tagged")
    info = client.get(f"{API}/flowfiles/{uuid}").json()
    assert info["status"] == "QUEUED"
    assert info["attributes"]["stage"] == "tagged"
    assert info["attributes"]["origin"] == "rt"
    assert info["size"] == len(b"hello, flow")

    found = events(client, flowfile_uuid=uuid)
    types = [e["event_type"] for e in found]
    assert types == ["ATTRIBUTES_MODIFIED", "RECEIVE"]  # newest first
    by_attr = events(client, **{"attribute.origin": "rt", "event_type": "receive"})
    assert [e["flowfile_uuid"] for e in by_attr] == [uuid]
    assert events(client, component="tag", flowfile_uuid=uuid)[0]["event_type"] == (
        "ATTRIBUTES_MODIFIED"
    )

    lineage = client.get(f"{API}/provenance/lineage/{uuid}").json()
    event_nodes = {n["event_id"] for n in lineage["nodes"] if n["type"] == "EVENT"}
    assert {e["event_id"] for e in found} <= event_nodes
    linked = {link["source_id"] for link in lineage["links"]} | {
        link["target_id"] for link in lineage["links"]
    }
    assert {str(e["event_id"]) for e in found} <= linked
    assert any(n["type"] == "FLOWFILE" and n["flowfile_uuid"] == uuid for n in lineage["nodes"])

    modified, receive = found
    detail = client.get(f"{API}/provenance/events/{modified['event_id']}").json()
    assert detail["input_content_available"] is True
    assert detail["output_content_available"] is True
    base = f"{API}/provenance/events"
    assert client.get(f"{base}/{modified['event_id']}/content/input").content == b"hello, flow"
    assert client.get(f"{base}/{modified['event_id']}/content/output").content == b"hello, flow"
    assert client.get(f"{base}/{receive['event_id']}/content/output").content == b"hello, flow"
    no_input = client.get(f"{base}/{receive['event_id']}/content/input")
    assert no_input.status_code == 404
    assert "no input content" in no_input.json()["detail"]

    replay = client.post(f"{base}/{modified['event_id']}/replay")
    assert replay.status_code == 201, replay.text
    new_uuid = replay.json()["uuid"]
    assert new_uuid != uuid
    replays = events(client, event_type="REPLAY", flowfile_uuid=uuid)
    assert len(replays) == 1
    assert replays[0]["child_uuids"] == [new_uuid]
    wait_for(lambda: client.get(f"{API}/flowfiles/{new_uuid}").json().get("connection") == "tagged")
    replayed = client.get(f"{API}/flowfiles/{new_uuid}").json()
    assert replayed["attributes"]["flowfile.replay"] == "true"
    assert replayed["attributes"]["origin"] == "rt"


def test_batch_is_one_session(client: httpx.Client) -> None:
    lines = [
        {"attributes": {"n": "1"}, "content": "one"},
        {"attributes": {"n": "2"}, "content_base64": "dHdv"},
        {"content": ""},
    ]
    body = "\n".join(json.dumps(line) for line in lines) + "\n"
    response = client.post(
        f"{API}/ports/in/flowfiles/batch",
        content=body,
        headers={"Content-Type": "application/x-ndjson"},
    )
    assert response.status_code == 201, response.text
    uuids = response.json()["uuids"]
    assert len(set(uuids)) == 3
    receives = events(client, event_type="RECEIVE", limit=3)
    assert {e["flowfile_uuid"] for e in receives} == set(uuids)
    sizes = {e["flowfile_uuid"]: e["size"] for e in receives}
    assert [sizes[u] for u in uuids] == [3, 3, 0]


# -- errors ---------------------------------------------------------------------------------


def test_bad_input_enqueues_nothing(client: httpx.Client) -> None:
    wait_for(lambda: queued(client, "incoming") == 0)
    before = queued(client, "tagged")
    receives = len(events(client, event_type="RECEIVE", limit=1000))
    post = f"{API}/ports/in/flowfiles"
    batch = f"{API}/ports/in/flowfiles/batch"
    cases: list[tuple[httpx.Response, int, str]] = [
        (client.post(post, content=b"x", headers={"X-FlowFile-Attributes": "{nope"}), 400, "JSON"),
        (client.post(post, content=b"x", headers={"X-FlowFile-Attributes": "[1]"}), 422, "object"),
        (
            client.post(post, content=b"x", headers={"X-FlowFile-Attributes": '{"a": 1}'}),
            422,
            "'a' must be a string",
        ),
        (
            client.post(post, content=b"x", headers={"X-FlowFile-Attributes": '{"uuid": "u"}'}),
            422,
            "uuid",
        ),
        (client.post(post, content=b"x" * 5000), 413, "maximum size"),
        (client.post(batch, content=b'{"content": "a"}\n{"content": '), 400, "line 2"),
        (client.post(batch, content=b'{"content": "a"}\n[1]\n'), 422, "line 2"),
        (
            client.post(batch, content=b'{"content": "a"}\n{"attributes": {"uuid": "x"}}\n'),
            422,
            "uuid",
        ),
        (
            client.post(batch, content=b'{"content": "a"}\n{"attributes": {"k": true}}\n'),
            422,
            "'k' must be a string",
        ),
        (client.post(batch, content=b'{"content_base64": "!!"}\n'), 422, "base64"),
        (client.post(batch, content=b""), 400, "empty"),
        (client.post(batch, content=b'{"content": "' + b"y" * 5000 + b'"}'), 413, "maximum"),
    ]
    for response, status, text in cases:
        assert response.status_code == status, (response.status_code, response.text)
        assert text in response.json()["detail"], response.text
    assert queued(client, "incoming") == 0
    assert queued(client, "tagged") == before
    assert len(events(client, event_type="RECEIVE", limit=1000)) == receives


def test_unknown_things_are_404(client: httpx.Client) -> None:
    checks = [
        client.post(f"{API}/ports/nope/flowfiles", content=b"x"),
        client.post(f"{API}/ports/nope/flowfiles/batch", content=b'{"content": "x"}'),
        client.post(f"{API}/processors/nope/run-status", json={"state": "RUNNING"}),
        client.get(f"{API}/connections/nope/flowfiles"),
        client.get(f"{API}/flowfiles/00000000-0000-0000-0000-000000000000"),
        client.get(f"{API}/provenance/events/999999"),
        client.get(f"{API}/provenance/events/999999/content/input"),
        client.get(f"{API}/provenance/events/999999/content/output"),
        client.post(f"{API}/provenance/events/999999/replay"),
        client.get(f"{API}/provenance/lineage/00000000-0000-0000-0000-000000000000"),
    ]
    for response in checks:
        assert response.status_code == 404, (response.request.url, response.text)
        assert response.json()["detail"]
    bad_state = client.post(f"{API}/processors/tag/run-status", json={"state": "PAUSED"})
    assert bad_state.status_code == 422


def test_back_pressure_is_503_with_retry_after(client: httpx.Client) -> None:
    for _ in range(2):
        assert client.post(f"{API}/ports/tiny/flowfiles", content=b"t").status_code == 201
    full = client.post(f"{API}/ports/tiny/flowfiles", content=b"t")
    assert full.status_code == 503
    assert full.headers["Retry-After"] == "1"
    assert "back pressure" in full.json()["detail"]
    batch = client.post(f"{API}/ports/tiny/flowfiles/batch", content=b'{"content": "t"}')
    assert batch.status_code == 503
    assert queued(client, "tiny") == 2
    flow = client.get(f"{API}/flow").json()
    (tiny,) = [c for c in flow["connections"] if c["name"] == "tiny"]
    assert tiny["back_pressure"] is True


def test_run_status_and_queue_listing(client: httpx.Client) -> None:
    stopped = client.post(f"{API}/processors/tag/run-status", json={"state": "STOPPED"})
    assert stopped.status_code == 200
    assert stopped.json()["run_state"] == "STOPPED"
    try:
        body = "\n".join(json.dumps({"attributes": {"i": str(i)}}) for i in range(5))
        uuids = client.post(f"{API}/ports/in/flowfiles/batch", content=body).json()["uuids"]
        page = client.get(
            f"{API}/connections/incoming/flowfiles", params={"offset": 1, "limit": 2}
        ).json()
        assert page["total"] == 5
        assert [f["uuid"] for f in page["flowfiles"]] == uuids[1:3]
        assert [f["position"] for f in page["flowfiles"]] == [1, 2]
        info = client.get(f"{API}/flowfiles/{uuids[4]}").json()
        assert info["connection"] == "incoming"
        assert info["position"] == 4
    finally:
        started = client.post(f"{API}/processors/tag/run-status", json={"state": "RUNNING"})
        assert started.json()["run_state"] == "RUNNING"
    wait_for(lambda: queued(client, "incoming") == 0)
    tagged = {f["uuid"] for f in listing(client, "tagged")}
    assert set(uuids) <= tagged


def test_cursor_paging_is_newest_first(client: httpx.Client) -> None:
    first = client.get(
        f"{API}/provenance/events", params={"limit": 2, "wait_for_index": True}
    ).json()
    assert first["next_cursor"] is not None
    ids = [e["event_id"] for e in first["events"]]
    assert ids == sorted(ids, reverse=True)
    second = client.get(
        f"{API}/provenance/events", params={"limit": 2, "cursor": first["next_cursor"]}
    ).json()
    assert max(e["event_id"] for e in second["events"]) < min(ids)
    bad = client.get(f"{API}/provenance/events", params={"cursor": "abc"})
    assert bad.status_code == 422
    assert client.get(f"{API}/provenance/events", params={"event_type": "NOPE"}).status_code == 422
    assert client.get(f"{API}/provenance/events", params={"start": "yesterday"}).status_code == 422
    future = client.get(f"{API}/provenance/events", params={"start": "2999-01-01T00:00:00Z"}).json()
    assert future["events"] == []


# -- security -------------------------------------------------------------------------------


def test_security(server: Server) -> None:
    url = server.url
    flow = f"{url}{API}/flow"
    missing = httpx.get(flow)
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"] == "Bearer"
    assert httpx.get(flow, headers={"Authorization": "Bearer wrong-token"}).status_code == 401
    assert httpx.get(flow, headers={"Authorization": f"Basic {WRITE}"}).status_code == 401
    read = {"Authorization": f"Bearer {READ}"}
    assert httpx.get(flow, headers=read).status_code == 200
    assert httpx.get(f"{url}/metrics", headers=read).status_code == 200
    assert httpx.get(f"{url}/metrics").status_code == 401
    assert httpx.get(f"{url}/healthz").status_code == 200
    posts = [
        (f"{API}/ports/in/flowfiles", {"content": b"x"}),
        (f"{API}/ports/in/flowfiles/batch", {"content": b'{"content": "x"}'}),
        (f"{API}/processors/tag/run-status", {"json": {"state": "STOPPED"}}),
        (f"{API}/provenance/events/0/replay", {}),
    ]
    for path, kwargs in posts:
        assert httpx.post(f"{url}{path}", headers=read, **kwargs).status_code == 403
        assert httpx.post(f"{url}{path}", **kwargs).status_code == 401
    # the refused writes did nothing
    tag = [p for p in httpx.get(flow, headers=read).json()["processors"] if p["name"] == "tag"]
    assert tag[0]["run_state"] == "RUNNING"
    log = server.log()
    assert WRITE not in log
    assert READ not in log


def test_openapi_describes_the_endpoints(client: httpx.Client) -> None:
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    for path in (
        "/api/v1/ports/{port}/flowfiles",
        "/api/v1/ports/{port}/flowfiles/batch",
        "/api/v1/flow",
        "/api/v1/processors/{name}/run-status",
        "/api/v1/flowfiles/{uuid}",
        "/api/v1/connections/{name}/flowfiles",
        "/api/v1/provenance/events",
        "/api/v1/provenance/events/{event_id}",
        "/api/v1/provenance/events/{event_id}/content/input",
        "/api/v1/provenance/events/{event_id}/content/output",
        "/api/v1/provenance/events/{event_id}/replay",
        "/api/v1/provenance/lineage/{uuid}",
        "/healthz",
        "/metrics",
    ):
        assert path in paths, path
    post = paths["/api/v1/ports/{port}/flowfiles"]["post"]
    assert {"201", "400", "401", "403", "404", "413", "422", "503"} <= set(post["responses"])


def test_metrics(client: httpx.Client) -> None:
    text = client.get("/metrics").text
    assert 'flowcore_queue_flowfiles{connection="tagged"}' in text
    assert 'flowcore_processor_flowfiles_out{processor="tag"}' in text
    assert "flowcore_commit_seconds_bucket" in text
    assert "flowcore_provenance_index_lag_events" in text


# -- concurrency ----------------------------------------------------------------------------


def test_concurrent_clients(server: Server, client: httpx.Client) -> None:
    singles_per_thread, threads, batches_per_thread, batch_size = 25, 8, 4, 10
    results: list[str] = []
    failures: list[str] = []
    lock = threading.Lock()

    def single_worker(index: int) -> None:
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {WRITE}"}, timeout=30
        ) as c:
            for n in range(singles_per_thread):
                r = c.post(
                    f"{API}/ports/bulk/flowfiles",
                    content=f"{index}-{n}".encode(),
                    headers={"X-FlowFile-Attributes": json.dumps({"w": str(index)})},
                )
                with lock:
                    if r.status_code == 201:
                        results.append(r.json()["uuid"])
                    else:
                        failures.append(r.text)

    def batch_worker(index: int) -> None:
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {WRITE}"}, timeout=30
        ) as c:
            for n in range(batches_per_thread):
                body = "\n".join(
                    json.dumps({"content": f"b{index}-{n}-{k}"}) for k in range(batch_size)
                )
                r = c.post(f"{API}/ports/bulk/flowfiles/batch", content=body)
                with lock:
                    if r.status_code == 201:
                        results.extend(r.json()["uuids"])
                    else:
                        failures.append(r.text)

    workers = [threading.Thread(target=single_worker, args=(i,)) for i in range(threads)]
    workers += [threading.Thread(target=batch_worker, args=(i,)) for i in range(threads // 2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert not failures, failures[:3]
    expected = threads * singles_per_thread + (threads // 2) * batches_per_thread * batch_size
    assert len(results) == expected
    assert len(set(results)) == expected
    wait_for(lambda: queued(client, "bulk_in") == 0, timeout=20)
    held = [f["uuid"] for f in listing(client, "bulk_tagged")]
    assert len(held) == expected
    assert set(held) == set(results)
    receives = events(client, event_type="RECEIVE", component="bulk", limit=1000)
    assert {e["flowfile_uuid"] for e in receives} == set(results)
