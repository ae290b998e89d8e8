"""The ``flowcore`` command, run in-process with typer's CliRunner against real data dirs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner, Result

from cli import app
from flowcore.clock import SystemClock
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository import ProvenanceQuery
from flowcore.repository.flowfile import RepositoryUpdate
from flowcore.repository.registry import load_repository_class
from flowcore.settings import EngineSettings

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.fixture
def runner() -> CliRunner:
    # Wide enough that rich never folds a uuid; no FLOWCORE_ setting leaks in.
    return CliRunner(env={"COLUMNS": "300", "FLOWCORE_DATA_DIR": None})


def invoke(runner: CliRunner, *args: str | Path) -> Result:
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


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


def journal_without_indexing(data_dir: Path, event: ProvenanceEvent) -> None:
    """Add a provenance event to the journal of a data dir, as a node commit would."""
    settings = EngineSettings(data_dir=data_dir)
    flowfiles = load_repository_class(settings.flowfile_repository.implementation)(
        settings, SystemClock()
    )
    try:
        flowfiles.commit(RepositoryUpdate(events=[event]))
    finally:
        flowfiles.close()


def index_position(data_dir: Path) -> tuple[int, int]:
    """The provenance index's ``indexed_through`` and the journal's size, read only."""
    settings = EngineSettings(data_dir=data_dir)
    clock = SystemClock()
    flowfiles = load_repository_class(settings.flowfile_repository.implementation)(settings, clock)
    try:
        provenance = load_repository_class(settings.provenance.implementation)(
            settings, clock, flowfiles
        )
        try:
            return provenance.indexed_through(), flowfiles.journal_size()
        finally:
            provenance.close()
    finally:
        flowfiles.close()


def test_status_reads_provenance_without_indexing_it(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    data = tmp_path / "data"
    flow = write_flow(tmp_path / "flow.yaml", generate_to_put(out))
    assert invoke(runner, "run", flow, "--data-dir", data, "--until-idle").exit_code == 0
    journal_without_indexing(
        data,
        ProvenanceEvent(
            event_time=1,
            event_type="CREATE",
            flowfile_uuid="00000000-0000-4000-8000-000000000000",
            component_id="gen",
            component_type="GenerateFlowFile",
            entry_date=1,
            lineage_start_date=1,
        ),
    )
    before = index_position(data)
    assert before == (11, 1)

    status = invoke(runner, "status", "--data-dir", data)

    assert status.exit_code == 0, status.output
    assert "provenance events: 13 (latest id 12)" in status.stdout
    assert "1 events not yet indexed" in status.stdout
    assert index_position(data) == before
    document = json.loads(invoke(runner, "status", "--data-dir", data, "--output", "json").stdout)
    assert document["provenance"] == {
        "events": 13,
        "latest_event_id": 12,
        "indexed_through": 11,
        "not_indexed": 1,
    }
    assert index_position(data) == before

    # A query indexes first, so it answers for every event.
    search = invoke(runner, "provenance", "search", "--data-dir", data, "--component", "gen")
    assert "4 provenance events" in search.stdout
    assert index_position(data) == (12, 0)


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


# -- every problem at once ------------------------------------------------------------------


def test_validate_reports_every_problem_each_under_its_key(
    runner: CliRunner, tmp_path: Path
) -> None:
    flow = generate_to_put(tmp_path)
    flow["flow"]["processors"]["gen"]["properties"]["Batch Size"] = "0"
    flow["flow"]["processors"]["tag"]["type"] = "UpdateAttributes"
    flow["flow"]["processors"]["put"]["properties"]["Colour"] = "red"
    path = write_flow(tmp_path / "flow.yaml", flow)

    result = invoke(runner, "validate", path)

    assert result.exit_code == 2
    assert "3 problems:" in result.stderr
    for key in (
        "flow.processors.gen.properties.Batch Size",
        "flow.processors.tag.type",
        "flow.processors.put.properties.Colour",
    ):
        assert key in result.stderr


def merge_without_writer(tmp_path: Path) -> Path:
    return write_flow(
        tmp_path / "merge.yaml",
        {
            "flow": {
                "name": "merge",
                "controller_services": {"reader": {"type": "CSVReader"}},
                "processors": {
                    "gen": {
                        "type": "GenerateFlowFile",
                        "properties": {"Custom Text": "a,b\n1,2\n"},
                        "schedule": {"max_runs": 1},
                    },
                    "merge": {
                        "type": "MergeRecord",
                        "properties": {"Record Reader": "reader", "Record Writer": "writer"},
                        "auto_terminate": ["merged", "original", "failure"],
                    },
                },
                "connections": [{"from": "gen", "relationships": ["success"], "to": "merge"}],
            }
        },
    )


def test_a_missing_controller_service_is_refused_before_running(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = merge_without_writer(tmp_path)

    checked = invoke(runner, "validate", path)
    ran = invoke(runner, "run", path, "--data-dir", tmp_path / "data", "--until-idle")

    for result in (checked, ran):
        assert result.exit_code == 2, result.output
        assert "flow.processors.merge.properties.Record Writer" in result.stderr
        assert "writer is not a valid Controller Service Identifier" in result.stderr


# -- run in CI: exit codes, timeout, parameters, paths, JSON --------------------------------


def failing_update(out: Path) -> dict[str, Any]:
    """A FlowFile whose UpdateAttribute expression fails: penalised back, over and over."""
    flow = generate_to_put(out)
    flow["flow"]["processors"]["tag"]["properties"] = {"year": '${filename:toDate("yyyy")}'}
    return flow


def failing_put(tmp_path: Path) -> dict[str, Any]:
    """PutFile into a directory that cannot exist: the FlowFiles go to failure, held."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    flow = generate_to_put(blocker / "out")
    processors = flow["flow"]["processors"]
    processors["put"]["auto_terminate"] = ["success"]
    processors["held"] = {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"}
    flow["flow"]["connections"].append(
        {"from": "put", "relationships": ["failure"], "to": "held", "name": "put-failed"}
    )
    return flow


def test_flowfiles_left_in_a_failure_connection_exit_1_with_a_summary(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = write_flow(tmp_path / "flow.yaml", failing_put(tmp_path))

    result = invoke(runner, "run", path, "--data-dir", tmp_path / "data", "--until-idle")

    assert result.exit_code == 1, result.output
    assert "3 FlowFiles left in failure connection 'put-failed'" in result.stderr


def test_work_that_only_retries_is_idle_after_the_idle_wait(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = write_flow(tmp_path / "flow.yaml", failing_update(tmp_path))

    result = invoke(
        runner,
        "run",
        path,
        "--data-dir",
        tmp_path / "data",
        "--until-idle",
        "--idle-wait",
        "0 sec",
        "--output",
        "json",
    )

    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["outcome"] == "failures"
    assert report["run"]["stalled"] is True
    assert report["connections"]["generated"]["penalized"] == 3
    assert "3 FlowFiles penalised, waiting for a retry in 'generated'" in report["problems"]
    assert report["errors_logged"]["UpdateAttribute"]["count"] == 3


def test_until_idle_reaching_the_timeout_exits_3(runner: CliRunner, tmp_path: Path) -> None:
    path = write_flow(tmp_path / "flow.yaml", generate_to_put(tmp_path))

    result = invoke(
        runner, "run", path, "--data-dir", tmp_path / "data", "--until-idle", "--timeout", "0 sec"
    )

    assert result.exit_code == 3, result.output
    assert "not idle within --timeout 0 sec" in result.stderr


def test_timeout_without_until_idle_stops_the_run(runner: CliRunner, tmp_path: Path) -> None:
    path = write_flow(tmp_path / "flow.yaml", generate_to_put(tmp_path, put_state="STOPPED"))

    result = invoke(runner, "run", path, "--data-dir", tmp_path / "data", "--timeout", "0 sec")

    assert result.exit_code == 0, result.output
    assert "Processors" in result.stdout


@pytest.mark.parametrize("flag", ["--timeout", "--idle-wait"])
def test_a_bad_duration_is_refused(runner: CliRunner, tmp_path: Path, flag: str) -> None:
    path = write_flow(tmp_path / "flow.yaml", generate_to_put(tmp_path))

    result = invoke(runner, "run", path, "--until-idle", flag, "5 fortnights")

    assert result.exit_code == 2
    assert f"{flag} takes a time period such as '30 sec' or '5 min', not '5 fortnights'" in (
        result.stderr
    )


def parameterised(out: str) -> dict[str, Any]:
    flow = generate_to_put(Path("unused"))
    flow["flow"]["parameters"] = {"out.dir": out}
    flow["flow"]["processors"]["put"]["properties"]["Directory"] = "#{out.dir}"
    return flow


def test_param_and_environment_override_flow_parameters(tmp_path: Path) -> None:
    path = write_flow(tmp_path / "flow.yaml", parameterised(str(tmp_path / "from-file")))
    by_env, by_flag = tmp_path / "by-env", tmp_path / "by-flag"
    env_runner = CliRunner(
        env={"COLUMNS": "300", "FLOWCORE_DATA_DIR": None, "FLOWCORE_PARAM_OUT_DIR": str(by_env)}
    )

    first = invoke(env_runner, "run", path, "--data-dir", tmp_path / "d1", "--until-idle")
    second = invoke(
        env_runner,
        "run",
        path,
        "--data-dir",
        tmp_path / "d2",
        "--until-idle",
        "--param",
        f"out.dir={by_flag}",
    )

    assert first.exit_code == 0, first.output
    assert second.exit_code == 0, second.output
    assert len(list(by_env.iterdir())) == 3
    assert len(list(by_flag.iterdir())) == 3
    assert not (tmp_path / "from-file").exists()


def test_param_without_a_value_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    path = write_flow(tmp_path / "flow.yaml", parameterised("out"))

    result = invoke(runner, "validate", path, "--param", "out.dir")

    assert result.exit_code == 2
    assert "--param takes NAME=VALUE, not 'out.dir'" in result.stderr


def test_relative_directories_resolve_from_the_flow_file_folder(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    path = write_flow(flows / "flow.yaml", parameterised("out"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)

    result = invoke(runner, "run", path, "--data-dir", tmp_path / "data", "--until-idle")

    assert result.exit_code == 0, result.output
    assert len(list((flows / "out").iterdir())) == 3
    assert list(elsewhere.iterdir()) == []


def test_run_status_search_and_lineage_as_json(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    data = tmp_path / "data"
    path = write_flow(tmp_path / "flow.yaml", generate_to_put(out))

    ran = invoke(runner, "run", path, "--data-dir", data, "--until-idle", "--output", "json")
    status = invoke(runner, "status", "--data-dir", data, "--output", "json")
    search = invoke(
        runner, "provenance", "search", "--data-dir", data, "--type", "create", "--output", "json"
    )

    assert ran.exit_code == 0, ran.output
    report = json.loads(ran.stdout)
    assert report["outcome"] == "clean" and report["exit_code"] == 0
    assert report["processors"]["put"]["flowfiles_in"] == 3
    assert report["connections"]["tagged"]["queued"] == 0
    assert json.loads(status.stdout)["provenance"]["events"] == 12
    events = json.loads(search.stdout)["events"]
    assert [e["event_type"] for e in events] == ["CREATE"] * 3
    focus = events[0]["flowfile_uuid"]
    lineage = invoke(runner, "lineage", focus, "--data-dir", data, "--output", "json")
    graph = json.loads(lineage.stdout)
    assert {n["flowfile_uuid"] for n in graph["nodes"] if n["node_type"] == "FLOWFILE"} == {focus}
    assert len(graph["links"]) == len(graph["nodes"]) - 1


def test_an_invalid_flow_as_json_lists_every_problem(runner: CliRunner, tmp_path: Path) -> None:
    path = merge_without_writer(tmp_path)

    result = invoke(runner, "run", path, "--until-idle", "--output", "json")

    assert result.exit_code == 2
    report = json.loads(result.stdout)
    assert report["outcome"] == "invalid"
    assert [p["key"] for p in report["problems"]] == [
        "flow.processors.merge.properties.Record Writer"
    ]


def test_provenance_search_refuses_an_unknown_event_type(runner: CliRunner, tmp_path: Path) -> None:
    data = tmp_path / "data"
    path = write_flow(tmp_path / "flow.yaml", generate_to_put(tmp_path / "out"))
    assert invoke(runner, "run", path, "--data-dir", data, "--until-idle").exit_code == 0

    result = invoke(runner, "provenance", "search", "--data-dir", data, "--type", "bogus")

    assert result.exit_code == 2
    assert "--type 'bogus' is not an event type; one of: CREATE," in result.stderr
    assert "DROP" in result.stderr
    assert "0 provenance events" not in result.stdout


# -- the process: exit codes and stderr -----------------------------------------------------


def flowcore(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``flowcore`` in its own process, importing this checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLOWCORE_")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return subprocess.run(
        [sys.executable, "-m", "cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )


def logged_flow(tmp_path: Path) -> Path:
    flow = generate_to_put(tmp_path / "out")
    flow["flow"]["processors"]["tag"] = {
        "type": "LogAttribute",
        "properties": {"Log prefix": "seen-by-log-attribute"},
    }
    return write_flow(tmp_path / "flow.yaml", flow)


def test_process_exit_codes(tmp_path: Path) -> None:
    clean = logged_flow(tmp_path)
    failing = write_flow(tmp_path / "failing.yaml", failing_put(tmp_path))
    invalid = merge_without_writer(tmp_path)
    not_a_dir = tmp_path / "a-file"

    assert flowcore("run", clean, "--data-dir", "d0", "--until-idle", cwd=tmp_path).returncode == 0
    done = flowcore("run", failing, "--data-dir", "d1", "--until-idle", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert flowcore("run", invalid, "--until-idle", cwd=tmp_path).returncode == 2
    crashed = flowcore("run", clean, "--data-dir", not_a_dir, "--until-idle", cwd=tmp_path)
    assert crashed.returncode == 3, crashed.stderr
    assert "Traceback" not in crashed.stderr


def test_log_attribute_is_heard_at_the_default_log_level(tmp_path: Path) -> None:
    flow = logged_flow(tmp_path)

    default = flowcore("run", flow, "--data-dir", "d0", "--until-idle", cwd=tmp_path)
    quiet = flowcore(
        "run", flow, "--data-dir", "d1", "--until-idle", "--log-level", "warn", cwd=tmp_path
    )

    assert default.returncode == 0, default.stderr
    assert default.stderr.count("INFO flowcore.processor.tag: logging for flow file") == 3
    assert "seen-by-log-attribute" in default.stderr
    assert quiet.returncode == 0, quiet.stderr
    assert "seen-by-log-attribute" not in quiet.stderr


# -- lineage export ------------------------------------------------------------------------


def merge_three_records(tmp_path: Path) -> Path:
    """Three one-record CSV FlowFiles merged by MergeRecord when the bin is full."""
    return write_flow(
        tmp_path / "merge.yaml",
        {
            "flow": {
                "name": "merge",
                "controller_services": {
                    "reader": {"type": "CSVReader"},
                    "writer": {"type": "CSVRecordSetWriter"},
                },
                "processors": {
                    "gen": {
                        "type": "GenerateFlowFile",
                        "properties": {"Custom Text": "a,b\n1,2\n"},
                        "schedule": {"max_runs": 3},
                    },
                    "merge": {
                        "type": "MergeRecord",
                        "properties": {
                            "Record Reader": "reader",
                            "Record Writer": "writer",
                            "Minimum Number of Records": "3",
                            "Maximum Number of Records": "3",
                        },
                        "auto_terminate": ["merged", "original", "failure"],
                    },
                },
                "connections": [{"from": "gen", "relationships": ["success"], "to": "merge"}],
            }
        },
    )


def merged_lineage(runner: CliRunner, tmp_path: Path) -> tuple[Path, str]:
    data = tmp_path / "data"
    ran = invoke(runner, "run", merge_three_records(tmp_path), "--data-dir", data, "--until-idle")
    assert ran.exit_code == 0, ran.output
    joins = [e for e in provenance_events(data) if e.event_type == "JOIN"]
    assert len(joins) == 1
    return data, joins[0].flowfile_uuid


def test_lineage_tree_shows_the_merge_reason_on_the_join(runner: CliRunner, tmp_path: Path) -> None:
    data, merged = merged_lineage(runner, tmp_path)

    tree = invoke(runner, "lineage", merged, "--data-dir", data)

    assert tree.exit_code == 0, tree.output
    join_lines = [line for line in tree.stdout.splitlines() if "JOIN event" in line]
    assert join_lines and all("Records Merged due to: Bin is full" in x for x in join_lines)


def test_lineage_as_dot_mermaid_and_json(runner: CliRunner, tmp_path: Path) -> None:
    data, merged = merged_lineage(runner, tmp_path)

    dot = invoke(runner, "lineage", merged, "--data-dir", data, "--format", "dot")
    mermaid = invoke(runner, "lineage", merged, "--data-dir", data, "--format", "mermaid")
    as_json = invoke(runner, "lineage", merged, "--data-dir", data, "--format", "json")

    assert dot.exit_code == mermaid.exit_code == as_json.exit_code == 0
    graph = json.loads(as_json.stdout)
    nodes, links = graph["nodes"], graph["links"]
    join = [n for n in nodes if n["event_type"] == "JOIN"]
    assert [n["details"] for n in join] == ["Records Merged due to: Bin is full"]
    assert all(n["details"] is None for n in nodes if n["event_type"] != "JOIN")
    # DOT: one statement per node and per link, the focus filled, the reason in the label.
    assert dot.stdout.startswith(f'digraph "lineage of {merged}" {{')
    assert dot.stdout.count(" -> ") == len(links)
    assert f'"{merged}" [label="FlowFile {merged}", shape=ellipse, style=filled' in dot.stdout
    assert 'Records Merged due to: Bin is full", shape=box]' in dot.stdout
    # Mermaid: a flowchart with every node and link.
    lines = mermaid.stdout.splitlines()
    assert lines[0] == "flowchart TD"
    assert sum(" --> " in line for line in lines) == len(links)
    assert sum(1 for line in lines if re.match(r"  n\d+[\[(]", line)) == len(nodes)
    assert any("Records Merged due to: Bin is full" in line for line in lines)


def test_lineage_as_svg_without_graphviz_is_a_clear_error(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, merged = merged_lineage(runner, tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))

    result = invoke(runner, "lineage", merged, "--data-dir", data, "--format", "svg")

    assert result.exit_code == 3
    assert "needs Graphviz's 'dot' program on the PATH" in result.stderr
    assert result.stdout == ""


# -- bulletins ------------------------------------------------------------------------------


def test_bulletins_of_a_stopped_node(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "taken.txt").write_text("already here")
    data = tmp_path / "data"
    flow = generate_to_put(out)
    processors = flow["flow"]["processors"]
    processors["gen"]["schedule"] = {"max_runs": 2}
    processors["tag"]["properties"] = {"filename": "taken.txt"}
    processors["put"]["properties"]["Conflict Resolution Strategy"] = "fail"
    path = write_flow(tmp_path / "flow.yaml", flow)
    ran = invoke(runner, "run", path, "--data-dir", data, "--until-idle")
    assert ran.exit_code == 0, ran.output  # failure is auto-terminated; warnings only

    shown = invoke(runner, "bulletins", "--data-dir", data)
    as_json = invoke(runner, "bulletins", "--data-dir", data, "--output", "json")
    newest = invoke(runner, "bulletins", "--data-dir", data, "--limit", "1", "--output", "json")
    after = invoke(runner, "bulletins", "--data-dir", data, "--after", "2", "--output", "json")

    assert shown.exit_code == 0, shown.output
    assert "4 bulletins" in shown.stdout
    assert table_row(shown.stdout, "0")[2:5] == ["WARNING", "put", "PutFile"]
    bulletins = json.loads(as_json.stdout)["bulletins"]
    assert [b["id"] for b in bulletins] == [0, 1, 2, 3]
    assert (
        sorted(b["category"] for b in bulletins) == ["Log Message"] * 2 + ["Routed to failure"] * 2
    )
    assert all(b["component_id"] == "put" for b in bulletins)
    assert [b["id"] for b in json.loads(newest.stdout)["bulletins"]] == [3]
    assert [b["id"] for b in json.loads(after.stdout)["bulletins"]] == [3]


def test_bulletins_without_a_data_dir_is_a_clear_error(runner: CliRunner, tmp_path: Path) -> None:
    result = invoke(runner, "bulletins", "--data-dir", tmp_path / "nothing")

    assert result.exit_code == 2
    assert "no flowcore data directory" in result.stderr
