"""A real ``flowcore serve`` process on a loopback port, for the API tests."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 20.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """One ``flowcore serve`` subprocess; ``start`` again on the same data dir to restart."""

    def __init__(self, tmp: Path, flow: dict[str, Any], env: dict[str, str] | None = None) -> None:
        tmp.mkdir(parents=True, exist_ok=True)
        self.flow_path = tmp / "flow.yaml"
        self.flow_path.write_text(yaml.safe_dump(flow))
        self.data_dir = tmp / "data"
        self.log_path = tmp / "server.log"
        self.env = {**os.environ, **(env or {})}
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = free_port()
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cli",
                "serve",
                str(self.flow_path),
                "--data-dir",
                str(self.data_dir),
                "--port",
                str(self.port),
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited at start-up:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        self.kill()
        raise AssertionError(f"server did not answer /healthz in time:\n{self.log()}")

    def terminate(self, timeout: float = 30.0) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


ServerFactory = Callable[..., Server]


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[ServerFactory]:
    servers: list[Server] = []

    def build(flow: dict[str, Any], env: dict[str, str] | None = None) -> Server:
        server = Server(tmp_path / f"server{len(servers)}", flow, env)
        servers.append(server)
        return server

    yield build
    for server in servers:
        server.kill()


def tokens_env(**roles: str) -> dict[str, str]:
    """FLOWCORE_API_TOKENS for {token: role}."""
    return {"FLOWCORE_API_TOKENS": json.dumps([{"token": t, "role": r} for t, r in roles.items()])}
