"""NiFi's own Wait tests, ported to the TestRunner (NiFi's MockCacheClient: the
LmdbMapCacheService, signals written through the same protocol as Notify's; its failing
and concurrent calls: services that override the calls; NiFi's sleeps: the manual clock;
re-enqueueing a FlowFile from ``wait``: enqueueing its content and attributes)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from flowcore.settings import EngineSettings
from flowcore.testing import MockFlowFile, TestRunner
from flowcore.testing.runner import INPUT
from processors.standard import _signals
from processors.standard._signals import SignalConflict
from processors.standard.map_cache import LmdbMapCacheService
from tests.processors.record_processors.nifi_ports import migrated

WAIT_START_TIMESTAMP = "wait.start.timestamp"
DEFAULT_COUNT_NAME = "default"


class FailingCache(LmdbMapCacheService):
    """NiFi's MockCacheClient with ``setFailOnCalls(true)``: every call fails."""

    def fetch(self, key: bytes) -> tuple[int, bytes] | None:
        msg = "Could not call to remote service because Unit Test marked service unavailable"
        raise OSError(msg)


class ControllableCache(LmdbMapCacheService):
    """NiFi's ControllableCacheClient: a replace that loses to a concurrent Notify, or a
    signal a concurrent Notify changes just before Wait removes it."""

    fail_next_replace = False
    notify_before_remove = False

    def replace(self, key: bytes, value: bytes, revision: int | None) -> bool:
        if self.fail_next_replace:
            self.fail_next_replace = False
            return False
        return super().replace(key, value, revision)

    def remove_if(self, key: bytes, revision: int) -> bool:
        if self.notify_before_remove:
            self.notify_before_remove = False
            _signals.notify(self, key.decode(), {DEFAULT_COUNT_NAME: 1}, {})
        return super().remove_if(key, revision)


def _setup(
    tmp_path: Path, service: LmdbMapCacheService | None = None
) -> tuple[TestRunner, LmdbMapCacheService]:
    runner = TestRunner("Wait", settings=EngineSettings(data_dir=tmp_path / "node"))
    cache = runner.add_controller_service(
        "service",
        service or LmdbMapCacheService(),
        {"Persistence Directory": str(tmp_path / "cache")},
    )
    assert isinstance(cache, LmdbMapCacheService)
    runner.set_property("Distributed Cache Service", "service")
    return runner, cache


def _notify(
    cache: LmdbMapCacheService, key: str, counter: str, delta: int, attrs: Mapping[str, str]
) -> None:
    """NiFi's ``WaitNotifyProtocol.notify``."""
    _signals.notify(cache, key, {counter: delta}, attrs)


def _requeue(runner: TestRunner, flowfile: MockFlowFile) -> None:
    """nifi-mock's ``enqueue(MockFlowFile)``: the same content and attributes."""
    runner.enqueue(flowfile.content, flowfile.attributes)


def _cached_attributes() -> dict[str, str]:
    return {"both": "notifyValue", "uuid": "notifyUuid", "notify.only": "notifyValue"}


def test_nifi_wait(tmp_path: Path) -> None:
    """NiFi: TestWait.testWait."""
    runner, _ = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.enqueue(b"", {"releaseSignalAttribute": "1"})
    runner.run()
    # no cache key attribute
    runner.assert_all_flowfiles_transferred("wait", 1)
    runner.get_flowfiles_for_relationship("wait")[0].assert_attribute_exists(WAIT_START_TIMESTAMP)


def test_nifi_wait_keep_in_upstream_connection(tmp_path: Path) -> None:
    """NiFi: TestWait.testWaitKeepInUpstreamConnection."""
    runner, _ = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Wait Mode", "Keep in the upstream connection")
    runner.enqueue(b"", {"releaseSignalAttribute": "1"})
    runner.run()
    runner.assert_queue_not_empty()  # the FlowFile stays in the upstream connection


def test_nifi_expired(tmp_path: Path) -> None:
    """NiFi: TestWait.testExpired."""
    runner, _ = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Expiration Duration", "100 ms")
    runner.enqueue(b"", {"releaseSignalAttribute": "1"})
    runner.run()
    runner.assert_all_flowfiles_transferred("wait", 1)
    ff = runner.get_flowfiles_for_relationship("wait")[0]
    ff.assert_attribute_exists(WAIT_START_TIMESTAMP)
    runner.clear_transfer_state()
    _requeue(runner, ff)
    runner.advance_time(0.101)
    runner.run()
    runner.assert_all_flowfiles_transferred("expired", 1)
    ff = runner.get_flowfiles_for_relationship("expired")[0]
    ff.assert_attribute_not_exists(WAIT_START_TIMESTAMP)  # cleared


