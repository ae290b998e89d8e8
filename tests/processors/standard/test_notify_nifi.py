"""NiFi's own Notify tests, ported to the TestRunner (NiFi's MockCacheClient: the
LmdbMapCacheService; its failing calls: a service whose calls raise OSError)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner
from processors.standard import _signals
from processors.standard.map_cache import LmdbMapCacheService
from tests.processors.record_processors.nifi_ports import migrated


class FailingCache(LmdbMapCacheService):
    """NiFi's MockCacheClient with ``setFailOnCalls(true)``: every call fails."""

    def fetch(self, key: bytes) -> tuple[int, bytes] | None:
        msg = "Could not call to remote service because Unit Test marked service unavailable"
        raise OSError(msg)

    def replace(self, key: bytes, value: bytes, revision: int | None) -> bool:
        return self.fetch(key) is not None


def _setup(
    tmp_path: Path, service: LmdbMapCacheService | None = None
) -> tuple[TestRunner, LmdbMapCacheService]:
    runner = TestRunner("Notify", settings=EngineSettings(data_dir=tmp_path / "node"))
    cache = runner.add_controller_service(
        "service",
        service or LmdbMapCacheService(),
        {"Persistence Directory": str(tmp_path / "cache")},
    )
    assert isinstance(cache, LmdbMapCacheService)
    runner.set_property("Distributed Cache Service", "service")
    return runner, cache


def _signal(cache: LmdbMapCacheService, identifier: str) -> _signals.Signal:
    signal = _signals.get_signal(cache, identifier)
    assert signal is not None
    return signal


def _three_signals(runner: TestRunner, counts: tuple[str, str, str] | None = None) -> None:
    for index, (key, status) in enumerate(
        (("data1", "success"), ("data2", "success"), ("data3", "failure"))
    ):
        props = {"releaseSignalAttribute": "someDataProcessing", "key": key, "status": status}
        if counts is not None:
            props["record.count"] = counts[index]
        runner.enqueue(b"", props)


