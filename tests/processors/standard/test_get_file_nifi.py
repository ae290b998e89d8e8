"""NiFi's own GetFile tests (TestGetFile.java), ported to the TestRunner."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from flowcore.testing import TestRunner
from tests.processors.standard.nifi_resources import resource

RunnerFactory = Callable[..., TestRunner]


def _copy_hello(directory: Path, runner: TestRunner, mtime_ms: int | None = None) -> Path:
    """NiFi's ``Files.copy`` of hello.txt into ``directory``: written now (on the clock)."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "hello.txt"
    target.write_bytes(resource("hello.txt"))
    stamp = runner.clock.now_ms() if mtime_ms is None else mtime_ms
    os.utime(target, ns=(stamp * 1_000_000, stamp * 1_000_000))
    return target


def _today(runner: TestRunner, pattern: str) -> str:
    """NiFi's ``DateTimeFormatter.ofPattern(...).format(OffsetDateTime.now())``."""
    return (
        datetime.fromtimestamp(runner.clock.now_ms() / 1000, tz=UTC).astimezone().strftime(pattern)
    )


def test_nifi_file_picked_up(make_runner: RunnerFactory, tmp_path: Path) -> None:
    """NiFi: TestGetFile.testFilePickedUp."""
    directory = tmp_path / "target/test/data/in"
    runner = make_runner("GetFile", properties={"Input Directory": str(directory.absolute())})
    target = _copy_hello(directory, runner)
    abs_target_path_str = str(target.absolute().parent) + "/"
    runner.run()

    runner.assert_all_flowfiles_transferred("success", 1)
    success_files = runner.get_flowfiles_for_relationship("success")
    success_files[0].assert_content_equals(b"Hello, World!")
    assert success_files[0].get_attribute("path") == "/"
    assert success_files[0].get_attribute("absolute.path") == abs_target_path_str


def test_nifi_todays_files_picked_up(
    make_runner: RunnerFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NiFi: TestGetFile.testTodaysFilesPickedUp."""
    monkeypatch.chdir(tmp_path)
    runner = make_runner("GetFile")
    directory = Path("target/test/data/in/" + _today(runner, "%Y/%m/%d"))
    _copy_hello(directory, runner)
    runner.set_property("Input Directory", "target/test/data/in/${now():format('yyyy/MM/dd')}")
    runner.run()

    runner.assert_all_flowfiles_transferred("success", 1)
    success_files = runner.get_flowfiles_for_relationship("success")
    success_files[0].assert_content_equals(b"Hello, World!")


def test_nifi_path(
    make_runner: RunnerFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NiFi: TestGetFile.testPath."""
    monkeypatch.chdir(tmp_path)
    runner = make_runner("GetFile")
    dir_struc = _today(runner, "%Y/%m/%d/")
    directory = Path("target/test/data/in/" + dir_struc)
    target = _copy_hello(directory, runner)
    abs_target_path_str = str(target.absolute().parent) + "/"
    runner.set_property("Input Directory", "target/test/data/in")
    runner.run()

    runner.assert_all_flowfiles_transferred("success", 1)
    success_files = runner.get_flowfiles_for_relationship("success")
    success_files[0].assert_content_equals(b"Hello, World!")
    assert str(success_files[0].get_attribute("path")).replace("\\", "/") == dir_struc
    assert success_files[0].get_attribute("absolute.path") == abs_target_path_str


def test_nifi_attributes(
    make_runner: RunnerFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NiFi: TestGetFile.testAttributes."""
    monkeypatch.chdir(tmp_path)
    runner = make_runner("GetFile")
    _copy_hello(Path("target/test/data/in/"), runner, mtime_ms=1000000000)
    runner.set_property("Input Directory", "target/test/data/in")
    runner.run()

    runner.assert_all_flowfiles_transferred("success", 1)
    # permissions are not verified as these are very environmentally specific