def test_nifi_counter_expired(tmp_path: Path) -> None:
    """NiFi: TestWait.testCounterExpired."""
    runner, service = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Target Signal Count", "5")
    runner.set_property("Expiration Duration", "100 ms")
    runner.enqueue(b"", {"releaseSignalAttribute": "notification-id"})
    runner.run()
    runner.assert_all_flowfiles_transferred("wait", 1)
    ff = runner.get_flowfiles_for_relationship("wait")[0]
    ff.assert_attribute_exists(WAIT_START_TIMESTAMP)
    runner.clear_transfer_state()
    _requeue(runner, ff)

    signal_attributes = {
        "signal-attr-1": "signal-attr-1-value",
        "signal-attr-2": "signal-attr-2-value",
    }
    _notify(service, "notification-id", "counter-A", 1, signal_attributes)
    _notify(service, "notification-id", "counter-B", 2, signal_attributes)
    runner.advance_time(0.101)
    runner.run()
    runner.assert_all_flowfiles_transferred("expired", 1)
    ff = runner.get_flowfiles_for_relationship("expired")[0]
    ff.assert_attribute_not_exists(WAIT_START_TIMESTAMP)
    # the signal's attributes are set though the wait did not complete
    ff.assert_attribute_equals("wait.counter.total", "3")
    ff.assert_attribute_equals("wait.counter.counter-A", "1")
    ff.assert_attribute_equals("wait.counter.counter-B", "2")
    ff.assert_attribute_equals("signal-attr-1", "signal-attr-1-value")
    ff.assert_attribute_equals("signal-attr-2", "signal-attr-2-value")


def test_nifi_bad_wait_start_timestamp(tmp_path: Path) -> None:
    """NiFi: TestWait.testBadWaitStartTimestamp."""
    runner, _ = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Expiration Duration", "100 ms")
    runner.enqueue(b"", {"releaseSignalAttribute": "1", WAIT_START_TIMESTAMP: "blue bunny"})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    ff = runner.get_flowfiles_for_relationship("failure")[0]
    ff.assert_attribute_not_exists(WAIT_START_TIMESTAMP)


def test_nifi_empty_release_signal(tmp_path: Path) -> None:
    """NiFi: TestWait.testEmptyReleaseSignal."""
    runner, _ = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.enqueue(b"", {})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    ff = runner.get_flowfiles_for_relationship("failure")[0]
    ff.assert_attribute_not_exists(WAIT_START_TIMESTAMP)
    ff.assert_attribute_not_exists("wait.counter.total")


def test_nifi_failing_cache_service(tmp_path: Path) -> None:
    """NiFi: TestWait.testFailingCacheService (the error leaves the trigger; the FlowFile
    stays queued)."""
    runner, _ = _setup(tmp_path, FailingCache())
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.enqueue(b"", {"releaseSignalAttribute": "2"})
    with pytest.raises(OSError, match="marked service unavailable"):
        runner.run()
    assert runner.queue_size == 1


