"""ByteThrottle on a fake clock: how long reads wait, never a real sleep."""

from __future__ import annotations

import io
import threading

import pytest

from processors.standard._throttle import ByteThrottle
from tests.processors.standard.fake_time import FakeTime


def test_reads_pass_at_the_rate_the_first_chunk_at_once() -> None:
    clock = FakeTime()
    throttle = ByteThrottle(1000, monotonic=clock.monotonic, sleep=clock.sleep)
    body = bytes(range(256)) * 20  # 5,120 bytes in chunks of 100 (a tenth of a second)

    assert throttle.read(io.BytesIO(body), len(body)) == body

    assert len(clock.slept) == 51  # 52 chunks: each after the first waits for the one before
    assert clock.now - 100.0 == pytest.approx(5.1)  # the last starts after 51 chunks' time


def test_requests_share_the_budget_and_idle_time_is_not_saved_up() -> None:
    clock = FakeTime()
    throttle = ByteThrottle(1000, monotonic=clock.monotonic, sleep=clock.sleep)
    throttle.pass_bytes(500)  # one request
    throttle.pass_bytes(500)  # another, right after: waits for the first's half second
    assert clock.slept == [pytest.approx(0.5)]
    clock.now += 10  # idle
    throttle.pass_bytes(500)
    throttle.pass_bytes(1)
    assert clock.slept[1:] == [pytest.approx(0.5)]  # no burst from the idle seconds


def test_a_short_stream_ends_the_read() -> None:
    clock = FakeTime()
    throttle = ByteThrottle(10_000, monotonic=clock.monotonic, sleep=clock.sleep)
    assert throttle.read(io.BytesIO(b"abc"), 10) == b"abc"


def test_threads_sharing_a_throttle_wait_in_turn() -> None:
    clock = FakeTime()
    lock = threading.Lock()

    def sleep(seconds: float) -> None:
        with lock:
            clock.sleep(seconds)

    throttle = ByteThrottle(100, monotonic=clock.monotonic, sleep=sleep)
    workers = [threading.Thread(target=throttle.pass_bytes, args=(100,)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sum(clock.slept) >= 3.0 - 1e-9  # 400 bytes at 100/s: the last starts after 3 s


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive rate"):
        ByteThrottle(0)
