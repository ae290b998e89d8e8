"""InvokeHTTP: sends an HTTP request for each FlowFile and routes by the response status.

Follows NiFi 2's InvokeHTTP (its property names; the NiFi 1 names are mapped on import),
on httpx. Choices made here:

* The request body (PATCH, POST, PUT with Request Body Enabled) is the FlowFile's content,
  streamed; a SEND event with the URL is written even if the session rolls back, as NiFi
  does; once the server answers, the request is noted in the delivery ledger
  (``flowcore.delivery``, active only in simulations). Headers: the dynamic properties
  (Expression Language on the FlowFile), then the attributes matching Request Header
  Attributes Pattern (NiFi's invokehttp.* result attributes excepted), User-Agent when
  set, Date when enabled (from the injected clock).
* 2xx: the request goes to Original and a response FlowFile (a child of the request, with
  the response headers as attributes, ``mime.type`` from Content-Type and a FETCH event)
  to Response, unless the body is put into Response Body Attribute Name. 5xx: Retry
  (penalized). Others: No Retry (penalized with Request Failure Penalization Enabled), the
  body in ``invokehttp.response.body`` (or the named attribute) up to Response Body
  Attribute Size bytes. Response Generation Required sends a response FlowFile whatever
  the status. Connection and protocol errors: Failure (penalized) with
  ``invokehttp.java.exception.class`` / ``invokehttp.java.exception.message`` carrying the
  Python exception's class and message.
* Status attributes on request and response: ``invokehttp.status.code``,
  ``invokehttp.status.message``, ``invokehttp.request.url``,
  ``invokehttp.request.duration``, ``invokehttp.response.url``, ``invokehttp.tx.id``.
* The processor needs an incoming FlowFile (NiFi can also run it as a source); proxies,
  TLS contexts, OAuth2, digest authentication, caching, cookies, form data and gzip
  request encoding are not offered. Basic authentication is.
"""

from __future__ import annotations

import email.utils
import re
import time
import uuid
from collections.abc import Iterator
from typing import ClassVar
from urllib.parse import urlparse

import httpx

from flowcore.delivery import record_delivery
from flowcore.model import FlowFile
from flowcore.processor import (
    AllowableValue,
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    processor,
    validators,
)
from flowcore.session import ProcessSession

STATUS_CODE = "invokehttp.status.code"
STATUS_MESSAGE = "invokehttp.status.message"
RESPONSE_BODY = "invokehttp.response.body"
REQUEST_URL = "invokehttp.request.url"
REQUEST_DURATION = "invokehttp.request.duration"
RESPONSE_URL = "invokehttp.response.url"
TRANSACTION_ID = "invokehttp.tx.id"
EXCEPTION_CLASS = "invokehttp.java.exception.class"
EXCEPTION_MESSAGE = "invokehttp.java.exception.message"
_IGNORED = {
    STATUS_CODE,
    STATUS_MESSAGE,
    RESPONSE_BODY,
    REQUEST_URL,
    RESPONSE_URL,
    TRANSACTION_ID,
    "invokehttp.remote.dn",
    EXCEPTION_CLASS,
    EXCEPTION_MESSAGE,
    "path",
}
_BODY_METHODS = {"POST", "PUT", "PATCH"}
DEFAULT_CONTENT_TYPE = "application/octet-stream"


def _bool(
    name: str, default: str, description: str, capitalised: bool = False
) -> PropertyDescriptor:
    values = ("True", "False") if capitalised else ("true", "false")
    return PropertyDescriptor(
        name=name,
        display_name=name,
        description=description,
        required=True,
        default=default,
        allowable_values=values,
    )


