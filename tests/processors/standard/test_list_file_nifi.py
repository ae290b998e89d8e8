"""NiFi's own ListFile tests (TestListFile.java), ported to the TestRunner.

NiFi's ``runNext`` sleeps twice the listing lag and runs; here the manual clock advances by
as much. File times NiFi takes from the wall clock come from the runner's clock.
NiFi's ``assertVerificationOutcome`` (the processor's configuration verification) has no
counterpart in flowcore, so those checks are left out; every listing is checked.
"""

from __future__ import annotations

import getpass
import logging
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from flowcore.flow.nifi.mapping import ANY, nifi_mapping
from flowcore.processor.registry import processor_class
from flowcore.testing import TestRunner
from tests.processors.standard.unprivileged import run_unprivileged

RunnerFactory = Callable[..., TestRunner]
LISTING_LAG_SECONDS = 0.1  # NiFi's AbstractListProcessor.LISTING_LAG_MILLIS


class Ages:
    """NiFi's ``resetAges``: absolute times a fixed age before a second of the clock."""

    def __init__(self, runner: TestRunner) -> None:
        sync_time = test_modified_time(runner)
        self.time0 = sync_time
        self.time1 = sync_time - 20000
        self.time2 = sync_time - 40000
        self.time3 = sync_time - 60000
        self.time4 = sync_time - 80000
        self.time5 = sync_time - 200000
        self.age0 = "0 millis"
        self.age2 = "40000 millis"
        self.age4 = "80000 millis"
        self.age5 = "200000 millis"


