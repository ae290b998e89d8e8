"""NiFi Python processors in a flow YAML, found in the flow's python/extensions folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from typer.testing import CliRunner

from cli import app

EXTENSIONS = Path(__file__).parent / "extensions"


def _flow(folder: Path) -> Path:
    shutil.copytree(EXTENSIONS, folder / "python" / "extensions")
    (folder / "out").mkdir()
    flow = {
        "flow": {
            "name": "python processors",
            "controller_services": {
                "reader": {"type": "JsonTreeReader"},
                "writer": {"type": "JsonRecordSetWriter"},
            },
            "processors": {
                "greet": {
                    "type": "CreateGreeting",
                    "schedule": {"max_runs": 1},
                    "properties": {"Name": "cat", "Max Greetings": "1"},
                },
                "route": {
                    "type": "RouteByKeyword",
                    "properties": {"Keyword": "cat", "Uppercase Content": "true"},
                    "auto_terminate": ["original", "failure", "unmatched"],
                },
                "save": {
                    "type": "PutFile",
                    "properties": {"Directory": "out"},
                    "auto_terminate": ["success", "failure"],
                },
            },
            "connections": [
                {"source": "greet", "relationships": ["success"], "destination": "route"},
                {"source": "route", "relationships": ["matched"], "destination": "save"},
            ],
        }
    }
    path = folder / "flow.yaml"
    path.write_text(yaml.safe_dump(flow))
    return path


def test_flow_runs_python_processors_from_its_folder(tmp_path: Path) -> None:
    flow = _flow(tmp_path / "project")
    result = CliRunner(env={"FLOWCORE_DATA_DIR": None}).invoke(
        app,
        [
            "run",
            str(flow),
            "--data-dir",
            str(tmp_path / "data"),
            "--until-idle",
            "--output",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    written = list((tmp_path / "project" / "out").iterdir())
    assert [p.read_text() for p in written] == ["HELLO, CAT"]


def test_validate_names_the_missing_requirement(tmp_path: Path) -> None:
    flow = _flow(tmp_path / "project")
    document = yaml.safe_load(flow.read_text())
    document["flow"]["processors"]["route"]["type"] = "NeedsMissingPackage"
    document["flow"]["processors"]["route"]["auto_terminate"] = ["original", "failure"]
    document["flow"]["connections"][1]["relationships"] = ["success"]
    flow.write_text(yaml.safe_dump(document))
    result = CliRunner(env={"FLOWCORE_DATA_DIR": None}).invoke(
        app, ["validate", str(flow), "--output", "json"]
    )
    assert result.exit_code == 2, result.output
    problems = json.loads(result.output)["problems"]
    assert any("flowcore-no-such-package==1.2.3" in p["reason"] for p in problems), problems
