"""In-process checks of the lineage merge reason and the NiFi-compatible metrics."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample
from pydantic import SecretStr

from api.app import create_app
from api.settings import ApiSettings, ApiToken
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


# -- NiFi-compatible metrics ----------------------------------------------------------------

NIFI_METRICS = "/nifi-api/flow/metrics/prometheus"


def scrape(client: TestClient, **headers: str) -> dict[str, list[Sample]]:
    """The samples of one scrape by name, parsed with prometheus_client's own parser."""
    response = client.get(NIFI_METRICS, headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    samples: dict[str, list[Sample]] = {}
    for family in text_string_to_metric_families(response.text):
        assert family.type == "gauge", family.name  # NiFi declares every series a gauge
        for sample in family.samples:
            samples.setdefault(sample.name, []).append(sample)
    return samples


def one(samples: dict[str, list[Sample]], name: str, **labels: str) -> float:
    found = [s for s in samples[name] if all(s.labels[k] == v for k, v in labels.items())]
    assert len(found) == 1, (name, labels, samples.get(name))
    return found[0].value


def test_nifi_metrics_use_nifi_names_and_labels(node: Node) -> None:
    clock = node.clock
    assert isinstance(clock, ManualClock)
    client = TestClient(create_app(node, ApiSettings()))
    for body in (b"a,b\n1,2\n", b"a,b\n3,4\n", b"a,b\n5,6\n"):
        assert client.post(f"{API}/ports/in/flowfiles", content=body).status_code == 201
    DeterministicScheduler(node).run_until_idle()

    samples = scrape(client)

    merge = {"component_type": "Processor", "component_name": "merge", "component_id": "merge"}
    assert set(samples["nifi_amount_items_input"][0].labels) == {
        "instance",
        "component_type",
        "component_name",
        "component_id",
        "parent_id",
        "source_id",
        "source_name",
        "destination_id",
        "destination_name",
    }
    assert one(samples, "nifi_amount_items_input", **merge) == 3
    assert one(samples, "nifi_size_content_input_total", **merge) == 24
    # Each FlowFile holds two records (CSVReader reads the first line as a record too), so
    # each fills a bin: three merged out, three originals auto-terminated (removed).
    assert one(samples, "nifi_amount_items_output", **merge) == 3
    assert one(samples, "nifi_amount_bytes_read", **merge) == 24
    assert one(samples, "nifi_total_bytes_read", **merge) == 24
    assert one(samples, "nifi_amount_threads_active", **merge) == 0
    assert one(samples, "nifi_amount_flowfiles_removed", **merge) == 3
    port = {"component_type": "InputPort", "component_id": "in"}
    assert one(samples, "nifi_amount_flowfiles_received", **port) == 3
    assert one(samples, "nifi_amount_bytes_received", **port) == 24
    merged = {
        "component_type": "Connection",
        "component_name": "merged",
        "source_id": "merge",
        "destination_id": "sink",
        "parent_id": "root",
    }
    assert one(samples, "nifi_amount_items_queued", **merged) == 3
    assert one(samples, "nifi_size_content_queued_total", **merged) == 3 * 14
    assert one(samples, "nifi_backpressure_object_threshold", **merged) == 10_000
    assert one(samples, "nifi_backpressure_bytes_threshold", **merged) == 1024**3
    assert one(samples, "nifi_backpressure_enabled", **merged) == 0
    assert one(samples, "nifi_amount_items_input", **merged) == 3
    assert one(samples, "nifi_amount_items_queued", component_type="RootProcessGroup") == 3
    for kind in ("flow_file", "content", "provenance"):
        used = samples[f"nifi_{kind}_repo_used_space_bytes"]
        assert used and all(s.value > 0 and "repo_identifier" in s.labels for s in used)


def test_nifi_amounts_cover_five_minutes_and_totals_keep_running(node: Node) -> None:
    clock = node.clock
    assert isinstance(clock, ManualClock)
    client = TestClient(create_app(node, ApiSettings()))
    client.post(f"{API}/ports/in/flowfiles", content=b"a,b\n1,2\n")
    DeterministicScheduler(node).run_until_idle()
    merge = {"component_type": "Processor", "component_id": "merge"}
    assert one(scrape(client), "nifi_amount_bytes_read", **merge) == 8

    clock.advance(5 * 60 + 1)
    later = scrape(client)

    assert one(later, "nifi_amount_bytes_read", **merge) == 0
    assert one(later, "nifi_amount_items_input", **merge) == 0
    assert one(later, "nifi_total_bytes_read", **merge) == 8


def test_nifi_metrics_need_a_token_like_metrics(tmp_path: Path) -> None:
    settings = EngineSettings.model_validate({"data_dir": tmp_path / "data"})
    built = Node.from_flow(settings, parse_flow(merge_flow()), ManualClock())
    try:
        api = ApiSettings(tokens=[ApiToken(token=SecretStr("s3cret"), role="read")])
        client = TestClient(create_app(built, api))
        assert client.get(NIFI_METRICS).status_code == 401
        assert client.get("/metrics").status_code == 401
        assert "nifi_amount_items_queued" in scrape(client, authorization="Bearer s3cret")
    finally:
        built.close()
