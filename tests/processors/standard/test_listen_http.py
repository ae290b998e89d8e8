"""ListenHTTP: a real listener on 127.0.0.1, driven by a real httpx client."""

from __future__ import annotations

import functools
from collections.abc import Callable

import httpx
import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner
from processors.standard import listen_http
from processors.standard._throttle import ByteThrottle
from processors.standard.listen_http import ListenHTTP
from processors.standard.merge_content import package_v3_header
from tests.processors.standard.fake_time import FakeTime

RunnerFactory = Callable[..., TestRunner]


def _listen(make_runner: RunnerFactory, **properties: str) -> tuple[TestRunner, str]:
    runner = make_runner("ListenHTTP", properties={"Listening Port": "0", **properties})
    runner.run(1, stop_on_finish=False)
    assert isinstance(runner.processor, ListenHTTP)
    return runner, f"http://127.0.0.1:{runner.processor.port}"


def test_receives_posted_content_before_answering(make_runner: RunnerFactory) -> None:
    runner, base = _listen(make_runner, **{"HTTP Headers to receive as Attributes (Regex)": "X-.*"})
    response = httpx.post(
        base + "/contentListener",
        content=b"hello",
        headers={"Content-Type": "text/plain", "X-Trace": "t1", "Other": "no", "filename": "f.txt"},
    )
    assert response.status_code == 200
    # committed before the answer: visible without running the processor again
    flowfiles = runner.get_flowfiles_for_relationship("success")
    assert len(flowfiles) == 1
    flowfile = flowfiles[0]
    flowfile.assert_content_equals("hello")
    flowfile.assert_attribute_equals("mime.type", "text/plain")
    flowfile.assert_attribute_equals("X-Trace", "t1")
    flowfile.assert_attribute_not_exists("Other")
    flowfile.assert_attribute_equals("filename", "f.txt")
    flowfile.assert_attribute_equals("restlistener.remote.source.host", "127.0.0.1")
    receives = [
        e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.RECEIVE
    ]
    assert receives and receives[0].transit_uri == base + "/contentListener"
    runner.stop()


def test_wrong_path_and_method(make_runner: RunnerFactory) -> None:
    runner, base = _listen(make_runner, **{"Base Path": "data", "Return Code": "204"})
    assert httpx.post(base + "/contentListener", content=b"x").status_code == 404
    assert httpx.get(base + "/data").status_code == 405
    assert httpx.post(base + "/data", content=b"x").status_code == 204
    runner.assert_transfer_count("success", 1)
    runner.stop()


def test_stopped_listener_refuses(make_runner: RunnerFactory) -> None:
    runner, base = _listen(make_runner)
    runner.stop()
    try:
        httpx.post(base + "/contentListener", content=b"x", timeout=2)
    except httpx.ConnectError:
        pass
    else:
        raise AssertionError("the listener still answers after stopping")


def test_flowfile_v3_is_unpacked(make_runner: RunnerFactory) -> None:
    runner, base = _listen(make_runner)
    body = package_v3_header({"filename": "one", "k": "v"}, 3) + b"abc"
    body += package_v3_header({"filename": "two"}, 1) + b"d"
    response = httpx.post(
        base + "/contentListener", content=body, headers={"Content-Type": "application/flowfile-v3"}
    )
    assert response.status_code == 200
    flowfiles = runner.get_flowfiles_for_relationship("success")
    assert [f.content for f in flowfiles] == [b"abc", b"d"]
    flowfiles[0].assert_attribute_equals("k", "v")
    flowfiles[1].assert_attribute_equals("filename", "two")
    runner.stop()


def test_headers_over_the_maximum_size_are_refused(make_runner: RunnerFactory) -> None:
    runner, base = _listen(make_runner, **{"Request Header Maximum Size": "1 KB"})
    response = httpx.post(base + "/contentListener", content=b"x", headers={"Big": "A" * 2048})
    assert response.status_code == 431
    assert httpx.post(base + "/contentListener", content=b"x").status_code == 200
    runner.assert_transfer_count("success", 1)
    runner.stop()


def test_put_is_not_allowed(make_runner: RunnerFactory) -> None:
    """As NiFi's: only POST delivers data."""
    runner, base = _listen(make_runner)
    assert httpx.put(base + "/contentListener", content=b"x").status_code == 405
    runner.assert_transfer_count("success", 0)
    runner.stop()


def test_max_data_to_receive_per_second_throttles_the_body(
    make_runner: RunnerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body of 4,000 bytes at "1 KB" per second is read in chunks of 102 bytes, each
    waiting for the ones before: 3.9 s of waits in all (on a fake clock, not slept)."""
    clock = FakeTime()
    monkeypatch.setattr(
        listen_http,
        "ByteThrottle",
        functools.partial(ByteThrottle, monotonic=clock.monotonic, sleep=clock.sleep),
    )
    runner, base = _listen(make_runner, **{"Max Data to Receive per Second": "1 KB"})
    response = httpx.post(base + "/contentListener", content=b"x" * 4000)
    assert response.status_code == 200
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals("x" * 4000)
    assert len(clock.slept) == 39  # 40 chunks, the first at once
    assert sum(clock.slept) == pytest.approx(39 * 102 / 1024)
    runner.stop()
