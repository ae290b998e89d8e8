"""The REST content download and replay of damaged content: a 410 naming the damage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import ApiSettings
from flowcore.clock import ManualClock
from flowcore.engine.node import Node
from flowcore.engine.scheduler import DeterministicScheduler
from flowcore.flow.definition import parse_flow
from flowcore.settings import EngineSettings

API = "/api/v1"
FLOW = {
    "flow": {
        "name": "damaged",
        "input_ports": ["in"],
        "processors": {
            "tag": {"type": "UpdateAttribute", "properties": {"stage": "tagged"}},
            "sink": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
        },
        "connections": [
            {"from": "in", "to": "tag", "name": "incoming"},
            {"from": "tag", "relationships": ["success"], "to": "sink", "name": "tagged"},
        ],
    }
}


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    settings = EngineSettings.model_validate({"data_dir": tmp_path / "data"})
    built = Node.from_flow(settings, parse_flow(FLOW), ManualClock())
    yield built
    built.close()


def test_damaged_content_download_and_replay_answer_410_with_the_reason(node: Node) -> None:
    client = TestClient(create_app(node, ApiSettings()))
    damaged = client.post(f"{API}/ports/in/flowfiles", content=b"soon damaged").json()["uuid"]
    healthy = client.post(f"{API}/ports/in/flowfiles", content=b"intact").json()["uuid"]
    DeterministicScheduler(node).run_until_idle()
    (flowfile,) = [
        r.flowfile for r in node.connections["tagged"].queue.listing() if r.flowfile.uuid == damaged
    ]
    claim = flowfile.claim
    assert claim is not None
    resource = claim.resource
    path = node.settings.content_containers[int(resource.container)] / resource.section
    with (path / resource.id).open("r+b") as handle:
        handle.seek(claim.offset + 2)
        handle.write(b"O")

    def event_id(uuid: str, kind: str) -> int:
        events = client.get(
            f"{API}/provenance/events", params={"flowfile_uuid": uuid, "wait_for_index": True}
        ).json()["events"]
        return int(next(e["event_id"] for e in events if e["event_type"] == kind))

    received = event_id(damaged, "RECEIVE")
    download = client.get(f"{API}/provenance/events/{received}/content/output")
    assert download.status_code == 410
    detail = download.json()["detail"]
    assert f"the output content of event {received} cannot be served" in detail
    assert "is damaged" in detail and str(resource) in detail

    modified = event_id(damaged, "ATTRIBUTES_MODIFIED")
    replay = client.post(f"{API}/provenance/events/{modified}/replay")
    assert replay.status_code == 410
    assert "is damaged" in replay.json()["detail"]

    intact = client.get(f"{API}/provenance/events/{event_id(healthy, 'RECEIVE')}/content/output")
    assert intact.status_code == 200 and intact.content == b"intact"
