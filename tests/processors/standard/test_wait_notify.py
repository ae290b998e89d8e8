"""Wait and Notify through one LmdbMapCacheService: ported from NiFi's TestWait/TestNotify."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

import pytest

from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner
from processors.standard import _signals
from processors.standard._signals import SignalConflict
from processors.standard.map_cache import LmdbMapCacheService


def _runner(tmp_path: Path, kind: str, **properties: str) -> TestRunner:
    runner = TestRunner(kind, settings=EngineSettings(data_dir=tmp_path / kind))
    runner.add_controller_service(
        "cache", "LmdbMapCacheService", {"Persistence Directory": str(tmp_path / "cache")}
    )
    runner.set_property("Distributed Cache Service", "cache")
    runner.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    for key, value in properties.items():
        runner.set_property(key, value)
    return runner


def test_wait_without_signal_then_released(tmp_path: Path) -> None:
    wait = _runner(tmp_path, "Wait")
    notify = _runner(tmp_path, "Notify", **{"Attribute Cache Regex": "notify.*"})
    wait.enqueue("waiting", {"releaseSignalAttribute": "1"})
    wait.run()
    wait.assert_all_flowfiles_transferred("wait", 1)
    waiting = wait.get_flowfiles_for_relationship("wait")[0]
    started = waiting.get_attribute("wait.start.timestamp")
    assert started == str(wait.clock.now_ms())
    notify.enqueue("", {"releaseSignalAttribute": "1", "notify.only": "value", "other": "x"})
    notify.run()
    notify.assert_all_flowfiles_transferred("success", 1)
    notify.get_flowfiles_for_relationship("success")[0].assert_attribute_equals("notified", "true")
    wait.clear_transfer_state()
    wait.enqueue("waiting", dict(waiting.attributes))
    wait.run()
    wait.assert_all_flowfiles_transferred("success", 1)
    released = wait.get_flowfiles_for_relationship("success")[0]
    released.assert_attribute_equals("notify.only", "value")
    released.assert_attribute_not_exists("other")
    released.assert_attribute_equals("wait.counter.default", "1")
    released.assert_attribute_equals("wait.counter.total", "1")
    released.assert_attribute_not_exists("wait.start.timestamp")  # cleared, as NiFi
    # the signal was consumed: the next one waits
    wait.clear_transfer_state()
    wait.enqueue("next", {"releaseSignalAttribute": "1"})
    wait.run()
    wait.assert_all_flowfiles_transferred("wait", 1)


def test_expired(tmp_path: Path) -> None:
    wait = _runner(tmp_path, "Wait", **{"Expiration Duration": "1 min"})
    wait.enqueue("", {"releaseSignalAttribute": "1", "wait.start.timestamp": "0"})
    wait.advance_time(61)
    wait.run()
    wait.assert_all_flowfiles_transferred("expired", 1)


def test_blank_signal_id_fails(tmp_path: Path) -> None:
    wait = _runner(tmp_path, "Wait")
    notify = _runner(tmp_path, "Notify")
    for runner in (wait, notify):
        runner.enqueue("")
        runner.run()
        runner.assert_all_flowfiles_transferred("failure", 1)


def test_target_count_and_counter_name(tmp_path: Path) -> None:
    wait = _runner(
        tmp_path,
        "Wait",
        **{"Target Signal Count": "${fragment.count}", "Signal Counter Name": "ok"},
    )
    notify = _runner(tmp_path, "Notify", **{"Signal Counter Name": "${status}"})
    for status in ("ok", "failed", "ok"):
        notify.enqueue("", {"releaseSignalAttribute": "s", "status": status})
    notify.run(3)
    wait.enqueue("", {"releaseSignalAttribute": "s", "fragment.count": "3"})
    wait.run()
    wait.assert_all_flowfiles_transferred("wait", 1)
    notify.enqueue("", {"releaseSignalAttribute": "s", "status": "ok"})
    notify.run()
    wait.clear_transfer_state()
    wait.enqueue("", {"releaseSignalAttribute": "s", "fragment.count": "3"})
    wait.run()
    wait.assert_all_flowfiles_transferred("success", 1)
    released = wait.get_flowfiles_for_relationship("success")[0]
    released.assert_attribute_equals("wait.counter.ok", "3")
    released.assert_attribute_equals("wait.counter.failed", "1")
    released.assert_attribute_equals("wait.counter.total", "4")


def test_releasable_count_and_buffer(tmp_path: Path) -> None:
    wait = _runner(
        tmp_path,
        "Wait",
        **{"Wait Buffer Count": "5", "Releasable FlowFile Count": "2", "Target Signal Count": "1"},
    )
    notify = _runner(tmp_path, "Notify", **{"Signal Counter Delta": "1"})
    notify.enqueue("", {"releaseSignalAttribute": "g"})
    notify.run()
    for n in range(3):
        wait.enqueue(str(n), {"releaseSignalAttribute": "g"})
    wait.enqueue("other", {"releaseSignalAttribute": "h"})
    wait.run()
    wait.assert_transfer_count("success", 2)
    wait.assert_transfer_count("wait", 1)
    assert wait.queue_size == 1  # the FlowFile of another signal stays in the queue


def test_open_gate_with_releasable_zero_and_reset(tmp_path: Path) -> None:
    wait = _runner(
        tmp_path, "Wait", **{"Releasable FlowFile Count": "0", "Wait Buffer Count": "10"}
    )
    notify = _runner(tmp_path, "Notify", **{"Signal Counter Delta": "${delta}"})
    notify.enqueue("", {"releaseSignalAttribute": "gate", "delta": "1"})
    notify.run()
    for _ in range(3):
        wait.enqueue("", {"releaseSignalAttribute": "gate"})
    wait.run()
    wait.assert_all_flowfiles_transferred("success", 3)
    notify.enqueue("", {"releaseSignalAttribute": "gate", "delta": "0"})
    notify.run()
    wait.clear_transfer_state()
    wait.enqueue("", {"releaseSignalAttribute": "gate"})
    wait.run()
    wait.assert_all_flowfiles_transferred("wait", 1)


def test_notify_bad_delta_fails(tmp_path: Path) -> None:
    notify = _runner(tmp_path, "Notify", **{"Signal Counter Delta": "${delta}"})
    notify.enqueue("", {"releaseSignalAttribute": "x", "delta": "many"})
    notify.run()
    notify.assert_all_flowfiles_transferred("failure", 1)
    notify.get_flowfiles_for_relationship("failure")[0].assert_attribute_equals("notified", "false")


def test_keep_in_upstream_with_wait_penalty(tmp_path: Path) -> None:
    wait = _runner(
        tmp_path,
        "Wait",
        **{"Wait Mode": "Keep in the upstream connection", "Wait Penalty Duration": "1 min"},
    )
    wait.enqueue("", {"releaseSignalAttribute": "p"})
    wait.run()
    wait.assert_transfer_count("wait", 0)
    assert wait.queue_size == 1


def test_concurrent_tasks_penalize_each_signal_without_failing(
    tmp_path: Path, switching_often: None
) -> None:
    """The tasks share the signals under penalty; the interpreter switches threads every
    microsecond so that without a guard one task forgets expired penalties while another
    adds one (it did: "dictionary changed size during iteration")."""
    wait = _runner(tmp_path, "Wait", **{"Wait Penalty Duration": "1 min"})
    for n in range(300):
        wait.enqueue(f"<{n}>", {"releaseSignalAttribute": f"s{n}"})
    wait.set_thread_count(4)
    while wait.queue_size:
        wait.run(40)

    waiting = wait.get_flowfiles_for_relationship("wait")
    assert sorted(f.content.decode() for f in waiting) == sorted(f"<{n}>" for n in range(300))
    assert all(f.is_penalized(wait.clock.now_ms()) for f in waiting)
    assert len(wait.get_flowfiles_for_relationship("success")) == 0


class MeetingRemoves(LmdbMapCacheService):
    """A map cache whose removals wait (boundedly) for a second one, so that two tasks
    completing the same signal both check it before either removes it."""

    def __init__(self) -> None:
        super().__init__()
        self.meeting = threading.Barrier(2, timeout=5)

    def remove_if(self, key: bytes, revision: int) -> bool:
        with contextlib.suppress(threading.BrokenBarrierError):
            self.meeting.wait()
        return super().remove_if(key, revision)


def test_concurrent_tasks_completing_one_signal_release_once(tmp_path: Path) -> None:
    """Two tasks consume the one signal at once: the second to remove it finds it gone
    and rolls back (both removed it before, each releasing a FlowFile for one signal)."""
    notify = _runner(tmp_path, "Notify")
    notify.enqueue("", {"releaseSignalAttribute": "s"})
    notify.run()
    wait = TestRunner("Wait", settings=EngineSettings(data_dir=tmp_path / "waiting"))
    wait.add_controller_service(
        "cache", MeetingRemoves(), {"Persistence Directory": str(tmp_path / "cache")}
    )
    wait.set_property("Distributed Cache Service", "cache")
    wait.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    for n in range(8):  # each task takes four
        wait.enqueue(f"<{n}>", {"releaseSignalAttribute": "s"})
    wait.set_thread_count(2)

    with pytest.raises(SignalConflict, match="signal s was changed concurrently"):
        wait.run(2)

    assert len(wait.get_flowfiles_for_relationship("success")) == 1
    queued = wait.queued_flowfiles()
    assert len(queued) == 7
    assert not any(f.is_penalized(wait.clock.now_ms()) for f in queued)
    wait.close()


class NotifiedBeforeRemoval(LmdbMapCacheService):
    """A map cache where a Notify lands just before the next removal of a signal."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = True

    def _notify_first(self, key: bytes) -> None:
        if self.armed:
            self.armed = False
            _signals.notify(self, key.decode(), {"": 1}, {})

    def remove(self, key: bytes) -> bool:
        self._notify_first(key)
        return super().remove(key)

    def remove_if(self, key: bytes, revision: int) -> bool:
        self._notify_first(key)
        return super().remove_if(key, revision)


