"""Fast in-process checks of the app (no uvicorn): aged-off content, FlowFiles that left."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def flow(sink: str) -> dict[str, Any]:
    return {
        "flow": {
            "name": "inprocess",
            "input_ports": ["in"],
            "processors": {
                "tag": {"type": "UpdateAttribute", "properties": {"stage": "tagged"}},
                "sink": {"type": "Funnel", "auto_terminate": ["success"], "run_state": sink},
            },
            "connections": [
                {"from": "in", "to": "tag", "name": "incoming"},
                {"from": "tag", "relationships": ["success"], "to": "sink", "name": "tagged"},
            ],
        }
    }


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    settings = EngineSettings.model_validate(
        {
            "data_dir": tmp_path / "data",
            "content": {"archive_enabled": False, "max_appendable_size": "1 KB"},
        }
    )
    built = Node.from_flow(settings, parse_flow(flow("RUNNING")), ManualClock())
    yield built
    built.close()


def test_aged_off_content_is_410_and_left_flow_is_reported(node: Node) -> None:
    client = TestClient(create_app(node, ApiSettings()))
    response = client.post(f"{API}/ports/in/flowfiles", content=b"z" * 4096)
    assert response.status_code == 201
    uuid = response.json()["uuid"]
    DeterministicScheduler(node).run_until_idle()
    node.checkpoint()  # the dropped FlowFile's claim is deleted (archive disabled)

    events = client.get(
        f"{API}/provenance/events", params={"flowfile_uuid": uuid, "wait_for_index": True}
    ).json()["events"]
    assert events[0]["event_type"] == "DROP"
    modified = next(e for e in events if e["event_type"] == "ATTRIBUTES_MODIFIED")
    detail = client.get(f"{API}/provenance/events/{modified['event_id']}").json()
    assert detail["input_content_available"] is False
    gone = client.get(f"{API}/provenance/events/{modified['event_id']}/content/input")
    assert gone.status_code == 410
    assert "aged off" in gone.json()["detail"]
    replay = client.post(f"{API}/provenance/events/{modified['event_id']}/replay")
    assert replay.status_code == 410

    info = client.get(f"{API}/flowfiles/{uuid}").json()
    assert info["status"] == "LEFT_FLOW"
    assert info["last_event_type"] == "DROP"
    assert info["attributes"]["stage"] == "tagged"


def test_open_without_tokens_and_ndjson_base64(node: Node) -> None:
    client = TestClient(create_app(node, ApiSettings()))
    node.processors["tag"].stop()
    body = b'{"content_base64": "AAEC/w==", "attributes": {"kind": "bin"}}\n\n'
    response = client.post(f"{API}/ports/in/flowfiles/batch", content=body)
    assert response.status_code == 201
    (uuid,) = response.json()["uuids"]
    info = client.get(f"{API}/flowfiles/{uuid}").json()
    assert info["size"] == 4
    assert info["attributes"]["kind"] == "bin"
    receive = client.get(
        f"{API}/provenance/events", params={"flowfile_uuid": uuid, "wait_for_index": True}
    ).json()["events"][0]
    output = client.get(f"{API}/provenance/events/{receive['event_id']}/content/output")
    assert output.content == b"\x00\x01\x02\xff"


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOWCORE_API_TOKENS", '[{"token": "abcdefgh", "role": "write"}]')
    monkeypatch.setenv("FLOWCORE_API_MAX_BODY_SIZE", "2 KB")
    settings = ApiSettings()
    assert settings.host == "127.0.0.1"
    assert settings.max_body_bytes == 2048
    assert settings.tokens[0].role == "write"
    assert "abcdefgh" not in repr(settings)


def test_reads_never_index_provenance_unless_asked(node: Node) -> None:
    client = TestClient(create_app(node, ApiSettings()))
    response = client.post(f"{API}/ports/in/flowfiles", content=b"not yet indexed")
    assert response.status_code == 201
    uuid = response.json()["uuid"]
    node.trigger("tag")
    node.trigger("sink")  # the FlowFile leaves the flow; its events stay in the journal
    indexed = node.provenance.indexed_through()
    journaled = node.flowfiles.journal_size()
    assert journaled == 3  # RECEIVE, ATTRIBUTES_MODIFIED, DROP
    (receive, *_rest) = node.flowfiles.read_journal(indexed, 10)

    found = client.get(f"{API}/provenance/events", params={"flowfile_uuid": uuid}).json()
    assert found["events"] == []
    for path in (
        f"{API}/provenance/events/{receive.event_id}",
        f"{API}/provenance/events/{receive.event_id}/content/output",
        f"{API}/provenance/lineage/{uuid}",
        f"{API}/flowfiles/{uuid}",
    ):
        missing = client.get(path)
        assert missing.status_code == 404, path
        assert "3 provenance events are not yet indexed" in missing.json()["detail"]
    metrics = client.get("/metrics").text
    assert "flowcore_provenance_index_lag_events 3.0" in metrics
    client.get("/nifi-api/flow/metrics/prometheus")
    client.get(f"{API}/flow")
    assert node.provenance.indexed_through() == indexed
    assert node.flowfiles.journal_size() == journaled

    # Asked to wait for the index, a GET indexes first and finds everything.
    info = client.get(f"{API}/flowfiles/{uuid}", params={"wait_for_index": True}).json()
    assert info["status"] == "LEFT_FLOW"
    assert node.flowfiles.journal_size() == 0
    event = client.get(f"{API}/provenance/events/{receive.event_id}").json()
    assert event["event_type"] == "RECEIVE"
    output = client.get(f"{API}/provenance/events/{receive.event_id}/content/output")
    assert output.content == b"not yet indexed"


def test_a_lone_surrogate_is_refused_with_422_and_loses_nothing(node: Node) -> None:
    """JSON's ``\\ud800`` decodes to text no repository can store: 422, not a 500 that
    would also fail the requests committed in the same group."""
    client = TestClient(create_app(node, ApiSettings()))
    node.processors["tag"].stop()
    bad = client.post(
        f"{API}/ports/in/flowfiles",
        content=b"x",
        headers={"X-FlowFile-Attributes": '{"a": "\\ud800"}'},
    )
    assert bad.status_code == 422
    assert "not valid Unicode" in bad.json()["detail"]
    batch = client.post(
        f"{API}/ports/in/flowfiles/batch", content=b'{"content": "ok"}\n{"content": "\\ud800"}\n'
    )
    assert batch.status_code == 422
    assert "line 2" in batch.json()["detail"]
    good = client.post(
        f"{API}/ports/in/flowfiles", content=b"y", headers={"X-FlowFile-Attributes": '{"a": "b"}'}
    )
    assert good.status_code == 201
    assert client.get(f"{API}/flow").json()["connections"][0]["queued_count"] == 1