def test_nifi_notify(tmp_path: Path) -> None:
    """NiFi: TestNotify.testNotify."""
    runner, service = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Attribute Cache Regex", ".*")
    runner.enqueue(b"", {"releaseSignalAttribute": "1", "key": "value"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals("notified", "true")
    signal = _signal(service, "1")
    assert signal.attributes["key"] == "value"
    assert signal.total >= 1


def test_nifi_notify_counters(tmp_path: Path) -> None:
    """NiFi: TestNotify.testNotifyCounters."""
    runner, service = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Attribute Cache Regex", ".*")
    runner.set_property("Signal Counter Name", "${status}")
    _three_signals(runner)
    runner.run(3)
    runner.assert_all_flowfiles_transferred("success", 3)
    for flowfile in runner.get_flowfiles_for_relationship("success"):
        flowfile.assert_attribute_equals("notified", "true")
    signal = _signal(service, "someDataProcessing")
    assert signal.attributes["key"] == "data3"  # the latest signal's value
    assert signal.total >= 3
    assert signal.count("success") == 2
    assert signal.count("failure") == 1


def test_nifi_notify_counters_batch(tmp_path: Path) -> None:
    """NiFi: TestNotify.testNotifyCountersBatch."""
    runner, service = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Attribute Cache Regex", ".*")
    runner.set_property("Signal Counter Name", "${status}")
    runner.set_property("Signal Buffer Count", "2")
    _three_signals(runner)
    runner.run()
    # limited by the buffer count
    runner.assert_all_flowfiles_transferred("success", 2)
    for flowfile in runner.get_flowfiles_for_relationship("success"):
        flowfile.assert_attribute_equals("notified", "true")
    runner.clear_transfer_state()
    signal = _signal(service, "someDataProcessing")
    assert signal.attributes["key"] == "data2"
    assert signal.total >= 2
    assert signal.count("success") == 2
    assert signal.count("failure") == 0

    runner.run()  # the remaining one
    runner.assert_all_flowfiles_transferred("success", 1)
    for flowfile in runner.get_flowfiles_for_relationship("success"):
        flowfile.assert_attribute_equals("notified", "true")
    signal = _signal(service, "someDataProcessing")
    assert signal.attributes["key"] == "data3"
    assert signal.total >= 3
    assert signal.count("success") == 2
    assert signal.count("failure") == 1


def test_nifi_notify_counters_using_delta(tmp_path: Path) -> None:
    """NiFi: TestNotify.testNotifyCountersUsingDelta."""
    runner, service = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Attribute Cache Regex", ".*")
    runner.set_property("Signal Counter Name", "${status}")
    runner.set_property("Signal Counter Delta", "${record.count}")
    runner.set_property("Signal Buffer Count", "10")
    _three_signals(runner, ("1024", "2048", "512"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 3)
    for flowfile in runner.get_flowfiles_for_relationship("success"):
        flowfile.assert_attribute_equals("notified", "true")
    signal = _signal(service, "someDataProcessing")
    assert signal.attributes["key"] == "data3"
    assert signal.total >= 3584
    assert signal.count("success") == 3072
    assert signal.count("failure") == 512


def test_nifi_illegal_delta(tmp_path: Path) -> None:
    """NiFi: TestNotify.testIllegalDelta."""
    runner, service = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Attribute Cache Regex", ".*")
    runner.set_property("Signal Counter Name", "${status}")
    runner.set_property("Signal Counter Delta", "${record.count}")
    runner.set_property("Signal Buffer Count", "10")
    _three_signals(runner, ("1024", "2048 records", "512"))
    runner.run()
    # only the FlowFile with the bad delta goes to failure
    runner.assert_transfer_count("success", 2)
    for flowfile in runner.get_flowfiles_for_relationship("success"):
        flowfile.assert_attribute_equals("notified", "true")
    runner.assert_transfer_count("failure", 1)
    for flowfile in runner.get_flowfiles_for_relationship("failure"):
        flowfile.assert_attribute_equals("notified", "false")
    signal = _signal(service, "someDataProcessing")
    assert signal.attributes["key"] == "data3"
    assert signal.total >= 1536
    assert signal.count("success") == 1024
    assert signal.count("failure") == 512


def test_nifi_regex(tmp_path: Path) -> None:
    """NiFi: TestNotify.testRegex."""
    runner, service = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Attribute Cache Regex", "key[0-9]*")
    runner.enqueue(b"", {"releaseSignalAttribute": "1", "key1": "value", "other.key1": "value"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    signal = _signal(service, "1")
    assert signal.attributes["key1"] == "value"
    assert "other.key1" not in signal.attributes
    assert signal.total >= 1


def test_nifi_empty_release_signal(tmp_path: Path) -> None:
    """NiFi: TestNotify.testEmptyReleaseSignal."""
    runner, _ = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.enqueue(b"", {})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_nifi_failing_cache_service(tmp_path: Path) -> None:
    """NiFi: TestNotify.testFailingCacheService (the error leaves the trigger; the
    FlowFile stays queued)."""
    runner, _ = _setup(tmp_path, FailingCache())
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.enqueue(b"", {"releaseSignalAttribute": "2"})
    with pytest.raises(OSError, match="marked service unavailable"):
        runner.run()
    assert runner.queue_size == 1
    runner.assert_transfer_count("success", 0)
    runner.assert_transfer_count("failure", 0)


def test_nifi_migrate_properties() -> None:
    """NiFi: TestNotify.testMigrateProperties (the NiFi flow import's renaming)."""
    expected = {
        "distributed-cache-service": "Distributed Cache Service",
        "release-signal-id": "Release Signal Identifier",
        "signal-counter-name": "Signal Counter Name",
        "signal-counter-delta": "Signal Counter Delta",
        "signal-buffer-count": "Signal Buffer Count",
        "attribute-cache-regex": "Attribute Cache Regex",
    }
    assert {old: migrated("Notify", old) for old in expected} == expected
