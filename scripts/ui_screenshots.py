"""Regenerate the web UI's screenshots in docs/img/ (run: `python scripts/ui_screenshots.py`).

Serves the pos_merge sample as ``make demo`` keeps it running (its GetFile reading the
registers' exports again and again), with one store's output directory taken by a plain
file so that PutFile routes that store's merges to failure (bulletins); then stops PutFile
so merged FlowFiles wait in their queue, and photographs each page in the system's
headless Chromium. The 'merged' queue's object threshold is lowered to 12 so that its
back-pressure bar shows.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import yaml
from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from samples.live import live_flow  # noqa: E402
from tests.api.conftest import free_port  # noqa: E402

OUT = ROOT / "docs" / "img"
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
VIEWPORT = {"width": 1400, "height": 820}


def wait_for(what: str, check: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise SystemExit(f"gave up waiting for {what}")


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="flowcore-screenshots-"))
    document: dict[str, Any] = live_flow(tmp / "out")
    processors = document["flow"]["processors"]
    processors["registers"]["schedule"] = {"period": "2 sec"}
    for connection in document["flow"]["connections"]:
        if connection.get("name") == "merged":  # so its back-pressure bar shows filling
            connection["back_pressure"] = {"object_threshold": 12}
    (tmp / "out").mkdir()
    (tmp / "out" / "1003").write_text("a file where store 1003's directory should be\n")
    flow_path = tmp / "flow.yaml"
    flow_path.write_text(yaml.safe_dump(document, sort_keys=False))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "cli", "serve", str(flow_path)]
    command += ["--data-dir", str(tmp / "data"), "--port", str(port)]
    with (tmp / "serve.log").open("wb") as log:
        server = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:

        def get(path: str, **params: Any) -> Any:
            return httpx.get(f"{url}/api/v1{path}", params=params, timeout=10).json()

        def answers() -> bool:
            try:
                return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        wait_for("the server", answers)
        wait_for("bulletins", lambda: bool(get("/bulletins")["bulletinBoard"]["bulletins"]))
        httpx.post(f"{url}/api/v1/processors/write/run-status", json={"state": "STOPPED"})

        def queued() -> bool:
            flow = get("/flow")
            return any(
                c["name"] == "merged" and c["queued_count"] >= 3 for c in flow["connections"]
            )

        wait_for("merged FlowFiles in their queue", queued)
        join = get("/provenance/events", event_type="JOIN", wait_for_index=True)["events"][0]
        OUT.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            page = browser.new_page(base_url=url, viewport=VIEWPORT)
            shoot_all(page, join)
            browser.close()
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"screenshots written to {OUT.relative_to(ROOT)}/")
    return 0


def shoot(page: Page, name: str) -> None:
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(OUT / f"ui-{name}.png"))


def shoot_all(page: Page, join: dict[str, Any]) -> None:
    page.goto("/#/flow")
    expect(page.locator('.connection-label[data-name="merged"] .queued')).not_to_have_text(
        "0 (0 bytes)"
    )
    shoot(page, "flow")
    page.locator('.component[data-name="merge"]').click()
    expect(page.locator("#panel-title")).to_have_text("merge")
    shoot(page, "processor")
    page.goto("/#/queue/merged")
    expect(page.locator("#content-preview")).not_to_have_text("loading\u2026")
    shoot(page, "queue")
    page.goto("/#/provenance?event_type=JOIN")
    expect(page.locator("#provenance-table tbody tr").first).to_be_visible()
    shoot(page, "provenance")
    page.goto(f"/#/event/{join['event_id']}")
    expect(page.locator("#event-type")).to_have_text("JOIN")
    shoot(page, "event")
    page.goto(f"/#/lineage/{join['flowfile_uuid']}")
    graph = page.locator("#lineage-graph")
    expect(graph).to_have_attribute("data-nodes", re.compile(r"^\d+$"))
    position = page.evaluate(
        "() => window.flowcoreLineage.$('node[eventType = \"JOIN\"]')[0].renderedPosition()"
    )
    box = graph.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + position["x"], box["y"] + position["y"])
    expect(page.locator("#lineage-event-details")).to_be_visible()
    shoot(page, "lineage")
    page.goto("/#/bulletins")
    expect(page.locator("#bulletins tbody tr").first).to_be_visible()
    shoot(page, "bulletins")


if __name__ == "__main__":
    sys.exit(main())