def test_a_notify_just_before_wait_removes_the_signal_is_kept(tmp_path: Path) -> None:
    """Wait consumes the signal's one count and removes it while a Notify adds one more:
    that count is not lost, so both FlowFiles waiting for the two signals are released.
    Before, Wait checked the signal's revision and then removed it: the Notify between
    the two was removed with it and the second FlowFile waited forever."""
    notify = _runner(tmp_path, "Notify")
    notify.enqueue("", {"releaseSignalAttribute": "s"})
    notify.run()
    wait = TestRunner("Wait", settings=EngineSettings(data_dir=tmp_path / "waiting"))
    wait.add_controller_service(
        "cache", NotifiedBeforeRemoval(), {"Persistence Directory": str(tmp_path / "cache")}
    )
    wait.set_property("Distributed Cache Service", "cache")
    wait.set_property("Release Signal Identifier", "${releaseSignalAttribute}")
    wait.enqueue("<a>", {"releaseSignalAttribute": "s"})
    with contextlib.suppress(SignalConflict):  # the Notify changed the signal: tried again
        wait.run()
    wait.enqueue("<b>", {"releaseSignalAttribute": "s"})

    wait.run(2)

    released = wait.get_flowfiles_for_relationship("success")
    assert sorted(f.content.decode() for f in released) == ["<a>", "<b>"]
    wait.close()
    notify.close()
