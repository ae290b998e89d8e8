"""OpenLineage run events from a real flow's provenance: schema, datasets, stable run ids,
the file and HTTP transports and the hook after indexing."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.serde import Serde
from pydantic import ValidationError
from typer.testing import CliRunner

from cli import app
from flowcore.clock import ManualClock
from flowcore.engine.node import EnqueueItem, Node
from flowcore.engine.scheduler import DeterministicScheduler
from flowcore.flow.definition import parse_flow
from flowcore.lineage.openlineage import (
    Naming,
    OpenLineageError,
    commit_batches,
    dataset_of_uri,
    run_events,
)
from flowcore.model.provenance import ProvenanceEvent
from flowcore.settings import EngineSettings

# The OpenLineage specification's RunEvent schema (spec/OpenLineage.json of the OpenLineage
# repository): the openlineage-python wheel carries the specification only as its generated
# classes, which the events are also built into below.
SPEC = Path(__file__).with_name("openlineage_spec.json")
HOST = socket.gethostname()


def flow(source: Path, out: Path) -> dict[str, Any]:
    return {
        "flow": {
            "name": "ol",
            "input_ports": ["in"],
            "processors": {
                "get": {
                    "type": "GetFile",
                    "properties": {"Input Directory": str(source)},
                    "schedule": {"max_runs": 3},
                },
                "put": {
                    "type": "PutFile",
                    "properties": {"Directory": str(out)},
                    "auto_terminate": ["success", "failure"],
                },
            },
            "connections": [
                {"from": "get", "relationships": ["success"], "to": "put", "name": "got"},
                {"from": "in", "to": "put", "name": "posted"},
            ],
        }
    }


def run_flow(tmp_path: Path, openlineage: dict[str, Any] | None = None) -> EngineSettings:
    """GetFile and an input port feed PutFile; returns the settings of the data dir."""
    source, out = tmp_path / "in", tmp_path / "out"
    source.mkdir()
    for name in ("a.txt", "b.txt"):
        (source / name).write_text(name, encoding="utf-8")
        os.utime(source / name, (1_600_000_000, 1_600_000_000))  # older than the clock
    settings = EngineSettings.model_validate(
        {"data_dir": tmp_path / "data", "openlineage": openlineage or {}}
    )
    node = Node.from_flow(settings, parse_flow(flow(source, out)), ManualClock())
    try:
        node.enqueue("in", [EnqueueItem(b"posted", {"filename": "posted.txt"})])
        DeterministicScheduler(node).run_until_idle()
        node.maintain()
    finally:
        node.close()
    return settings


def export_lines(data_dir: Path, target: Path, *extra: str) -> list[dict[str, Any]]:
    runner = CliRunner(env={"FLOWCORE_DATA_DIR": None})
    args = ["openlineage", "export", "--data-dir", str(data_dir), "--output", str(target)]
    result = runner.invoke(app, [*args, *extra])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]


def as_client_event(document: dict[str, Any]) -> dict[str, Any]:
    """The event rebuilt with openlineage-python's classes (their validators run)."""
    event = RunEvent(
        eventType=RunState(document["eventType"]),
        eventTime=document["eventTime"],
        run=Run(runId=document["run"]["runId"]),
        job=Job(namespace=document["job"]["namespace"], name=document["job"]["name"]),
        inputs=[InputDataset(namespace=d["namespace"], name=d["name"]) for d in document["inputs"]],
        outputs=[
            OutputDataset(namespace=d["namespace"], name=d["name"]) for d in document["outputs"]
        ],
        producer=document["producer"],
    )
    built: dict[str, Any] = Serde.to_dict(event)
    return built


def test_events_match_the_schema_and_name_the_files_and_ports(tmp_path: Path) -> None:
    settings = run_flow(tmp_path)
    events = export_lines(settings.data_dir, tmp_path / "ol.jsonl")

    validator = jsonschema_rs.validator_for(
        json.loads(SPEC.read_text(encoding="utf-8")), validate_formats=True
    )
    for document in events:
        validator.validate(document)
        client = as_client_event(document)
        assert client["schemaURL"] == document["schemaURL"]
        assert client["run"]["runId"] == document["run"]["runId"]
        assert client["eventTime"] == document["eventTime"]

    by_job: dict[str, list[dict[str, Any]]] = {}
    for document in events:
        by_job.setdefault(document["job"]["name"], []).append(document)
    assert set(by_job) == {"flow.get", "flow.put", "flow.in"}
    for documents in by_job.values():
        kinds = [d["eventType"] for d in documents]
        assert kinds.count("START") == kinds.count("COMPLETE") >= 1

    def datasets(job: str, side: str) -> set[tuple[str, str]]:
        return {(d["namespace"], d["name"]) for e in by_job[job] for d in e[side]}

    source, out = (tmp_path / "in").resolve(), (tmp_path / "out").resolve()
    assert datasets("flow.get", "inputs") == {
        (f"file://{HOST}", str(source / "a.txt")),
        (f"file://{HOST}", str(source / "b.txt")),
    }
    assert datasets("flow.in", "inputs") == {(f"flowcore://{HOST}", "input-port/in")}
    assert datasets("flow.put", "outputs") == {
        (f"file://{HOST}", str(out / n)) for n in ("a.txt", "b.txt", "posted.txt")
    }


