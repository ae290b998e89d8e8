"""GetFile: validation, filters, attributes, RECEIVE, delete after commit, file age."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from flowcore.errors import CommitFailedError
from flowcore.model import ProvenanceEventType
from flowcore.session import ProcessSession
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    directory = tmp_path / "inbox"
    directory.mkdir()
    return directory


def _write(path: Path, content: str | bytes, mtime_ms: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    if mtime_ms is not None:
        os.utime(path, ns=(mtime_ms * 1_000_000, mtime_ms * 1_000_000))
    return path


def _old(runner: TestRunner) -> int:
    """A last-modified time a day before the runner's clock."""
    return runner.clock.now_ms() - 86_400_000


def _names(runner: TestRunner) -> list[str]:
    return sorted(
        str(m.get_attribute("filename")) for m in runner.get_flowfiles_for_relationship("success")
    )


# -- validation ---------------------------------------------------------------------------


def test_input_directory_is_required_and_must_exist(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    runner = make_runner("GetFile")
    runner.assert_not_valid()
    assert runner.validation_errors() == [
        "'Input Directory' is invalid because Input Directory is required"
    ]
    runner.set_property("Input Directory", str(tmp_path / "missing"))
    assert runner.validation_errors() == [
        f"'Input Directory' validated against '{tmp_path / 'missing'}' is invalid because "
        "Directory does not exist"
    ]
    _write(tmp_path / "file", "x")
    runner.set_property("Input Directory", str(tmp_path / "file"))
    assert runner.validation_errors()[0].endswith("Path does not point to a directory")


def test_invalid_values(make_runner: RunnerFactory, inbox: Path) -> None:
    runner = make_runner(
        "GetFile",
        properties={
            "Input Directory": str(inbox),
            "File Filter": "[",
            "Batch Size": "-3",
            "Minimum File Age": "soon",
            "Maximum File Size": "huge",
            "Keep Source File": "no",
        },
    )
    errors = runner.validation_errors()
    assert any(
        e.startswith(
            "'File Filter' validated against '[' is invalid because Specified "
            "expression is not valid"
        )
        for e in errors
    )
    assert "'Batch Size' validated against '-3' is invalid because not a positive value" in errors
    assert any(
        e.startswith(
            "'Minimum File Age' validated against 'soon' is invalid because "
            "Must be of format <duration> <TimeUnit>"
        )
        for e in errors
    )
    assert any(
        e.startswith("'Maximum File Size' validated against 'huge' is invalid") for e in errors
    )
    assert (
        "'Keep Source File' validated against 'no' is invalid because Given value not "
        "found in allowed set 'true, false'" in errors
    )


# -- picking up files ---------------------------------------------------------------------


def test_picks_up_files_with_attributes_and_receive(
    make_runner: RunnerFactory, inbox: Path
) -> None:
    runner = make_runner("GetFile", properties={"Input Directory": str(inbox)})
    source = _write(inbox / "hello.txt", "hello world", mtime_ms=1_600_000_000_000)
    runner.run()

    runner.assert_all_flowfiles_transferred("success", 1)
    [flowfile] = runner.get_flowfiles_for_relationship("success")
    flowfile.assert_content_equals("hello world")
    flowfile.assert_attribute_equals("filename", "hello.txt")
    flowfile.assert_attribute_equals("path", "/")
    flowfile.assert_attribute_equals("absolute.path", f"{inbox}/")
    flowfile.assert_attribute_equals("file.size", "11")
    flowfile.assert_attribute_equals("file.lastModifiedTime", "2020-09-13T12:26:40+0000")
    flowfile.assert_attribute_exists("file.owner")
    flowfile.assert_attribute_exists("file.group")
    flowfile.assert_attribute_exists("file.creationTime")
    flowfile.assert_attribute_exists("file.lastAccessTime")
    assert not source.exists()  # deleted after the commit

    events = runner.get_provenance_events()
    assert [(e.event_type, e.flowfile_uuid) for e in events] == [
        (ProvenanceEventType.RECEIVE, flowfile.uuid)
    ]
    assert events[0].transit_uri == (inbox / "hello.txt").as_uri()
    assert events[0].transit_uri.startswith("file:///")


def test_permissions_attribute(make_runner: RunnerFactory, inbox: Path) -> None:
    source = _write(inbox / "a.txt", "a", mtime_ms=0)
    source.chmod(0o640)
    runner = make_runner("GetFile", properties={"Input Directory": str(inbox)})
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals(
        "file.permissions", "rw-r-----"
    )


def test_keep_source_file(make_runner: RunnerFactory, inbox: Path) -> None:
    source = _write(inbox / "keep.txt", "data", mtime_ms=0)
    runner = make_runner(
        "GetFile", properties={"Input Directory": str(inbox), "Keep Source File": "true"}
    )
    runner.run()
    runner.assert_transfer_count("success", 1)
    assert source.read_text() == "data"


def test_source_is_kept_when_the_commit_fails(
    make_runner: RunnerFactory, inbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _write(inbox / "precious.txt", "data", mtime_ms=0)
    runner = make_runner("GetFile", properties={"Input Directory": str(inbox)})
    real_commit = ProcessSession.commit

    def failing_commit(session: ProcessSession) -> None:
        session.rollback()
        raise CommitFailedError("disk full")

    monkeypatch.setattr(ProcessSession, "commit", failing_commit)
    with pytest.raises(CommitFailedError):
        runner.run()
    assert source.read_text() == "data"
    runner.assert_transfer_count("success", 0)

    monkeypatch.setattr(ProcessSession, "commit", real_commit)
    runner.run()
    runner.assert_transfer_count("success", 1)
    assert not source.exists()


def test_hidden_files_and_file_filter(make_runner: RunnerFactory, inbox: Path) -> None:
    for name in (".hidden", "a.csv", "b.csv", "c.txt"):
        _write(inbox / name, name, mtime_ms=0)
    runner = make_runner(
        "GetFile", properties={"Input Directory": str(inbox), "Keep Source File": "true"}
    )
    runner.run()
    assert _names(runner) == ["a.csv", "b.csv", "c.txt"]

    csv = make_runner(
        "GetFile",
        properties={
            "Input Directory": str(inbox),
            "Keep Source File": "true",
            "File Filter": r".*\.csv",
        },
    )
    csv.run()
    assert _names(csv) == ["a.csv", "b.csv"]

    hidden = make_runner(
        "GetFile",
        properties={
            "Input Directory": str(inbox),
            "Keep Source File": "true",
            "File Filter": ".*",
            "Ignore Hidden Files": "false",
        },
    )
    hidden.run()
    assert _names(hidden) == [".hidden", "a.csv", "b.csv", "c.txt"]


def test_recursion_and_path_attribute(make_runner: RunnerFactory, inbox: Path) -> None:
    _write(inbox / "top.txt", "t", mtime_ms=0)
    _write(inbox / "sub" / "deeper" / "low.txt", "l", mtime_ms=0)
    _write(inbox / "other" / "x.txt", "x", mtime_ms=0)
    runner = make_runner(
        "GetFile", properties={"Input Directory": str(inbox), "Keep Source File": "true"}
    )
    runner.run()
    paths = {
        m.get_attribute("filename"): (m.get_attribute("path"), m.get_attribute("absolute.path"))
        for m in runner.get_flowfiles_for_relationship("success")
    }
    assert paths == {
        "top.txt": ("/", f"{inbox}/"),
        "low.txt": ("sub/deeper/", f"{inbox}/sub/deeper/"),
        "x.txt": ("other/", f"{inbox}/other/"),
    }

    flat = make_runner(
        "GetFile",
        properties={
            "Input Directory": str(inbox),
            "Keep Source File": "true",
            "Recurse Subdirectories": "false",
        },
    )
    flat.run()
    assert _names(flat) == ["top.txt"]

    filtered = make_runner(
        "GetFile",
        properties={
            "Input Directory": str(inbox),
            "Keep Source File": "true",
            "Path Filter": "sub.*",
        },
    )
    filtered.run()
    assert _names(filtered) == ["low.txt", "top.txt"]


def test_batch_size(make_runner: RunnerFactory, inbox: Path) -> None:
    for index in range(5):
        _write(inbox / f"f{index}", str(index), mtime_ms=index)
    runner = make_runner("GetFile", properties={"Input Directory": str(inbox), "Batch Size": "2"})
    runner.run()
    assert _names(runner) == ["f0", "f1"]  # oldest first
    runner.run(2)
    assert _names(runner) == ["f0", "f1", "f2", "f3", "f4"]
    assert list(inbox.iterdir()) == []


def test_minimum_file_age_uses_the_clock(make_runner: RunnerFactory, inbox: Path) -> None:
    runner = make_runner(
        "GetFile", properties={"Input Directory": str(inbox), "Minimum File Age": "10 sec"}
    )
    _write(inbox / "fresh.txt", "new", mtime_ms=runner.clock.now_ms())
    runner.run()
    runner.assert_transfer_count("success", 0)
    runner.advance_time(5)
    runner.run()
    runner.assert_transfer_count("success", 0)
    runner.advance_time(6)
    runner.run()
    runner.assert_transfer_count("success", 1)


def test_maximum_file_age(make_runner: RunnerFactory, inbox: Path) -> None:
    runner = make_runner(
        "GetFile", properties={"Input Directory": str(inbox), "Maximum File Age": "1 hour"}
    )
    _write(inbox / "ancient.txt", "old", mtime_ms=_old(runner))
    _write(inbox / "recent.txt", "new", mtime_ms=runner.clock.now_ms() - 60_000)
    runner.run()
    assert _names(runner) == ["recent.txt"]
    assert (inbox / "ancient.txt").exists()


def test_file_size_limits(make_runner: RunnerFactory, inbox: Path) -> None:
    _write(inbox / "small", "x", mtime_ms=0)
    _write(inbox / "medium", "x" * 100, mtime_ms=0)
    _write(inbox / "large", "x" * 2000, mtime_ms=0)
    runner = make_runner(
        "GetFile",
        properties={
            "Input Directory": str(inbox),
            "Minimum File Size": "10 B",
            "Maximum File Size": "1 KB",
        },
    )
    runner.run()
    assert _names(runner) == ["medium"]


def test_polling_interval(make_runner: RunnerFactory, inbox: Path) -> None:
    runner = make_runner(
        "GetFile", properties={"Input Directory": str(inbox), "Polling Interval": "1 min"}
    )
    runner.run(stop_on_finish=False)
    _write(inbox / "later.txt", "x", mtime_ms=0)
    runner.run(stop_on_finish=False, initialize=False)
    runner.assert_transfer_count("success", 0)  # listed too recently
    runner.advance_time(60)
    runner.run(initialize=False)
    runner.assert_transfer_count("success", 1)


def test_input_directory_from_the_environment(
    make_runner: RunnerFactory, inbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GETFILE_TEST_INBOX", str(inbox))
    _write(inbox / "env.txt", "x", mtime_ms=0)
    runner = make_runner("GetFile", properties={"Input Directory": "${GETFILE_TEST_INBOX}"})
    runner.assert_valid()
    runner.run()
    assert _names(runner) == ["env.txt"]


def test_a_file_name_that_is_not_utf8_is_picked_up_with_nifi_replacement_characters(
    make_runner: RunnerFactory, inbox: Path
) -> None:
    runner = make_runner("GetFile", properties={"Input Directory": str(inbox)})
    latin1 = os.path.join(os.fsencode(inbox), b"caf\xe9.txt")
    with open(latin1, "wb") as file:
        file.write(b"latin-1 name")
    _write(inbox / "plain.txt", "plain", mtime_ms=_old(runner))
    os.utime(latin1, ns=(_old(runner) * 1_000_000,) * 2)

    runner.run()

    assert _names(runner) == ["caf\ufffd.txt", "plain.txt"]
    by_name = {
        f.get_attribute("filename"): f for f in runner.get_flowfiles_for_relationship("success")
    }
    by_name["caf\ufffd.txt"].assert_content_equals("latin-1 name")
    by_name["caf\ufffd.txt"].assert_attribute_equals("absolute.path", f"{inbox}/")
    assert os.listdir(inbox) == []  # both read and deleted by their real names
