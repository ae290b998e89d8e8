"""The routers are shared by every app: each handler serves its own app's node."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from api.app import create_app
from api.settings import ApiSettings, ApiToken
from flowcore.clock import ManualClock
from flowcore.engine.node import Node
from flowcore.flow.definition import parse_flow
from flowcore.settings import EngineSettings

API = "/api/v1"


def flow(port: str) -> dict[str, Any]:
    return {
        "flow": {
            "name": port,
            "input_ports": [port],
            "processors": {"sink": {"type": "Funnel", "auto_terminate": ["success"]}},
            "connections": [{"from": port, "to": "sink", "name": f"{port}-queue"}],
        }
    }


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[tuple[Node, Node]]:
    built = tuple(
        Node.from_flow(
            EngineSettings.model_validate({"data_dir": tmp_path / port}),
            parse_flow(flow(port)),
            ManualClock(),
        )
        for port in ("left", "right")
    )
    yield built[0], built[1]
    for node in built:
        node.close()


def test_two_apps_serve_their_own_node_settings_and_tokens(nodes: tuple[Node, Node]) -> None:
    left = TestClient(create_app(nodes[0], ApiSettings()))
    right = TestClient(
        create_app(
            nodes[1],
            ApiSettings(tokens=[ApiToken(token=SecretStr("r"), role="write")], max_body_size="8 B"),
        )
    )
    assert left.get(f"{API}/flow").json()["input_ports"] == ["left"]
    assert right.get(f"{API}/flow").status_code == 401
    auth = {"Authorization": "Bearer r"}
    assert right.get(f"{API}/flow", headers=auth).json()["input_ports"] == ["right"]
    # The batch route reads the limit from its own app's settings.
    batch = b'{"content": "0123456789"}'
    assert left.post(f"{API}/ports/left/flowfiles/batch", content=batch).status_code == 201
    refused = right.post(f"{API}/ports/right/flowfiles/batch", content=batch, headers=auth)
    assert refused.status_code == 413
    assert left.get(f"{API}/connections/left-queue/flowfiles").json()["total"] == 1
    assert right.get(f"{API}/connections/left-queue/flowfiles", headers=auth).status_code == 404
