"""PutFile: validation, writing, conflicts, confinement to its directory, SEND."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
REASON = "putfile.failure.reason"


@pytest.fixture
def outbox(tmp_path: Path) -> Path:
    return tmp_path / "out"


def _tree(directory: Path) -> list[str]:
    """Every path under ``directory`` (relative), temporary files included."""
    if not directory.exists():
        return []
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


def _sends(runner: TestRunner) -> list[str]:
    return [
        str(e.transit_uri)
        for e in runner.get_provenance_events()
        if e.event_type == ProvenanceEventType.SEND
    ]


def _put(make_runner: RunnerFactory, outbox: Path, **properties: str) -> TestRunner:
    return make_runner("PutFile", properties={"Directory": str(outbox), **properties})


# -- validation ---------------------------------------------------------------------------


def test_directory_is_required(make_runner: RunnerFactory) -> None:
    runner = make_runner("PutFile")
    runner.assert_not_valid()
    assert runner.validation_errors() == ["'Directory' is invalid because Directory is required"]


def test_invalid_values(make_runner: RunnerFactory, outbox: Path) -> None:
    runner = _put(
        make_runner,
        outbox,
        **{
            "Conflict Resolution Strategy": "overwrite",
            "Create Missing Directories": "sure",
            "Maximum File Count": "many",
            "Permissions": "rwxrwxrwz",
        },
    )
    errors = runner.validation_errors()
    assert (
        "'Conflict Resolution Strategy' validated against 'overwrite' is invalid because "
        "Given value not found in allowed set 'replace, ignore, fail'" in errors
    )
    assert (
        "'Create Missing Directories' validated against 'sure' is invalid because Given "
        "value not found in allowed set 'true, false'" in errors
    )
    assert (
        "'Maximum File Count' validated against 'many' is invalid because value is not a "
        "valid integer" in errors
    )
    assert any(
        e.startswith(
            "'Permissions' validated against 'rwxrwxrwz' is invalid because "
            "Must be a UNIX permission string"
        )
        for e in errors
    )


# -- writing ------------------------------------------------------------------------------


def test_writes_the_file_and_reports_send(make_runner: RunnerFactory, outbox: Path) -> None:
    runner = _put(make_runner, outbox)
    flowfile = runner.enqueue("hello", {"filename": "greeting.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert (outbox / "greeting.txt").read_text() == "hello"
    assert _tree(outbox) == ["greeting.txt"]  # no temporary file left
    events = runner.get_provenance_events()
    assert [(e.event_type, e.flowfile_uuid) for e in events] == [
        (ProvenanceEventType.SEND, flowfile.uuid)
    ]
    assert events[0].transit_uri == f"file://{outbox}/greeting.txt"


def test_directory_from_attributes_and_subdirectories(
    make_runner: RunnerFactory, outbox: Path
) -> None:
    runner = make_runner("PutFile", properties={"Directory": f"{outbox}/${{team}}"})
    runner.enqueue("a", {"filename": "reports/a.txt", "team": "red"})
    runner.enqueue(b"", {"filename": "empty.txt", "team": "blue"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 2)
    assert (outbox / "red" / "reports" / "a.txt").read_text() == "a"
    assert (outbox / "blue" / "empty.txt").read_bytes() == b""


def test_an_expression_that_fails_for_one_flowfile_fails_only_that_one(
    make_runner: RunnerFactory, outbox: Path
) -> None:
    # 'zz':fromRadix(16) is an error; 'ef':fromRadix(16) is 239.
    directory = f"{outbox}/${{team:isEmpty():ifElse('zz','ef'):fromRadix(16)}}"
    runner = make_runner("PutFile", properties={"Directory": directory})
    runner.enqueue("a", {"filename": "a.txt", "team": "red"})
    runner.enqueue("b", {"filename": "b.txt"})
    runner.run()
    runner.assert_transfer_count("success", 1)
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    assert failed.get_attribute("filename") == "b.txt"
    assert "could not write the file" in str(failed.get_attribute(REASON))
    assert (outbox / "239" / "a.txt").read_text() == "a"


def test_missing_directory_without_create(make_runner: RunnerFactory, outbox: Path) -> None:
    runner = _put(make_runner, outbox, **{"Create Missing Directories": "false"})
    runner.enqueue("x", {"filename": "x.txt"})
    runner.run()
    [failed] = runner.get_flowfiles_for_relationship("failure")
    assert "does not exist and Create Missing Directories is false" in str(
        failed.get_attribute(REASON)
    )
    assert failed.is_penalized(runner.clock.now_ms())
    assert not outbox.exists()


# -- conflicts ----------------------------------------------------------------------------


def test_conflict_fail(make_runner: RunnerFactory, outbox: Path) -> None:
    outbox.mkdir()
    (outbox / "same.txt").write_text("old")
    runner = _put(make_runner, outbox)
    runner.enqueue("new", {"filename": "same.txt"})
    runner.run()
    [failed] = runner.get_flowfiles_for_relationship("failure")
    assert "already exists" in str(failed.get_attribute(REASON))
    assert failed.is_penalized(runner.clock.now_ms())
    assert (outbox / "same.txt").read_text() == "old"
    assert _tree(outbox) == ["same.txt"]
    assert _sends(runner) == []


def test_conflict_replace(make_runner: RunnerFactory, outbox: Path) -> None:
    outbox.mkdir()
    (outbox / "same.txt").write_text("old")
    runner = _put(make_runner, outbox, **{"Conflict Resolution Strategy": "replace"})
    runner.enqueue("new", {"filename": "same.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert (outbox / "same.txt").read_text() == "new"
    assert _tree(outbox) == ["same.txt"]


def test_conflict_ignore(make_runner: RunnerFactory, outbox: Path) -> None:
    outbox.mkdir()
    (outbox / "same.txt").write_text("old")
    runner = _put(make_runner, outbox, **{"Conflict Resolution Strategy": "ignore"})
    runner.enqueue("new", {"filename": "same.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert (outbox / "same.txt").read_text() == "old"
    assert runner.get_provenance_events() == []  # nothing was sent


def test_a_later_success_clears_the_failure_reason(
    make_runner: RunnerFactory, outbox: Path
) -> None:
    runner = _put(make_runner, outbox)
    runner.enqueue("x", {"filename": "x.txt", REASON: "earlier trouble"})
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_not_exists(REASON)


def test_maximum_file_count(make_runner: RunnerFactory, outbox: Path) -> None:
    outbox.mkdir()
    (outbox / "one").write_text("1")
    runner = _put(
        make_runner,
        outbox,
        **{"Maximum File Count": "2", "Conflict Resolution Strategy": "replace"},
    )
    runner.enqueue("2", {"filename": "two"})
    runner.enqueue("3", {"filename": "three"})
    runner.enqueue("1", {"filename": "one"})  # replacing does not count the file itself
    runner.run()
    assert sorted(
        str(m.get_attribute("filename")) for m in runner.get_flowfiles_for_relationship("success")
    ) == ["one", "two"]
    [failed] = runner.get_flowfiles_for_relationship("failure")
    failed.assert_attribute_equals("filename", "three")
    assert "exceeds the configured maximum number of files (2)" in str(failed.get_attribute(REASON))
    assert _tree(outbox) == ["one", "two"]


def test_permissions_and_last_modified_time(make_runner: RunnerFactory, outbox: Path) -> None:
    runner = _put(
        make_runner,
        outbox,
        **{"Permissions": "${perms}", "Last Modified Time": "${file.lastModifiedTime}"},
    )
    runner.enqueue(
        "a",
        {
            "filename": "a",
            "perms": "rw-------",
            "file.lastModifiedTime": "2020-09-13T12:26:40+0000",
        },
    )
    runner.enqueue("b", {"filename": "b", "perms": "640", "file.lastModifiedTime": "not a date"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 2)
    assert stat.S_IMODE((outbox / "a").stat().st_mode) == 0o600
    assert (outbox / "a").stat().st_mtime == 1_600_000_000
    assert stat.S_IMODE((outbox / "b").stat().st_mode) == 0o640


# -- confinement --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "why"),
    [
        ("../escape.txt", "contains a '..' path component"),
        ("sub/../../escape.txt", "contains a '..' path component"),
        ("..", "contains a '..' path component"),
        ("/tmp/absolute-escape.txt", "is an absolute path"),
        ("", "does not name a file"),
        (".", "does not name a file"),
    ],
)
def test_filenames_that_leave_the_directory_fail(
    make_runner: RunnerFactory, tmp_path: Path, outbox: Path, filename: str, why: str
) -> None:
    outbox.mkdir()
    before = _tree(tmp_path)
    runner = _put(make_runner, outbox)
    runner.enqueue("evil", {"filename": filename})
    runner.run()
    [failed] = runner.get_flowfiles_for_relationship("failure")
    assert why in str(failed.get_attribute(REASON))
    assert failed.is_penalized(runner.clock.now_ms())
    assert _tree(outbox) == []
    after = [p for p in _tree(tmp_path) if not p.startswith("runner-")]
    assert after == [p for p in before if not p.startswith("runner-")]
    assert not Path("/tmp/absolute-escape.txt").exists()
    assert _sends(runner) == []
    # the reason is an attribute change
    assert [e.event_type for e in runner.get_provenance_events()] == [
        ProvenanceEventType.ATTRIBUTES_MODIFIED
    ]


def test_bad_filenames_after_a_good_one_in_the_same_batch_still_fail(
    make_runner: RunnerFactory, outbox: Path
) -> None:
    # The first file makes the Directory known for the batch; the names after it take
    # the short path for plain names, which must refuse exactly what the long one does.
    outbox.mkdir()
    runner = _put(make_runner, outbox)
    runner.enqueue("good", {"filename": "first.txt"})
    bad = ["..", "", ".", " ", "a\x00b", "\\evil", "sub/../../x"]
    for name in bad:
        runner.enqueue("evil", {"filename": name})
    runner.enqueue("good too", {"filename": "last.txt"})
    runner.run()
    assert [
        f.get_attribute("filename") for f in runner.get_flowfiles_for_relationship("success")
    ] == [
        "first.txt",
        "last.txt",
    ]
    failed = runner.get_flowfiles_for_relationship("failure")
    assert [f.get_attribute("filename") for f in failed] == bad
    assert all(f.get_attribute(REASON) for f in failed)
    assert _tree(outbox) == ["first.txt", "last.txt"]
    assert len(_sends(runner)) == 2


def test_symbolic_link_escape_fails(
    make_runner: RunnerFactory, tmp_path: Path, outbox: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("safe")
    outbox.mkdir()
    (outbox / "link").symlink_to(outside, target_is_directory=True)
    (outbox / "victim.txt").symlink_to(outside / "victim.txt")
    runner = _put(make_runner, outbox, **{"Conflict Resolution Strategy": "replace"})
    runner.enqueue("evil", {"filename": "link/new.txt"})
    runner.enqueue("evil", {"filename": "link/deeper/new.txt"})
    runner.enqueue("evil", {"filename": "victim.txt"})
    runner.run()
    failed = runner.get_flowfiles_for_relationship("failure")
    assert len(failed) == 3
    for flowfile in failed:
        assert "outside the Directory" in str(flowfile.get_attribute(REASON))
    assert _tree(outside) == ["victim.txt"]
    assert (outside / "victim.txt").read_text() == "safe"


def test_symbolic_link_inside_the_directory_is_fine(
    make_runner: RunnerFactory, outbox: Path
) -> None:
    (outbox / "real").mkdir(parents=True)
    (outbox / "alias").symlink_to(outbox / "real", target_is_directory=True)
    runner = _put(make_runner, outbox)
    runner.enqueue("ok", {"filename": "alias/ok.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert (outbox / "real" / "ok.txt").read_text() == "ok"


def test_directory_that_is_a_file_fails(make_runner: RunnerFactory, outbox: Path) -> None:
    outbox.parent.mkdir(parents=True, exist_ok=True)
    outbox.write_text("not a directory")
    runner = _put(make_runner, outbox)
    runner.enqueue("x", {"filename": "x"})
    runner.run()
    [failed] = runner.get_flowfiles_for_relationship("failure")
    assert "is not a directory" in str(failed.get_attribute(REASON))
    assert os.path.isfile(outbox)
