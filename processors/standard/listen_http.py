"""ListenHTTP: a real HTTP listener that turns each request's body into a FlowFile.

Follows NiFi's ListenHTTP. Choices made here:

* The listener (Python's threading HTTP server) binds to Listening Host, 127.0.0.1 unless
  set otherwise (NiFi binds every interface; here another interface is a deliberate
  choice), on Listening Port (0 picks a free port, see ``port``). It starts when the
  processor is scheduled and stops when it is unscheduled.
* A POST to ``/<Base Path>`` becomes a FlowFile in a session of its own that is
  committed before the answer is sent: the client gets Return Code (200) only once the
  data is durable in the FlowFile repository, a 503 if the processor has not been
  triggered yet (no session factory) or a commit fails, so a client never loses data by
  trusting the answer. Other paths get 404; HEAD gets 200 with what the listener accepts
  (as NiFi's); GET, PUT, DELETE, OPTIONS and TRACE get 405, as in NiFi. Listening Port
  and Base Path take environment Expression Language.
* A body with ``Content-Encoding: gzip`` (or NiFi's ``flowfile-gzipped: true``) is
  unzipped. A body sent as ``application/flowfile-v3`` is unpacked into its FlowFiles
  with their attributes (NiFi's FlowFile Stream v3); a ``multipart/form-data`` body
  becomes a FlowFile per part with NiFi's ``http.multipart.*`` attributes (read in
  memory, refused with 413 over Multipart Request Max Size); otherwise a FlowFile with
  ``mime.type`` (Content-Type), whose records are rewritten with the Record Writer when
  a Record Reader is set (a body it cannot read gets 400). Each gets ``filename``
  (from a ``filename`` header when it has none), ``restlistener.remote.source.host``,
  ``restlistener.request.uri`` and the headers matching HTTP Headers for Attributes. A
  RECEIVE event with the request URL is reported for each FlowFile, its source system
  FlowFile identifier ``urn:nifi:<uuid>`` from a ``uuid`` header (or the packaged FlowFile's uuid).
* Headers larger than Request Header Maximum Size get 431. Requests are served by a
  pool of at most Maximum Thread Pool Size threads.
* Max Data to Receive per Second throttles the request bodies of all requests together
  (NiFi's leaky bucket, ``ByteThrottle``): a body is read in chunks, each waiting until
  the data before it has had its time at the rate. It paces the network in real time.
"""

from __future__ import annotations

import gzip
import io
import re
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pyarrow as pa

from flowcore.errors import ProcessException
from flowcore.processor import (
    ExpressionLanguageScope,
    ProcessContext,
    PropertyDescriptor,
    Relationship,
    Scheduling,
    SessionFactory,
    SessionFactoryProcessor,
    ValidationResult,
    processor,
    validators,
)
from processors.record.api import (
    RecordReaderFactory,
    RecordSetWriterFactory,
    SchemaError,
    as_reader_factory,
    as_writer_factory,
    copy_records,
)
from processors.standard._support import integer_range
from processors.standard._throttle import ByteThrottle
from processors.standard.merge_content import FLOWFILE_V3_MIME, unpackage_v3

# NiFi's answer to HEAD: what the listener accepts (FlowFile packages, gzip).
_HEAD_HEADERS = {
    "Accept-Encoding": "gzip",
    "Accept": "application/flowfile-v3,application/flowfile-v2",
    "x-nifi-transfer-protocol-version": "3",
}

