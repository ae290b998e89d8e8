"""``flowcore serve`` refuses bad flags and busy ports plainly, before the flow starts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import yaml

from tests.api.conftest import ROOT


def serve(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """``flowcore serve`` on a flow that writes a file as soon as it is scheduled."""
    flow = {
        "flow": {
            "name": "serve-cli",
            "processors": {
                "gen": {"type": "GenerateFlowFile", "schedule": {"max_runs": 1}},
                "put": {
                    "type": "PutFile",
                    "properties": {"Directory": str(tmp_path / "out")},
                    "auto_terminate": ["success", "failure"],
                },
            },
            "connections": [{"from": "gen", "relationships": ["success"], "to": "put"}],
        }
    }
    path = tmp_path / "flow.yaml"
    path.write_text(yaml.safe_dump(flow), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLOWCORE_")}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "cli",
            "serve",
            str(path),
            "--data-dir",
            str(tmp_path / "data"),
            *flags,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_an_out_of_range_port_is_refused_in_one_line(tmp_path: Path) -> None:
    done = serve(tmp_path, "--port", "99999")

    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: API settings: port: Input should be less than or equal to 65535"
    ]
    assert not (tmp_path / "out").exists()


def test_a_port_in_use_stops_serve_before_the_flow_runs(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]

        done = serve(tmp_path, "--host", "127.0.0.1", "--port", str(port))

    assert done.returncode == 3, done.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()
