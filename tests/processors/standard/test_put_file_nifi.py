"""NiFi's own PutFile tests (TestPutFile.java), ported to the TestRunner."""

from __future__ import annotations

import getpass
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from flowcore.testing import TestRunner
from tests.processors.standard.nifi_resources import resource

RunnerFactory = Callable[..., TestRunner]


@pytest.fixture
def target_dir(tmp_path: Path) -> Path:
    """NiFi's ``target/put-file``, made empty before each test."""
    directory = tmp_path / "target" / "put-file"
    directory.mkdir(parents=True)
    return directory


def _put(make_runner: RunnerFactory, directory: str, strategy: str) -> TestRunner:
    return make_runner(
        "PutFile",
        properties={"Directory": directory, "Conflict Resolution Strategy": strategy},
    )


def test_nifi_create_directory(make_runner: RunnerFactory, target_dir: Path) -> None:
    """NiFi: TestPutFile.testCreateDirectory."""
    runner = _put(make_runner, str(target_dir.absolute()) + "/new-folder", "replace")
    runner.enqueue(b"Hello world!!", {"filename": "targetFile.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert (target_dir / "new-folder" / "targetFile.txt").read_bytes() == b"Hello world!!"


def test_nifi_create_relative_directory(
    make_runner: RunnerFactory, target_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NiFi: TestPutFile.testCreateRelativeDirectory."""
    monkeypatch.chdir(target_dir.parent.parent)
    new_dir = "target/put-file/new-folder"
    runner = _put(make_runner, new_dir, "replace")
    runner.enqueue(b"Hello world!!", {"filename": "targetFile.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert Path(new_dir + "/targetFile.txt").read_bytes() == b"Hello world!!"


def test_nifi_create_empty_string_directory(make_runner: RunnerFactory) -> None:
    """NiFi: TestPutFile.testCreateEmptyStringDirectory."""
    runner = _put(make_runner, "", "replace")
    runner.assert_not_valid()


def test_nifi_replace_conflict_resolution(make_runner: RunnerFactory, target_dir: Path) -> None:
    """NiFi: TestPutFile.testReplaceConflictResolution."""
    runner = _put(make_runner, str(target_dir.absolute()), "replace")
    runner.enqueue(b"Hello world!!", {"filename": "targetFile.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert (target_dir / "targetFile.txt").read_bytes() == b"Hello world!!"

    # Second file
    runner.enqueue(b"Another file", {"filename": "targetFile.txt"})
    runner.run()
    runner.assert_transfer_count("success", 2)
    assert len(os.listdir(target_dir)) == 1
    assert (target_dir / "targetFile.txt").read_bytes() == b"Another file"


def test_nifi_ignore_conflict_resolution(make_runner: RunnerFactory, target_dir: Path) -> None:
    """NiFi: TestPutFile.testIgnoreConflictResolution."""
    runner = _put(make_runner, str(target_dir.absolute()), "ignore")
    runner.enqueue(b"Hello world!!", {"filename": "targetFile.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert (target_dir / "targetFile.txt").read_bytes() == b"Hello world!!"

    # Second file
    runner.enqueue(b"Another file", {"filename": "targetFile.txt"})
    runner.run()
    runner.assert_transfer_count("success", 2)
    assert len(os.listdir(target_dir)) == 1
    assert (target_dir / "targetFile.txt").read_bytes() == b"Hello world!!"


def test_nifi_fail_conflict_resolution(make_runner: RunnerFactory, target_dir: Path) -> None:
    """NiFi: TestPutFile.testFailConflictResolution."""
    runner = _put(make_runner, str(target_dir.absolute()), "fail")
    runner.enqueue(b"Hello world!!", {"filename": "targetFile.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert (target_dir / "targetFile.txt").read_bytes() == b"Hello world!!"

    # Second file
    runner.enqueue(b"Another file", {"filename": "targetFile.txt"})
    runner.run()
    runner.assert_transfer_count("success", 1)
    runner.assert_transfer_count("failure", 1)
    penalized = [
        f
        for name in ("success", "failure")
        for f in runner.get_flowfiles_for_relationship(name)
        if f.is_penalized(runner.clock.now_ms())
    ]
    assert len(penalized) == 1


def test_nifi_max_file_limit_reach(make_runner: RunnerFactory, target_dir: Path) -> None:
    """NiFi: TestPutFile.testMaxFileLimitReach."""
    runner = _put(make_runner, str(target_dir.absolute()), "replace")
    runner.set_property("Maximum File Count", "1")
    runner.enqueue(b"Hello world!!", {"filename": "targetFile.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert (target_dir / "targetFile.txt").read_bytes() == b"Hello world!!"

    # Second file
    runner.enqueue(b"Hello world!!", {"filename": "secondFile.txt"})
    runner.run()
    runner.assert_transfer_count("failure", 1)
    penalized = [
        f
        for name in ("success", "failure")
        for f in runner.get_flowfiles_for_relationship(name)
        if f.is_penalized(runner.clock.now_ms())
    ]
    assert len(penalized) == 1


def test_nifi_replace_and_max_file_limit_reach(
    make_runner: RunnerFactory, target_dir: Path
) -> None:
    """NiFi: TestPutFile.testReplaceAndMaxFileLimitReach."""
    runner = _put(make_runner, str(target_dir.absolute()), "replace")
    runner.set_property("Maximum File Count", "1")
    runner.enqueue(b"Hello world!!", {"filename": "targetFile.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert (target_dir / "targetFile.txt").read_bytes() == b"Hello world!!"

    # Second file
    runner.enqueue(b"Another file", {"filename": "targetFile.txt"})
    runner.run()
    runner.assert_transfer_count("success", 2)
    assert len(os.listdir(target_dir)) == 1
    assert (target_dir / "targetFile.txt").read_bytes() == b"Another file"


def test_nifi_put_file(make_runner: RunnerFactory, tmp_path: Path) -> None:
    """NiFi: TestPutFile.testPutFile."""
    new_directory = tmp_path / "target/test/data/out/PutFile/1/2/3/4/5"
    runner = make_runner(
        "PutFile",
        properties={
            "Owner": getpass.getuser(),
            "Permissions": "rw-r-----",
            "Create Missing Directories": "true",
            "Directory": str(new_directory),
        },
    )
    runner.enqueue(resource("hello.txt"), {"filename": "testfile.txt"})
    runner.run()
    runner.assert_transfer_count("success", 1)

    new_file = new_directory / "testfile.txt"
    assert new_directory.exists(), "New directory not created."
    assert new_file.exists(), "New File not created."
    file_stat = new_file.stat()
    assert new_file.owner() == getpass.getuser()
    assert stat.S_IMODE(file_stat.st_mode) == 0o640
    assert new_directory.owner() == getpass.getuser()
    assert stat.S_IMODE(new_directory.stat().st_mode) == 0o750