BASE_PATH = PropertyDescriptor(
    name="Base Path",
    display_name="Base Path",
    description="Base path for incoming connections",
    required=True,
    default="contentListener",
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
)
PORT = PropertyDescriptor(
    name="Listening Port",
    display_name="Listening Port",
    description="The Port to listen on for incoming connections",
    required=True,
    validators=[validators.non_negative_integer],
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
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
    display_name="HTTP Headers for Attributes",
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

REQUEST_HEADER_MAX_SIZE = PropertyDescriptor(
    name="Request Header Maximum Size",
    display_name="Request Header Maximum Size",
    description="The maximum supported size of HTTP headers in requests sent to this processor",
    required=True,
    default="8 KB",
    validators=[validators.data_size],
)
MULTIPART_REQUEST_MAX_SIZE = PropertyDescriptor(
    name="Multipart Request Max Size",
    display_name="Multipart Request Max Size",
    description="The max size of the request. Only applies for requests with "
    "Content-Type: multipart/form-data, and is used to prevent denial of service type of "
    "attacks, to prevent filling up the heap or disk space",
    required=True,
    default="1 MB",
    validators=[validators.data_size],
)
MULTIPART_READ_BUFFER_SIZE = PropertyDescriptor(
    name="Multipart Read Buffer Size",
    display_name="Multipart Read Buffer Size",
    description="The threshold size, at which the contents of an incoming file would be "
    "written to disk. Only applies for requests with Content-Type: multipart/form-data. "
    "(Here a request's parts are read in memory, up to Multipart Request Max Size.)",
    required=True,
    default="512 KB",
    validators=[validators.data_size],
)
MAX_THREAD_POOL_SIZE = PropertyDescriptor(
    name="Maximum Thread Pool Size",
    display_name="Maximum Thread Pool Size",
    description="The maximum number of threads to be used by the embedded HTTP server. "
    "The value can be set between 8 and 1000.",
    required=True,
    default="200",
    validators=[integer_range(8, 1000)],
)

RECORD_READER = PropertyDescriptor(
    name="record-reader",
    display_name="Record Reader",
    description="The Record Reader to use parsing the incoming FlowFile into Records",
    controller_service=RecordReaderFactory,
)
RECORD_WRITER = PropertyDescriptor(
    name="record-writer",
    display_name="Record Writer",
    description="The Record Writer to use for serializing Records after they have been "
    "transformed (required with a Record Reader)",
    controller_service=RecordSetWriterFactory,
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
        REQUEST_HEADER_MAX_SIZE,
        MULTIPART_REQUEST_MAX_SIZE,
        MULTIPART_READ_BUFFER_SIZE,
        MAX_THREAD_POOL_SIZE,
        RECORD_READER,
        RECORD_WRITER,
    )
    relationships: ClassVar[tuple[Relationship, ...]] = (REL_SUCCESS,)
    scheduling: ClassVar[Scheduling] = Scheduling(input_required=False)

    def __init__(self) -> None:
        super().__init__()
        self._server: _PooledHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._factory: SessionFactory | None = None
        self._lock = threading.Lock()
        self._records: tuple[RecordReaderFactory, RecordSetWriterFactory] | None = None

    @property
    def port(self) -> int | None:
        """The port the listener is bound to (the free one chosen for Listening Port 0)."""
        return None if self._server is None else int(self._server.server_address[1])

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        """A Record Reader needs a Record Writer (NiFi's Record Writer depends on it)."""
        if (
            context.get_property(RECORD_READER).value
            and not context.get_property(RECORD_WRITER).value
        ):
            return [
                ValidationResult(
                    RECORD_WRITER.label,
                    False,
                    None,
                    "Record Writer is required with a Record Reader",
                )
            ]
        return []

    @property
    def max_threads(self) -> int | None:
        """The most requests the running listener serves at once (its thread pool)."""
        return None if self._server is None else self._server.max_threads

    def on_scheduled(self, context: ProcessContext) -> None:
        self.on_stopped(context)
        base = "/" + context.get_property(BASE_PATH).evaluate().as_str().strip("/")
        header_text = context.get_property(HEADERS_AS_ATTRIBUTES).value
        header_pattern = re.compile(header_text) if header_text else None
        return_code = context.get_property(RETURN_CODE).as_int() or 200
        max_header = context.get_property(REQUEST_HEADER_MAX_SIZE).as_data_size() or 0
        max_multipart = context.get_property(MULTIPART_REQUEST_MAX_SIZE).as_data_size() or 0
        rate = context.get_property(MAX_DATA_RATE).as_data_size()
        throttle = ByteThrottle(rate) if rate else None
        if context.get_property(RECORD_READER).value:
            self._records = (
                as_reader_factory(context.get_property(RECORD_READER).as_controller_service()),
                as_writer_factory(context.get_property(RECORD_WRITER).as_controller_service()),
            )
        else:
            self._records = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                owner.logger.debug(format, *args)

            def _answer(
                self, code: int, text: str = "", headers: dict[str, str] | None = None
            ) -> None:
                body = text.encode()
                self.send_response(code)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _headers_too_large(self) -> bool:
                size = sum(len(k) + len(v) + 4 for k, v in self.headers.items())
                size += len(self.requestline) + 2
                if size <= max_header:
                    return False
                self.close_connection = True
                self._answer(431, "Request Header Fields Too Large")
                return True

            def _not_allowed(self) -> None:
                self._drain()
                self._answer(405, "Method Not Allowed")

            def _drain(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)

            def do_POST(self) -> None:
                if self._headers_too_large():
                    return
                if self.path.split("?", 1)[0].rstrip("/") != base:
                    self._drain()
                    self._answer(404, "Not Found")
                    return
                length = int(self.headers.get("Content-Length") or 0)
                if not length:
                    data = b""
                elif throttle is not None:
                    data = throttle.read(self.rfile, length)
                else:
                    data = self.rfile.read(length)
                try:
                    data = _decoded(self.headers, data)
                except (OSError, EOFError, zlib.error) as exc:
                    self._answer(400, f"Bad Request: the content is not gzip: {exc}")
                    return
                content_type = self.headers.get("Content-Type", "")
                if "multipart/form-data" in content_type and len(data) > max_multipart:
                    self._answer(413, "Payload Too Large")
                    return
                try:
                    received = owner._receive(self, data, header_pattern)
                except _BadRequest as exc:
                    self._answer(400, f"Bad Request: {exc}")
                    return
                except SchemaError as exc:
                    owner.logger.error("Could not find schema: %s", exc)
                    self._answer(500, f"Could not find schema: {exc}")
                    return
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

            def do_HEAD(self) -> None:
                if self._headers_too_large():
                    return
                self._answer(200, headers=_HEAD_HEADERS)

            def do_GET(self) -> None:
                if not self._headers_too_large():
                    self._not_allowed()

            do_PUT = do_DELETE = do_OPTIONS = do_TRACE = do_PATCH = do_GET

        host = context.get_property(HOST).as_str().strip() or "127.0.0.1"
        port = context.get_property(PORT).evaluate().as_int() or 0
        max_threads = context.get_property(MAX_THREAD_POOL_SIZE).as_int() or 200
        server = _PooledHTTPServer((host, port), Handler, max_threads)
        thread = threading.Thread(target=server.serve_forever, name="ListenHTTP", daemon=True)
        thread.start()
        self._server, self._thread = server, thread

    def on_stopped(self, context: ProcessContext) -> None:
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
            server.pool.shutdown(wait=True)
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
        request = {
            "restlistener.remote.source.host": handler.client_address[0],
            "restlistener.request.uri": handler.path.split("?", 1)[0],
        }
        if header_pattern is not None:
            for key, value in handler.headers.items():
                if header_pattern.fullmatch(key):
                    request[key] = value
        uuid_header = handler.headers.get("uuid")
        content_type = handler.headers.get("Content-Type", "")
        if content_type.split(";")[0].strip() == FLOWFILE_V3_MIME:
            items = [(dict(a), c) for a, c in unpackage_v3(data)]
        elif "multipart/form-data" in content_type:
            items = _parts(content_type, data)
        else:
            attributes: dict[str, str] = {}
            if content_type:
                attributes["mime.type"] = content_type
            if self._records is not None:
                data = _rewritten(self._records, data, attributes, url)
            items = [(attributes, data)]
        session = factory.create_session()
        try:
            for attributes, content in items:
                if not attributes.get("filename", "").strip() and handler.headers.get("filename"):
                    attributes["filename"] = str(handler.headers["filename"])
                packaged_uuid = attributes.pop("uuid", None)
                source = uuid_header if uuid_header is not None else packaged_uuid
                flowfile = session.create()
                flowfile = session.put_all_attributes(flowfile, {**attributes, **request})
                if content:
                    flowfile = session.write(flowfile, content)
                session.provenance.receive(
                    flowfile,
                    url,
                    source_system_flowfile_id=None if source is None else f"urn:nifi:{source}",
                )
                session.transfer(flowfile, REL_SUCCESS)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return True


class _BadRequest(Exception):
    """The request cannot be read as its headers say (answered with 400)."""


class _PooledHTTPServer(ThreadingHTTPServer):
    """An HTTP server whose requests are served by a pool of at most ``max_threads``
    threads (NiFi's Maximum Thread Pool Size); further connections wait for a thread."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[BaseHTTPRequestHandler],
        max_threads: int,
    ) -> None:
        super().__init__(address, handler)
        self.max_threads = max_threads
        self.pool = ThreadPoolExecutor(max_workers=max_threads, thread_name_prefix="ListenHTTP")

    def process_request(self, request: Any, client_address: Any) -> None:
        self.pool.submit(self.process_request_thread, request, client_address)


def _rewritten(
    records: tuple[RecordReaderFactory, RecordSetWriterFactory],
    data: bytes,
    attributes: dict[str, str],
    source: str,
) -> bytes:
    """The body's records read with the Record Reader, written with the Record Writer;
    a body that cannot be read is a bad request (400), as NiFi's."""
    readers, writers = records
    sink = io.BytesIO()
    try:
        reader = readers.create_reader(data, attributes, source)
        try:
            schema = writers.writer_schema(reader.schema, attributes)
            writer = writers.create_writer(schema, sink, attributes)
            try:
                copy_records(reader, writer)
                writer.finish()
            except BaseException:
                writer.abort()
                raise
        finally:
            reader.close()
    except SchemaError:
        raise
    except (ProcessException, pa.ArrowException, ValueError, OSError) as exc:
        raise _BadRequest(f"Could not process record: {exc}") from exc
    return sink.getvalue()


def _decoded(headers: Message, data: bytes) -> bytes:
    """The body without its gzip encoding (``Content-Encoding: gzip``, or NiFi's
    ``flowfile-gzipped: true``)."""
    encoding = (headers.get("Content-Encoding") or "").strip().lower()
    gzipped = (headers.get("flowfile-gzipped") or "").strip().lower() == "true"
    if encoding == "gzip" or gzipped:
        return gzip.decompress(data)
    return data


def _parts(content_type: str, data: bytes) -> list[tuple[dict[str, str], bytes]]:
    """The parts of a multipart/form-data body, each with NiFi's attributes:
    ``http.multipart.name``, ``.filename``, ``.size``, ``.content.type``,
    ``.fragments.sequence.number`` and ``.fragments.total.number``, and each part header
    as ``http.headers.multipart.<name>``."""
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode("latin-1") + data
    )
    if not message.is_multipart():
        raise _BadRequest("the multipart/form-data body has no parts")
    parts = list(message.iter_parts())
    found: list[tuple[dict[str, str], bytes]] = []
    for index, part in enumerate(parts):
        payload = part.get_payload(decode=True)
        content = payload if isinstance(payload, bytes) else b""
        attributes = {f"http.headers.multipart.{k}": str(v) for k, v in part.items()}
        attributes["http.multipart.size"] = str(len(content))
        if part.get("Content-Type") is not None:
            attributes["http.multipart.content.type"] = part.get_content_type()
        name = part.get_param("name", header="content-disposition")
        if isinstance(name, str):
            attributes["http.multipart.name"] = name
        filename = part.get_filename()
        if filename is not None:
            attributes["http.multipart.filename"] = filename
        attributes["http.multipart.fragments.sequence.number"] = str(index + 1)
        attributes["http.multipart.fragments.total.number"] = str(len(parts))
        found.append((attributes, content))
    return found