def test_modified_time(runner: TestRunner) -> int:
    """NiFi's ``getTestModifiedTime``: the clock's second before now, in milliseconds."""
    return (runner.clock.now_ms() // 1000 - 1) * 1000


test_modified_time.__test__ = False  # type: ignore[attr-defined]


def _touch(path: Path, millis: int, content: bytes = b"") -> Path:
    path.write_bytes(content)
    _set_last_modified(path, millis)
    return path


def _set_last_modified(path: Path, millis: int) -> None:
    os.utime(path, ns=(millis * 1_000_000, millis * 1_000_000))


@pytest.fixture
def test_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "target/test/data/in"
    directory.mkdir(parents=True)
    return directory


@pytest.fixture
def runner(make_runner: RunnerFactory) -> TestRunner:
    return make_runner("ListFile")


def run_next(runner: TestRunner) -> None:
    """NiFi's ``runNext``: clear the transfers, wait twice the listing lag, run."""
    runner.clear_transfer_state()
    runner.advance_time(LISTING_LAG_SECONDS * 2)
    runner.run()


def _names(runner: TestRunner) -> list[str]:
    return [
        str(f.get_attribute("filename")) for f in runner.get_flowfiles_for_relationship("success")
    ]


def test_nifi_get_path(runner: TestRunner, tmp_path: Path) -> None:
    """NiFi: TestListFile.testGetPath (the directory listed is the evaluated one)."""
    for sub in ("dir/test1", "dir/test2"):
        (tmp_path / sub).mkdir(parents=True)
        _touch(tmp_path / sub / "f.txt", test_modified_time(runner))
    runner.set_property("Input Directory", f"{tmp_path}/dir/test1")
    run_next(runner)
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals(
        "absolute.path", f"{tmp_path}/dir/test1/"
    )
    upper = str(tmp_path).upper()
    runner.set_property("Input Directory", f'${{literal("{upper}/DIR/TEST2"):toLower()}}')
    run_next(runner)
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals(
        "absolute.path", f"{str(tmp_path).lower()}/dir/test2/"
    )


def test_nifi_perform_listing_blank_directory_failed(
    runner: TestRunner, caplog: pytest.LogCaptureFixture
) -> None:
    """NiFi: TestListFile.testPerformListingBlankDirectoryFailed."""
    runner.set_property("Input Directory", "${literal('')}")
    run_next(runner)
    runner.assert_transfer_count("success", 0)
    error_messages = [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.ERROR and r.name.startswith("flowcore.processor.")
    ]
    assert error_messages
    assert "Blank" in error_messages[0]


def test_nifi_perform_listing(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testPerformListing."""
    ages = Ages(runner)
    runner.set_property("Input Directory", str(test_dir.absolute()))
    run_next(runner)
    runner.assert_transfer_count("success", 0)

    # create first file
    _touch(test_dir / "listing1.txt", ages.time4)
    # process first file and set new timestamp
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 1)

    # create second file
    _touch(test_dir / "listing2.txt", ages.time2)
    # process second file after timestamp
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 1)

    # create third file: 0 are new because the timestamp is before the min listed timestamp
    _touch(test_dir / "listing3.txt", ages.time4)
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 0)

    # force state to reset and process all files
    runner.remove_property("Input Directory")
    runner.set_property("Input Directory", str(test_dir.absolute()))
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 3)

    run_next(runner)
    runner.assert_transfer_count("success", 0)


def test_nifi_path_filter_only_picks_up_matching_files(
    runner: TestRunner, test_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NiFi: TestListFile.testPathFilterOnlyPicksUpMatchingFiles."""
    monkeypatch.chdir(test_dir.parent.parent.parent.parent)
    (test_dir / "aaa").mkdir()
    (test_dir / "bbb").mkdir()
    ten_seconds_ago = runner.clock.now_ms() - 10_000
    for file in (test_dir / "aaa/1.txt", test_dir / "bbb/2.txt", test_dir / "3.txt"):
        _touch(file, ten_seconds_ago)
    runner.set_property("Input Directory", "target/test/data/in")
    runner.set_property("Path Filter", ".+")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 2)


def test_nifi_filter_age(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testFilterAge."""
    file0 = test_dir / "age0.txt"
    file2 = test_dir / "age2.txt"
    file4 = test_dir / "age4.txt"
    for file in (file0, file2, file4):
        file.touch()

    def next_run(reset_ages: bool) -> None:
        if reset_ages:
            ages = Ages(runner)
            _set_last_modified(file0, ages.time0)
            _set_last_modified(file2, ages.time2)
            _set_last_modified(file4, ages.time4)
        run_next(runner)

    # check all files
    runner.set_property("Input Directory", str(test_dir.absolute()))
    next_run(True)
    runner.assert_transfer_count("success", 3)
    assert _names(runner) == [file4.name, file2.name, file0.name]

    # processor updates internal state, it shouldn't pick the same ones.
    next_run(False)
    runner.assert_transfer_count("success", 0)

    # exclude oldest
    ages = Ages(runner)
    runner.set_property("Minimum File Age", ages.age0)
    runner.set_property("Maximum File Age", ages.age4)
    next_run(True)
    runner.assert_all_flowfiles_transferred("success", 2)
    assert _names(runner) == [file2.name, file0.name]

    # exclude newest
    runner.set_property("Minimum File Age", ages.age2)
    runner.set_property("Maximum File Age", ages.age5)
    next_run(True)
    runner.assert_all_flowfiles_transferred("success", 2)
    assert _names(runner) == [file4.name, file2.name]

    # exclude oldest and newest
    runner.set_property("Minimum File Age", ages.age2)
    runner.set_property("Maximum File Age", ages.age4)
    next_run(True)
    runner.assert_all_flowfiles_transferred("success", 1)
    assert _names(runner) == [file2.name]


def test_nifi_filter_size(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testFilterSize."""
    now = test_modified_time(runner)
    _touch(test_dir / "size1.txt", now, bytes(10000))
    _touch(test_dir / "size2.txt", now, bytes(5000))
    _touch(test_dir / "size3.txt", now, bytes(1000))

    # check all files
    runner.set_property("Input Directory", str(test_dir.absolute()))
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 3)

    # exclude largest
    runner.remove_property("Minimum File Age")
    runner.remove_property("Maximum File Age")
    runner.set_property("Minimum File Size", "0 b")
    runner.set_property("Maximum File Size", "7500 b")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 2)

    # exclude smallest
    runner.remove_property("Minimum File Age")
    runner.remove_property("Maximum File Age")
    runner.set_property("Minimum File Size", "2500 b")
    runner.remove_property("Maximum File Size")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 2)

    # exclude oldest and newest
    runner.remove_property("Minimum File Age")
    runner.remove_property("Maximum File Age")
    runner.set_property("Minimum File Size", "2500 b")
    runner.set_property("Maximum File Size", "7500 b")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 1)


