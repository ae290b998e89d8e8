"""Simulated runs of a real flow (everyday: GenerateFlowFile, SplitText, UpdateAttribute,
RouteOnAttribute, PutFile) on real repositories: every fault kind is met where the
schedule places it, and the flow keeps every invariant through it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app
from flowcore.clock import ManualClock
from flowcore.errors import SparkJobError, SparkUnavailableError
from flowcore.simulation import Fault, FaultKind, FaultSchedule, Simulation
from flowcore.simulation.injector import FaultInjector

EVERYDAY = Path(__file__).resolve().parents[3] / "samples" / "everyday" / "flow.yaml"


@pytest.fixture(scope="module")
def everyday(tmp_path_factory: pytest.TempPathFactory) -> Simulation:
    simulation = Simulation(EVERYDAY, work_dir=tmp_path_factory.mktemp("everyday"))
    simulation.shape()
    return simulation


@pytest.mark.parametrize(
    "phase",
    ["trigger", "content write", "content durable", "repository committed", "queues updated"],
)
def test_a_crash_at_every_commit_phase_restarts_and_loses_nothing(
    everyday: Simulation, phase: str
) -> None:
    at = {"trigger": 30, "content write": 7}.get(phase, 25)
    result = everyday.run(FaultSchedule(1, (Fault(FaultKind.CRASH, at=at, phase=phase),)))
    assert result.violations == []
    assert result.restarts == 1
    assert result.met == [Fault(FaultKind.CRASH, at=at, phase=phase)]
    assert sorted(result.outputs.values()) == sorted(everyday.reference.outputs.values())


def test_full_repositories_and_processor_exceptions_are_retried_to_the_same_outputs(
    everyday: Simulation,
) -> None:
    faults = (
        Fault(FaultKind.REPOSITORY_FULL, at=10),
        Fault(FaultKind.DISK_FULL, at=3),
        Fault(FaultKind.PROCESSOR_EXCEPTION, at=20),
        Fault(FaultKind.CLOCK_JUMP, at=5, seconds=3600.0),
    )
    everyday.spec.count_failed_runs = False  # GenerateFlowFile's 4 runs are all made
    try:
        result = everyday.run(FaultSchedule(2, faults))
    finally:
        everyday.spec.count_failed_runs = True
    assert result.violations == []
    assert result.restarts == 0
    assert set(result.met) == set(faults)
    assert sorted(result.outputs.values()) == sorted(everyday.reference.outputs.values())


def test_back_pressure_on_a_connection_holds_the_flow_but_it_still_finishes(
    everyday: Simulation,
) -> None:
    name = everyday.connection_names()[1]
    fault = Fault(FaultKind.BACK_PRESSURE, connection=name, threshold=1)
    result = everyday.run(FaultSchedule(3, (fault,)))
    assert result.violations == []
    assert result.met == [fault]
    assert sorted(result.outputs.values()) == sorted(everyday.reference.outputs.values())


def test_a_failed_run_of_a_run_once_source_counts_unless_told_otherwise(
    everyday: Simulation,
) -> None:
    first_write = FaultSchedule(6, (Fault(FaultKind.DISK_FULL, at=1),))
    result = everyday.run(first_write)
    assert result.violations == []
    assert len(result.outputs) == len(everyday.reference.outputs) * 3 // 4


def test_a_fault_past_the_end_of_the_run_is_not_met(everyday: Simulation) -> None:
    result = everyday.run(FaultSchedule(4, (Fault(FaultKind.CRASH, at=10**6, phase="trigger"),)))
    assert result.met == []
    assert result.restarts == 0


def test_the_offload_boundary_never_starts_spark_and_fails_or_slows_as_scheduled() -> None:
    clock = ManualClock(0)
    faults = (
        Fault(FaultKind.OFFLOAD, at=2, mode="fail"),
        Fault(FaultKind.OFFLOAD, at=3, mode="slow", seconds=600.0),
    )
    injector = FaultInjector(FaultSchedule(5, faults), clock)
    with pytest.raises(SparkUnavailableError, match="not started in a simulation"):
        injector.on_offload()
    with pytest.raises(SparkJobError, match="failed"):
        injector.on_offload()
    assert clock.now_ms() == 0
    with pytest.raises(SparkJobError, match="ran 600 s"):
        injector.on_offload()
    assert clock.now_ms() == 600_000
    assert injector.met == list(faults)


def test_the_cli_runs_seeds_and_exits_0_when_every_invariant_holds() -> None:
    result = CliRunner().invoke(
        app, ["simulate", str(EVERYDAY), "--runs", "3", "--faults", "crash,disk_full"]
    )
    assert result.exit_code == 0, result.output
    assert "3 run(s)" in result.output
    assert "every invariant held" in result.output


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--faults", "meteor"], "unknown fault kind 'meteor'"),
        (["--output", "xml"], "--output is text or json"),
        (["--runs", "0"], "--runs must be at least 1"),
        (["--param", "novalue"], "--param takes NAME=VALUE"),
    ],
)
def test_bad_usage_exits_2_with_the_reason(arguments: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["simulate", str(EVERYDAY), *arguments])
    assert result.exit_code == 2
    assert message in result.output


def test_a_missing_flow_or_a_bad_schedule_exits_2(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(app, ["simulate", str(tmp_path / "nope.yaml")])
    assert missing.exit_code == 2
    assert "no such file" in missing.output
    bad = tmp_path / "schedule.json"
    bad.write_text('{"seed": 1, "faults": [{"kind": "crash", "at": 1}]}')
    refused = runner.invoke(app, ["simulate", str(EVERYDAY), "--schedule", str(bad)])
    assert refused.exit_code == 2
    assert "a crash's phase" in refused.output


def test_a_nifi_flow_definition_is_simulated_as_it_is() -> None:
    samples = EVERYDAY.parents[1]
    result = CliRunner().invoke(
        app,
        [
            "simulate",
            str(samples / "nifi_import" / "flow.json"),
            "--runs",
            "2",
            "--run-once-sources",
            "--param",
            f"input_dir={samples / 'nifi_import' / 'input'}",
            "--output",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert '"outcome": "passed"' in result.stdout


@pytest.mark.crash
def test_with_kill_a_crash_ends_a_real_child_process_and_the_next_one_recovers(
    everyday: Simulation, tmp_path: Path
) -> None:
    faults = (
        Fault(FaultKind.CRASH, at=25, phase="repository committed"),
        Fault(FaultKind.CRASH, at=7, phase="content write"),
    )
    with Simulation(EVERYDAY, work_dir=tmp_path, kill=True) as killed:
        result = killed.run(FaultSchedule(8, faults))
    assert result.violations == []
    assert result.restarts == 2
    assert set(result.met) == set(faults)
    in_process = everyday.run(FaultSchedule(8, faults))
    assert result.counts == in_process.counts
    assert sorted(result.outputs.values()) == sorted(everyday.reference.outputs.values())
    assert len(result.deliveries) == len(in_process.deliveries)
