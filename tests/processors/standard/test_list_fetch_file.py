"""ListFile and FetchFile: ported from NiFi's TestListFile and TestFetchFile."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from flowcore.model import ProvenanceEventType
from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


def _file(path: Path, text: str, mtime_s: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime_s is not None:
        os.utime(path, (mtime_s, mtime_s))
    return path


def _names(runner: TestRunner) -> list[str]:
    return [
        str(m.get_attribute("filename")) for m in runner.get_flowfiles_for_relationship("success")
    ]


def test_list_file_lists_once_with_attributes(make_runner: RunnerFactory, tmp_path: Path) -> None:
    source = tmp_path / "in"
    _file(source / "a.txt", "aaa", 1_000)
    _file(source / "sub" / "b.txt", "bb", 2_000)
    _file(source / ".hidden", "x", 3_000)
    runner = make_runner("ListFile", properties={"Input Directory": str(source)})
    runner.run()
    flowfiles = runner.get_flowfiles_for_relationship("success")
    assert [f.get_attribute("filename") for f in flowfiles] == ["a.txt", "b.txt"]
    first, second = flowfiles
    first.assert_attribute_equals("path", "./")
    first.assert_attribute_equals("absolute.path", str(source) + "/")
    first.assert_attribute_equals("file.size", "3")
    first.assert_attribute_equals("file.lastModifiedTime", "1970-01-01T00:16:40+0000")
    first.assert_attribute_exists("file.owner")
    second.assert_attribute_equals("path", "sub/")
    assert first.size == 0
    runner.clear_transfer_state()
    runner.run()
    runner.assert_transfer_count("success", 0)
    _file(source / "c.txt", "new", 5_000)
    runner.run()
    assert _names(runner) == ["c.txt"]
    assert runner.state["listing.timestamp"] == "5000000"


def test_list_file_same_timestamp_listed_later(make_runner: RunnerFactory, tmp_path: Path) -> None:
    source = tmp_path / "in"
    _file(source / "a.txt", "a", 1_000)
    runner = make_runner("ListFile", properties={"Input Directory": str(source)})
    runner.run()
    _file(source / "b.txt", "b", 1_000)
    runner.run()
    assert _names(runner) == ["a.txt", "b.txt"]
    runner.run()
    assert _names(runner) == ["a.txt", "b.txt"]


def test_list_file_state_survives_restart(tmp_path: Path) -> None:
    source = tmp_path / "in"
    _file(source / "a.txt", "a", 1_000)
    settings = EngineSettings(data_dir=tmp_path / "data")
    runner = TestRunner("ListFile", settings=settings, repositories="durable")
    runner.set_property("Input Directory", str(source))
    runner.run()
    listed = runner.get_flowfiles_for_relationship("success")
    assert len(listed) == 1
    runner.close()
    again = TestRunner("ListFile", settings=settings, repositories="durable")
    assert again.state["listing.timestamp"] == "1000000"
    again.set_property("Input Directory", str(source))
    again.run()
    # Only the FlowFile listed before the restart (recovered in its queue) is there.
    assert [m.uuid for m in again.get_flowfiles_for_relationship("success")] == [listed[0].uuid]
    again.close()


def test_list_file_no_tracking_lists_every_time(make_runner: RunnerFactory, tmp_path: Path) -> None:
    source = tmp_path / "in"
    _file(source / "a.txt", "a", 1_000)
    runner = make_runner(
        "ListFile", properties={"Input Directory": str(source), "Listing Strategy": "No Tracking"}
    )
    runner.run(2)
    runner.assert_transfer_count("success", 2)


def test_list_file_filters(make_runner: RunnerFactory, tmp_path: Path) -> None:
    source = tmp_path / "in"
    _file(source / "keep.csv", "12345", 1_000)
    _file(source / "skip.txt", "12345", 1_000)
    _file(source / "small.csv", "1", 1_000)
    _file(source / "no" / "deep.csv", "12345", 1_000)
    _file(source / "yes" / "deep.csv", "12345", 1_000)
    runner = make_runner(
        "ListFile",
        properties={
            "Input Directory": str(source),
            "File Filter": r".*\.csv",
            "Path Filter": "yes",
            "Minimum File Size": "2 B",
        },
    )
    runner.run()
    paths = sorted(
        str(m.get_attribute("path")) + str(m.get_attribute("filename"))
        for m in runner.get_flowfiles_for_relationship("success")
    )
    # NiFi's Path Filter judges the top directory too (its relative path is empty)
    assert paths == ["yes/deep.csv"]


def test_list_file_minimum_age_on_clock(make_runner: RunnerFactory, tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    runner = make_runner(
        "ListFile", properties={"Input Directory": str(source), "Minimum File Age": "1 min"}
    )
    now_s = runner.clock.now_ms() / 1000
    _file(source / "young.txt", "y", now_s - 10)
    runner.run()
    runner.assert_transfer_count("success", 0)
    runner.advance_time(60)
    runner.run()
    assert _names(runner) == ["young.txt"]


def _fetch(make_runner: RunnerFactory, **properties: str) -> TestRunner:
    return make_runner("FetchFile", properties=properties)


def test_fetch_file_reads_content_and_reports_fetch(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    source = _file(tmp_path / "in" / "a.txt", "hello")
    runner = _fetch(make_runner)
    runner.enqueue("", {"absolute.path": str(source.parent), "filename": "a.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals("hello")
    assert source.exists()
    fetches = [
        e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.FETCH
    ]
    assert fetches and fetches[0].transit_uri == source.as_uri()


def test_fetch_file_not_found(make_runner: RunnerFactory, tmp_path: Path) -> None:
    runner = _fetch(make_runner, **{"File to Fetch": str(tmp_path / "missing")})
    runner.enqueue("keep me")
    runner.run()
    runner.assert_all_flowfiles_transferred("not.found", 1)
    runner.get_flowfiles_for_relationship("not.found")[0].assert_content_equals("keep me")


def test_fetch_file_permission_denied(make_runner: RunnerFactory, tmp_path: Path) -> None:
    source = _file(tmp_path / "secret", "x")
    source.chmod(0)
    runner = _fetch(make_runner, **{"File to Fetch": str(source)})
    runner.enqueue("")
    runner.run()
    if os.access(source, os.R_OK):  # running as root: the file is readable anyway
        runner.assert_all_flowfiles_transferred("success", 1)
    else:
        runner.assert_all_flowfiles_transferred("permission.denied", 1)


def test_fetch_file_delete(make_runner: RunnerFactory, tmp_path: Path) -> None:
    source = _file(tmp_path / "a.txt", "x")
    runner = _fetch(
        make_runner, **{"File to Fetch": str(source), "Completion Strategy": "Delete File"}
    )
    runner.enqueue("")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert not source.exists()


def test_fetch_file_move_and_conflicts(make_runner: RunnerFactory, tmp_path: Path) -> None:
    target = tmp_path / "done"
    _file(target / "a.txt", "old")
    source = _file(tmp_path / "in" / "a.txt", "new")
    fail = _fetch(
        make_runner,
        **{
            "File to Fetch": str(source),
            "Completion Strategy": "Move File",
            "Move Destination Directory": str(target),
            "Move Conflict Strategy": "Fail",
        },
    )
    fail.enqueue("")
    fail.run()
    fail.assert_all_flowfiles_transferred("failure", 1)
    assert source.exists()
    replace = _fetch(
        make_runner,
        **{
            "File to Fetch": str(source),
            "Completion Strategy": "Move File",
            "Move Destination Directory": str(target),
            "Move Conflict Strategy": "Replace File",
        },
    )
    replace.enqueue("")
    replace.run()
    replace.assert_all_flowfiles_transferred("success", 1)
    assert not source.exists()
    assert (target / "a.txt").read_text() == "new"
    _file(source, "third")
    rename = _fetch(
        make_runner,
        **{
            "File to Fetch": str(source),
            "Completion Strategy": "Move File",
            "Move Destination Directory": str(target / "new-dir"),
        },
    )
    rename.enqueue("")
    rename.run()
    assert (target / "new-dir" / "a.txt").read_text() == "third"


def test_list_file_lists_a_name_that_is_not_utf8_once(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    source = tmp_path / "in"
    _file(source / "plain.txt", "p", 1_000)
    for name in (b"caf\xe9.txt", b"caf\xe8.txt"):  # alike once decoded as NiFi does
        latin1 = os.path.join(os.fsencode(source), name)
        with open(latin1, "wb") as file:
            file.write(b"x")
        os.utime(latin1, (1_000, 1_000))
    runner = make_runner("ListFile", properties={"Input Directory": str(source)})

    runner.run()
    assert sorted(_names(runner)) == ["caf\ufffd.txt", "caf\ufffd.txt", "plain.txt"]
    runner.clear_transfer_state()
    runner.run()  # the state tells the two apart: neither is listed again
    runner.assert_transfer_count("success", 0)
