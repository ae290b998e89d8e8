"""Never a 500: bad numbers are 4xx, full repositories 507, failing ones 503 + Retry-After.

Each fault is real: a tiny LMDB map, a small tmpfs under a repository, a provenance WAL
that cannot be opened, a garbled DuckDB block. The app runs in-process over a real Node
(``raise_server_exceptions=False``, so a 500 is seen as a client would see it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import ApiSettings
from flowcore.clock import ManualClock
from flowcore.engine.node import EnqueueItem, Node
from flowcore.errors import RepositoryError
from flowcore.flow.definition import parse_flow
from flowcore.settings import EngineSettings

API = "/api/v1"
FLOW: dict[str, Any] = {
    "flow": {
        "name": "failures",
        "input_ports": ["in"],
        "processors": {
            "hold": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"}
        },
        "connections": [
            {
                "from": "in",
                "to": "hold",
                "name": "incoming",
                "back_pressure": {"object_threshold": 1_000_000},
            }
        ],
    }
}
# DuckDB's file: a 12 KB header, then blocks of 256 KB.
HEADER_BYTES = 3 * 4096
BLOCK_BYTES = 256 * 1024


class Served:
    """A Node on a data directory and a client of its app; ``reopen`` restarts both."""

    def __init__(self, data_dir: Path, overrides: dict[str, Any]) -> None:
        self.settings = EngineSettings.model_validate({"data_dir": data_dir, **overrides})
        self.node = Node.from_flow(self.settings, parse_flow(FLOW), ManualClock())
        self.client = TestClient(
            create_app(self.node, ApiSettings(max_body_size="16 MB")),
            raise_server_exceptions=False,
        )

    def queued(self) -> int:
        return int(self.node.connections["incoming"].queue.snapshot().count)

    def close(self) -> None:
        try:
            self.node.close()
        except RepositoryError:
            pass  # a repository the test damaged may refuse to close cleanly


ServedFactory = Callable[..., Served]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServedFactory]:
    built: list[Served] = []

    def build(data_dir: Path | None = None, **overrides: Any) -> Served:
        app = Served(data_dir or tmp_path / "data", overrides)
        built.append(app)
        return app

    yield build
    for app in reversed(built):
        app.close()


def assert_names(response: httpx.Response, *parts: str) -> str:
    detail = response.json()["detail"]
    assert isinstance(detail, str)
    for part in parts:
        assert part in detail, (part, detail)
    return detail


# -- numbers from clients ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        {"cursor": "\u00b2"},  # superscript two: str.isdigit() is True, int() refuses it
        {"cursor": "\u0661\u0662"},  # Arabic-Indic digits: int() would read 12
        {"cursor": "99999999999999999999"},  # past the largest event id
        {"start": "\u00b2"},
        {"end": "\u00b2"},
        {"start": "-\u00b2"},
        {"start": "99999999999999999999"},
        {"start": "\uff11\uff12"},  # fullwidth digits
    ],
)
def test_a_number_that_is_not_ascii_digits_is_a_422(
    served: ServedFactory, query: dict[str, str]
) -> None:
    response = served().client.get(f"{API}/provenance/events", params=query)
    assert response.status_code == 422, response.text
    assert assert_names(response, repr(next(iter(query)))[1:-1])


def test_event_ids_past_the_largest_are_a_422(served: ServedFactory) -> None:
    client = served().client
    for path in ("", "/content/input", "/content/output"):
        response = client.get(f"{API}/provenance/events/99999999999999999999{path}")
        assert response.status_code == 422, (path, response.text)
    assert client.post(f"{API}/provenance/events/99999999999999999999/replay").status_code == 422


def test_a_content_length_that_is_not_ascii_digits_is_a_400(served: ServedFactory) -> None:
    client = served().client
    for path in ("flowfiles", "flowfiles/batch"):
        request = client.build_request("POST", f"{API}/ports/in/{path}", content=b"x")
        request.headers["Content-Length"] = "\u00b2".encode("latin-1").decode("latin-1")
        response = client.send(request)
        assert response.status_code == 400, (path, response.text)
        assert_names(response, "Content-Length")


def test_json_nested_too_deeply_is_a_400(served: ServedFactory) -> None:
    client = served().client
    deep = "[" * 100_000 + "]" * 100_000
    response = client.post(f"{API}/ports/in/flowfiles/batch", content=deep.encode())
    assert response.status_code == 400, response.text
    response = client.post(
        f"{API}/ports/in/flowfiles", content=b"x", headers={"X-FlowFile-Attributes": deep}
    )
    assert response.status_code == 400, response.text


# -- full repositories: 507 --------------------------------------------------------------------


def batch(count: int, pad: int) -> bytes:
    line = json.dumps({"attributes": {"pad": "p" * pad}, "content": "c"})
    return "\n".join([line] * count).encode()


def test_a_full_lmdb_map_is_a_507_naming_the_map_setting_and_nothing_is_enqueued(
    served: ServedFactory,
) -> None:
    app = served(flowfile_repository={"map_size": "1 MB", "max_map_size": "1 MB"})
    response = app.client.post(f"{API}/ports/in/flowfiles/batch", content=batch(2000, 1000))
    assert response.status_code == 507, response.text
    assert_names(response, "FlowFile repository", "flowfile_repository.max_map_size")
    assert app.queued() == 0
    response = app.client.post(f"{API}/ports/in/flowfiles/batch", content=batch(3, 10))
    assert response.status_code == 201, response.text  # a smaller batch still fits
    assert app.queued() == 3


def test_a_full_disk_under_the_flowfile_repository_is_a_507(
    served: ServedFactory, small_disk: Any, tmp_path: Path
) -> None:
    data_dir = tmp_path / "lmdb-on-small-disk"
    data_dir.mkdir()
    (data_dir / "flowfile_repository").symlink_to(small_disk("512k"))
    app = served(data_dir, flowfile_repository={"map_size": "64 MB"})
    response = app.client.post(f"{API}/ports/in/flowfiles/batch", content=batch(2000, 1000))
    assert response.status_code == 507, response.text
    assert_names(response, "FlowFile repository", "free space under")
    assert app.queued() == 0


def test_a_full_content_disk_is_a_507_for_an_upload_and_a_batch(
    served: ServedFactory, small_disk: Any
) -> None:
    disk = small_disk("1m")
    app = served(content={"containers": [str(disk)], "archive_enabled": False})
    client = app.client
    response = client.post(f"{API}/ports/in/flowfiles", content=b"u" * (2 * 1024 * 1024))
    assert response.status_code == 507, response.text
    assert_names(response, "content repository is full", str(disk), "content.containers")
    response = client.post(
        f"{API}/ports/in/flowfiles/batch",
        content=json.dumps({"content": "b" * (2 * 1024 * 1024)}).encode(),
    )
    assert response.status_code == 507, response.text
    assert app.queued() == 0

    app.node.checkpoint()  # the partial claims are released: the room is back
    response = client.post(f"{API}/ports/in/flowfiles", content=b"small")
    assert response.status_code == 201, response.text
    assert app.queued() == 1


# -- a provenance repository that cannot write or read: 503 + Retry-After ---------------------


def test_provenance_that_cannot_write_its_wal_is_a_503_then_recovers(
    served: ServedFactory, tmp_path: Path
) -> None:
    served().close()  # a checkpointed, closed database: no WAL file
    app = served()
    uuids = app.node.enqueue("in", [EnqueueItem(b"x", {"n": str(i)}) for i in range(3)])
    # The start wrote the data directory's identity: move it into the file, so no WAL is open.
    app.node.provenance._store.checkpoint()  # type: ignore[attr-defined]
    wal = app.settings.provenance_dir / "provenance.duckdb.wal"
    assert not wal.exists()
    wal.mkdir()
    client = app.client

    response = client.get(f"{API}/provenance/events", params={"wait_for_index": "true"})
    assert response.status_code == 503, response.text
    assert response.headers["Retry-After"] == "1"
    assert_names(response, "provenance repository", "provenance.max_storage_size")
    response = client.get(f"{API}/provenance/lineage/{uuids[0]}", params={"wait_for_index": "1"})
    assert response.status_code == 503, response.text
    response = client.get(f"{API}/flowfiles/not-a-queued-uuid", params={"wait_for_index": "1"})
    assert response.status_code == 503, response.text  # looked up in provenance: indexes first
    response = client.get(f"{API}/provenance/events/0", params={"wait_for_index": "true"})
    assert response.status_code == 503, response.text
    # Not asked to index, a read answers from what is indexed and names the lag.
    response = client.get(f"{API}/provenance/events/0")
    assert response.status_code == 404, response.text
    assert "3 provenance events are not yet indexed" in response.json()["detail"]

    wal.rmdir()
    response = client.get(f"{API}/provenance/events", params={"wait_for_index": "true"})
    assert response.status_code == 200, response.text
    assert sorted(e["flowfile_uuid"] for e in response.json()["events"]) == sorted(uuids)


def test_a_corrupted_provenance_block_is_a_503(served: ServedFactory) -> None:
    app = served()
    app.node.enqueue("in", [EnqueueItem(b"x", {"n": str(i)}) for i in range(300)])
    app.node.index_provenance()
    app.close()
    path = app.settings.provenance_dir / "provenance.duckdb"
    pristine = path.read_bytes()
    answered = 0
    for block in range((len(pristine) - HEADER_BYTES) // BLOCK_BYTES):
        garbled = bytearray(pristine)
        start = HEADER_BYTES + block * BLOCK_BYTES + 64
        garbled[start : start + 16] = b"\xff" * 16
        path.write_bytes(bytes(garbled))
        try:
            app = served()
        except RepositoryError:
            continue  # a block read at open: refused at start (not an API matter)
        response = app.client.get(f"{API}/provenance/events", params={"limit": "1000"})
        assert response.status_code in (200, 503), response.text
        if response.status_code == 503:
            answered += 1
            assert response.headers["Retry-After"] == "1"
            assert_names(response, "provenance repository", str(path))
        app.close()
    assert answered >= 1


# -- the schema documents what the API answers ------------------------------------------------


def test_metrics_documents_401_and_403_and_repository_statuses_are_documented(
    served: ServedFactory,
) -> None:
    schema = served().client.get("/openapi.json").json()
    assert {"401", "403"} <= set(schema["paths"]["/metrics"]["get"]["responses"])
    for path in ("/ports/{port}/flowfiles", "/ports/{port}/flowfiles/batch"):
        responses = schema["paths"][API + path]["post"]["responses"]
        assert {"503", "507"} <= set(responses)
        assert "Retry-After" in responses["503"]["headers"]
    events = schema["paths"][f"{API}/provenance/events"]["get"]["responses"]
    assert "503" in events


def test_a_number_with_thousands_of_digits_is_refused_not_converted(
    served: ServedFactory,
) -> None:
    client = served().client
    huge = "9" * 5000  # past int()'s default limit of 4300 digits
    for name in ("cursor", "start", "end"):
        response = client.get(f"{API}/provenance/events", params={name: huge})
        assert response.status_code == 422, (name, response.text)
    request = client.build_request("POST", f"{API}/ports/in/flowfiles", content=b"x")
    request.headers["Content-Length"] = huge
    assert client.send(request).status_code == 413
