"""A NiFi flow definition holding Python processors (bundle ``python-extensions``, type
the class name), run as it is from a folder with ``python/extensions``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from cli import app
from flowcore.flow.nifi import import_nifi

EXTENSIONS = Path(__file__).parent / "extensions"
GROUP = "00000000-0000-0000-0000-000000000000"


def _processor(
    identifier: str, name: str, type_name: str, bundle: dict[str, str], **extra: Any
) -> dict[str, Any]:
    return {
        "identifier": identifier,
        "groupIdentifier": GROUP,
        "name": name,
        "type": type_name,
        "bundle": bundle,
        "schedulingPeriod": "0 sec",
        "schedulingStrategy": "TIMER_DRIVEN",
        "scheduledState": "ENABLED",
        "componentType": "PROCESSOR",
        **extra,
    }


def _nifi_flow(out: Path) -> dict[str, Any]:
    python = {"group": "org.apache.nifi", "artifact": "python-extensions", "version": "1.0.0"}
    standard = {"group": "org.apache.nifi", "artifact": "nifi-standard-nar", "version": "2.0.0"}
    processors = [
        _processor(
            "a", "Greet", "CreateGreeting", python, properties={"Name": "cat", "Max Greetings": "1"}
        ),
        _processor(
            "b",
            "Route",
            "RouteByKeyword",
            python,
            properties={"Keyword": "cat", "Uppercase Content": "true"},
            autoTerminatedRelationships=["original", "failure", "unmatched"],
        ),
        _processor(
            "c",
            "Save",
            "org.apache.nifi.processors.standard.PutFile",
            standard,
            properties={"Directory": str(out)},
            autoTerminatedRelationships=["success", "failure"],
        ),
    ]

    def connection(identifier: str, source: str, destination: str, rel: str) -> dict[str, Any]:
        return {
            "identifier": identifier,
            "groupIdentifier": GROUP,
            "source": {"id": source, "type": "PROCESSOR", "groupId": GROUP},
            "destination": {"id": destination, "type": "PROCESSOR", "groupId": GROUP},
            "selectedRelationships": [rel],
            "componentType": "CONNECTION",
        }

    return {
        "flowContents": {
            "identifier": GROUP,
            "name": "python",
            "processors": processors,
            "connections": [
                connection("x", "a", "b", "success"),
                connection("y", "b", "c", "matched"),
            ],
            "componentType": "PROCESS_GROUP",
        }
    }


def test_import_keeps_the_class_name_and_properties(tmp_path: Path) -> None:
    flow = import_nifi(_nifi_flow(tmp_path / "out")).document["flow"]
    assert flow["processors"]["Route"]["type"] == "RouteByKeyword"
    assert flow["processors"]["Route"]["properties"] == {
        "Keyword": "cat",
        "Uppercase Content": "true",
    }


def test_nifi_flow_with_python_processors_runs(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(EXTENSIONS, project / "python" / "extensions")
    out = tmp_path / "out"
    out.mkdir()
    path = project / "flow.json"
    path.write_text(json.dumps(_nifi_flow(out)))
    result = CliRunner(env={"FLOWCORE_DATA_DIR": None}).invoke(
        app,
        [
            "run",
            str(path),
            "--data-dir",
            str(tmp_path / "data"),
            "--until-idle",
            "--idle-wait",
            "0 sec",
        ],
    )
    assert result.exit_code == 0, result.output
    assert [p.read_text() for p in out.iterdir()] == ["HELLO, CAT"]


def test_export_gives_python_processors_nifi_s_bundle_and_imports_back(tmp_path: Path) -> None:
    import yaml

    project = tmp_path / "project"
    shutil.copytree(EXTENSIONS, project / "python" / "extensions")
    flow = {
        "flow": {
            "name": "py",
            "processors": {
                "route": {
                    "type": "RouteByKeyword",
                    "properties": {"Keyword": "cat"},
                    "auto_terminate": ["matched", "unmatched", "original", "failure"],
                }
            },
        }
    }
    path = project / "flow.yaml"
    path.write_text(yaml.safe_dump(flow))
    out = tmp_path / "flow.json"
    result = CliRunner(env={"FLOWCORE_DATA_DIR": None}).invoke(
        app, ["export", "nifi", str(path), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    (processor,) = document["flowContents"]["processors"]
    assert processor["type"] == "RouteByKeyword"
    assert processor["bundle"] == {
        "group": "org.apache.nifi",
        "artifact": "python-extensions",
        "version": "1.0.0",
    }
    assert processor["properties"] == {"Keyword": "cat"}
    back = import_nifi(document).document["flow"]["processors"]["route"]
    assert back["type"] == "RouteByKeyword" and back["properties"] == {"Keyword": "cat"}
