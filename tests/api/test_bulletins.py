"""GET /api/v1/bulletins in-process: NiFi's bulletin board JSON, paged with after/limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from pydantic import SecretStr

from api.app import create_app
from api.settings import ApiSettings, ApiToken
from flowcore.clock import ManualClock
from flowcore.engine.node import Node
from flowcore.engine.scheduler import DeterministicScheduler
from flowcore.flow.definition import parse_flow
from flowcore.settings import EngineSettings

API = "/api/v1"


def conflict_flow(out: Path) -> dict[str, Any]:
    """Every FlowFile is named taken.txt and PutFile refuses to overwrite it."""
    return {
        "flow": {
            "name": "conflict",
            "input_ports": ["in"],
            "processors": {
                "name": {"type": "UpdateAttribute", "properties": {"filename": "taken.txt"}},
                "put": {
                    "type": "PutFile",
                    "properties": {"Directory": str(out), "Conflict Resolution Strategy": "fail"},
                    "auto_terminate": ["success", "failure"],
                },
            },
            "connections": [
                {"from": "in", "to": "name"},
                {"from": "name", "relationships": ["success"], "to": "put"},
            ],
        }
    }


def test_bulletins_are_served_as_nifi_bulletin_board(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "taken.txt").write_text("already here")
    settings = EngineSettings.model_validate({"data_dir": tmp_path / "data"})
    node = Node.from_flow(settings, parse_flow(conflict_flow(out)), ManualClock(1_000))
    try:
        api = ApiSettings(
            tokens=[
                ApiToken(token=SecretStr("t"), role="read"),
                ApiToken(token=SecretStr("w"), role="write"),
            ]
        )
        client = TestClient(create_app(node, api))
        auth = {"authorization": "Bearer t"}
        assert client.get(f"{API}/bulletins").status_code == 401
        empty = client.get(f"{API}/bulletins", headers=auth).json()
        assert empty["bulletinBoard"]["bulletins"] == []
        for _ in range(3):
            posted = client.post(
                f"{API}/ports/in/flowfiles", content=b"x", headers={"authorization": "Bearer w"}
            )
            assert posted.status_code == 201
        DeterministicScheduler(node).run_until_idle()

        board = client.get(f"{API}/bulletins", headers=auth).json()["bulletinBoard"]
        entities = board["bulletins"]
        # Three conflicts: a WARNING log and an ERROR for the failure routing each.
        assert len(entities) == 6
        assert [e["id"] for e in entities] == sorted(e["id"] for e in entities)
        first = entities[0]
        assert first["sourceId"] == first["bulletin"]["sourceId"] == "put"
        assert first["bulletin"]["sourceName"] == "put"
        assert first["bulletin"]["sourceType"] == "PutFile"
        assert first["bulletin"]["groupId"] == "root"
        assert first["bulletin"]["timestampMillis"] == 1_000
        assert first["timestamp"].startswith("1970-01-01T00:00:01.000")
        levels = sorted(e["bulletin"]["level"] for e in entities)
        assert levels == ["ERROR"] * 3 + ["WARNING"] * 3
        routed = [e for e in entities if e["bulletin"]["category"] == "Routed to failure"]
        assert all("taken.txt" in e["bulletin"]["message"] for e in routed)

        after = client.get(
            f"{API}/bulletins", params={"after": entities[3]["id"]}, headers=auth
        ).json()["bulletinBoard"]["bulletins"]
        assert [e["id"] for e in after] == [e["id"] for e in entities[4:]]
        newest = client.get(f"{API}/bulletins", params={"limit": 2}, headers=auth).json()
        assert [e["id"] for e in newest["bulletinBoard"]["bulletins"]] == [
            e["id"] for e in entities[-2:]
        ]
        bad = client.get(f"{API}/bulletins", params={"limit": 0}, headers=auth)
        assert bad.status_code == 422
    finally:
        node.close()
