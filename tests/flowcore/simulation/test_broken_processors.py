"""The simulator catches deliberately broken processors, naming a seed that replays it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app
from flowcore.simulation import Fault, FaultKind, FaultSchedule, Simulation
from flowcore.simulation.harness import START_MS
from flowcore.simulation.pytest_plugin import SimulationFixture, seed_for
from flowcore.simulation.spec import SimulationSpec

sys.path.insert(0, str(Path(__file__).parent))
import broken_processors  # noqa: F401  (registers the test doubles)

FLOWS = Path(__file__).parent / "flows"


def inputs(tmp_path: Path, files: int = 6) -> Path:
    folder = tmp_path / "lines"
    folder.mkdir()
    for n in range(files):
        (folder / f"part-{n}.txt").write_text(f"line {n}.a\nline {n}.b\n")
    return folder


def test_a_sink_that_drops_before_it_delivers_is_caught_with_its_seed(
    simulation: SimulationFixture, tmp_path: Path
) -> None:
    report = simulation.run(
        FLOWS / "eager.yaml", inputs={"input_dir": inputs(tmp_path)}, seeds=12, check=False
    )
    assert report.failed
    assert report.minimal is not None
    assert [v.invariant for v in report.minimal.violations] == ["lines_delivered_once"]
    assert len(report.minimal.schedule.faults) == 1
    assert report.minimal.schedule.faults[0].kind is FaultKind.CRASH
    message = report.message()
    assert f"seed {report.minimal.seed}:" in message
    assert "not delivered" in message
    assert f"--flowcore-seed={report.minimal.seed}" in message


def test_without_faults_the_eager_sink_delivers_everything(tmp_path: Path) -> None:
    with Simulation(FLOWS / "eager.yaml", inputs={"input_dir": inputs(tmp_path)}) as sim:
        assert sim.reference.violations == []
        assert len(sim.reference.deliveries) == 6


def test_the_cli_prints_the_seed_and_a_minimal_schedule_that_replays_it(tmp_path: Path) -> None:
    folder = inputs(tmp_path)
    runner = CliRunner()
    saved = tmp_path / "minimal.json"
    result = runner.invoke(
        app,
        [
            "simulate",
            str(FLOWS / "eager.yaml"),
            "--runs",
            "12",
            "--param",
            f"input_dir={folder}",
            "--save-schedule",
            str(saved),
        ],
    )
    assert result.exit_code == 1, result.output
    schedule = FaultSchedule.load(saved)
    assert f"seed {schedule.seed} failed" in result.output
    assert f"--replay {schedule.seed}" in result.output
    assert len(schedule.faults) == 1
    replayed = runner.invoke(
        app,
        [
            "simulate",
            str(FLOWS / "eager.yaml"),
            "--replay",
            str(schedule.seed),
            "--schedule",
            str(saved),
            "--param",
            f"input_dir={folder}",
            "--output",
            "json",
        ],
    )
    assert replayed.exit_code == 1, replayed.output
    document = json.loads(replayed.stdout)
    assert document["failing_seeds"] == [schedule.seed]
    assert document["minimal"]["violations"][0]["invariant"] == "lines_delivered_once"
    assert document["minimal"]["faults_met"] == [schedule.faults[0].describe()]


def test_a_running_total_kept_in_memory_is_caught(tmp_path: Path) -> None:
    with Simulation(FLOWS / "memory_total.yaml", inputs={"input_dir": inputs(tmp_path)}) as sim:
        results = [sim.run_seed(seed) for seed in range(8)]
        caught = [r for r in results if r.failed]
        assert caught, [r.met for r in results]
        assert {v.invariant for r in caught for v in r.violations} == {"same_outputs_as_fault_free"}


def test_delivering_before_the_commit_is_a_reported_redelivery_not_a_loss(
    tmp_path: Path,
) -> None:
    crash = FaultSchedule(7, (Fault(FaultKind.CRASH, at=2, phase="content durable"),))
    with Simulation(FLOWS / "early.yaml", inputs={"input_dir": inputs(tmp_path)}) as sim:
        result = sim.run(crash)
        assert result.violations == []
        assert result.restarts == 1
        assert result.redeliveries, "the FlowFiles written before the crash are written again"
        assert all(r.times == 2 and r.component == "sink" for r in result.redeliveries)
        sim.spec.invariants.exactly_once_delivery = True
        strict = sim.run(crash)
    assert [v.invariant for v in strict.violations] == ["exactly_once_delivery"]


@pytest.mark.parametrize("seed", [3, 11])
def test_a_seed_replays_exactly(tmp_path: Path, seed: int) -> None:
    with Simulation(FLOWS / "eager.yaml", inputs={"input_dir": inputs(tmp_path)}) as sim:
        first, second = sim.run_seed(seed), sim.run_seed(seed)
    assert first.schedule == second.schedule
    assert first.met == second.met
    assert first.counts == second.counts
    assert [v.invariant for v in first.violations] == [v.invariant for v in second.violations]
    assert sorted(first.outputs.values()) == sorted(second.outputs.values())


def test_a_failing_run_fails_the_test_naming_its_seed_and_how_to_replay_it(
    simulation: SimulationFixture, tmp_path: Path
) -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        simulation.run(FLOWS / "eager.yaml", inputs={"input_dir": inputs(tmp_path)}, seeds=12)
    message = str(failed.value)
    assert "flowcore simulation failed for seed(s)" in message
    assert "minimal fault schedule:" in message
    assert "--flowcore-seed=" in message


def test_each_test_has_its_own_stable_seeds(simulation: SimulationFixture) -> None:
    assert simulation.seed == seed_for(
        "tests/flowcore/simulation/test_broken_processors.py::"
        "test_each_test_has_its_own_stable_seeds"
    )
    assert seed_for("a::b") == seed_for("a::b") != seed_for("a::c")
    assert simulation.clock.now_ms() == START_MS


def test_a_source_that_is_never_idle_is_reported_with_the_way_out(tmp_path: Path) -> None:
    flow = FLOWS / "keep_source.yaml"
    with Simulation(flow, inputs={"input_dir": inputs(tmp_path, files=2)}) as sim:
        [violation] = sim.reference.violations
        assert violation.invariant == "idle"
        assert "--run-once-sources" in violation.message
    once = SimulationSpec.parse({"faults": [], "max_triggers": 60, "run_once_sources": True})
    again = tmp_path / "again"
    again.mkdir()
    with Simulation(flow, inputs={"input_dir": inputs(again, files=2)}, spec=once) as sim:
        assert sim.reference.violations == []
