"""The end of ``make demo``: the sample kept served for the web UI starts, answers, stops."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from flowcore.flow import parse_flow
from samples import live
from tests.api.conftest import free_port


def test_the_live_flow_keeps_its_source_feeding(tmp_path: Path) -> None:
    document = live.live_flow(tmp_path / "out")

    definition = parse_flow(document)  # still a valid flow

    registers = definition.flow.processors["registers"]
    assert registers.schedule.max_runs is None
    assert registers.schedule.period == live.FEED_PERIOD
    assert Path(definition.flow.parameters["input_dir"]).is_dir()
    assert definition.flow.parameters["out_dir"] == str((tmp_path / "out").resolve())


def test_start_serves_the_ui_in_the_background_and_stop_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    port = free_port()
    monkeypatch.setenv("FLOWCORE_DEMO_PORT", str(port))
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    try:
        assert live.start() == 0
        printed = capsys.readouterr().out
        assert f"flowcore UI: http://127.0.0.1:{port}/" in printed
        assert "make demo-stop" in printed
        pid = int((tmp_path / live.PID_FILE).read_text())
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=10)
        assert page.status_code == 200 and "ui/app.js" in page.text
        graph = httpx.get(f"http://127.0.0.1:{port}/api/v1/flow/graph", timeout=10).json()
        assert graph["name"] == "pos_merge (live)"
    finally:
        assert live.stop() == 0
    assert not (tmp_path / live.PID_FILE).exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert "stopped cleanly" in (tmp_path / live.LOG_FILE).read_text()