HTTP_METHOD = PropertyDescriptor(
    name="HTTP Method",
    display_name="HTTP Method",
    description="HTTP request method (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS). "
    "Arbitrary methods are also supported. Methods other than POST, PUT and PATCH will be "
    "sent without a message body.",
    required=True,
    default="GET",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
HTTP_URL = PropertyDescriptor(
    name="HTTP URL",
    display_name="HTTP URL",
    description="HTTP remote URL including a scheme of http or https, as well as a hostname "
    "or IP address with optional port and path elements. Any encoding of the URL must be "
    "done by the user.",
    required=True,
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
CONNECT_TIMEOUT = PropertyDescriptor(
    name="Connection Timeout",
    display_name="Connection Timeout",
    description="Maximum time to wait for initial socket connection to the HTTP URL.",
    required=True,
    default="5 secs",
    validators=[validators.time_period],
)
READ_TIMEOUT = PropertyDescriptor(
    name="Socket Read Timeout",
    display_name="Socket Read Timeout",
    description="Maximum time to wait for receiving responses from a socket connection to "
    "the HTTP URL.",
    required=True,
    default="15 secs",
    validators=[validators.time_period],
)
WRITE_TIMEOUT = PropertyDescriptor(
    name="Socket Write Timeout",
    display_name="Socket Write Timeout",
    description="Maximum time to wait for write operations while sending requests from a "
    "socket connection to the HTTP URL.",
    required=True,
    default="15 secs",
    validators=[validators.time_period],
)
IDLE_CONNECTIONS = PropertyDescriptor(
    name="Socket Idle Connections",
    display_name="Socket Idle Connections",
    description="Maximum number of idle connections to the HTTP URL.",
    required=True,
    default="5",
    validators=[validators.non_negative_integer],
)
USERNAME = PropertyDescriptor(
    name="Request Username",
    display_name="Request Username",
    description="The username provided for authentication of HTTP requests. Encoded using "
    "Base64 for HTTP Basic Authentication as described in RFC 7617.",
)
PASSWORD = PropertyDescriptor(
    name="Request Password",
    display_name="Request Password",
    description="The password provided for authentication of HTTP requests. Encoded using "
    "Base64 for HTTP Basic Authentication as described in RFC 7617.",
    sensitive=True,
)
PENALIZE_NO_RETRY = _bool(
    "Request Failure Penalization Enabled",
    "false",
    "Enable penalization of request FlowFiles when receiving HTTP response with a status "
    "code between 400 and 499.",
)
BODY_ENABLED = _bool(
    "Request Body Enabled",
    "true",
    "Enable sending HTTP request body for PATCH, POST, or PUT methods.",
)
CONTENT_TYPE = PropertyDescriptor(
    name="Request Content-Type",
    display_name="Request Content-Type",
    description="HTTP Content-Type Header applied to when sending an HTTP request body for "
    "PATCH, POST, or PUT methods. The Content-Type defaults to application/octet-stream "
    "when not configured.",
    required=True,
    default="${mime.type}",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
DATE_HEADER = _bool(
    "Request Date Header Enabled",
    "True",
    "Enable sending HTTP Date Header on HTTP requests as described in RFC 7231 Section 7.1.1.2.",
    capitalised=True,
)
HEADER_ATTRIBUTES_PATTERN = PropertyDescriptor(
    name="Request Header Attributes Pattern",
    display_name="Request Header Attributes Pattern",
    description="Regular expression that defines which FlowFile attributes to send as HTTP "
    "headers in the request. If not defined, no attributes are sent as headers. Dynamic "
    "properties will be always be sent as headers. The dynamic property name will be the "
    "header key and the dynamic property value, interpreted as Expression Language, will be "
    "the header value.",
    validators=[validators.regular_expression],
)
USER_AGENT = PropertyDescriptor(
    name="Request User-Agent",
    display_name="Request User-Agent",
    description="HTTP User-Agent Header applied to requests. RFC 7231 Section 5.5.3 "
    "describes recommend formatting.",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.non_empty],
)
BODY_ATTRIBUTE_NAME = PropertyDescriptor(
    name="Response Body Attribute Name",
    display_name="Response Body Attribute Name",
    description="FlowFile attribute name used to write an HTTP response body for FlowFiles "
    "transferred to the Original relationship.",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
BODY_ATTRIBUTE_SIZE = PropertyDescriptor(
    name="Response Body Attribute Size",
    display_name="Response Body Attribute Size",
    description="Maximum size in bytes applied when writing an HTTP response body to a "
    "FlowFile attribute. Attributes exceeding the maximum will be truncated.",
    required=True,
    default="256",
    validators=[validators.positive_integer],
)
BODY_IGNORED = _bool(
    "Response Body Ignored",
    "false",
    "Disable writing HTTP response FlowFiles to Response relationship",
)
GENERATION_REQUIRED = _bool(
    "Response Generation Required",
    "false",
    "Enable generation and transfer of a FlowFile to the Response relationship regardless of "
    "HTTP response status code received.",
)
NAMING_STRATEGY = PropertyDescriptor(
    name="Response FlowFile Naming Strategy",
    display_name="Response FlowFile Naming Strategy",
    description="Determines the strategy used for setting the filename attribute of "
    "FlowFiles transferred to the Response relationship.",
    required=True,
    default="RANDOM",
    allowable_values=(AllowableValue("RANDOM", "RANDOM"), AllowableValue("URL_PATH", "URL_PATH")),
)
HEADER_ATTRIBUTES_ENABLED = _bool(
    "Response Header Request Attributes Enabled",
    "false",
    "Enable adding HTTP response headers as attributes to FlowFiles transferred to the "
    "Original, Retry or No Retry relationships.",
)
HEADER_ATTRIBUTES_PREFIX = PropertyDescriptor(
    name="Response Header Request Attributes Prefix",
    display_name="Response Header Request Attributes Prefix",
    description="Prefix to HTTP response headers when included as attributes to FlowFiles "
    "transferred to the Original, Retry or No Retry relationships.",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.non_empty],
)
REDIRECTS_ENABLED = _bool(
    "Response Redirects Enabled",
    "True",
    "Enable following HTTP redirects sent with HTTP 300 series responses as described in RFC "
    "7231 Section 6.4.",
    capitalised=True,
)

ORIGINAL = Relationship(
    "Original",
    "Request FlowFiles transferred when receiving HTTP responses with a status code between "
    "200 and 299.",
)
RESPONSE = Relationship(
    "Response",
    "Response FlowFiles transferred when receiving HTTP responses with a status code between "
    "200 and 299.",
)
RETRY = Relationship(
    "Retry",
    "Request FlowFiles transferred when receiving HTTP responses with a status code between "
    "500 and 599.",
)
NO_RETRY = Relationship(
    "No Retry",
    "Request FlowFiles transferred when receiving HTTP responses with a status code between "
    "400 an 499.",
)
FAILURE = Relationship(
    "Failure", "Request FlowFiles transferred when receiving socket communication errors."
)


def _seconds(context: ProcessContext, descriptor: PropertyDescriptor) -> float:
    return context.get_property(descriptor).as_time_period_seconds() or 0.0


def _header_attributes(response: httpx.Response) -> dict[str, str]:
    """Response headers by the name as sent; repeated ones joined with ", " (NiFi)."""
    names: dict[str, str] = {}
    values: dict[str, list[str]] = {}
    for raw_key, raw_value in response.headers.raw:
        key = raw_key.decode("latin-1")
        name = names.setdefault(key.lower(), key)
        values.setdefault(name, []).append(raw_value.decode("latin-1"))
    return {name: ", ".join(found) for name, found in values.items()}


@processor("InvokeHTTP")
class InvokeHTTP(Processor):
    description: ClassVar[str] = (
        "An HTTP client processor which can interact with a configurable HTTP Endpoint. The "
        "destination URL and HTTP Method are configurable. When the HTTP Method is PUT, POST "
        "or PATCH, the FlowFile contents are included as the body of the request and "
        "FlowFile attributes are converted to HTTP headers, optionally, based on "
        "configuration properties."
    )
    tags: ClassVar[tuple[str, ...]] = ("http", "https", "rest", "client")
    property_descriptors: ClassVar[tuple[PropertyDescriptor, ...]] = (
        HTTP_METHOD,
        HTTP_URL,
        CONNECT_TIMEOUT,
        READ_TIMEOUT,
        WRITE_TIMEOUT,
        IDLE_CONNECTIONS,
        USERNAME,
        PASSWORD,
        PENALIZE_NO_RETRY,
        BODY_ENABLED,
        CONTENT_TYPE,
        DATE_HEADER,
        HEADER_ATTRIBUTES_PATTERN,
        USER_AGENT,
        BODY_ATTRIBUTE_NAME,
        BODY_ATTRIBUTE_SIZE,
        BODY_IGNORED,
        GENERATION_REQUIRED,
        NAMING_STRATEGY,
        HEADER_ATTRIBUTES_ENABLED,
        HEADER_ATTRIBUTES_PREFIX,
        REDIRECTS_ENABLED,
    )
    relationships: ClassVar[tuple[Relationship, ...]] = (
        ORIGINAL,
        RESPONSE,
        RETRY,
        NO_RETRY,
        FAILURE,
    )
    supports_dynamic_properties: ClassVar[bool] = True

    def __init__(self) -> None:
        super().__init__()
        self._client: httpx.Client | None = None

    def on_scheduled(self, context: ProcessContext) -> None:
        timeout = httpx.Timeout(
            connect=_seconds(context, CONNECT_TIMEOUT),
            read=_seconds(context, READ_TIMEOUT),
            write=_seconds(context, WRITE_TIMEOUT),
            pool=_seconds(context, CONNECT_TIMEOUT),
        )
        user = context.get_property(USERNAME).as_str().strip()
        auth = httpx.BasicAuth(user, context.get_property(PASSWORD).as_str()) if user else None
        self._client = httpx.Client(
            timeout=timeout,
            follow_redirects=context.get_property(REDIRECTS_ENABLED).as_str().lower() == "true",
            limits=httpx.Limits(
                max_keepalive_connections=context.get_property(IDLE_CONNECTIONS).as_int() or 0
            ),
            auth=auth,
            trust_env=False,
        )

    def on_stopped(self, context: ProcessContext) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def _headers(self, context: ProcessContext, flowfile: FlowFile) -> dict[str, str]:
        headers: dict[str, str] = {}
        agent = context.get_property(USER_AGENT).evaluate(flowfile).as_str().strip()
        if agent:
            headers["User-Agent"] = agent
        if context.get_property(DATE_HEADER).as_str().lower() == "true":
            headers["Date"] = email.utils.formatdate(context.now_ms() / 1000, usegmt=True)
        for name in context.dynamic_properties():
            headers[name] = context.get_property(name).evaluate(flowfile).as_str()
        pattern_text = context.get_property(HEADER_ATTRIBUTES_PATTERN).value
        if pattern_text:
            pattern = re.compile(pattern_text.strip())
            for key, value in flowfile.attributes.items():
                key = key.strip()
                if key not in _IGNORED and pattern.fullmatch(key):
                    headers[key] = value.strip()
        return headers

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        request = session.get()
        if request is None:
            return
        if self._client is None:
            self.on_scheduled(context)
        assert self._client is not None
        url = context.get_property(HTTP_URL).evaluate(request).as_str().strip()
        method = context.get_property(HTTP_METHOD).evaluate(request).as_str().strip().upper()
        transaction = str(uuid.uuid4())
        body_name = context.get_property(BODY_ATTRIBUTE_NAME).value
        max_attribute = context.get_property(BODY_ATTRIBUTE_SIZE).as_int() or 256
        response_flowfile: FlowFile | None = None
        try:
            headers = self._headers(context, request)
            content: Iterator[bytes] | bytes | None = None
            if method in _BODY_METHODS:
                if context.get_property(BODY_ENABLED).as_bool():
                    content_type = context.get_property(CONTENT_TYPE).evaluate(request).as_str()
                    headers["Content-Type"] = content_type.strip() or DEFAULT_CONTENT_TYPE
                    headers["Content-Length"] = str(request.size)
                    content = session.stream(request)
                else:
                    content = b""
                session.provenance.send(request, url, force=True)
            started = time.monotonic()
            with self._client.stream(method, url, headers=headers, content=content) as response:
                status = response.status_code
                if content is not None:  # the server has the body: a delivery, for the ledger
                    sent = request
                    record_delivery(context.name, sent.uuid, url, lambda: session.read(sent))
                success = status // 100 == 2
                status_attributes = {
                    STATUS_CODE: str(status),
                    STATUS_MESSAGE: response.reason_phrase,
                    REQUEST_URL: url,
                    REQUEST_DURATION: str(int((time.monotonic() - started) * 1000)),
                    RESPONSE_URL: str(response.url),
                    TRANSACTION_ID: transaction,
                }
                request = session.put_all_attributes(request, status_attributes)
                to_attribute = not success or bool(body_name)
                to_response = (success and not body_name) or context.get_property(
                    GENERATION_REQUIRED
                ).as_bool()
                body_exists = not context.get_property(BODY_IGNORED).as_bool()
                response_headers = _header_attributes(response)
                captured = bytearray()
                if to_response:
                    response_flowfile = session.create(request)
                    response_flowfile = session.put_all_attributes(
                        response_flowfile, {**status_attributes, **response_headers}
                    )
                    if (
                        context.get_property(NAMING_STRATEGY).as_str() == "URL_PATH"
                        and method == "GET"
                    ):
                        name = urlparse(url).path.rstrip("/").rsplit("/", 1)[-1]
                        if name:
                            response_flowfile = session.put_attribute(
                                response_flowfile, "filename", name
                            )
                    if body_exists:
                        if "content-type" in response.headers:
                            response_flowfile = session.put_attribute(
                                response_flowfile, "mime.type", response.headers["content-type"]
                            )

                        def write(out: object) -> None:
                            for chunk in response.iter_bytes():
                                out.write(chunk)  # type: ignore[attr-defined]
                                if to_attribute and len(captured) < max_attribute:
                                    captured.extend(chunk[: max_attribute - len(captured)])

                        response_flowfile = session.write(response_flowfile, write)
                        session.provenance.fetch(
                            response_flowfile,
                            url,
                            duration_ms=int((time.monotonic() - started) * 1000),
                        )
                elif to_attribute and body_exists:
                    for chunk in response.iter_bytes():
                        captured.extend(chunk[: max_attribute - len(captured)])
                        if len(captured) >= max_attribute:
                            break
                if to_attribute and body_exists:
                    key = (
                        context.get_property(BODY_ATTRIBUTE_NAME).evaluate(request).value
                        if body_name
                        else None
                    ) or RESPONSE_BODY
                    text = bytes(captured).decode(response.charset_encoding or "utf-8", "replace")
                    request = session.put_attribute(request, key, text)
                    session.provenance.modify_attributes(
                        request,
                        details=f"Response Body Attribute Added [{key}] Processing Duration "
                        f"[{int((time.monotonic() - started) * 1000)} ms]",
                    )
                if context.get_property(HEADER_ATTRIBUTES_ENABLED).as_bool():
                    prefix = (
                        context.get_property(HEADER_ATTRIBUTES_PREFIX)
                        .evaluate(request)
                        .as_str()
                        .strip()
                    )
                    request = session.put_all_attributes(
                        request, {prefix + k: v for k, v in response_headers.items()}
                    )
        except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError, OSError, ValueError) as exc:
            self.logger.error(
                "Request Processing failed: %s: %s", request.attributes.get("uuid"), exc
            )
            if response_flowfile is not None:
                session.remove(response_flowfile)
            request = session.put_all_attributes(
                session.penalize(request),
                {EXCEPTION_CLASS: type(exc).__name__, EXCEPTION_MESSAGE: str(exc)},
            )
            session.transfer(request, FAILURE)
            return
        self._route(context, session, request, response_flowfile, status)

    @staticmethod
    def _route(
        context: ProcessContext,
        session: ProcessSession,
        request: FlowFile,
        response: FlowFile | None,
        status: int,
    ) -> None:
        sent = False
        if response is not None and context.get_property(GENERATION_REQUIRED).as_bool():
            session.transfer(response, RESPONSE)
            sent = True
        if status // 100 == 2:
            session.transfer(request, ORIGINAL)
            if response is not None and not sent:
                session.transfer(response, RESPONSE)
        elif status // 100 == 5:
            session.transfer(session.penalize(request), RETRY)
        else:
            if context.get_property(PENALIZE_NO_RETRY).as_bool():
                request = session.penalize(request)
            session.transfer(request, NO_RETRY)
