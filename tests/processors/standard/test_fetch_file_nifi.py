"""NiFi's own FetchFile tests (TestFetchFile.java), ported to the TestRunner."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
CONTENT = b"Hello, World!"


@pytest.fixture(autouse=True)
def prep_dest_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """NiFi's working directory, with an empty ``target/move-target``."""
    monkeypatch.chdir(tmp_path)
    Path("target/move-target").mkdir(parents=True)


@contextmanager
def _not_writable(directory: Path) -> Iterator[None]:
    """NiFi's ``setWritable(false)``/``setReadable(false)`` on a directory. Root ignores
    permission bits, so there the directory is made immutable instead."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(directory)], check=True)
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(directory)], check=True)
        return
    mode = directory.stat().st_mode
    directory.chmod(0o500)
    try:
        yield
    finally:
        directory.chmod(mode)


def _source() -> Path:
    source_file = Path("target/1.txt")
    source_file.write_bytes(CONTENT)
    return source_file


def _fetch(make_runner: RunnerFactory, source_file: Path, strategy: str) -> TestRunner:
    return make_runner(
        "FetchFile",
        properties={"File to Fetch": str(source_file.absolute()), "Completion Strategy": strategy},
    )


def test_nifi_not_found(make_runner: RunnerFactory) -> None:
    """NiFi: TestFetchFile.notFound."""
    runner = _fetch(make_runner, Path("notFound"), "None")
    runner.enqueue(b"")
    runner.run()
    runner.assert_all_flowfiles_transferred("not.found", 1)


def test_nifi_simple_success(make_runner: RunnerFactory) -> None:
    """NiFi: TestFetchFile.testSimpleSuccess."""
    source_file = _source()
    runner = _fetch(make_runner, source_file, "None")
    runner.enqueue(b"")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(CONTENT)
    assert source_file.exists()


def test_nifi_delete_on_complete(make_runner: RunnerFactory) -> None:
    """NiFi: TestFetchFile.testDeleteOnComplete."""
    source_file = _source()
    runner = _fetch(make_runner, source_file, "Delete File")
    runner.enqueue(b"")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(CONTENT)
    assert not source_file.exists()


def _move(
    make_runner: RunnerFactory, source_file: Path, target: str = "target/move-target"
) -> TestRunner:
    runner = _fetch(make_runner, source_file, "Move File")
    runner.assert_not_valid()
    runner.set_property("Move Destination Directory", target)
    runner.assert_valid()
    return runner


def test_nifi_move_on_complete_with_target_dir_existing(make_runner: RunnerFactory) -> None:
    """NiFi: TestFetchFile.testMoveOnCompleteWithTargetDirExisting."""
    source_file = _source()
    runner = _move(make_runner, source_file)
    dest_dir = Path("target/move-target")
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest_file = dest_dir / source_file.name
    runner.enqueue(b"")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(CONTENT)
    assert not source_file.exists()
    assert dest_file.exists()


def test_nifi_move_on_complete_with_target_dir_missing(make_runner: RunnerFactory) -> None:
    """NiFi: TestFetchFile.testMoveOnCompleteWithTargetDirMissing."""
    source_file = _source()
    runner = _move(make_runner, source_file)
    dest_dir = Path("target/move-target")
    dest_dir.rmdir()
    assert not dest_dir.exists()
    dest_file = dest_dir / source_file.name
    runner.enqueue(b"")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(CONTENT)
    assert not source_file.exists()
    assert dest_file.exists()


def test_nifi_move_on_complete_with_target_exists_but_not_writable(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestFetchFile.testMoveOnCompleteWithTargetExistsButNotWritable."""
    source_file = _source()
    runner = _move(make_runner, source_file)
    dest_dir = Path("target/move-target")
    dest_file = dest_dir / source_file.name
    with _not_writable(dest_dir):
        assert dest_dir.exists()
        assert not os.access(dest_dir, os.W_OK)
        runner.enqueue(b"")
        runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(b"")
    assert source_file.exists()
    assert not dest_file.exists()


def test_nifi_move_on_complete_with_parent_of_target_dir_not_accessible(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestFetchFile.testMoveOnCompleteWithParentOfTargetDirNotAccessible."""
    source_file = _source()
    move_target_parent = "target/fetch-file"
    move_target = move_target_parent + "/move-target"
    runner = _move(make_runner, source_file, move_target)
    parent = Path(move_target_parent)
    parent.mkdir(parents=True)
    with _not_writable(parent):
        runner.enqueue(b"")
        runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(b"")
    assert source_file.exists()


def _conflicting(make_runner: RunnerFactory, conflict: str) -> tuple[TestRunner, Path, Path]:
    source_file = _source()
    runner = _fetch(make_runner, source_file, "Move File")
    runner.assert_not_valid()
    runner.set_property("Move Destination Directory", "target/move-target")
    runner.set_property("Move Conflict Strategy", conflict)
    runner.assert_valid()
    dest_file = Path("target/move-target") / source_file.name
    dest_file.write_bytes(b"Good-bye")
    return runner, source_file, dest_file


def test_nifi_move_and_replace(make_runner: RunnerFactory) -> None:
    """NiFi: TestFetchFile.testMoveAndReplace."""
    runner, source_file, dest_file = _conflicting(make_runner, "Replace File")
    runner.enqueue(b"")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(CONTENT)
    assert dest_file.read_bytes() == CONTENT
    assert not source_file.exists()
    assert dest_file.exists()


def test_nifi_move_and_keep(make_runner: RunnerFactory) -> None:
    """NiFi: TestFetchFile.testMoveAndKeep."""
    runner, source_file, dest_file = _conflicting(make_runner, "Keep Existing")
    runner.enqueue(b"")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(CONTENT)
    assert dest_file.read_bytes() == b"Good-bye"
    assert not source_file.exists()
    assert dest_file.exists()


def test_nifi_move_and_fail(make_runner: RunnerFactory) -> None:
    """NiFi: TestFetchFile.testMoveAndFail."""
    runner, source_file, dest_file = _conflicting(make_runner, "Fail")
    runner.enqueue(b"")
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    assert dest_file.read_bytes() == b"Good-bye"
    assert source_file.exists()
    assert dest_file.exists()


def test_nifi_move_and_rename(make_runner: RunnerFactory) -> None:
    """NiFi: TestFetchFile.testMoveAndRename."""
    runner, source_file, dest_file = _conflicting(make_runner, "Rename")
    runner.enqueue(b"")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert dest_file.read_bytes() == b"Good-bye"
    assert not source_file.exists()
    assert dest_file.exists()
    assert len(os.listdir("target/move-target")) == 2
