"""NiFi's own DetectDuplicate tests, ported to the TestRunner (the cache: LmdbMapCacheService)."""

from __future__ import annotations

from pathlib import Path

from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner


def _runner(tmp_path: Path, age_off: str) -> TestRunner:
    """NiFi's runner: the cache client as "client", its description and Age Off Duration."""
    runner = TestRunner("DetectDuplicate", settings=EngineSettings(data_dir=tmp_path / "node"))
    runner.add_controller_service(
        "client", "LmdbMapCacheService", {"Persistence Directory": str(tmp_path / "cache")}
    )
    runner.set_property("Distributed Cache Service", "client")
    runner.set_property("FlowFile Description", "The original flow file")
    runner.set_property("Age Off Duration", age_off)
    return runner


def test_nifi_duplicate(tmp_path: Path) -> None:
    """NiFi: TestDetectDuplicate.testDuplicate."""
    runner = _runner(tmp_path, "48 hours")
    props = {"hash.value": "1000"}
    runner.enqueue(b"", props)
    runner.run()
    runner.assert_all_flowfiles_transferred("non-duplicate", 1)
    runner.clear_transfer_state()
    runner.enqueue(b"", props)
    runner.run()
    runner.assert_all_flowfiles_transferred("duplicate", 1)
    runner.assert_transfer_count("non-duplicate", 0)
    runner.assert_transfer_count("failure", 0)


def test_nifi_duplicate_with_age_off(tmp_path: Path) -> None:
    """NiFi: TestDetectDuplicate.testDuplicateWithAgeOff."""
    runner = _runner(tmp_path, "2 secs")
    props = {"hash.value": "1000"}
    runner.enqueue(b"", props)
    runner.run()
    runner.assert_all_flowfiles_transferred("non-duplicate", 1)
    runner.clear_transfer_state()
    runner.advance_time(3)
    runner.enqueue(b"", props)
    runner.run()
    runner.assert_all_flowfiles_transferred("non-duplicate", 1)
    runner.assert_transfer_count("duplicate", 0)
    runner.assert_transfer_count("failure", 0)


def test_nifi_duplicate_no_cache(tmp_path: Path) -> None:
    """NiFi: TestDetectDuplicate.testDuplicateNoCache."""
    runner = _runner(tmp_path, "48 hours")
    runner.set_property("Cache The Entry Identifier", "false")
    props = {"hash.value": "1000"}
    runner.enqueue(b"", props)
    runner.run()
    runner.assert_all_flowfiles_transferred("non-duplicate", 1)
    runner.clear_transfer_state()

    runner.set_property("Cache The Entry Identifier", "true")
    runner.enqueue(b"", props)
    runner.run()
    runner.assert_all_flowfiles_transferred("non-duplicate", 1)
    runner.assert_transfer_count("duplicate", 0)
    runner.assert_transfer_count("failure", 0)
    runner.clear_transfer_state()

    runner.enqueue(b"", props)
    runner.run()
    runner.assert_all_flowfiles_transferred("duplicate", 1)
    runner.assert_transfer_count("non-duplicate", 0)
    runner.assert_transfer_count("failure", 0)


def test_nifi_duplicate_no_cache_with_age_off(tmp_path: Path) -> None:
    """NiFi: TestDetectDuplicate.testDuplicateNoCacheWithAgeOff."""
    runner = _runner(tmp_path, "2 secs")
    props = {"hash.value": "1000"}
    runner.enqueue(b"", props)
    runner.run()
    runner.assert_all_flowfiles_transferred("non-duplicate", 1)
    runner.clear_transfer_state()
    runner.advance_time(3)

    runner.set_property("Cache The Entry Identifier", "false")
    runner.enqueue(b"", props)
    runner.run()
    runner.assert_all_flowfiles_transferred("non-duplicate", 1)
    runner.assert_transfer_count("duplicate", 0)
    runner.assert_transfer_count("failure", 0)
