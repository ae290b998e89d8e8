"""SIGTERM and kill -9 of a real ``flowcore serve``: every 201 survives the restart."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pytest

from tests.api.conftest import ServerFactory

API = "/api/v1"

FLOW: dict[str, Any] = {
    "flow": {
        "name": "restart",
        "input_ports": ["in"],
        "processors": {
            "hold": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
        },
        "connections": [{"from": "in", "to": "hold", "name": "incoming"}],
    }
}


def held(url: str) -> set[str]:
    found: set[str] = set()
    offset = 0
    while True:
        page = httpx.get(
            f"{url}{API}/connections/incoming/flowfiles",
            params={"offset": offset, "limit": 1000},
            timeout=10,
        ).json()
        found.update(f["uuid"] for f in page["flowfiles"])
        offset += 1000
        if offset >= page["total"]:
            return found


def test_sigterm_stops_cleanly_and_restart_resumes(server_factory: ServerFactory) -> None:
    server = server_factory(FLOW)
    server.start()
    uuids = [
        httpx.post(f"{server.url}{API}/ports/in/flowfiles", content=f"n{i}".encode()).json()["uuid"]
        for i in range(20)
    ]
    assert server.terminate() == 0, server.log()
    assert "stopped cleanly" in server.log()

    server.start()
    assert held(server.url) == set(uuids)
    info = httpx.get(f"{server.url}{API}/flowfiles/{uuids[0]}").json()
    assert info["status"] == "QUEUED"
    assert server.terminate() == 0


@pytest.mark.crash
def test_kill_9_during_enqueueing_loses_no_acknowledged_flowfile(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(FLOW)
    server.start()
    acknowledged: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def worker(index: int) -> None:
        with httpx.Client(base_url=server.url, timeout=5) as client:
            n = 0
            while not stop.is_set():
                try:
                    if n % 3 == 0:
                        body = "\n".join(f'{{"content": "b{index}-{n}-{k}"}}' for k in range(5))
                        r = client.post(f"{API}/ports/in/flowfiles/batch", content=body)
                        got = r.json()["uuids"] if r.status_code == 201 else []
                    else:
                        r = client.post(f"{API}/ports/in/flowfiles", content=f"{index}-{n}")
                        got = [r.json()["uuid"]] if r.status_code == 201 else []
                except (httpx.TransportError, ValueError):
                    return  # the server is gone; an unanswered request proves nothing
                with lock:
                    acknowledged.extend(got)
                n += 1

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for w in workers:
        w.start()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with lock:
            if len(acknowledged) >= 300:
                break
        time.sleep(0.02)
    server.kill()  # SIGKILL while the workers are still sending
    stop.set()
    for w in workers:
        w.join(10)
    with lock:
        before_kill = list(acknowledged)
    assert len(before_kill) >= 50

    server.start()
    present = held(server.url)
    missing = set(before_kill) - present
    assert not missing, f"{len(missing)} acknowledged FlowFiles lost"
    sample = before_kill[-1]
    assert httpx.get(f"{server.url}{API}/flowfiles/{sample}").json()["status"] == "QUEUED"
    assert server.terminate() == 0