def test_nifi_filter_hidden(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testFilterHidden."""
    now = test_modified_time(runner)
    _touch(test_dir / "hidden1.txt", now)
    _touch(test_dir / ".hidden2.txt", now)

    # check all files
    runner.set_property("Input Directory", str(test_dir.absolute()))
    runner.set_property("File Filter", ".*")
    runner.remove_property("Minimum File Age")
    runner.remove_property("Maximum File Age")
    runner.remove_property("Minimum File Size")
    runner.remove_property("Maximum File Size")
    runner.set_property("Ignore Hidden Files", "false")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 2)

    # exclude hidden
    runner.set_property("Ignore Hidden Files", "true")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 1)


def test_nifi_list_with_unreadable_files(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testListWithUnreadableFiles."""
    file1 = test_dir / "unreadable.txt"
    file1.touch()
    file1.chmod(0o200)
    file2 = test_dir / "readable.txt"
    file2.touch()
    now = test_modified_time(runner)
    _set_last_modified(file1, now)
    _set_last_modified(file2, now)

    runner.set_property("Input Directory", str(test_dir.absolute()))
    runner.set_property("File Filter", ".*")
    run_unprivileged(lambda: run_next(runner))
    assert _names(runner) == ["readable.txt"]


def test_nifi_list_within_unreadable_directory(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testListWithinUnreadableDirectory."""
    subdir = test_dir / "subdir"
    subdir.mkdir()
    subdir.chmod(0o300)
    try:
        file1 = test_dir / "subdir/unreadable.txt"
        file1.touch()
        file1.chmod(0o200)
        file2 = test_dir / "subdir/readable.txt"
        file2.touch()
        file3 = test_dir / "secondReadable.txt"
        file3.touch()
        now = test_modified_time(runner)
        for file in (file1, file2, file3):
            _set_last_modified(file, now)

        runner.set_property("Input Directory", str(test_dir.absolute()))
        runner.set_property("File Filter", ".*")
        run_unprivileged(lambda: run_next(runner))

        success_files = runner.get_flowfiles_for_relationship("success")
        assert len(success_files) == 1
        success_files[0].assert_attribute_equals("filename", "secondReadable.txt")
    finally:
        subdir.chmod(0o755)


def test_nifi_listing_needs_sufficient_privileges_and_fitting_filter(
    runner: TestRunner, test_dir: Path
) -> None:
    """NiFi: TestListFile.testListingNeedsSufficientPrivilegesAndFittingFilter."""
    file = test_dir / "file.txt"
    file.touch()
    runner.set_property("Input Directory", str(test_dir.absolute()))

    # Run with privileges but without fitting filter
    runner.set_property("File Filter", "willBeFilteredOut")
    _set_last_modified(file, test_modified_time(runner))
    run_next(runner)
    assert len(runner.get_flowfiles_for_relationship("success")) == 0

    # Run with privileges and with fitting filter
    runner.set_property("File Filter", "file.*")
    _set_last_modified(file, test_modified_time(runner))
    run_next(runner)
    assert len(runner.get_flowfiles_for_relationship("success")) == 1

    # Run without privileges and with fitting filter (a second later, so the file is new)
    file.chmod(0o200)
    runner.advance_time(1)
    _set_last_modified(file, test_modified_time(runner))
    run_unprivileged(lambda: run_next(runner))
    assert len(runner.get_flowfiles_for_relationship("success")) == 0


def test_nifi_filter_file_pattern(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testFilterFilePattern."""
    now = test_modified_time(runner)
    for name in (
        "file1-abc-apple.txt",
        "file2-xyz-apple.txt",
        "file3-xyz-banana.txt",
        "file4-pdq-banana.txt",
    ):
        _touch(test_dir / name, now)

    # check all files
    runner.set_property("Input Directory", str(test_dir.absolute()))
    runner.set_property("File Filter", r"[^\.].*")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 4)

    # filter file on pattern: modifying File Filter resets the listing, so these files
    # will be listed again
    runner.set_property("File Filter", ".*-xyz-.*")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 2)

    run_next(runner)
    runner.assert_transfer_count("success", 0)


