"""DetectDuplicate on LmdbMapCacheService: ported from NiFi's TestDetectDuplicate."""

from __future__ import annotations

from pathlib import Path

import lmdb
import pytest

from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner
from processors.standard.map_cache import LmdbMapCacheService, _Environment


def _runner(tmp_path: Path, name: str = "runner", **properties: str) -> TestRunner:
    runner = TestRunner("DetectDuplicate", settings=EngineSettings(data_dir=tmp_path / name))
    runner.add_controller_service(
        "cache", "LmdbMapCacheService", {"Persistence Directory": str(tmp_path / "cache")}
    )
    runner.set_property("Distributed Cache Service", "cache")
    runner.set_property("Cache Entry Identifier", "${hash.value}")
    runner.set_property("FlowFile Description", "${desc}")
    for key, value in properties.items():
        runner.set_property(key.replace("_", " "), value)
    return runner


def test_duplicate(tmp_path: Path) -> None:
    runner = _runner(tmp_path)
    runner.enqueue("a", {"hash.value": "1000", "desc": "first"})
    runner.run()
    runner.assert_all_flowfiles_transferred("non-duplicate", 1)
    runner.clear_transfer_state()
    runner.enqueue("b", {"hash.value": "1000", "desc": "second"})
    runner.run()
    runner.assert_all_flowfiles_transferred("duplicate", 1)
    duplicate = runner.get_flowfiles_for_relationship("duplicate")[0]
    duplicate.assert_attribute_equals("original.flowfile.description", "first")
    runner.close()


def test_age_off_on_the_clock(tmp_path: Path) -> None:
    runner = _runner(tmp_path, Age_Off_Duration="48 hours")
    runner.enqueue("a", {"hash.value": "1000"})
    runner.run()
    runner.advance_time(49 * 3600)
    runner.enqueue("b", {"hash.value": "1000"})
    runner.run()
    runner.assert_all_flowfiles_transferred("non-duplicate", 2)
    runner.enqueue("c", {"hash.value": "1000"})
    runner.run()
    runner.assert_transfer_count("duplicate", 1)
    runner.close()


def test_blank_identifier_goes_to_failure(tmp_path: Path) -> None:
    runner = _runner(tmp_path)
    runner.enqueue("a")
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.close()


def test_without_caching_the_identifier(tmp_path: Path) -> None:
    runner = _runner(tmp_path, **{"Cache The Entry Identifier": "false"})
    for _ in range(2):
        runner.enqueue("a", {"hash.value": "1000"})
    runner.run(2)
    runner.assert_all_flowfiles_transferred("non-duplicate", 2)
    runner.close()


def test_cache_survives_restart_and_is_shared(tmp_path: Path) -> None:
    first = _runner(tmp_path, "one")
    first.enqueue("a", {"hash.value": "k", "desc": "from one"})
    first.run()
    first.close()
    second = _runner(tmp_path, "two")
    second.enqueue("a", {"hash.value": "k"})
    second.run()
    second.assert_all_flowfiles_transferred("duplicate", 1)
    second.get_flowfiles_for_relationship("duplicate")[0].assert_attribute_equals(
        "original.flowfile.description", "from one"
    )
    second.close()


def test_same_flowfile_retried_is_not_its_own_duplicate(tmp_path: Path) -> None:
    """The entry is cached before the commit: a retry of the same FlowFile must not be a
    duplicate of itself."""
    runner = _runner(tmp_path)
    runner.enqueue("a", {"hash.value": "k", "uuid": "11111111-1111-1111-1111-111111111111"})
    runner.run()
    runner.enqueue("a", {"hash.value": "k", "uuid": "11111111-1111-1111-1111-111111111111"})
    runner.run()
    runner.assert_all_flowfiles_transferred("non-duplicate", 2)
    runner.close()


def test_cache_default_directory_under_data_dir(tmp_path: Path) -> None:
    runner = TestRunner("DetectDuplicate", settings=EngineSettings(data_dir=tmp_path / "data"))
    service = runner.add_controller_service("my-cache", "LmdbMapCacheService")
    assert isinstance(service, LmdbMapCacheService)
    service.put(b"k", b"v")
    assert (tmp_path / "data" / "map_cache" / "my-cache" / "data.mdb").exists()
    assert service.get(b"k") == b"v"
    found = service.fetch(b"k")
    assert found is not None
    revision = found[0]
    assert service.replace(b"k", b"w", revision)
    assert not service.replace(b"k", b"x", revision)
    assert service.fetch(b"k") == (revision + 1, b"w")
    assert not service.remove_if(b"k", revision)
    assert service.remove_if(b"k", revision + 1)
    assert service.get(b"k") is None
    runner.close()


def test_an_entry_written_again_after_its_removal_has_a_new_revision(tmp_path: Path) -> None:
    """A task that read an entry cannot compare-and-set the entry written after it was
    removed (a new entry started at revision 0 again: Wait, holding a signal another
    task completed, overwrote the new signal a Notify had just created)."""
    runner = TestRunner("DetectDuplicate", settings=EngineSettings(data_dir=tmp_path / "data"))
    service = runner.add_controller_service("my-cache", "LmdbMapCacheService")
    assert isinstance(service, LmdbMapCacheService)
    assert service.replace(b"signal", b"old", None)
    read = service.fetch(b"signal")
    assert read is not None
    assert service.remove(b"signal")
    assert service.replace(b"signal", b"new", None)

    assert not service.replace(b"signal", b"stale", read[0])
    assert service.get(b"signal") == b"new"
    runner.close()


def test_closing_the_node_closes_the_cache_store(tmp_path: Path) -> None:
    """The node disables its services at close: the LMDB store is closed once the last
    service sharing it is disabled, and opened afresh by the next one."""
    first = _runner(tmp_path, "one")
    second = _runner(tmp_path, "two")
    key = str((tmp_path / "cache").resolve())
    shared = _Environment._open[key]
    first.close()
    assert _Environment._open[key] is shared  # still used by the second node
    shared.env.info()  # still open
    second.close()
    assert key not in _Environment._open
    with pytest.raises(lmdb.Error):
        shared.env.info()
    third = _runner(tmp_path, "three")
    third.enqueue("a", {"hash.value": "k"})
    third.run()
    third.assert_all_flowfiles_transferred("non-duplicate", 1)
    third.close()
