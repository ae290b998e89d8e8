"""In-process checks of the lineage merge reason and the NiFi-compatible metrics."""

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


def merge_flow() -> dict[str, Any]:
    return {
        "flow": {
            "name": "merging",
            "input_ports": ["in"],
            "controller_services": {
                "reader": {"type": "CSVReader"},
                "writer": {"type": "CSVRecordSetWriter"},
            },
            "processors": {
                "merge": {
                    "type": "MergeRecord",
                    "properties": {
                        "Record Reader": "reader",
                        "Record Writer": "writer",
                        "Minimum Number of Records": "2",
                        "Maximum Number of Records": "2",
                    },
                    "auto_terminate": ["original", "failure"],
                },
                "sink": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            },
            "connections": [
                {"from": "in", "to": "merge", "name": "incoming"},
                {"from": "merge", "relationships": ["merged"], "to": "sink", "name": "merged"},
            ],
        }
    }


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    settings = EngineSettings.model_validate({"data_dir": tmp_path / "data"})
    built = Node.from_flow(settings, parse_flow(merge_flow()), ManualClock())
    yield built
    built.close()


def test_lineage_join_nodes_carry_the_merge_reason(node: Node) -> None:
    client = TestClient(create_app(node, ApiSettings()))
    first = client.post(f"{API}/ports/in/flowfiles", content=b"a,b\n1,2\n").json()["uuid"]
    client.post(f"{API}/ports/in/flowfiles", content=b"a,b\n3,4\n")
    DeterministicScheduler(node).run_until_idle()

    lineage = client.get(f"{API}/provenance/lineage/{first}", params={"wait_for_index": True})

    assert lineage.status_code == 200
    nodes = lineage.json()["nodes"]
    joins = [n for n in nodes if n["event_type"] == "JOIN"]
    assert [n["details"] for n in joins] == ["Records Merged due to: Bin is full"]
    assert all(n["details"] is None for n in nodes if n["event_type"] != "JOIN")
