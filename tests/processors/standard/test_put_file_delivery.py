"""PutFile: delivering the same FlowFile again, temporary files, the Base Directory."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner
from processors.standard import _file_delivery

RunnerFactory = Callable[..., TestRunner]
REASON = "putfile.failure.reason"
UUID = "0b5c1f1e-7d0e-4a53-9d0b-2f4f3c1a9e01"
MARKER = "user.flowcore.uuid"
STALE_SECONDS = 10 * 60


@pytest.fixture
def outbox(tmp_path: Path) -> Path:
    path = tmp_path / "out"
    path.mkdir()
    return path


def _tree(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


def _sends(runner: TestRunner) -> list[str]:
    return [
        str(e.flowfile_uuid)
        for e in runner.get_provenance_events()
        if e.event_type == ProvenanceEventType.SEND
    ]


def _put(make_runner: RunnerFactory, directory: Path | str, **properties: str) -> TestRunner:
    return make_runner("PutFile", properties={"Directory": str(directory), **properties})


def _deliver_once(make_runner: RunnerFactory, outbox: Path, strategy: str) -> None:
    """A first delivery whose session is then lost, as in a crash before the commit."""
    first = _put(make_runner, outbox, **{"Conflict Resolution Strategy": strategy})
    first.enqueue("the content", {"filename": "a.txt", "uuid": UUID})
    first.run()
    first.assert_all_flowfiles_transferred("success", 1)


def _age_past_staleness(
    runner: TestRunner, *paths: Path, seconds: float = STALE_SECONDS + 1
) -> None:
    """Move the manual clock to ``seconds`` after the newest status change of ``paths``."""
    newest = max(p.lstat().st_ctime_ns // 1_000_000 for p in paths)
    runner.clock.advance((newest - runner.clock.now_ms()) / 1000 + seconds)


# -- delivering the same FlowFile again -------------------------------------------------


@pytest.mark.parametrize("strategy", ["fail", "ignore"])
def test_the_same_flowfile_delivered_again_is_sent_not_a_conflict(
    make_runner: RunnerFactory, outbox: Path, strategy: str
) -> None:
    _deliver_once(make_runner, outbox, strategy)
    again = _put(make_runner, outbox, **{"Conflict Resolution Strategy": strategy})
    again.enqueue("the content", {"filename": "a.txt", "uuid": UUID})
    again.run()
    again.assert_all_flowfiles_transferred("success", 1)
    again.get_flowfiles_for_relationship("success")[0].assert_attribute_not_exists(REASON)
    assert _sends(again) == [UUID]
    assert _tree(outbox) == ["a.txt"]
    assert (outbox / "a.txt").read_text() == "the content"


def test_the_delivered_file_carries_the_marker(make_runner: RunnerFactory, outbox: Path) -> None:
    _deliver_once(make_runner, outbox, "fail")
    assert os.getxattr(outbox / "a.txt", MARKER) == UUID.encode()


@pytest.mark.parametrize(
    ("uuid", "content"),
    [
        ("9e3c5f7a-0000-4000-8000-000000000001", "the content"),  # another FlowFile
        (UUID, "the contenT"),  # this FlowFile, changed since (same size)
        (UUID, "other content"),  # this FlowFile, changed since
    ],
)
def test_a_different_existing_file_is_still_a_conflict(
    make_runner: RunnerFactory, outbox: Path, uuid: str, content: str
) -> None:
    _deliver_once(make_runner, outbox, "fail")
    fail = _put(make_runner, outbox)
    fail.enqueue(content, {"filename": "a.txt", "uuid": uuid})
    fail.run()
    [failed] = fail.get_flowfiles_for_relationship("failure")
    assert "already exists" in str(failed.get_attribute(REASON))
    assert _sends(fail) == []
    ignore = _put(make_runner, outbox, **{"Conflict Resolution Strategy": "ignore"})
    ignore.enqueue(content, {"filename": "a.txt", "uuid": uuid})
    ignore.run()
    ignore.assert_all_flowfiles_transferred("success", 1)
    assert _sends(ignore) == []
    assert (outbox / "a.txt").read_text() == "the content"


def test_an_unmarked_file_with_the_same_bytes_is_a_conflict(
    make_runner: RunnerFactory, outbox: Path
) -> None:
    (outbox / "a.txt").write_text("the content")  # written by someone else
    runner = _put(make_runner, outbox)
    runner.enqueue("the content", {"filename": "a.txt", "uuid": UUID})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_without_extended_attributes_identical_bytes_count_as_delivered(
    make_runner: RunnerFactory, outbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_file_delivery, "_HAS_XATTR", False)
    _deliver_once(make_runner, outbox, "fail")
    assert MARKER not in os.listxattr(outbox / "a.txt")
    again = _put(make_runner, outbox)
    again.enqueue("the content", {"filename": "a.txt", "uuid": UUID})
    again.enqueue("different", {"filename": "a.txt"})
    again.run()
    assert _sends(again) == [UUID]
    [failed] = again.get_flowfiles_for_relationship("failure")
    assert "already exists" in str(failed.get_attribute(REASON))


def test_replace_writes_the_file_again(make_runner: RunnerFactory, outbox: Path) -> None:
    _deliver_once(make_runner, outbox, "replace")
    again = _put(make_runner, outbox, **{"Conflict Resolution Strategy": "replace"})
    again.enqueue("the content", {"filename": "a.txt", "uuid": UUID})
    again.run()
    assert _sends(again) == [UUID]
    assert _tree(outbox) == ["a.txt"]


@pytest.mark.parametrize("strategy", ["fail", "ignore", "replace"])
def test_a_temporary_file_left_by_a_crash_is_taken_over(
    make_runner: RunnerFactory, outbox: Path, strategy: str
) -> None:
    # A crash in the middle of the write left a partial temporary file of this FlowFile.
    (outbox / f".putfile-{UUID}.tmp").write_text("the con")
    runner = _put(make_runner, outbox, **{"Conflict Resolution Strategy": strategy})
    runner.enqueue("the content", {"filename": "a.txt", "uuid": UUID})
    runner.run()
    assert _sends(runner) == [UUID]
    assert _tree(outbox) == ["a.txt"]
    assert (outbox / "a.txt").read_text() == "the content"


def test_a_crash_between_link_and_unlink_leaves_nothing_behind(
    make_runner: RunnerFactory, outbox: Path
) -> None:
    _deliver_once(make_runner, outbox, "fail")
    os.link(outbox / "a.txt", outbox / f".putfile-{UUID}.tmp")  # the link was made, no unlink
    runner = _put(make_runner, outbox)
    runner.enqueue("the content", {"filename": "a.txt", "uuid": UUID})
    runner.run()
    assert _sends(runner) == [UUID]
    assert _tree(outbox) == ["a.txt"]


def test_an_odd_uuid_cannot_steer_the_temporary_file(
    make_runner: RunnerFactory, tmp_path: Path, outbox: Path
) -> None:
    runner = _put(make_runner, outbox)
    runner.enqueue("x", {"filename": "x.txt", "uuid": "../../escape"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert _tree(outbox) == ["x.txt"]
    assert not (tmp_path.parent / "escape.tmp").exists()
    assert _file_delivery.temporary_name("../../escape").startswith(".putfile-")
    assert "/" not in _file_delivery.temporary_name("../../escape")


# -- stale temporary files --------------------------------------------------------------


def test_stale_temporary_files_are_swept_when_scheduled(
    make_runner: RunnerFactory, outbox: Path
) -> None:
    stale = [outbox / ".putfile-4a2b-7.tmp", outbox / f".putfile-{UUID}.tmp"]
    for path in stale:
        path.write_text("left by a crash")
    kept = [outbox / "data.tmp", outbox / ".putfile-notes.txt", outbox / "keep.txt"]
    for path in kept:
        path.write_text("not ours")
    (outbox / ".putfile-dir.tmp").mkdir()
    runner = _put(make_runner, outbox)
    _age_past_staleness(runner, *stale)
    runner.run()  # nothing queued: only the start-up sweep runs
    assert _tree(outbox) == sorted([p.name for p in kept] + [".putfile-dir.tmp"])


def test_temporary_files_younger_than_ten_minutes_are_left_to_their_writer(
    make_runner: RunnerFactory, outbox: Path
) -> None:
    temporary = outbox / ".putfile-4a2b-7.tmp"
    temporary.write_text("being written")
    runner = _put(make_runner, outbox)
    _age_past_staleness(runner, temporary, seconds=STALE_SECONDS - 1)
    runner.run()
    assert temporary.exists()
    runner.advance_time(2)
    runner.run()
    assert not temporary.exists()


def test_no_sweep_outside_the_base_directory(
    make_runner: RunnerFactory, tmp_path: Path, outbox: Path
) -> None:
    stale = outbox / ".putfile-4a2b-7.tmp"
    stale.write_text("left by a crash")
    base = tmp_path / "base"
    base.mkdir()
    (base / "link").symlink_to(base, target_is_directory=True)
    runner = _put(make_runner, base / "link", **{"Base Directory": str(base)})
    runner.assert_valid()
    (base / "link").unlink()  # swapped for a link out of the base after validation
    (base / "link").symlink_to(outbox, target_is_directory=True)
    _age_past_staleness(runner, stale)
    runner.processor.on_scheduled(runner._node.context())
    assert stale.exists()


def test_a_failed_write_sweeps_its_directory(make_runner: RunnerFactory, outbox: Path) -> None:
    # The Directory depends on an attribute, so it is unknown when the processor starts.
    team = outbox / "red"
    team.mkdir()
    stale = team / ".putfile-4a2b-7.tmp"
    stale.write_text("left by a crash")
    (team / "a.txt").mkdir()  # replacing a directory with a file fails
    runner = make_runner(
        "PutFile",
        properties={"Directory": f"{outbox}/${{team}}", "Conflict Resolution Strategy": "replace"},
    )
    _age_past_staleness(runner, stale)
    runner.run(initialize=True, stop_on_finish=False)
    assert stale.exists()  # the start could not know the directory
    runner.enqueue("x", {"filename": "a.txt", "team": "red"})
    runner.run(initialize=False)
    runner.assert_all_flowfiles_transferred("failure", 1)
    assert _tree(team) == ["a.txt"]


# -- Base Directory -----------------------------------------------------------------------


def test_a_directory_from_attributes_that_escapes_the_base_fails(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    base = tmp_path / "out"
    runner = make_runner(
        "PutFile",
        properties={"Directory": f"{base}/${{storeId}}", "Base Directory": str(base)},
    )
    runner.enqueue("evil", {"filename": "x.txt", "storeId": "../../x"})
    runner.enqueue("evil", {"filename": "y.txt", "storeId": ".."})
    runner.enqueue("good", {"filename": "z.txt", "storeId": "store-7"})
    runner.run()
    failed = runner.get_flowfiles_for_relationship("failure")
    assert [f.get_attribute("filename") for f in failed] == ["x.txt", "y.txt"]
    for flowfile in failed:
        reason = str(flowfile.get_attribute(REASON))
        assert "outside the Base Directory" in reason
        assert str(base) in reason
        assert flowfile.is_penalized(runner.clock.now_ms())
    assert not (tmp_path.parent / "x").exists()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("runner-")) == ["out"]
    assert _tree(base) == ["store-7", "store-7/z.txt"]
    assert len(_sends(runner)) == 1


def test_the_base_directory_itself_and_links_inside_it_are_fine(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    base = tmp_path / "out"
    (base / "real").mkdir(parents=True)
    (base / "alias").symlink_to(base / "real", target_is_directory=True)
    runner = make_runner(
        "PutFile",
        properties={"Directory": f"{base}/${{storeId}}", "Base Directory": str(base)},
    )
    runner.enqueue("a", {"filename": "a.txt", "storeId": ""})
    runner.enqueue("b", {"filename": "b.txt", "storeId": "alias"})
    runner.enqueue("c", {"filename": "c.txt", "storeId": "new/../real"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 3)
    assert (base / "a.txt").read_text() == "a"
    assert (base / "real" / "b.txt").read_text() == "b"
    assert (base / "real" / "c.txt").read_text() == "c"


def test_a_symbolic_link_out_of_the_base_fails(make_runner: RunnerFactory, tmp_path: Path) -> None:
    base = tmp_path / "out"
    base.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (base / "link").symlink_to(outside, target_is_directory=True)
    runner = make_runner(
        "PutFile",
        properties={"Directory": f"{base}/${{storeId}}", "Base Directory": str(base)},
    )
    runner.enqueue("evil", {"filename": "x.txt", "storeId": "link"})
    runner.enqueue("evil", {"filename": "x.txt", "storeId": "link/deeper"})
    runner.run()
    failed = runner.get_flowfiles_for_relationship("failure")
    assert len(failed) == 2
    assert all("outside the Base Directory" in str(f.get_attribute(REASON)) for f in failed)
    assert _tree(outside) == []


def test_a_base_directory_that_is_a_prefix_is_not_enough(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    base = tmp_path / "out"
    runner = make_runner(
        "PutFile",
        properties={"Directory": f"{tmp_path}/${{dir}}", "Base Directory": str(base)},
    )
    runner.enqueue("evil", {"filename": "x.txt", "dir": "out-evil"})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    assert not (tmp_path / "out-evil").exists()


def test_base_directory_takes_no_flowfile_attributes(make_runner: RunnerFactory) -> None:
    runner = make_runner("PutFile")
    descriptor = next(
        d for d in runner.processor.property_descriptors if d.name == "Base Directory"
    )
    assert descriptor.display_name == "Base Directory"
    assert descriptor.expression_language_scope.value == "ENVIRONMENT"
    assert not descriptor.required


def test_a_fixed_directory_outside_the_base_is_invalid(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    base = tmp_path / "out"
    runner = make_runner(
        "PutFile",
        properties={"Directory": f"{base}/../elsewhere", "Base Directory": str(base)},
    )
    assert runner.validation_errors() == [
        f"'Directory' validated against '{base}/../elsewhere' is invalid because it "
        f"resolves to '{tmp_path / 'elsewhere'}', outside the Base Directory '{base}'"
    ]
    inside = make_runner(
        "PutFile", properties={"Directory": f"{base}/a/../b", "Base Directory": str(base)}
    )
    inside.assert_valid()
