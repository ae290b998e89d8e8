"""The web UI's page and its endpoints, in-process: topology, processor configuration,
queued content, and the page served offline with the API's authentication."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from api.app import create_app
from api.settings import ApiSettings, ApiToken
from api.ui import STATIC
from flowcore.clock import ManualClock
from flowcore.engine.node import EnqueueItem, Node
from flowcore.flow.definition import parse_flow
from flowcore.settings import EngineSettings

API = "/api/v1"


def ui_flow() -> dict[str, Any]:
    return {
        "flow": {
            "name": "ui",
            "input_ports": ["in"],
            "processors": {
                "tag": {"type": "UpdateAttribute", "properties": {"stage": "tagged"}},
                "call": {
                    "type": "InvokeHTTP",
                    "properties": {
                        "HTTP URL": "http://127.0.0.1:9/never",
                        "Request Password": "s3cret",
                    },
                    "schedule": {"period": "5 min"},
                    "auto_terminate": ["Original", "Response", "Retry", "No Retry", "Failure"],
                    "run_state": "STOPPED",
                },
                "hold": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            },
            "connections": [
                {"from": "in", "to": "tag", "name": "incoming"},
                {
                    "from": "tag",
                    "relationships": ["success"],
                    "to": "hold",
                    "name": "tagged",
                    "back_pressure": {"object_threshold": 5, "data_size_threshold": "1 KB"},
                },
            ],
        }
    }


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    settings = EngineSettings.model_validate({"data_dir": tmp_path / "data"})
    built = Node.from_flow(settings, parse_flow(ui_flow()), ManualClock(1_000))
    yield built
    built.close()


def test_the_page_is_served_at_the_root_with_its_vendored_libraries(node: Node) -> None:
    client = TestClient(create_app(node, ApiSettings()))

    page = client.get("/")

    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert sources and not [s for s in sources if "//" in s]  # nothing from another host
    for source in sources:
        if source.startswith("ui/"):
            assert client.get(f"/{source}").status_code == 200, source
    script = client.get("/ui/vendor/cytoscape.min.js")
    assert "javascript" in script.headers["content-type"]
    for library in ("cytoscape", "cytoscape-dagre", "dagre", "graphlib"):
        assert (STATIC / "vendor" / f"{library}.LICENSE").read_text().strip()


def test_the_page_is_open_but_its_data_needs_the_api_token(node: Node) -> None:
    api = ApiSettings(tokens=[ApiToken(token=SecretStr("peek"), role="read")])
    client = TestClient(create_app(node, api))

    assert client.get("/").status_code == 200
    assert client.get("/ui/app.js").status_code == 200
    for path in ("/flow/graph", "/processors/tag", "/connections/tagged/flowfiles/x/content"):
        assert client.get(f"{API}{path}").status_code == 401, path
    auth = {"authorization": "Bearer peek"}
    assert client.get(f"{API}/flow/graph", headers=auth).status_code == 200


def test_the_graph_names_each_component_kind_and_the_thresholds(node: Node) -> None:
    client = TestClient(create_app(node, ApiSettings()))
    client.app.state.flow_name = "ui"  # type: ignore[attr-defined]

    graph = client.get(f"{API}/flow/graph").json()

    kinds = {c["name"]: (c["kind"], c["type"]) for c in graph["components"]}
    assert graph["name"] == "ui"
    assert kinds == {
        "in": ("INPUT_PORT", "Input Port"),
        "tag": ("PROCESSOR", "UpdateAttribute"),
        "call": ("PROCESSOR", "InvokeHTTP"),
        "hold": ("FUNNEL", "Funnel"),
    }
    tagged = next(c for c in graph["connections"] if c["name"] == "tagged")
    assert tagged["source"] == "tag" and tagged["destination"] == "hold"
    assert tagged["back_pressure_object_threshold"] == 5
    assert tagged["back_pressure_data_size_threshold"] == 1024
    assert tagged["back_pressure_data_size"] == "1 KB"


def test_a_processor_shows_its_configuration_with_secrets_masked(node: Node) -> None:
    client = TestClient(create_app(node, ApiSettings()))

    detail = client.get(f"{API}/processors/call").json()

    properties = {p["display_name"]: p for p in detail["properties"]}
    assert properties["HTTP URL"]["value"] == "http://127.0.0.1:9/never"
    assert properties["Request Password"]["value"] == "********"
    assert properties["Request Password"]["sensitive"] is True
    assert properties["Request Username"]["value"] is None
    assert detail["run_state"] == "STOPPED"
    assert detail["schedule"]["run_schedule"] == "5 min"
    assert detail["schedule"]["penalty_duration"] == "30 sec"
    assert {r["name"]: r["auto_terminated"] for r in detail["relationships"]}["Failure"] is True
    tag = client.get(f"{API}/processors/tag").json()
    assert [(p["name"], p["value"]) for p in tag["properties"] if p["dynamic"]] == [
        ("stage", "tagged")
    ]
    missing = client.get(f"{API}/processors/nothing")
    assert missing.status_code == 404
    assert missing.json() == {"detail": "no processor named 'nothing'"}


def test_a_queued_flowfile_content_is_served_whole_or_as_a_preview(node: Node) -> None:
    client = TestClient(create_app(node, ApiSettings()))
    [uuid] = node.enqueue("in", [EnqueueItem(b"hello, queue", {"filename": "greeting.txt"})])
    path = f"{API}/connections/incoming/flowfiles/{uuid}/content"

    whole = client.get(path)
    preview = client.get(path, params={"max_bytes": 5})
    download = client.get(path, params={"download": True})

    assert whole.status_code == 200 and whole.content == b"hello, queue"
    assert whole.headers["content-disposition"] == 'inline; filename="greeting.txt"'
    assert preview.content == b"hello"
    assert preview.headers["x-flowfile-size"] == "12"
    assert download.headers["content-disposition"] == 'attachment; filename="greeting.txt"'
    assert client.get(f"{API}/connections/tagged/flowfiles/{uuid}/content").status_code == 404
    assert client.get(f"{API}/connections/nowhere/flowfiles/{uuid}/content").status_code == 404
