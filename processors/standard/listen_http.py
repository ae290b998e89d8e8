"""ListenHTTP: a real HTTP listener that turns each request's body into a FlowFile.

Follows NiFi's ListenHTTP. Choices made here:

* The listener (Python's threading HTTP server) binds to Listening Host, 127.0.0.1 unless
  set otherwise (NiFi binds every interface; here another interface is a deliberate
  choice), on Listening Port (0 picks a free port, see ``port``). It starts when the
  processor is scheduled and stops when it is unscheduled.
* A POST (or PUT) to ``/<Base Path>`` becomes a FlowFile in a session of its own that is
  committed before the answer is sent: the client gets Return Code (200) only once the
  data is durable in the FlowFile repository, a 503 if the processor has not been
  triggered yet (no session factory) or a commit fails, so a client never loses data by
  trusting the answer. Other paths get 404, other methods 405.
* A body sent as ``application/flowfile-v3`` is unpacked into its FlowFiles with their
  attributes (NiFi's FlowFile Stream v3); otherwise attributes are ``filename`` (from a
  ``filename`` header when given), ``mime.type`` (Content-Type),
  ``restlistener.remote.source.host``, ``restlistener.request.uri`` and headers matching
  HTTP Headers to receive as Attributes (Regex). A RECEIVE event with the request URL is
  reported for each FlowFile.
* Max Data to Receive per Second is accepted for NiFi flows but not enforced.
"""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

from flowcore.processor import (
    ProcessContext,
    PropertyDescriptor,
    Relationship,
    Scheduling,
    SessionFactory,
    SessionFactoryProcessor,
    processor,
    validators,
)
from processors.standard.merge_content import FLOWFILE_V3_MIME, unpackage_v3

BASE_PATH = PropertyDescriptor(
    name="Base Path",
    display_name="Base Path",
    description="Base path for incoming connections",
    required=True,
    default="contentListener",
)
PORT = PropertyDescriptor(
    name="Listening Port",
    display_name="Listening Port",
    description="The Port to listen on for incoming connections",
    required=True,
    validators=[validators.non_negative_integer],
)
HOST = PropertyDescriptor(
    name="Listening Host",
    display_name="Listening Host",
    description="The address to bind to; the loopback interface unless set otherwise",
    required=True,
    default="127.0.0.1",
)
HEADERS_AS_ATTRIBUTES = PropertyDescriptor(
    name="HTTP Headers to receive as Attributes (Regex)",
    display_name="HTTP Headers to receive as Attributes (Regex)",
    description="Specifies the Regular Expression that determines the names of HTTP Headers "
    "that should be passed along as FlowFile attributes",
    validators=[validators.regular_expression],
)
MAX_DATA_RATE = PropertyDescriptor(
    name="Max Data to Receive per Second",
    display_name="Max Data to Receive per Second",
    description="The maximum amount of data to receive per second; this allows the bandwidth "
    "to be throttled to a specified data rate; if not specified, the data rate is not "
    "throttled",
    validators=[validators.data_size],
)
RETURN_CODE = PropertyDescriptor(
    name="Return Code",
    display_name="Return Code",
    description="The HTTP return code returned after every HTTP call",
    default="200",
    validators=[validators.positive_integer],
)

REL_SUCCESS = Relationship("success", "Relationship for successfully received FlowFiles")


@processor("ListenHTTP")
class ListenHTTP(SessionFactoryProcessor):
    description: ClassVar[str] = (
        "Starts an HTTP Server and listens on a given base path to transform incoming "
        "requests into FlowFiles."
    )
    tags: ClassVar[tuple[str, ...]] = ("ingest", "http", "https", "rest", "listen")
    property_descriptors: ClassVar[tuple[PropertyDescriptor, ...]] = (
        BASE_PATH,
        PORT,
        HOST,
        HEADERS_AS_ATTRIBUTES,
        MAX_DATA_RATE,
        RETURN_CODE,
    )
    relationships: ClassVar[tuple[Relationship, ...]] = (REL_SUCCESS,)
    scheduling: ClassVar[Scheduling] = Scheduling(input_required=False)

    def __init__(self) -> None:
        super().__init__()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._factory: SessionFactory | None = None
        self._lock = threading.Lock()

    @property
    def port(self) -> int | None:
        """The port the listener is bound to (the free one chosen for Listening Port 0)."""
        return None if self._server is None else int(self._server.server_address[1])

    def on_scheduled(self, context: ProcessContext) -> None:
        self.on_stopped(context)
        base = "/" + context.get_property(BASE_PATH).as_str().strip("/")
        header_text = context.get_property(HEADERS_AS_ATTRIBUTES).value
        header_pattern = re.compile(header_text) if header_text else None
        return_code = context.get_property(RETURN_CODE).as_int() or 200
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                owner.logger.debug(format, *args)

            def _answer(self, code: int, text: str = "") -> None:
                body = text.encode()
                self.send_response(code)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                if self.path.split("?", 1)[0].rstrip("/") != base:
                    self._answer(404, "Not Found")
                    return
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else b""
                try:
                    received = owner._receive(self, data, header_pattern)
                except Exception as exc:
                    owner.logger.error(
                        "Failed to receive a request from %s: %s", self.client_address[0], exc
                    )
                    self._answer(503, "Service Unavailable")
                    return
                if not received:
                    self._answer(503, "Service Unavailable")
                    return
                self._answer(return_code)

            do_PUT = do_POST

            def do_GET(self) -> None:
                self._answer(405, "Method Not Allowed")

        host = context.get_property(HOST).as_str().strip() or "127.0.0.1"
        port = context.get_property(PORT).as_int() or 0
        server = ThreadingHTTPServer((host, port), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, name="ListenHTTP", daemon=True)
        thread.start()
        self._server, self._thread = server, thread

    def on_stopped(self, context: ProcessContext) -> None:
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join()
        with self._lock:
            self._factory = None

    def on_trigger_with_factory(self, context: ProcessContext, factory: SessionFactory) -> None:
        with self._lock:
            self._factory = factory
        context.yield_processor()

    def _receive(
        self, handler: BaseHTTPRequestHandler, data: bytes, header_pattern: re.Pattern[str] | None
    ) -> bool:
        with self._lock:
            factory = self._factory
        if factory is None:
            return False
        address = handler.server.server_address
        host, port = (address[0], address[1]) if isinstance(address, tuple) else (address, 0)
        url = f"http://{host!s}:{port}{handler.path}"
        session = factory.create_session()
        try:
            content_type = handler.headers.get("Content-Type", "")
            if content_type.split(";")[0].strip() == FLOWFILE_V3_MIME:
                items = list(unpackage_v3(data))
            else:
                attributes = {
                    "restlistener.remote.source.host": handler.client_address[0],
                    "restlistener.request.uri": handler.path,
                }
                if content_type:
                    attributes["mime.type"] = content_type
                if handler.headers.get("filename"):
                    attributes["filename"] = str(handler.headers["filename"])
                if header_pattern is not None:
                    for key, value in handler.headers.items():
                        if header_pattern.fullmatch(key):
                            attributes[key] = value
                items = [(attributes, data)]
            for attributes, content in items:
                flowfile = session.create()
                attributes = {k: v for k, v in attributes.items() if k != "uuid"}
                flowfile = session.put_all_attributes(flowfile, attributes)
                if content:
                    flowfile = session.write(flowfile, content)
                session.provenance.receive(flowfile, url)
                session.transfer(flowfile, REL_SUCCESS)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return True
