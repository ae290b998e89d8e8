"""``flowcore import nifi`` and ``flowcore export nifi``, and NiFi JSON given to
``validate``, run in-process with typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner, Result

from cli import app
from flowcore.flow import load_flow
from flowcore.flow.definition import FlowDefinition

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"COLUMNS": "300", "FLOWCORE_DATA_DIR": None})


def invoke(runner: CliRunner, *args: str | Path) -> Result:
    return runner.invoke(app, [str(a) for a in args])


def test_import_writes_yaml_that_loads_as_the_same_flow(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "flow.yaml"
    result = invoke(runner, "import", "nifi", FIXTURES / "nested_groups.json", "-o", out)

    assert result.exit_code == 0, result.output
    text = out.read_text("utf-8")
    assert text.startswith("# Imported from the NiFi flow definition nested_groups.json")
    assert "# note: parameter 'api_token' is sensitive" in text
    assert load_flow(out) == load_flow(FIXTURES / "nested_groups.json")


def test_import_refuses_unsupported_listing_each_unless_allowed(
    runner: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "flow.yaml"
    refused = invoke(runner, "import", "nifi", FIXTURES / "unsupported.json", "-o", out)

    assert refused.exit_code == 2
    assert not out.exists()
    assert refused.output.count("unsupported: ") == 4
    assert "unsupported: Processor 'Script' (org.apache.nifi.processors.script.ExecuteScript)" in (
        refused.output
    )
    allowed = invoke(
        runner, "import", "nifi", FIXTURES / "unsupported.json", "-o", out, "--allow-unsupported"
    )
    assert allowed.exit_code == 0, allowed.output
    assert yaml.safe_load(out.read_text("utf-8"))["flow"]["processors"]["Script"]["run_state"] == (
        "STOPPED"
    )


def test_export_writes_a_flow_definition_that_imports_back(
    runner: CliRunner, tmp_path: Path
) -> None:
    flow = Path(__file__).resolve().parents[4] / "samples" / "defragment" / "flow.yaml"
    out = tmp_path / "FLOW.json"
    result = invoke(runner, "export", "nifi", flow, "-o", out)

    assert result.exit_code == 0, result.output
    assert "max_runs (1) has no NiFi equivalent" in result.output
    document = json.loads(out.read_text("utf-8"))
    assert document["flowContents"]["name"] == "defragment"
    back = invoke(runner, "import", "nifi", out, "-o", tmp_path / "back.yaml")
    assert back.exit_code == 0, back.output
    original = FlowDefinition.model_validate(yaml.safe_load(flow.read_text("utf-8")))
    original.flow.processors["exports"].schedule.max_runs = None
    imported = yaml.safe_load((tmp_path / "back.yaml").read_text("utf-8"))
    assert FlowDefinition.model_validate(imported) == original


def test_validate_accepts_a_nifi_flow_definition(runner: CliRunner) -> None:
    result = invoke(runner, "validate", FIXTURES / "snapshot.json")

    assert result.exit_code == 0, result.output
    assert "valid" in result.output


def test_validate_refuses_unsupported_with_one_line_each(runner: CliRunner) -> None:
    result = invoke(runner, "validate", FIXTURES / "unsupported.json")

    assert result.exit_code == 2
    assert "4 NiFi component(s) not supported" in result.output
    assert "Processor 'Log' (org.apache.nifi.processors.standard.LogAttribute)" in result.output


def test_import_of_a_missing_file_is_a_clear_error(runner: CliRunner, tmp_path: Path) -> None:
    result = invoke(runner, "import", "nifi", tmp_path / "nope.json")

    assert result.exit_code == 2
    assert "no such file" in result.output