def test_nifi_wait_penalty_duration(tmp_path: Path) -> None:
    """NiFi: TestWait.testWaitPenaltyDuration (``getSignalIdPenalties``: the processor's
    penalized identifiers)."""
    runner, _ = _setup(tmp_path)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Wait Penalty Duration", "1 hour")
    props = {"releaseSignalAttribute": "1"}
    runner.enqueue(b"", props)
    runner.run(1, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("wait", 1)
    runner.get_flowfiles_for_relationship("wait")[0].assert_attribute_exists(WAIT_START_TIMESTAMP)
    runner.clear_transfer_state()

    penalties = runner.processor._penalized  # type: ignore[attr-defined]
    assert list(penalties) == ["1"]

    # a FlowFile with the penalized identifier is not processed
    runner.enqueue(b"", props)
    runner.run(1, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("wait", 0)


def test_nifi_replace_attributes(tmp_path: Path) -> None:
    """NiFi: TestWait.testReplaceAttributes."""
    runner, service = _setup(tmp_path)
    _notify(service, "key", "default", 1, _cached_attributes())
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Attribute Copy Mode", "Replace if present")
    wait_attributes = {
        "releaseSignalAttribute": "key",
        "wait.only": "waitValue",
        "both": "waitValue",
    }
    runner.enqueue(b"content", wait_attributes)
    assert _signals.get_signal(service, "key") is not None
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    output = runner.get_flowfiles_for_relationship("success")[0]
    output.assert_attribute_not_exists(WAIT_START_TIMESTAMP)
    assert output.get_attribute("notify.only") == "notifyValue"  # copied from the cache
    assert output.get_attribute("wait.only") == "waitValue"  # the original kept
    assert output.get_attribute("both") == "notifyValue"  # the cached one replaces it
    assert _signals.get_signal(service, "key") is None  # Wait removed the signal


def test_nifi_keep_original_attributes(tmp_path: Path) -> None:
    """NiFi: TestWait.testKeepOriginalAttributes."""
    runner, service = _setup(tmp_path)
    _notify(service, "key", "default", 1, _cached_attributes())
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Attribute Copy Mode", "Keep original")
    wait_attributes = {
        "releaseSignalAttribute": "key",
        "wait.only": "waitValue",
        "both": "waitValue",
    }
    runner.enqueue(b"content", wait_attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    output = runner.get_flowfiles_for_relationship("success")[0]
    output.assert_attribute_not_exists(WAIT_START_TIMESTAMP)
    assert output.get_attribute("notify.only") == "notifyValue"
    assert output.get_attribute("wait.only") == "waitValue"
    assert output.get_attribute("both") == "waitValue"  # the original kept


def test_nifi_wait_for_total_count(tmp_path: Path) -> None:
    """NiFi: TestWait.testWaitForTotalCount."""
    runner, service = _setup(tmp_path)
    cached = _cached_attributes()
    _notify(service, "key", "counter-A", 1, cached)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Target Signal Count", "${targetSignalCount}")
    runner.enqueue(
        b"content",
        {
            "releaseSignalAttribute": "key",
            "targetSignalCount": "3",
            "wait.only": "waitValue",
            "both": "waitValue",
        },
    )
    # 1st iteration
    runner.run()
    runner.assert_all_flowfiles_transferred("wait", 1)
    waiting = runner.get_flowfiles_for_relationship("wait")[0]
    waiting.assert_attribute_exists(WAIT_START_TIMESTAMP)
    initial = waiting.get_attribute(WAIT_START_TIMESTAMP)

    # 2nd iteration: another counter notified, the total is not 3 yet
    runner.clear_transfer_state()
    _requeue(runner, waiting)
    _notify(service, "key", "counter-B", 1, cached)
    runner.run()
    runner.assert_all_flowfiles_transferred("wait", 1)
    waiting = runner.get_flowfiles_for_relationship("wait")[0]
    waiting.assert_attribute_equals(WAIT_START_TIMESTAMP, initial)

    # 3rd iteration: still waiting
    runner.clear_transfer_state()
    _requeue(runner, waiting)
    runner.run()
    runner.assert_all_flowfiles_transferred("wait", 1)
    waiting = runner.get_flowfiles_for_relationship("wait")[0]
    waiting.assert_attribute_equals(WAIT_START_TIMESTAMP, initial)

    # 4th iteration: a third counter notified
    runner.clear_transfer_state()
    _requeue(runner, waiting)
    _notify(service, "key", "counter-C", 1, cached)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    output = runner.get_flowfiles_for_relationship("success")[0]
    output.assert_attribute_not_exists(WAIT_START_TIMESTAMP)
    assert output.get_attribute("notify.only") == "notifyValue"
    assert output.get_attribute("wait.only") == "waitValue"
    assert output.get_attribute("both") == "waitValue"
    assert _signals.get_signal(service, "key") is None  # the key no longer exists


def test_nifi_wait_for_specific_count(tmp_path: Path) -> None:
    """NiFi: TestWait.testWaitForSpecificCount."""
    runner, service = _setup(tmp_path)
    cached = _cached_attributes()
    _notify(service, "key", "counter-A", 1, cached)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Target Signal Count", "${targetSignalCount}")
    runner.set_property("Signal Counter Name", "${signalCounterName}")
    runner.enqueue(
        b"content",
        {
            "releaseSignalAttribute": "key",
            "targetSignalCount": "2",
            "signalCounterName": "counter-B",
            "wait.only": "waitValue",
            "both": "waitValue",
        },
    )
    # 1st iteration
    runner.run()
    runner.assert_all_flowfiles_transferred("wait", 1)
    waiting = runner.get_flowfiles_for_relationship("wait")[0]
    initial = waiting.get_attribute(WAIT_START_TIMESTAMP)
    assert initial is not None

    # 2nd iteration: counter-B is 1 of 2
    runner.clear_transfer_state()
    _requeue(runner, waiting)
    _notify(service, "key", "counter-B", 1, cached)
    runner.run()
    runner.assert_all_flowfiles_transferred("wait", 1)
    waiting = runner.get_flowfiles_for_relationship("wait")[0]
    waiting.assert_attribute_equals(WAIT_START_TIMESTAMP, initial)

    # 3rd iteration: another counter notified
    runner.clear_transfer_state()
    _requeue(runner, waiting)
    _notify(service, "key", "counter-C", 1, cached)
    runner.run()
    runner.assert_all_flowfiles_transferred("wait", 1)
    waiting = runner.get_flowfiles_for_relationship("wait")[0]
    waiting.assert_attribute_equals(WAIT_START_TIMESTAMP, initial)

    # 4th iteration: counter-B reaches 2
    runner.clear_transfer_state()
    _requeue(runner, waiting)
    _notify(service, "key", "counter-B", 1, cached)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    output = runner.get_flowfiles_for_relationship("success")[0]
    output.assert_attribute_not_exists(WAIT_START_TIMESTAMP)
    assert output.get_attribute("notify.only") == "notifyValue"
    assert output.get_attribute("wait.only") == "waitValue"
    assert output.get_attribute("both") == "waitValue"
    output.assert_attribute_equals("wait.counter.total", "4")
    output.assert_attribute_equals("wait.counter.counter-A", "1")
    output.assert_attribute_equals("wait.counter.counter-B", "2")
    output.assert_attribute_equals("wait.counter.counter-C", "1")


def test_nifi_decrement_cache(tmp_path: Path) -> None:
    """NiFi: TestWait.testDecrementCache."""
    runner, service = _setup(tmp_path)
    cached = _cached_attributes()
    _notify(service, "key", "counter", 1, cached)  # a FlowFile increments the counter
    _notify(service, "key", "counter", 1, cached)  # and another
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Signal Counter Name", "${signalCounterName}")
    runner.set_property("Target Signal Count", "1")
    runner.assert_valid()
    wait_attributes = {
        "releaseSignalAttribute": "key",
        "signalCounterName": "counter",
        "wait.only": "waitValue",
        "both": "waitValue",
        "uuid": "5b7e8c43-8e8d-4a8a-9f4c-0d1a2b3c4d5e",
    }
    runner.enqueue(b"content", wait_attributes)
    # 1st iteration
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    output = runner.get_flowfiles_for_relationship("success")[0]
    output.assert_attribute_not_exists(WAIT_START_TIMESTAMP)
    output.assert_attribute_equals("wait.counter.counter", "2")
    # the counter is decremented to 0 and the releasable count remains 1
    signal = _signals.get_signal(service, "key")
    assert signal is not None
    assert signal.count("counter") == 0
    assert signal.releasable == 1

    # 2nd iteration: a second FlowFile with the same signal
    runner.enqueue(b"content", wait_attributes)
    runner.clear_transfer_state()
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    output = runner.get_flowfiles_for_relationship("success")[0]
    output.assert_attribute_not_exists(WAIT_START_TIMESTAMP)
    output.assert_attribute_equals("wait.counter.counter", "0")  # all consumed
    assert _signals.get_signal(service, "key") is None


def _behind_the_rest(runner: TestRunner, rejected: list[str]) -> None:
    """nifi-mock's queue puts the FlowFiles a session's filter rejected behind the rest
    (NiFi's own queue, as flowcore's, keeps their place): the queued FlowFiles with these
    contents are moved to the back, as the mock holds them."""
    queued = runner.queued_flowfiles()
    runner.node.connections[INPUT].queue.clear_in_memory()
    kept = [ff for ff in queued if ff.content.decode() not in rejected]
    moved = [ff for ff in queued if ff.content.decode() in rejected]
    for flowfile in kept + moved:
        _requeue(runner, flowfile)


class _Iteration:
    """NiFi's TestIteration: one run, its released, waiting and failed FlowFiles checked
    by content, in order."""

    def __init__(self, runner: TestRunner) -> None:
        self.runner = runner
        self.released: list[MockFlowFile] = []
        self.waiting: list[MockFlowFile] = []
        self.failed: list[MockFlowFile] = []
        self.expected_released: list[str] = []
        self.expected_waiting: list[str] = []
        self.expected_failed: list[str] = []

    def run(self) -> None:
        self.released = []
        self.waiting = []
        self.failed = []
        self.runner.run()
        self.released = self.runner.get_flowfiles_for_relationship("success")
        self.waiting = self.runner.get_flowfiles_for_relationship("wait")
        self.failed = self.runner.get_flowfiles_for_relationship("failure")
        for expected, actual in (
            (self.expected_released, self.released),
            (self.expected_waiting, self.waiting),
            (self.expected_failed, self.failed),
        ):
            assert [ff.content.decode() for ff in actual] == expected
        self.runner.clear_transfer_state()
        self.expected_released = []
        self.expected_waiting = []
        self.expected_failed = []


def test_nifi_wait_buffer_count(tmp_path: Path) -> None:
    """NiFi: TestWait.testWaitBufferCount."""
    runner, service = _setup(tmp_path)
    cached = {"notified": "notified-value"}
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Target Signal Count", "${targetSignalCount}")
    runner.set_property("Signal Counter Name", "${signalCounterName}")
    runner.set_property("Wait Buffer Count", "2")
    wait_a = {
        "releaseSignalAttribute": "key-A",
        "targetSignalCount": "1",
        "signalCounterName": "counter",
    }
    wait_b = {
        "releaseSignalAttribute": "key-B",
        "targetSignalCount": "3",
        "signalCounterName": "counter",
    }
    wait_b_invalid = {k: v for k, v in wait_b.items() if k != "releaseSignalAttribute"}
    iteration = _Iteration(runner)
    runner.enqueue(b"1", wait_b)  # picked at the 1st and 2nd runs
    runner.enqueue(b"2", wait_a)
    runner.enqueue(b"3", wait_b_invalid)
    runner.enqueue(b"4", wait_a)
    runner.enqueue(b"5", wait_b)  # picked at the 1st
    runner.enqueue(b"6", wait_b)  # picked at the 2nd

    # 1st run: 1 and 5 (key-B) picked, 2 and 4 (key-A) skipped, 3 invalid
    iteration.expected_waiting.extend(["1", "5"])  # picked, not enough signals
    iteration.expected_failed.append("3")
    iteration.run()

    # 2nd run: 6 and 1 picked (the waiting ones back to the queue, as a wait loop)
    _behind_the_rest(runner, ["2", "4"])  # skipped by the 1st run's filter
    _notify(service, "key-B", "counter", 3, cached)
    iteration.expected_released.append("6")
    iteration.expected_waiting.append("1")  # picked, but only one can be released
    for flowfile in iteration.waiting:
        _requeue(runner, flowfile)
    iteration.run()


def test_nifi_release_multiple_flow_files(tmp_path: Path) -> None:
    """NiFi: TestWait.testReleaseMultipleFlowFiles."""
    runner, service = _setup(tmp_path)
    cached = {"notified": "notified-value"}
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Target Signal Count", "${targetSignalCount}")
    runner.set_property("Signal Counter Name", "${signalCounterName}")
    runner.set_property("Wait Buffer Count", "2")
    runner.set_property("Releasable FlowFile Count", "${fragmentCount}")
    wait_attributes = {
        "releaseSignalAttribute": "key",
        "targetSignalCount": "3",
        "signalCounterName": "counter",
        "fragmentCount": "6",
    }
    iteration = _Iteration(runner)
    for i in range(1, 7):
        runner.enqueue(str(i).encode(), wait_attributes)

    iteration.expected_waiting.extend(["1", "2"])
    iteration.run()
    assert _signals.get_signal(service, "key") is None

    _notify(service, "key", "counter", 3, cached)
    iteration.expected_released.extend(["3", "4"])
    for flowfile in iteration.waiting:
        _requeue(runner, flowfile)
    iteration.run()
    signal = _signals.get_signal(service, "key")
    assert signal is not None
    assert signal.count("count") == 0
    assert signal.releasable == 4

    iteration.expected_released.extend(["5", "6"])
    for flowfile in iteration.waiting:
        _requeue(runner, flowfile)
    iteration.run()
    signal = _signals.get_signal(service, "key")
    assert signal is not None
    assert signal.count("count") == 0
    assert signal.releasable == 2


def test_nifi_open_gate(tmp_path: Path) -> None:
    """NiFi: TestWait.testOpenGate."""
    runner, service = _setup(tmp_path)
    cached = {"notified": "notified-value"}
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Target Signal Count", "${targetSignalCount}")
    runner.set_property("Signal Counter Name", "${signalCounterName}")
    runner.set_property("Wait Buffer Count", "2")
    runner.set_property("Releasable FlowFile Count", "0")  # leave the gate open
    wait_attributes = {
        "releaseSignalAttribute": "key",
        "targetSignalCount": "3",
        "signalCounterName": "counter",
    }
    iteration = _Iteration(runner)
    for i in range(1, 7):
        runner.enqueue(str(i).encode(), wait_attributes)

    iteration.expected_waiting.extend(["1", "2"])
    iteration.run()
    assert _signals.get_signal(service, "key") is None

    _notify(service, "key", "counter", 3, cached)
    iteration.expected_released.extend(["3", "4"])
    for flowfile in iteration.waiting:
        _requeue(runner, flowfile)
    iteration.run()
    signal = _signals.get_signal(service, "key")
    assert signal is not None
    assert signal.count("counter") == 3
    assert signal.releasable == 0

    iteration.expected_released.extend(["5", "6"])
    for flowfile in iteration.waiting:
        _requeue(runner, flowfile)
    iteration.run()
    signal = _signals.get_signal(service, "key")
    assert signal is not None
    assert signal.count("counter") == 3
    assert signal.releasable == 0


def test_nifi_wait_progressed_rolls_back_on_concurrent_replace_failure(tmp_path: Path) -> None:
    """NiFi: TestWait.testWaitProgressedRollsBackOnConcurrentReplaceFailure."""
    runner, service = _setup(tmp_path, ControllableCache())
    assert isinstance(service, ControllableCache)
    # 2 signals, target 1, releasable 1: a pass is left, so Wait replaces the signal
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Target Signal Count", "1")
    _notify(service, "key", DEFAULT_COUNT_NAME, 2, {})
    runner.enqueue(b"", {"releaseSignalAttribute": "key"})
    service.fail_next_replace = True  # a concurrent Notify wins the compare-and-set
    with pytest.raises(SignalConflict):
        runner.run()
    assert runner.queue_size == 1  # rolled back, to be tried again
    runner.assert_transfer_count("success", 0)


def test_nifi_wait_completed_rolls_back_on_concurrent_signal_modification(
    tmp_path: Path,
) -> None:
    """NiFi: TestWait.testWaitCompletedRollsBackOnConcurrentSignalModification (the
    concurrent Notify: one made just before Wait removes the completed signal)."""
    runner, service = _setup(tmp_path, ControllableCache())
    assert isinstance(service, ControllableCache)
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    runner.set_property("Target Signal Count", "1")
    _notify(service, "key", DEFAULT_COUNT_NAME, 1, {})
    runner.enqueue(b"", {"releaseSignalAttribute": "key"})
    service.notify_before_remove = True
    with pytest.raises(SignalConflict):
        runner.run()
    assert runner.queue_size == 1
    runner.assert_transfer_count("success", 0)
    signal = _signals.get_signal(service, "key")
    assert signal is not None  # the concurrent Notify is kept
    assert signal.count(DEFAULT_COUNT_NAME) == 2


def test_nifi_migrate_properties() -> None:
    """NiFi: TestWait.testMigrateProperties (the NiFi flow import's renaming)."""
    expected = {
        "distributed-cache-service": "Distributed Cache Service",
        "release-signal-id": "Release Signal Identifier",
        "target-signal-count": "Target Signal Count",
        "signal-counter-name": "Signal Counter Name",
        "wait-buffer-count": "Wait Buffer Count",
        "releasable-flowfile-count": "Releasable FlowFile Count",
        "expiration-duration": "Expiration Duration",
        "attribute-copy-mode": "Attribute Copy Mode",
        "wait-mode": "Wait Mode",
        "wait-penalty-duration": "Wait Penalty Duration",
    }
    assert {old: migrated("Wait", old) for old in expected} == expected
