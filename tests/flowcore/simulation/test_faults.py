"""Fault schedules: drawn from a seed the same way every time, JSON both ways, checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowcore.errors import ConfigurationError
from flowcore.simulation import Fault, FaultKind, FaultSchedule, RunShape, draw_schedule

SHAPE = RunShape(
    commits=40, triggers=60, content_writes=20, offload_calls=2, connections=("a", "b")
)


def test_a_seed_always_draws_the_same_schedule_within_the_run_shape() -> None:
    schedules = [draw_schedule(seed, SHAPE) for seed in range(200)]
    assert schedules == [draw_schedule(seed, SHAPE) for seed in range(200)]
    assert len({s.faults for s in schedules}) > 150
    kinds = {f.kind for s in schedules for f in s.faults}
    assert kinds == set(FaultKind)
    for schedule in schedules:
        assert 1 <= len(schedule.faults) <= 3
        for fault in schedule.faults:
            limit = {
                FaultKind.REPOSITORY_FULL: SHAPE.commits,
                FaultKind.DISK_FULL: SHAPE.content_writes,
                FaultKind.OFFLOAD: SHAPE.offload_calls,
            }.get(fault.kind, max(SHAPE.commits, SHAPE.triggers))
            assert 1 <= fault.at <= limit


def test_kinds_a_run_never_meets_are_not_drawn() -> None:
    shape = RunShape(commits=5, triggers=5, content_writes=0, offload_calls=0, connections=())
    drawn = {f.kind for seed in range(300) for f in draw_schedule(seed, shape).faults}
    assert drawn == {
        FaultKind.CRASH,
        FaultKind.REPOSITORY_FULL,
        FaultKind.PROCESSOR_EXCEPTION,
        FaultKind.CLOCK_JUMP,
    }
    only = draw_schedule(1, SHAPE, (FaultKind.DISK_FULL,), max_faults=2)
    assert {f.kind for f in only.faults} == {FaultKind.DISK_FULL}


def test_a_schedule_round_trips_through_json(tmp_path: Path) -> None:
    schedule = FaultSchedule(
        42,
        (
            Fault(FaultKind.CRASH, at=3, phase="repository committed"),
            Fault(FaultKind.OFFLOAD, at=1, mode="slow", seconds=60.0),
            Fault(FaultKind.BACK_PRESSURE, connection="merged", threshold=2),
        ),
    )
    path = tmp_path / "schedule.json"
    path.write_text(schedule.dumps())
    assert FaultSchedule.load(path) == schedule
    assert schedule.without(1).faults == (schedule.faults[0], schedule.faults[2])
    assert schedule.describe() == [
        "crash at commit 3, after 'repository committed'",
        "offload call 1 is slow (60 s) and fails",
        "back pressure at 2 FlowFiles on connection 'merged'",
    ]


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ({"seed": 1, "faults": [{"kind": "meteor"}]}, "unknown fault kind 'meteor'"),
        ({"seed": 1, "faults": [{"kind": "crash", "at": 2}]}, "a crash's phase"),
        ({"seed": 1, "faults": [{"kind": "disk_full", "at": 0}]}, "counts from 1"),
        ({"seed": 1, "faults": [{"kind": "crash", "when": 2}]}, "unknown fault field(s): when"),
        ({"seed": "x", "faults": []}, "seed must be an integer"),
        ([], "an object with 'seed' and 'faults'"),
    ],
)
def test_a_bad_schedule_is_refused_with_the_reason(document: object, reason: str) -> None:
    with pytest.raises(ConfigurationError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        FaultSchedule.from_json(document)
