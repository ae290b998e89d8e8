"""Faults met by a real ``flowcore serve`` process: a client that hangs up mid-upload."""

from __future__ import annotations

import socket
import time
from typing import Any

import httpx

from tests.api.conftest import ServerFactory

API = "/api/v1"
FLOW: dict[str, Any] = {
    "flow": {
        "name": "server-failures",
        "input_ports": ["in"],
        "processors": {
            "hold": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"}
        },
        "connections": [{"from": "in", "to": "hold", "name": "incoming"}],
    }
}
DISCONNECTED = "client disconnected during POST /api/v1/ports/in/flowfiles"


def wait_for_log(server: Any, text: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log: str = server.log()
        if text in log:
            return log
        time.sleep(0.05)
    raise AssertionError(f"{text!r} never reached the server log:\n{server.log()}")


def test_a_client_that_hangs_up_mid_upload_leaves_one_quiet_line_and_nothing_queued(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(FLOW)
    server.start()
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(
            b"POST /api/v1/ports/in/flowfiles HTTP/1.1\r\nHost: test\r\n"
            b"Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n"
            + b"p"
            * 70_000
        )
    log = wait_for_log(server, DISCONNECTED)
    assert "Traceback" not in log and "ERROR" not in log, log

    with httpx.Client(base_url=server.url, timeout=10.0) as client:
        flow = client.get(f"{API}/flow").json()
        [incoming] = [c for c in flow["connections"] if c["name"] == "incoming"]
        assert incoming["queued_count"] == 0
        ok = client.post(f"{API}/ports/in/flowfiles", content=b"after")
        assert ok.status_code == 201
    assert server.terminate() == 0
    assert "Traceback" not in server.log(), server.log()
