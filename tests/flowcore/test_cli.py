"""The ``flowcore`` command, run in-process with typer's CliRunner against real data dirs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner, Result

from flowcore.cli import app
from flowcore.clock import SystemClock
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository import ProvenanceQuery
from flowcore.repository.registry import load_repository_class
from flowcore.settings import EngineSettings

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.fixture
def runner() -> CliRunner:
    # Wide enough that rich never folds a uuid; no FLOWCORE_ setting leaks in.
    return CliRunner(env={"COLUMNS": "300", "FLOWCORE_DATA_DIR": None})


def invoke(runner: CliRunner, *args: str | Path) -> Result:
    return runner.invoke(app, [str(a) for a in args])


def write_flow(path: Path, flow: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(flow, sort_keys=False), encoding="utf-8")
    return path


def generate_to_put(out: Path, *, put_state: str = "RUNNING") -> dict[str, Any]:
    return {
        "flow": {
            "name": "cli",
            "processors": {
                "gen": {
                    "type": "GenerateFlowFile",
                    "properties": {"Custom Text": "from the cli"},
                    "schedule": {"max_runs": 3},
                },
                "tag": {"type": "UpdateAttribute", "properties": {"filename": "${uuid}.txt"}},
                "put": {
                    "type": "PutFile",
                    "properties": {"Directory": str(out)},
                    "auto_terminate": ["success", "failure"],
                    "run_state": put_state,
                },
            },
            "connections": [
                {"from": "gen", "relationships": ["success"], "to": "tag", "name": "generated"},
                {"from": "tag", "relationships": ["success"], "to": "put", "name": "tagged"},
            ],
        }
    }


def provenance_events(data_dir: Path) -> list[ProvenanceEvent]:
    """Read the provenance repository of a data dir the way the CLI opens it."""
    settings = EngineSettings(data_dir=data_dir)
    clock = SystemClock()
    flowfiles = load_repository_class(settings.flowfile_repository.implementation)(settings, clock)
    try:
        provenance = load_repository_class(settings.provenance.implementation)(
            settings, clock, flowfiles
        )
        try:
            provenance.index_pending()
            found: list[ProvenanceEvent] = provenance.search(ProvenanceQuery(limit=10_000))
            return sorted(found, key=lambda e: e.event_id)
        finally:
            provenance.close()
    finally:
        flowfiles.close()


def table_row(output: str, first_cell: str) -> list[str]:
    for line in output.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]
        if cells and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no table row for {first_cell!r} in:\n{output}")


# -- validate ---------------------------------------------------------------------------------


def test_validate_good_flow(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    flow = write_flow(tmp_path / "flow.yaml", generate_to_put(out))

    result = invoke(runner, "validate", flow)

    assert result.exit_code == 0, result.output
    assert "valid" in result.stdout
    assert "(3 processors, 2 connections)" in result.stdout


def test_validate_bad_period(runner: CliRunner, tmp_path: Path) -> None:
    flow = generate_to_put(tmp_path)
    flow["flow"]["processors"]["gen"]["schedule"]["period"] = "3 fortnights"
    path = write_flow(tmp_path / "flow.yaml", flow)

    result = invoke(runner, "validate", path)

    assert result.exit_code == 2
    assert "flow.processors.gen.schedule.period" in result.stderr
    assert "'3 fortnights' is not a valid time period" in result.stderr
    assert "valid:" not in result.stdout


def test_validate_unknown_processor_type(runner: CliRunner, tmp_path: Path) -> None:
    flow = generate_to_put(tmp_path)
    flow["flow"]["processors"]["tag"]["type"] = "UpdateAttributes"
    path = write_flow(tmp_path / "flow.yaml", flow)

    result = invoke(runner, "validate", path)

    assert result.exit_code == 2
    assert "flow.processors.tag.type" in result.stderr
    assert "unknown processor type 'UpdateAttributes'" in result.stderr


def test_validate_invalid_property(runner: CliRunner, tmp_path: Path) -> None:
    flow = generate_to_put(tmp_path)
    flow["flow"]["processors"]["gen"]["properties"]["Batch Size"] = "0"
    path = write_flow(tmp_path / "flow.yaml", flow)

    result = invoke(runner, "validate", path)

    assert result.exit_code == 2
    assert "flow.processors.gen.properties" in result.stderr
    assert "'Batch Size' validated against '0' is invalid because" in result.stderr


def test_validate_yaml_syntax_error(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("flow: {name: [oops\n", encoding="utf-8")

    result = invoke(runner, "validate", path)

    assert result.exit_code == 2
    assert "not valid YAML" in result.stderr


def test_validate_missing_file(runner: CliRunner, tmp_path: Path) -> None:
    result = invoke(runner, "validate", tmp_path / "absent.yaml")
    assert result.exit_code == 2
    assert "no such file" in result.stderr


# -- run, status, provenance, lineage -------------------------------------------------------


def test_run_until_idle_then_inspect(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    data = tmp_path / "data"
    flow = write_flow(tmp_path / "flow.yaml", generate_to_put(out))

    result = invoke(runner, "run", flow, "--data-dir", data, "--until-idle")

    assert result.exit_code == 0, result.output
    assert "idle after" in result.stdout
    assert table_row(result.stdout, "gen")[1:5] == ["GenerateFlowFile", "3", "0", "3"]
    assert table_row(result.stdout, "put")[1:4] == ["PutFile", "3", "3"]
    assert table_row(result.stdout, "tagged")[1:5] == ["0", "0", "0", "no"]
    files = sorted(out.iterdir())
    assert len(files) == 3
    assert all(f.read_bytes() == b"from the cli" for f in files)

    events = provenance_events(data)
    created = [e.flowfile_uuid for e in events if e.event_type == "CREATE"]
    assert len(created) == 3
    assert {f.name for f in files} == {f"{u}.txt" for u in created}

    status = invoke(runner, "status", "--data-dir", data)
    assert status.exit_code == 0, status.output
    # CREATE, ATTRIBUTES_MODIFIED, SEND and DROP for each of the three FlowFiles.
    assert len(events) == 12
    assert "provenance events: 12 (latest id 11)" in status.stdout

    search = invoke(runner, "provenance", "search", "--data-dir", data, "--type", "CREATE")
    assert search.exit_code == 0, search.output
    assert "3 provenance events" in search.stdout
    assert sorted(UUID.findall(search.stdout)) == sorted(created)
    for line in search.stdout.splitlines():
        if UUID.search(line):
            assert "CREATE" in line and "gen" in line

    lower = invoke(runner, "provenance", "search", "--data-dir", data, "--type", "send")
    assert lower.exit_code == 0, lower.output
    assert "3 provenance events" in lower.stdout
    assert "SEND" in lower.stdout

    focus = created[0]
    by_uuid = invoke(runner, "provenance", "search", "--data-dir", data, "--uuid", focus)
    assert by_uuid.exit_code == 0, by_uuid.output
    assert "4 provenance events" in by_uuid.stdout
    assert set(UUID.findall(by_uuid.stdout)) == {focus}

    limited = invoke(runner, "provenance", "search", "--data-dir", data, "--limit", "2")
    assert "2 provenance events" in limited.stdout

    lineage = invoke(runner, "lineage", focus, "--data-dir", data)
    assert lineage.exit_code == 0, lineage.output
    text = lineage.stdout
    assert f"lineage of {focus}" in text
    assert f"FlowFile {focus} <-" in text
    for event_type in ("CREATE", "ATTRIBUTES_MODIFIED", "SEND", "DROP"):
        assert f"{event_type} event" in text
    assert text.index("CREATE event") < text.index(f"FlowFile {focus}") < text.index("DROP event")
    assert set(UUID.findall(text)) == {focus}


def test_second_run_continues_where_the_first_stopped(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    data = tmp_path / "data"
    flow = write_flow(tmp_path / "flow.yaml", generate_to_put(out, put_state="STOPPED"))

    first = invoke(runner, "run", flow, "--data-dir", data, "--until-idle")
    assert first.exit_code == 0, first.output
    assert "resumed" not in first.stdout
    assert table_row(first.stdout, "tagged")[1] == "3"
    assert list(out.iterdir()) == []

    status = invoke(runner, "status", "--data-dir", data)
    assert status.exit_code == 0, status.output
    assert table_row(status.stdout, "tagged")[1:4] == ["3", str(3 * len(b"from the cli")), "0"]

    second = invoke(runner, "run", flow, "--data-dir", data, "--until-idle")
    assert second.exit_code == 0, second.output
    assert "resumed: 3 FlowFiles queued (0 swapped out)" in second.stdout
    # The generator's max_runs count per run, so it adds three more to the held ones.
    assert table_row(second.stdout, "tagged")[1] == "6"

    status = invoke(runner, "status", "--data-dir", data)
    assert table_row(status.stdout, "tagged")[1] == "6"
    assert list(out.iterdir()) == []

    # With the held processor running, a third run delivers everything.
    write_flow(tmp_path / "flow.yaml", generate_to_put(out))
    third = invoke(runner, "run", flow, "--data-dir", data, "--until-idle")
    assert third.exit_code == 0, third.output
    assert "resumed: 6 FlowFiles queued" in third.stdout
    assert len(list(out.iterdir())) == 9
    status = invoke(runner, "status", "--data-dir", data)
    assert "tagged" not in status.stdout  # nothing is queued any more


# -- errors -----------------------------------------------------------------------------------


def test_run_refuses_a_bad_flow(runner: CliRunner, tmp_path: Path) -> None:
    flow = generate_to_put(tmp_path)
    del flow["flow"]["processors"]["put"]["auto_terminate"]
    path = write_flow(tmp_path / "flow.yaml", flow)

    result = invoke(runner, "run", path, "--data-dir", tmp_path / "data", "--until-idle")

    assert result.exit_code == 2
    assert "flow.processors.put" in result.stderr
    assert "neither connected nor auto-terminated" in result.stderr


def test_status_without_a_data_dir(runner: CliRunner, tmp_path: Path) -> None:
    result = invoke(runner, "status", "--data-dir", tmp_path / "nothing")
    assert result.exit_code == 2
    assert "no flowcore data directory" in result.stderr


def test_lineage_of_unknown_flowfile(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    data = tmp_path / "data"
    flow = write_flow(tmp_path / "flow.yaml", generate_to_put(out))
    assert invoke(runner, "run", flow, "--data-dir", data, "--until-idle").exit_code == 0

    result = invoke(runner, "lineage", "00000000-0000-0000-0000-000000000000", "--data-dir", data)

    assert result.exit_code == 2
    assert "no provenance events for FlowFile 00000000-0000-0000-0000-000000000000" in (
        result.stderr
    )


def test_provenance_search_bad_attribute_filter(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    data = tmp_path / "data"
    flow = write_flow(tmp_path / "flow.yaml", generate_to_put(out))
    assert invoke(runner, "run", flow, "--data-dir", data, "--until-idle").exit_code == 0

    bad = invoke(runner, "provenance", "search", "--data-dir", data, "--attribute", "novalue")
    assert bad.exit_code == 2
    assert "--attribute takes name=value, not 'novalue'" in bad.stderr

    (created,) = [e for e in provenance_events(data) if e.event_type == "CREATE"][:1]
    good = invoke(
        runner,
        "provenance",
        "search",
        "--data-dir",
        data,
        "--type",
        "CREATE",
        "--attribute",
        f"uuid={created.flowfile_uuid}",
    )
    assert good.exit_code == 0, good.output
    assert "1 provenance events" in good.stdout
    assert UUID.findall(good.stdout) == [created.flowfile_uuid]


# -- damaged repositories and repair ----------------------------------------------------------


def test_a_refused_start_is_one_message_naming_the_repair_command_with_exit_code_3(
    runner: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    flow = write_flow(tmp_path / "flow.yaml", generate_to_put(out, put_state="STOPPED"))
    data = tmp_path / "data"
    assert invoke(runner, "run", flow, "--data-dir", data, "--until-idle").exit_code == 0
    (data / "flowfile_repository" / "data.mdb").unlink()

    for args in (("run", flow, "--data-dir", data, "--until-idle"), ("status", "--data-dir", data)):
        result = invoke(runner, *args)
        assert result.exit_code == 3, result.output
        assert "data.mdb is missing" in result.stderr
        assert f"run 'flowcore repair --data-dir {data}'" in result.stderr
        assert "Traceback" not in result.output
        assert not (data / "flowfile_repository" / "data.mdb").exists()


def test_repair_says_what_it_would_do_then_does_it_with_yes(
    runner: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    flow = write_flow(tmp_path / "flow.yaml", generate_to_put(out, put_state="STOPPED"))
    data = tmp_path / "data"
    assert invoke(runner, "run", flow, "--data-dir", data, "--until-idle").exit_code == 0
    duckdb_file = data / "provenance_repository" / "provenance.duckdb"
    duckdb_file.unlink()

    dry = invoke(runner, "repair", "--data-dir", data)
    assert dry.exit_code == 0, dry.output
    assert "provenance.duckdb is missing" in dry.stdout
    assert "run again with --yes" in dry.stdout
    assert "start a new, empty provenance repository that indexes from event 6" in dry.stdout
    assert not duckdb_file.exists()

    done = invoke(runner, "repair", "--data-dir", data, "--yes")
    assert done.exit_code == 0, done.output
    assert "done:" in done.stdout
    assert invoke(runner, "repair", "--data-dir", data).stdout.strip().endswith("nothing to repair")
    again = invoke(runner, "run", flow, "--data-dir", data, "--until-idle")
    assert again.exit_code == 0, again.output
    assert table_row(again.stdout, "tagged")[1] == "6"  # the 3 queued before and 3 new