def _tree(runner: TestRunner, test_dir: Path, *names: str) -> None:
    now = test_modified_time(runner)
    (test_dir / "subdir1/subdir2").mkdir(parents=True)
    for name in names:
        _touch(test_dir / name, now)


def test_nifi_filter_path_pattern(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testFilterPathPattern."""
    _tree(
        runner,
        test_dir,
        "file1.txt",
        "subdir1/file2.txt",
        "subdir1/subdir2/file3.txt",
        "subdir1/file4.txt",
    )
    # check all files
    runner.set_property("Input Directory", str(test_dir.absolute()))
    runner.set_property("File Filter", r"[^\.].*")
    runner.set_property("Recurse Subdirectories", "true")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 4)

    # filter path on pattern subdir1
    runner.set_property("Path Filter", "subdir1.*")
    runner.set_property("Recurse Subdirectories", "true")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 3)

    # filter path on pattern subdir2
    runner.set_property("Path Filter", ".*/subdir2")
    runner.set_property("Recurse Subdirectories", "true")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 1)


def test_nifi_filter_path_pattern_negative(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testFilterPathPatternNegative."""
    now = test_modified_time(runner)
    (test_dir / "AAA").mkdir()
    (test_dir / "LOG").mkdir()
    for name in ("file1.txt", "AAA/file2.txt", "LOG/file3.txt"):
        _touch(test_dir / name, now)

    runner.set_property("Input Directory", str(test_dir.absolute()))
    runner.set_property("File Filter", r"[^\.].*")
    runner.set_property("Path Filter", "^((?!LOG).)*$")
    runner.set_property("Recurse Subdirectories", "true")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 2)


def test_nifi_recurse(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testRecurse."""
    _tree(runner, test_dir, "file1.txt", "subdir1/file2.txt", "subdir1/subdir2/file3.txt")

    # check all files
    runner.set_property("Input Directory", str(test_dir.absolute()))
    runner.set_property("Recurse Subdirectories", "true")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 3)
    expected = {
        "file1.txt": ("./", test_dir),
        "file2.txt": ("subdir1/", test_dir / "subdir1"),
        "file3.txt": ("subdir1/subdir2/", test_dir / "subdir1/subdir2"),
    }
    for mff in runner.get_flowfiles_for_relationship("success"):
        path, parent = expected[str(mff.get_attribute("filename"))]
        assert mff.get_attribute("path") == path
        mff.assert_attribute_equals("absolute.path", str(parent.absolute()) + "/")

    # don't recurse
    runner.set_property("Recurse Subdirectories", "false")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 1)


def test_nifi_readable(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testReadable."""
    now = test_modified_time(runner)
    for name in ("file1.txt", "file2.txt", "file3.txt"):
        _touch(test_dir / name, now)

    # check all files
    runner.set_property("Input Directory", str(test_dir.absolute()))
    runner.set_property("Recurse Subdirectories", "true")
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 3)


