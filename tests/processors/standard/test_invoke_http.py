"""InvokeHTTP against a real HTTP server on 127.0.0.1: ported from NiFi's TestInvokeHTTP."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    received: list[dict[str, object]] = []

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _reply(
        self, code: int, body: bytes, content_type: str = "text/plain", **headers: str
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        type(self).received.append(
            {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
        )
        if self.path == "/ok":
            self._reply(200, b"the response", **{"X-Custom": "yes"})
        elif self.path == "/echo":
            self._reply(
                200,
                json.dumps({"body": body.decode(), "method": self.command}).encode(),
                "application/json",
            )
        elif self.path == "/redirect":
            self._reply(302, b"", Location="/ok")
        elif self.path == "/error":
            self._reply(503, b"try later")
        else:
            self._reply(404, b"not here")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.received = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def _invoke(make_runner: RunnerFactory, url: str, **properties: str) -> TestRunner:
    return make_runner("InvokeHTTP", properties={"HTTP URL": url, **properties})


def test_get_success(make_runner: RunnerFactory, server: str) -> None:
    runner = _invoke(make_runner, server + "/${path}")
    runner.enqueue("", {"path": "ok", "filename": "req"})
    runner.run()
    runner.assert_transfer_count("Original", 1)
    runner.assert_transfer_count("Response", 1)
    original = runner.get_flowfiles_for_relationship("Original")[0]
    original.assert_attribute_equals("invokehttp.status.code", "200")
    original.assert_attribute_equals("invokehttp.status.message", "OK")
    original.assert_attribute_equals("invokehttp.request.url", server + "/ok")
    original.assert_attribute_exists("invokehttp.tx.id")
    response = runner.get_flowfiles_for_relationship("Response")[0]
    response.assert_content_equals("the response")
    response.assert_attribute_equals("X-Custom", "yes")
    response.assert_attribute_equals("mime.type", "text/plain")
    response.assert_attribute_equals("invokehttp.tx.id", original.get_attribute("invokehttp.tx.id"))
    assert _Handler.received[0]["method"] == "GET"
    events = {e.event_type for e in runner.get_provenance_events()}
    assert ProvenanceEventType.FETCH in events


def test_post_sends_content_and_headers(make_runner: RunnerFactory, server: str) -> None:
    runner = _invoke(
        make_runner,
        server + "/echo",
        **{
            "HTTP Method": "POST",
            "Request Header Attributes Pattern": "x-.*",
            "Request Content-Type": "text/csv",
        },
    )
    runner.set_property("X-Dynamic", "${greeting}")
    runner.enqueue("a,b\n1,2\n", {"x-attr": "sent", "other": "not", "greeting": "hi"})
    runner.run()
    runner.assert_transfer_count("Original", 1)
    request = _Handler.received[0]
    headers = {k.lower(): v for k, v in request["headers"].items()}  # type: ignore[union-attr]
    assert request["body"] == b"a,b\n1,2\n"
    assert headers["x-attr"] == "sent"
    assert headers["x-dynamic"] == "hi"
    assert headers["content-type"] == "text/csv"
    assert "other" not in headers
    assert "date" in headers
    sends = [e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.SEND]
    assert sends and sends[0].transit_uri == server + "/echo"


def test_not_found_goes_to_no_retry_with_body(make_runner: RunnerFactory, server: str) -> None:
    runner = _invoke(make_runner, server + "/missing")
    runner.enqueue("")
    runner.run()
    runner.assert_all_flowfiles_transferred("No Retry", 1)
    flowfile = runner.get_flowfiles_for_relationship("No Retry")[0]
    flowfile.assert_attribute_equals("invokehttp.status.code", "404")
    flowfile.assert_attribute_equals("invokehttp.response.body", "not here")


def test_server_error_goes_to_retry_penalized(make_runner: RunnerFactory, server: str) -> None:
    runner = _invoke(make_runner, server + "/error")
    runner.enqueue("")
    runner.run()
    runner.assert_all_flowfiles_transferred("Retry", 1)
    flowfile = runner.get_flowfiles_for_relationship("Retry")[0]
    assert flowfile.is_penalized(runner.clock.now_ms())


def test_response_body_attribute(make_runner: RunnerFactory, server: str) -> None:
    runner = _invoke(
        make_runner,
        server + "/ok",
        **{"Response Body Attribute Name": "body", "Response Body Attribute Size": "3"},
    )
    runner.enqueue("")
    runner.run()
    runner.assert_all_flowfiles_transferred("Original", 1)
    runner.get_flowfiles_for_relationship("Original")[0].assert_attribute_equals("body", "the")


def test_redirects(make_runner: RunnerFactory, server: str) -> None:
    follow = _invoke(make_runner, server + "/redirect")
    follow.enqueue("")
    follow.run()
    follow.assert_transfer_count("Original", 1)
    follow.get_flowfiles_for_relationship("Original")[0].assert_attribute_equals(
        "invokehttp.response.url", server + "/ok"
    )
    stay = _invoke(make_runner, server + "/redirect", **{"Response Redirects Enabled": "False"})
    stay.enqueue("")
    stay.run()
    stay.assert_all_flowfiles_transferred("No Retry", 1)


def test_response_generation_required(make_runner: RunnerFactory, server: str) -> None:
    runner = _invoke(make_runner, server + "/missing", **{"Response Generation Required": "true"})
    runner.enqueue("")
    runner.run()
    runner.assert_transfer_count("No Retry", 1)
    runner.assert_transfer_count("Response", 1)
    runner.get_flowfiles_for_relationship("Response")[0].assert_content_equals("not here")


def test_connection_refused_goes_to_failure(make_runner: RunnerFactory) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    runner = _invoke(make_runner, f"http://127.0.0.1:{port}/none")
    runner.enqueue("keep")
    runner.run()
    runner.assert_all_flowfiles_transferred("Failure", 1)
    flowfile = runner.get_flowfiles_for_relationship("Failure")[0]
    flowfile.assert_attribute_equals("invokehttp.java.exception.class", "ConnectError")
    flowfile.assert_content_equals("keep")


def test_url_that_is_not_http_goes_to_failure(make_runner: RunnerFactory) -> None:
    runner = _invoke(make_runner, "${url}")
    for url in ("not a url", "http://[::1"):
        runner.enqueue("keep", {"url": url})
    runner.run(2)
    runner.assert_all_flowfiles_transferred("Failure", 2)
    for flowfile in runner.get_flowfiles_for_relationship("Failure"):
        flowfile.assert_content_equals("keep")
        flowfile.assert_attribute_exists("invokehttp.java.exception.message")
