"""PutFile within a batch: a directory known from an earlier FlowFile of the same trigger
still confines, detects conflicts and is looked up again in the next trigger."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
REASON = "putfile.failure.reason"


def _sends(runner: TestRunner) -> list[str]:
    return [
        str(e.transit_uri)
        for e in runner.get_provenance_events()
        if e.event_type == ProvenanceEventType.SEND
    ]


@pytest.mark.parametrize("strategy", ["replace", "ignore", "fail"])
def test_escaping_link_after_a_known_directory_fails(
    make_runner: RunnerFactory, tmp_path: Path, strategy: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("safe")
    outbox = tmp_path / "out"
    outbox.mkdir()
    (outbox / "victim.txt").symlink_to(outside / "victim.txt")
    runner = make_runner(
        "PutFile",
        properties={"Directory": str(outbox), "Conflict Resolution Strategy": strategy},
    )
    runner.enqueue("good", {"filename": "first.txt"})  # makes the Directory known
    runner.enqueue("evil", {"filename": "victim.txt"})
    runner.run()
    [failed] = runner.get_flowfiles_for_relationship("failure")
    assert "outside the Directory" in str(failed.get_attribute(REASON))
    assert (outside / "victim.txt").read_text() == "safe"
    assert (outbox / "victim.txt").is_symlink()
    assert _sends(runner) == [(outbox / "first.txt").as_uri()]


@pytest.mark.parametrize(
    ("strategy", "relationship", "content", "sends"),
    [
        ("replace", "success", "new", 2),
        ("ignore", "success", "old", 1),
        ("fail", "failure", "old", 1),
    ],
)
def test_conflict_after_a_known_directory(
    make_runner: RunnerFactory,
    tmp_path: Path,
    strategy: str,
    relationship: str,
    content: str,
    sends: int,
) -> None:
    outbox = tmp_path / "out"
    outbox.mkdir()
    (outbox / "taken.txt").write_text("old")
    runner = make_runner(
        "PutFile",
        properties={"Directory": str(outbox), "Conflict Resolution Strategy": strategy},
    )
    runner.enqueue("first", {"filename": "first.txt"})
    runner.enqueue("new", {"filename": "taken.txt"})
    runner.run()
    [flowfile] = [
        f
        for f in runner.get_flowfiles_for_relationship(relationship)
        if f.get_attribute("filename") == "taken.txt"
    ]
    if strategy == "fail":
        assert "already exists" in str(flowfile.get_attribute(REASON))
    assert (outbox / "taken.txt").read_text() == content
    assert len(_sends(runner)) == sends
    assert sorted(p.name for p in outbox.iterdir()) == ["first.txt", "taken.txt"]


def test_directory_removed_between_triggers_is_created_again(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    outbox = tmp_path / "out"
    runner = make_runner("PutFile", properties={"Directory": str(outbox)})
    runner.enqueue("one", {"filename": "one.txt"})
    runner.enqueue("two", {"filename": "two.txt"})
    runner.run(stop_on_finish=False)
    shutil.rmtree(outbox)
    runner.enqueue("three", {"filename": "three.txt"})
    runner.run(initialize=False)
    runner.assert_all_flowfiles_transferred("success", 3)
    assert sorted(p.name for p in outbox.iterdir()) == ["three.txt"]
    assert (outbox / "three.txt").read_text() == "three"


def test_one_trigger_takes_up_to_500_flowfiles(make_runner: RunnerFactory, tmp_path: Path) -> None:
    runner = make_runner("PutFile", properties={"Directory": str(tmp_path / "out")})
    for number in range(501):
        runner.enqueue(b"x", {"filename": f"{number}.txt"})
    runner.run()
    assert len(runner.get_flowfiles_for_relationship("success")) == 500
    assert runner.queue_size == 1


def test_one_trigger_takes_up_to_10_mb_of_content(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    runner = make_runner("PutFile", properties={"Directory": str(tmp_path / "out")})
    six_mb = b"x" * (6 * 1024 * 1024)
    for number in range(3):
        runner.enqueue(six_mb, {"filename": f"{number}.bin"})
    runner.run()  # the second FlowFile crosses 10 MB: the batch ends with it
    assert len(runner.get_flowfiles_for_relationship("success")) == 2
    assert runner.queue_size == 1
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["0.bin", "1.bin"]