def test_nifi_attributes_set(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testAttributesSet."""
    ages = Ages(runner)
    file1 = _touch(test_dir / "file1.txt", ages.time3, bytes(1234))
    time3rounded = ages.time3 - ages.time3 % 1000
    user_name = getpass.getuser()

    # validate the file transferred
    runner.set_property("Input Directory", str(test_dir.absolute()))
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 1)

    absolute_path_string = str(file1.absolute().parent) + "/"
    time3_formatted = (
        datetime.fromtimestamp(time3rounded / 1000).astimezone().strftime("%Y-%m-%dT%H:%M:%S%z")
    )

    # check standard attributes
    mock1 = runner.get_flowfiles_for_relationship("success")[0]
    assert mock1.get_attribute("path") == "./"
    assert mock1.get_attribute("filename") == "file1.txt"
    assert mock1.get_attribute("absolute.path") == absolute_path_string
    assert mock1.get_attribute("file.size") == "1234"

    # attributes of the basic, owner and posix views
    assert mock1.get_attribute("file.lastModifiedTime") == time3_formatted
    assert mock1.get_attribute("file.creationTime") is not None
    assert mock1.get_attribute("file.lastAccessTime") is not None
    assert user_name in str(mock1.get_attribute("file.owner"))
    assert mock1.get_attribute("file.group") is not None, "Group name should be set"
    assert mock1.get_attribute("file.permissions") is not None, "File permissions should be set"


def test_nifi_is_listing_reset_necessary(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testIsListingResetNecessary (each change lists every file again;
    a change to another property does not)."""
    _touch(test_dir / "file.txt", test_modified_time(runner))
    runner.set_property("Input Directory", str(test_dir.absolute()))
    run_next(runner)
    runner.assert_transfer_count("success", 1)
    changes = {
        "Input Directory": str(test_dir.absolute()) + "/",
        "Recurse Subdirectories": "false",
        "File Filter": ".*",
        "Path Filter": ".*",
        "Minimum File Age": "1 millis",
        "Maximum File Age": "1 hr",
        "Minimum File Size": "1 B",
        "Maximum File Size": "1 GB",
        "Ignore Hidden Files": "false",
    }
    for name, value in changes.items():
        if name == "Minimum File Size":
            _touch(test_dir / "file.txt", test_modified_time(runner), b"x")
        runner.set_property(name, value)
        run_next(runner)
        assert len(runner.get_flowfiles_for_relationship("success")) == 1, name
    runner.set_property("Include File Attributes", "false")
    run_next(runner)
    runner.assert_transfer_count("success", 0)


def test_nifi_filter_run_mid_file_writes(runner: TestRunner, test_dir: Path) -> None:
    """NiFi: TestListFile.testFilterRunMidFileWrites."""
    ages = Ages(runner)
    runner.set_property("Input Directory", str(test_dir.absolute()))
    _touch(test_dir / "batch1-age3.txt", ages.time3)
    _touch(test_dir / "batch1-age4.txt", ages.time4)
    _touch(test_dir / "batch1-age5.txt", ages.time5)

    # check files
    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 3)

    # should be picked since it's newer than age3
    _touch(test_dir / "batch2-age2.txt", ages.time2)
    # should be picked even if it has the same age3 timestamp, because it wasn't there at
    # the previous cycle.
    _touch(test_dir / "batch2-age3.txt", ages.time3)
    # should be ignored since it's older than age3
    _touch(test_dir / "batch2-age4.txt", ages.time4)

    run_next(runner)
    runner.assert_all_flowfiles_transferred("success", 2)


def _imported(name: str) -> tuple[str, str]:
    """What importing a NiFi ListFile with property ``name`` makes of it: the flowcore
    property it sets, or the value at which it is dropped."""
    mapping = nifi_mapping("org.apache.nifi.processors.standard.ListFile", "processor")
    assert mapping is not None
    key = mapping.aliases.get(name, name)
    for descriptor in processor_class(mapping.flowcore_type).property_descriptors:
        if key in (descriptor.name, descriptor.label):
            return ("property", descriptor.label)
    if key in mapping.ignored:
        value = mapping.ignored[key]
        return ("dropped", "any value" if value == ANY else value)
    return ("unsupported", name)


def test_nifi_migrate_properties() -> None:
    """NiFi: TestListFile.testMigrateProperties (a NiFi flow with the old or the new names
    imports alike)."""
    expected_renamed = {
        "track-performance": "Track Performance",
        "max-performance-metrics": "Maximum Number of Files to Track",
        "max-operation-time": "Max Disk Operation Time",
        "max-listing-time": "Max Directory Listing Time",
        "et-state-cache": "Entity Tracking State Cache",
        "et-time-window": "Entity Tracking Time Window",
        "et-initial-listing-target": "Entity Tracking Initial Listing Target",
        "et-node-identifier": "Entity Tracking Node Identifier",
        "target-system-timestamp-precision": "Target System Timestamp Precision",
        "listing-strategy": "Listing Strategy",
        "record-writer": "Record Writer",
    }
    for old_name, new_name in expected_renamed.items():
        if old_name == "record-writer":  # records out: flowcore's ListFile has none
            assert _imported(old_name)[0] == _imported(new_name)[0] == "unsupported"
            continue
        assert _imported(old_name) == _imported(new_name) != ("unsupported", old_name)
    assert _imported("listing-strategy") == ("property", "Listing Strategy")
    # removed by NiFi's migration: dropped here
    assert _imported("Distributed Cache Service") == ("dropped", "any value")
