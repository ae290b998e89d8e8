"""The web UI in a real headless Chromium against a real ``flowcore serve`` process.

One server (loopback HTTP, a node on tmp_path, bearer tokens configured) runs a small flow:
CSV FlowFiles are tagged and merged two by two (JOIN events with the merge reason) into a
queue before a stopped funnel, and a second branch's PutFile refuses to overwrite a file
(bulletins). Each test loads a page and asserts on what the browser rendered; Playwright's
``expect`` waits for the live page to catch up, so no test sleeps.

Chromium is the system's (Debian's ``chromium``, installed by scripts/ensure-chromium.sh
before ``make test`` runs pytest); Playwright's own browser download is never used.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.api.conftest import Server, tokens_env

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WRITE = "w-token"
READ = "r-token"
MERGE_REASON = "Records Merged due to: Bin is full"
TIMEOUT_MS = 30_000  # a ceiling for expect's auto-waiting, never a wait in itself

expect.set_options(timeout=TIMEOUT_MS)


def browser_flow(out: Path) -> dict[str, Any]:
    return {
        "flow": {
            "name": "browser-test",
            "input_ports": ["in", "files"],
            "controller_services": {
                "reader": {
                    "type": "CSVReader",
                    "properties": {"Treat First Line as Header": "true"},
                },
                "writer": {"type": "CSVRecordSetWriter"},
            },
            "processors": {
                "tag": {"type": "UpdateAttribute", "properties": {"stage": "tagged"}},
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
                "hold": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
                "name": {"type": "UpdateAttribute", "properties": {"filename": "taken.txt"}},
                "put": {
                    "type": "PutFile",
                    "properties": {"Directory": str(out), "Conflict Resolution Strategy": "fail"},
                    "auto_terminate": ["success", "failure"],
                },
            },
            "connections": [
                {"from": "in", "to": "tag", "name": "incoming"},
                {"from": "tag", "relationships": ["success"], "to": "merge", "name": "tagged"},
                {
                    "from": "merge",
                    "relationships": ["merged"],
                    "to": "hold",
                    "name": "merged",
                    "back_pressure": {"object_threshold": 4},
                },
                {"from": "files", "to": "name", "name": "files-in"},
                {"from": "name", "relationships": ["success"], "to": "put", "name": "named"},
            ],
        }
    }


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("ui-browser")
    out = tmp / "out"
    out.mkdir()
    (out / "taken.txt").write_text("already here")
    served = Server(tmp / "server", browser_flow(out), tokens_env(**{WRITE: "write", READ: "read"}))
    served.start()
    auth = {"Authorization": f"Bearer {WRITE}"}
    for i in range(4):
        response = httpx.post(
            f"{served.url}/api/v1/ports/in/flowfiles",
            content=f"a,b\n{i},{i * 10}\n".encode(),
            headers={**auth, "X-FlowFile-Attributes": f'{{"filename": "rows-{i}.csv"}}'},
        )
        assert response.status_code == 201, response.text
    response = httpx.post(f"{served.url}/api/v1/ports/files/flowfiles", content=b"hi", headers=auth)
    assert response.status_code == 201, response.text
    yield served
    served.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh (make test does)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    """A tab signed in with the write token, which records every URL it asks for."""
    context = browser.new_context(base_url=server.url, viewport={"width": 1400, "height": 900})
    context.add_init_script(f"sessionStorage.setItem('flowcore.token', '{WRITE}')")
    opened = context.new_page()
    requested: list[str] = []
    opened.on("request", lambda request: requested.append(request.url))
    opened.requested = requested  # type: ignore[attr-defined]
    yield opened
    context.close()


def merged_settled(page: Page) -> None:
    """Open the canvas and wait until both merges sit in the 'merged' queue."""
    page.goto("/#/flow")
    queued = page.locator('.connection-label[data-name="merged"] .queued')
    expect(queued).to_have_text(re.compile(r"^2 \(\d+ bytes\)$"))


def api_get(server: Server, path: str, **params: Any) -> Any:
    response = httpx.get(
        f"{server.url}/api/v1{path}", params=params, headers={"Authorization": f"Bearer {READ}"}
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_the_canvas_draws_the_flow_with_live_queues_and_back_pressure(
    page: Page, server: Server
) -> None:
    merged_settled(page)

    for name in ("in", "files"):
        expect(page.locator(f'.component.input-port[data-name="{name}"]')).to_be_visible()
    for name in ("tag", "merge", "name", "put"):
        expect(page.locator(f'.component.processor[data-name="{name}"]')).to_be_visible()
    expect(page.locator('.component.funnel[data-name="hold"]')).to_be_visible()
    expect(page.locator(".connection-label")).to_have_count(5)
    merged = page.locator('.connection-label[data-name="merged"]')
    # Two of the four FlowFiles the threshold allows: the fill bar is half full.
    expect(merged).to_have_attribute("data-fill-count", "50")
    expect(page.locator('.connection-label[data-name="incoming"] .queued')).to_have_text(
        "0 (0 bytes)"
    )
    expect(page.locator('.component[data-name="merge"] .stat-in')).to_have_text(
        re.compile(r"^4 \(")
    )
    expect(page.locator('.component[data-name="hold"]')).to_have_attribute(
        "data-run-state", "STOPPED"
    )
    expect(page.locator("#flow-name")).to_have_text("browser-test")
    # Offline: everything the page loaded came from the node itself.
    requested = page.requested  # type: ignore[attr-defined]
    assert requested and all(url.startswith(server.url) for url in requested), requested


def test_the_processor_panel_shows_configuration_and_starts_and_stops(
    page: Page, server: Server
) -> None:
    page.goto("/#/flow")
    page.locator('.component[data-name="tag"]').click()

    expect(page.locator("#panel-title")).to_have_text("tag")
    expect(page.locator("#panel-properties")).to_contain_text("stage")
    expect(page.locator("#panel-properties")).to_contain_text("tagged")
    expect(page.locator("#panel-run-state")).to_have_text("RUNNING")

    page.locator("#panel-stop").click()

    expect(page.locator("#panel-run-state")).to_have_text("STOPPED")
    expect(page.locator('.component[data-name="tag"]')).to_have_attribute(
        "data-run-state", "STOPPED"
    )
    status = {p["name"]: p["run_state"] for p in api_get(server, "/flow")["processors"]}
    assert status["tag"] == "STOPPED"

    page.locator("#panel-start").click()

    expect(page.locator("#panel-run-state")).to_have_text("RUNNING")
    status = {p["name"]: p["run_state"] for p in api_get(server, "/flow")["processors"]}
    assert status["tag"] == "RUNNING"


def test_the_processor_panel_shows_its_bulletins(page: Page) -> None:
    page.goto("/#/flow")
    expect(page.locator('.component[data-name="put"] .bulletin-flag')).to_have_attribute(
        "visibility", "visible"
    )
    page.locator('.component[data-name="put"]').click()

    expect(page.locator("#panel-bulletins")).to_contain_text("routed to failure")
    expect(page.locator("#panel-bulletins")).to_contain_text("taken.txt")


def test_the_queue_listing_shows_attributes_and_a_content_preview(page: Page) -> None:
    merged_settled(page)
    page.locator('.connection-label[data-name="merged"]').click()

    expect(page).to_have_url(re.compile(r"#/queue/merged$"))
    rows = page.locator("#queue-listing tbody tr")
    expect(rows).to_have_count(2)
    rows.nth(1).click()
    attributes = page.locator("#flowfile-attributes")
    expect(attributes).to_contain_text("merge.completion.reason")
    expect(attributes.locator("tr", has_text="record.count")).to_contain_text("2")
    expect(page.locator("#content-preview")).to_contain_text(re.compile(r"a,b\s+\d+,\d+"))


def test_provenance_search_and_event_detail(page: Page) -> None:
    merged_settled(page)
    page.goto("/#/provenance")
    page.locator('select[name="event_type"]').select_option("JOIN")
    page.locator("#provenance-search button[type=submit]").click()

    rows = page.locator("#provenance-table tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text(MERGE_REASON)
    expect(rows.first.locator(".event-type")).to_have_text("JOIN")

    page.locator('input[name="attribute"]').fill("filename=rows-1.csv")
    page.locator('select[name="event_type"]').select_option("RECEIVE")
    page.locator("#provenance-search button[type=submit]").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("in")

    page.locator('input[name="attribute"]').fill("")
    page.locator('input[name="start"]').fill("2099-01-01T00:00:00")
    page.locator("#provenance-search button[type=submit]").click()
    expect(page.locator("#provenance-count")).to_have_text("0 event(s)")

    page.locator('select[name="event_type"]').select_option("JOIN")
    page.locator('input[name="start"]').fill("2000-01-01T00:00:00")
    page.locator("#provenance-search button[type=submit]").click()
    expect(rows).to_have_count(2)
    rows.first.click()

    expect(page.locator("#event-type")).to_have_text("JOIN")
    expect(page.locator("#event-detail-text")).to_have_text(MERGE_REASON)
    reason = page.locator("#event-attributes tr", has_text="merge.completion.reason")
    expect(reason).to_contain_text("Bin is full")
    expect(reason).to_have_class(re.compile("changed"))
    with page.expect_download() as download:
        page.locator("#download-output").click()
    content = Path(download.value.path()).read_text()
    assert content.startswith("a,b\n"), content


def test_replay_from_the_event_page(page: Page) -> None:
    page.goto("/#/provenance?component=put")
    row = page.locator("#provenance-table tbody tr", has_text="ATTRIBUTES_MODIFIED")
    expect(row.first).to_be_visible()
    row.first.click()
    page.locator("#replay").click()

    expect(page.locator("#replay-result")).to_have_text(
        re.compile(r"^Replayed: new FlowFile [0-9a-f-]{36}$")
    )


def test_the_lineage_graph_labels_joins_and_expands_parents(page: Page, server: Server) -> None:
    merged_settled(page)
    joins = api_get(server, "/provenance/events", event_type="JOIN", wait_for_index=True)
    join = joins["events"][0]
    parent = join["parent_uuids"][0]

    page.goto(f"/#/lineage/{parent}")

    graph = page.locator("#lineage-graph")
    expect(graph).to_have_attribute("data-nodes", re.compile(r"^\d+$"))
    labels = page.evaluate("() => window.flowcoreLineage.nodes().map(n => n.data('label'))")
    assert f"JOIN\n{MERGE_REASON}" in labels, labels
    assert parent[:8] in labels
    other = next(u for u in join["parent_uuids"] if u != parent)
    assert other[:8] not in labels  # a sibling is not in a FlowFile's own lineage
    before = int(graph.get_attribute("data-nodes") or 0)

    position = page.evaluate(
        "() => window.flowcoreLineage.$('node[eventType = \"JOIN\"]')[0].renderedPosition()"
    )
    box = graph.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + position["x"], box["y"] + position["y"])
    expect(page.locator("#lineage-event-details")).to_have_text(MERGE_REASON)
    page.locator("#expand-parents").click()

    expect(page.locator("#expanded-note")).to_be_visible()
    after = int(graph.get_attribute("data-nodes") or 0)
    assert after > before
    labels = page.evaluate("() => window.flowcoreLineage.nodes().map(n => n.data('label'))")
    assert other[:8] in labels


def test_the_bulletin_board(page: Page) -> None:
    page.goto("/#/bulletins")

    row = page.locator("#bulletins tbody tr", has_text="Routed to failure")
    expect(row.first).to_contain_text("PutFile")
    expect(row.first).to_contain_text("ERROR")
    expect(row.first).to_contain_text("a file with the same name already exists")
    expect(page.locator("#bulletin-badge")).to_be_visible()


def test_the_page_asks_for_the_token_the_api_needs(browser: Browser, server: Server) -> None:
    context = browser.new_context(base_url=server.url)
    try:
        page = context.new_page()
        page.goto("/#/flow")
        dialog = page.locator("#login")
        expect(dialog).to_be_visible()
        page.locator("#login-token").fill("not-a-token")
        page.locator("#login button[type=submit]").click()
        expect(page.locator("#login-error")).to_have_text("The token was not accepted.")

        page.locator("#login-token").fill(READ)
        page.locator("#login button[type=submit]").click()

        expect(dialog).to_be_hidden()
        expect(page.locator('.component[data-name="merge"]')).to_be_visible()
        page.locator('.component[data-name="merge"]').click()
        page.locator("#panel-stop").click()  # a read token may look, not change
        expect(page.locator("#panel-error")).to_contain_text("'write' role")
    finally:
        context.close()