def test_re_exporting_gives_the_same_events_and_since_never_splits_a_run(
    tmp_path: Path,
) -> None:
    settings = run_flow(tmp_path)
    first = export_lines(settings.data_dir, tmp_path / "first.jsonl")
    again = export_lines(settings.data_dir, tmp_path / "again.jsonl")
    assert again == first

    # Starting inside GetFile's commit (its second event) yields that same whole run.
    get_complete = next(
        e for e in first if e["job"]["name"] == "flow.get" and e["eventType"] == "COMPLETE"
    )
    start_id = int(get_complete["run"]["facets"]["flowcore_provenance"]["firstEventId"])
    tail = export_lines(settings.data_dir, tmp_path / "tail.jsonl", "--since", str(start_id + 1))
    assert tail[:2] == [e for e in first if e["run"]["runId"] == get_complete["run"]["runId"]]


def event(event_id: int, component: str, **fields: Any) -> ProvenanceEvent:
    return ProvenanceEvent(
        event_id=event_id,
        event_time=1_700_000_000_000 + event_id,
        event_type=fields.pop("event_type", "ROUTE"),
        flowfile_uuid=f"ff-{event_id}",
        component_id=component,
        component_type="UpdateAttribute",
        **fields,
    )


def test_a_run_is_a_block_of_consecutive_ids_from_one_component() -> None:
    events = [event(1, "a"), event(2, "a"), event(3, "b"), event(5, "b"), event(6, "a")]
    assert [[e.event_id for e in b] for b in commit_batches(events)] == [[1, 2], [3], [5], [6]]


def test_a_flowfile_routed_to_failure_fails_the_run() -> None:
    naming = Naming("flowcore", "f", "host")
    ok = run_events([event(1, "a", relationship="success")], naming)
    failed = run_events([event(1, "a", relationship="failure", details="bad input")], naming)
    assert [e["eventType"] for e in ok] == ["START", "COMPLETE"]
    assert [e["eventType"] for e in failed] == ["START", "FAIL"]
    assert failed[1]["run"]["facets"]["errorMessage"]["message"] == "bad input"
    assert failed[1]["run"]["runId"] == ok[1]["run"]["runId"]


def test_transit_uris_become_datasets() -> None:
    assert dataset_of_uri("file:///data/in/a%20b.txt", "h") == ("file://h", "/data/in/a b.txt")
    assert dataset_of_uri("flowcore://input-port/in", "h") == ("flowcore://h", "input-port/in")
    found = dataset_of_uri("https://api.example.com:8443/v1/items?q=1", "h")
    assert found == ("https://api.example.com:8443", "/v1/items")
    assert dataset_of_uri("no-scheme", "h") is None


def test_a_transport_without_its_target_is_refused() -> None:
    with pytest.raises(ValidationError, match=r"needs openlineage\.path"):
        EngineSettings.model_validate({"openlineage": {"transport": "file"}})
    with pytest.raises(ValidationError, match=r"needs openlineage\.url"):
        EngineSettings.model_validate({"openlineage": {"transport": "http"}})


class Collector(BaseHTTPRequestHandler):
    received: list[dict[str, Any]]
    status = 201

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append(json.loads(body))
        self.send_response(type(self).status)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[tuple[str, type[Collector]]]:
    handler = type("Handler", (Collector,), {"received": [], "status": 201})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/v1/lineage", handler
    server.shutdown()
    server.server_close()


def test_the_hook_posts_the_runs_after_indexing(
    tmp_path: Path, endpoint: tuple[str, type[Collector]]
) -> None:
    url, handler = endpoint
    run_flow(tmp_path, {"transport": "http", "url": url})
    jobs = {e["job"]["name"] for e in handler.received}
    assert jobs == {"flow.get", "flow.put", "flow.in"}
    assert len(handler.received) == len({e["run"]["runId"] for e in handler.received}) * 2


def test_a_refused_post_is_a_clear_error_and_the_hook_retries(
    tmp_path: Path, endpoint: tuple[str, type[Collector]]
) -> None:
    url, handler = endpoint
    handler.status = 503
    settings = run_flow(tmp_path, {"transport": "http", "url": url})
    refused = len(handler.received)
    assert refused > 0  # tried in maintain() and again on close

    runner = CliRunner(env={"FLOWCORE_DATA_DIR": None, "FLOWCORE_OPENLINEAGE__TRANSPORT": "http"})
    result = runner.invoke(
        app,
        ["openlineage", "export", "--data-dir", str(settings.data_dir)],
        env={"FLOWCORE_OPENLINEAGE__URL": url},
    )
    assert result.exit_code == 2
    assert "refused an OpenLineage event: 503" in result.output

    handler.status = 200
    result = runner.invoke(
        app,
        ["openlineage", "export", "--data-dir", str(settings.data_dir)],
        env={"FLOWCORE_OPENLINEAGE__URL": url},
    )
    assert result.exit_code == 0, result.output
    assert {e["job"]["name"] for e in handler.received[refused + 1 :]} == {
        "flow.get",
        "flow.put",
        "flow.in",
    }


def test_an_unwritable_file_is_a_clear_error(tmp_path: Path) -> None:
    from flowcore.lineage.openlineage import FileEmitter

    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(OpenLineageError, match="cannot write OpenLineage events"):
        FileEmitter(blocker / "ol.jsonl").emit([{"eventType": "START"}])
