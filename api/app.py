"""The REST API: enqueue FlowFiles, watch the flow, query provenance and lineage, replay.

``create_app(node, settings)`` returns a FastAPI application bound to one running
``Node``. Enqueues go through the group commit (``api/enqueue_batcher.py``; small single
ones answered by ``api/lean_enqueue.py`` ahead of FastAPI); the other handlers that call
the engine block (DuckDB queries, checkpoints) and run in the thread pool. See
``docs/api.md``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import msgspec
from fastapi import Depends, FastAPI, Header, HTTPException, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from pydantic import BaseModel, Field
from starlette.requests import ClientDisconnect

from api.enqueue_batcher import EnqueueBatcher
from api.inputs import (
    MAX_INT64,
    BadInput,
    Tokens,
    check_attributes,
    parse_attribute_header,
    parse_count,
    repository_detail,
)
from api.lean_enqueue import FlowcoreAPI, LeanEnqueue
from api.nifi_metrics import nifi_registry as nifi_metrics_registry
from api.settings import ApiSettings
from api.ui import mount_ui, ui_router
from flowcore.engine.node import BackPressureError, EnqueueItem, Node, ReplayError
from flowcore.engine.processor_node import RunState
from flowcore.errors import ContentNotFoundError, RepositoryError, RepositoryFullError
from flowcore.lineage_export import merge_reasons
from flowcore.logsafe import safe_logger
from flowcore.model.flowfile import ContentClaim, CoreAttribute, ResourceClaim
from flowcore.model.provenance import ContentRef, ProvenanceEvent, ProvenanceEventType
from flowcore.repository.provenance import ProvenanceQuery
from flowcore.session.commit import CommitListener, SessionChanges

log = safe_logger("flowcore.api")

# A single enqueue with a declared body up to this size is read whole and committed
# together with the concurrent ones (api/enqueue_batcher.py); larger ones stream.
SMALL_BODY = 256 * 1024

API = "/api/v1"
NDJSON = "application/x-ndjson"
TERMINAL_EVENTS = frozenset({ProvenanceEventType.DROP.value, ProvenanceEventType.EXPIRE.value})


EventId = Annotated[int, Path(ge=0, le=MAX_INT64, description="A provenance event id.")]
WaitForIndex = Annotated[
    bool,
    Query(description="Index the journaled events first, so earlier writes are found."),
]


# -- response models ------------------------------------------------------------------------


class ErrorBody(BaseModel):
    detail: str


class UuidResult(BaseModel):
    uuid: str


class UuidsResult(BaseModel):
    uuids: list[str]


class ProcessorError(BaseModel):
    time: int = Field(description="Epoch milliseconds.")
    message: str


class ProcessorStatus(BaseModel):
    name: str
    type: str
    run_state: Literal["RUNNING", "STOPPED"]
    runs: int
    flowfiles_in: int
    bytes_in: int
    flowfiles_out: int
    bytes_out: int
    commits: int
    last_errors: list[ProcessorError]


class ConnectionStatus(BaseModel):
    name: str
    source: str
    destination: str | None
    relationships: list[str]
    queued_count: int
    queued_bytes: int
    swapped: int
    in_flight: int
    back_pressure: bool


class FlowStatus(BaseModel):
    input_ports: list[str]
    processors: list[ProcessorStatus]
    connections: list[ConnectionStatus]


class RunStatusRequest(BaseModel):
    state: Literal["RUNNING", "STOPPED"]


class FlowFileInfo(BaseModel):
    uuid: str
    status: Literal["QUEUED", "SWAPPED_OUT", "IN_PROCESS", "LEFT_FLOW", "NOT_QUEUED"] = Field(
        description=(
            "QUEUED: waiting in `connection` (at `position`). SWAPPED_OUT: waiting in "
            "`connection`, swapped out of memory. IN_PROCESS: taken from `connection` by a "
            "session that has not committed yet. LEFT_FLOW: its last provenance event is DROP "
            "or EXPIRE. NOT_QUEUED: known to provenance but in no connection."
        )
    )
    connection: str | None = None
    position: int | None = None
    attributes: dict[str, str]
    size: int
    entry_date: int | None = None
    lineage_start_date: int | None = None
    penalized: bool = False
    last_event_id: int | None = None
    last_event_type: str | None = None


class FlowFileSummary(BaseModel):
    uuid: str
    position: int
    filename: str | None
    size: int
    entry_date: int
    lineage_start_date: int
    penalized: bool
    penalty_expiration: int
    attributes: dict[str, str]


class QueueListing(BaseModel):
    connection: str
    total: int = Field(description="FlowFiles in the queue's in-memory part.")
    swapped: int = Field(description="FlowFiles swapped out to disk (not listed).")
    offset: int
    limit: int
    flowfiles: list[FlowFileSummary]


class ContentRefModel(BaseModel):
    container: str
    section: str
    identifier: str
    offset: int
    size: int


class ProvenanceEventModel(BaseModel):
    event_id: int
    event_time: int
    event_type: str
    flowfile_uuid: str
    component_id: str
    component_type: str
    entry_date: int
    lineage_start_date: int
    event_duration: int
    parent_uuids: list[str]
    child_uuids: list[str]
    attributes: dict[str, str]
    previous_attributes: dict[str, str]
    updated_attributes: dict[str, str | None]
    input_content: ContentRefModel | None
    output_content: ContentRefModel | None
    details: str | None
    relationship: str | None
    transit_uri: str | None
    source_queue_id: str | None
    size: int
    input_content_available: bool | None = Field(
        default=None, description="Only on the single-event endpoint."
    )
    output_content_available: bool | None = Field(
        default=None, description="Only on the single-event endpoint."
    )


class ProvenanceSearchResult(BaseModel):
    events: list[ProvenanceEventModel]
    next_cursor: str | None = Field(
        description="Pass as `cursor` for the next (older) page; null on the last page."
    )


class LineageNodeModel(BaseModel):
    id: str
    type: Literal["FLOWFILE", "EVENT"]
    flowfile_uuid: str
    timestamp: int
    event_type: str | None
    event_id: int | None
    details: str | None = Field(
        default=None,
        description="A JOIN's merge reason, e.g. 'Records Merged due to: Bin is full'.",
    )


class LineageLinkModel(BaseModel):
    source_id: str
    target_id: str
    flowfile_uuid: str
    timestamp: int


class LineageResult(BaseModel):
    nodes: list[LineageNodeModel]
    links: list[LineageLinkModel]


class BulletinModel(BaseModel):
    """NiFi's BulletinDTO: what happened, where, how bad, when."""

    id: int
    category: str
    groupId: str = Field(description="The process group: the flow's root group, 'root'.")
    sourceId: str
    sourceName: str
    sourceType: str = Field(description="The component type, e.g. PutFile, or FlowController.")
    level: Literal["WARNING", "ERROR"]
    message: str
    timestamp: str = Field(description="ISO-8601 time in UTC, from the node's clock.")
    timestampMillis: int


class BulletinEntity(BaseModel):
    id: int
    sourceId: str
    groupId: str
    timestamp: str
    bulletin: BulletinModel


class BulletinBoardModel(BaseModel):
    bulletins: list[BulletinEntity] = Field(description="Oldest first.")
    generated: str


class BulletinBoardResult(BaseModel):
    bulletinBoard: BulletinBoardModel


class Health(BaseModel):
    status: Literal["ok"]


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorBody} for code in codes}


RETRY_AFTER = {
    "Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "string"}}
}


def _unavailable() -> dict[int | str, dict[str, Any]]:
    """503: a repository cannot serve now (or back pressure); retry after ``Retry-After``."""
    return {503: {"model": ErrorBody, "headers": RETRY_AFTER}}


def _full() -> dict[int | str, dict[str, Any]]:
    """507: a repository is full; the message names the setting to change."""
    return {507: {"model": ErrorBody}}


# -- helpers --------------------------------------------------------------------------------


class _Line(msgspec.Struct, forbid_unknown_fields=True):
    """One NDJSON line as it usually comes; anything else takes ``_parse_line``."""

    attributes: dict[str, str] = {}
    content: str | msgspec.UnsetType = msgspec.UNSET
    content_base64: str | msgspec.UnsetType = msgspec.UNSET


_LINE = msgspec.json.Decoder(_Line)
# Besides "\n", the ASCII characters at which ``str.splitlines`` breaks a line.
_OTHER_BREAKS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")
_UUIDS = msgspec.json.Encoder()


def parse_ndjson(body: bytes) -> list[EnqueueItem]:
    """The items of an NDJSON batch, in line order; the first bad line refuses them all.

    A well-formed line is decoded straight into its typed shape (one C call); any other
    line (malformed, blank, unknown fields, wrong types, ``uuid`` set, both contents)
    goes through ``_parse_line``, which reads it as ``json`` does and names the fault.
    """
    items: list[EnqueueItem] = []
    lines: list[bytes | str]
    if body.isascii() and not any(mark in body for mark in _OTHER_BREAKS):
        lines = [*body.split(b"\n")]  # the lines ``str.splitlines`` finds, no text copy
    else:
        try:
            lines = [*body.decode("utf-8").splitlines()]
        except UnicodeDecodeError:
            raise BadInput(400, "the NDJSON body is not valid UTF-8") from None
    unset = msgspec.UNSET
    for number, line in enumerate(lines, start=1):
        try:
            record = _LINE.decode(line)
        except msgspec.DecodeError:
            record = None
        if (
            record is None
            or CoreAttribute.UUID.value in record.attributes
            or (record.content is not unset and record.content_base64 is not unset)
        ):
            text = line if isinstance(line, str) else line.decode("ascii")
            item = _parse_line(text, number)
            if item is not None:
                items.append(item)
            continue
        if record.content_base64 is not unset:
            try:
                content = base64.b64decode(record.content_base64, validate=True)
            except (binascii.Error, ValueError):
                raise BadInput(
                    422, f"line {number}: 'content_base64' is not valid base64"
                ) from None
        else:
            content = b"" if record.content is unset else record.content.encode("utf-8")
        items.append(EnqueueItem(content, record.attributes))
    if not items:
        raise BadInput(400, "the batch is empty")
    return items


def _parse_line(line: str, number: int) -> EnqueueItem | None:
    """One line read with ``json``: its item, None when blank, or the fault named."""
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadInput(400, f"line {number}: not valid JSON: {exc}") from None
    except RecursionError:
        raise BadInput(400, f"line {number}: nested too deeply") from None
    if not isinstance(record, dict):
        raise BadInput(422, f"line {number}: each line must be a JSON object")
    unknown = set(record) - {"attributes", "content", "content_base64"}
    if unknown:
        raise BadInput(422, f"line {number}: unknown field(s) {', '.join(sorted(unknown))}")
    attributes = check_attributes(record.get("attributes", {}), f"line {number}: attributes")
    if "content" in record and "content_base64" in record:
        raise BadInput(422, f"line {number}: give 'content' or 'content_base64', not both")
    content: bytes
    if "content_base64" in record:
        raw = record["content_base64"]
        if not isinstance(raw, str):
            raise BadInput(422, f"line {number}: 'content_base64' must be a string")
        try:
            content = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            raise BadInput(422, f"line {number}: 'content_base64' is not valid base64") from None
    else:
        raw = record.get("content", "")
        if not isinstance(raw, str):
            raise BadInput(422, f"line {number}: 'content' must be a string")
        content = raw.encode("utf-8")
    return EnqueueItem(content, attributes)


def check_declared_size(request: Request, limit: int) -> int | None:
    """The declared ``Content-Length`` (None if there is none); refuse (413) a body that
    passes ``limit`` before reading it, and (400) one that is not ASCII digits."""
    declared = request.headers.get("content-length")
    if declared is None:
        return None
    size = parse_count(declared.strip())
    if size is None:
        raise BadInput(400, f"Content-Length must be a number of bytes, not '{declared}'")
    if size > limit:
        raise BadInput(413, f"the body exceeds the maximum size of {limit} bytes")
    return size


async def read_body(request: Request, limit: int) -> bytes:
    """Read the body in chunks, refusing (413) as soon as it passes ``limit``."""
    check_declared_size(request, limit)
    buffer = bytearray()
    async for chunk in request.stream():
        buffer += chunk
        if len(buffer) > limit:
            raise BadInput(413, f"the body exceeds the maximum size of {limit} bytes")
    return bytes(buffer)


def parse_bounded(text: str, name: str, what: str) -> int:
    """A query value that must be an integer from 0 to the largest event id or time."""
    number = parse_count(text)
    if number is None or number > MAX_INT64:
        raise BadInput(422, f"'{name}' must be {what}, not '{text}'")
    return number


def parse_time(value: str | None, name: str) -> int | None:
    """Epoch milliseconds, or an ISO 8601 time (UTC when it names no zone)."""
    if value is None:
        return None
    text = value.strip()
    problem = f"'{name}' must be epoch milliseconds or an ISO 8601 time, not '{value}'"
    millis = parse_count(text.removeprefix("-"))
    if millis is not None:
        if millis > MAX_INT64:
            raise BadInput(422, problem)
        return -millis if text.startswith("-") else millis
    if not text.isascii():
        raise BadInput(422, problem)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return int(moment.timestamp() * 1000)
    except (ValueError, OverflowError):
        raise BadInput(422, problem) from None


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


def _ref(ref: ContentRef | None) -> ContentRefModel | None:
    if ref is None:
        return None
    return ContentRefModel(
        container=ref.container,
        section=ref.section,
        identifier=ref.identifier,
        offset=ref.offset,
        size=ref.size,
    )


def _claim(ref: ContentRef) -> ContentClaim:
    return ContentClaim(
        ResourceClaim(ref.container, ref.section, ref.identifier),
        ref.offset,
        ref.size,
        ref.checksum,
    )


def event_model(event: ProvenanceEvent) -> ProvenanceEventModel:
    return ProvenanceEventModel(
        event_id=event.event_id,
        event_time=event.event_time,
        event_type=event.event_type,
        flowfile_uuid=event.flowfile_uuid,
        component_id=event.component_id,
        component_type=event.component_type,
        entry_date=event.entry_date,
        lineage_start_date=event.lineage_start_date,
        event_duration=event.event_duration,
        parent_uuids=list(event.parent_uuids),
        child_uuids=list(event.child_uuids),
        attributes=event.attributes,
        previous_attributes=dict(event.previous_attributes),
        updated_attributes=dict(event.updated_attributes),
        input_content=_ref(event.previous_content),
        output_content=_ref(event.current_content),
        details=event.details,
        relationship=event.relationship,
        transit_uri=event.transit_uri,
        source_queue_id=event.source_queue_id,
        size=event.size,
    )


# -- security -------------------------------------------------------------------------------

bearer = HTTPBearer(auto_error=False, description="A token from FLOWCORE_API_TOKENS.")


def _authorizer(tokens: Tokens) -> Any:
    # async: a plain ``def`` dependency would cost every secured request a thread hop.
    async def authorize(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> None:
        if tokens.open:
            return
        given = None if credentials is None else f"{credentials.scheme} {credentials.credentials}"
        tokens.check(given, request.method)

    return authorize


# -- metrics --------------------------------------------------------------------------------


class _NodeCollector(Collector):
    def __init__(self, node: Node) -> None:
        self._node = node

    def collect(self) -> Iterable[Metric]:
        node = self._node
        count = GaugeMetricFamily(
            "flowcore_queue_flowfiles", "FlowFiles queued per connection", labels=["connection"]
        )
        size = GaugeMetricFamily(
            "flowcore_queue_bytes", "Bytes queued per connection", labels=["connection"]
        )
        pressure = GaugeMetricFamily(
            "flowcore_queue_back_pressure",
            "1 when back pressure is engaged on the connection",
            labels=["connection"],
        )
        view = node.status_view
        for connection in view.connections():
            count.add_metric([connection.name], connection.queued)
            size.add_metric([connection.name], connection.bytes)
            pressure.add_metric([connection.name], 1 if connection.back_pressure else 0)
        yield from (count, size, pressure)
        families = {
            key: GaugeMetricFamily(
                f"flowcore_processor_{key}",
                f"Processor {key.replace('_', ' ')} (running total)",
                labels=["processor"],
            )
            for key in ("flowfiles_in", "flowfiles_out", "bytes_in", "bytes_out", "runs")
        }
        running = GaugeMetricFamily(
            "flowcore_processor_running", "1 when the processor is RUNNING", labels=["processor"]
        )
        for processor in view.processors():
            values = {
                "flowfiles_in": processor.flowfiles_in,
                "flowfiles_out": processor.flowfiles_out,
                "bytes_in": processor.bytes_in,
                "bytes_out": processor.bytes_out,
                "runs": processor.runs,
            }
            for key, family in families.items():
                family.add_metric([processor.name], values[key])
            running.add_metric(
                [processor.name], 1 if processor.run_state is RunState.RUNNING else 0
            )
        yield from families.values()
        yield running
        lag = GaugeMetricFamily(
            "flowcore_provenance_index_lag_events",
            "Provenance events journaled but not yet indexed (queryable)",
        )
        provenance = view.provenance()
        if provenance is None:  # a closed repository: report nothing rather than fail
            return
        lag.add_metric([], provenance.not_indexed)
        yield lag


def _metrics(node: Node) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_NodeCollector(node))
    latency = Histogram(
        "flowcore_commit_seconds",
        "Session commit latency by component",
        ["component"],
        registry=registry,
        buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    )

    def on_commit(changes: SessionChanges, seconds: float) -> None:
        latency.labels(changes.binding.component_id).observe(seconds)

    node.committer.add_listener(CommitListener(on_commit=on_commit))
    return registry


# -- the application ------------------------------------------------------------------------


def create_app(node: Node, settings: ApiSettings | None = None) -> FastAPI:
    """A FastAPI application serving ``node``."""
    settings = settings or ApiSettings()
    limit = settings.max_body_bytes
    registry = _metrics(node)
    nifi_registry = nifi_metrics_registry(node)
    tokens = Tokens(settings)
    batcher = EnqueueBatcher(node, offload=node.settings.durability == "power")

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await batcher.close()

    app = FlowcoreAPI(
        title="flowcore",
        version="1",
        description="Enqueue FlowFiles, watch the flow, query provenance and lineage, replay.",
        lifespan=lifespan,
    )
    app.state.node = node
    app.state.settings = settings
    secured = [Depends(_authorizer(tokens))]
    # Small single enqueues are answered before FastAPI's middleware and routing (same
    # checks, same answers); the route below documents them and serves the rest.
    app.lean = LeanEnqueue(
        node=node,
        batcher=batcher,
        tokens=tokens,
        prefix=API,
        small_body=SMALL_BODY,
        max_body=limit,
        retry_after_seconds=settings.retry_after_seconds,
    )
    auth_errors = _errors(401, 403)

    @app.exception_handler(BadInput)
    async def bad_input(_request: Request, exc: BadInput) -> JSONResponse:
        headers = {"Connection": "close"} if exc.status == 413 else None
        return JSONResponse({"detail": exc.detail}, status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        """Every error body has a string ``detail``, as documented: name each problem."""
        problems = []
        for error in exc.errors():
            where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
            problems.append(
                f"{where}: {error.get('msg', 'invalid')}"
                if where
                else str(error.get("msg", "invalid"))
            )
        return JSONResponse({"detail": "; ".join(problems) or "invalid request"}, status_code=422)

    @app.exception_handler(RepositoryError)
    async def repository_failure(request: Request, exc: RepositoryError) -> JSONResponse:
        """507 when a repository is full, else 503 with ``Retry-After``: never a 500.

        The message names the repository and the setting that mends it.
        """
        detail = repository_detail(exc)
        log.warning("%s %s failed: %s", request.method, request.url.path, detail)
        if isinstance(exc, RepositoryFullError):
            return JSONResponse(
                {"detail": detail}, status_code=507, headers={"Connection": "close"}
            )
        return JSONResponse(
            {"detail": detail},
            status_code=503,
            headers={"Retry-After": str(settings.retry_after_seconds)},
        )

    @app.exception_handler(ClientDisconnect)
    async def client_gone(request: Request, _exc: ClientDisconnect) -> Response:
        """The client went away before its body arrived: nothing was enqueued. Not an
        error of the server: one warning line, no traceback."""
        log.warning(
            "client disconnected during %s %s before the body arrived; nothing was enqueued",
            request.method,
            request.url.path,
        )
        return JSONResponse({"detail": "the client disconnected"}, status_code=400)

    @app.exception_handler(BackPressureError)
    async def back_pressure(_request: Request, exc: BackPressureError) -> JSONResponse:
        return JSONResponse(
            {"detail": str(exc)},
            status_code=503,
            headers={"Retry-After": str(settings.retry_after_seconds)},
        )

    # -- ports ----------------------------------------------------------------------------

    @app.post(
        f"{API}/ports/{{port}}/flowfiles",
        status_code=201,
        response_model=UuidResult,
        dependencies=secured,
        tags=["ports"],
        summary="Enqueue one FlowFile: the body is its content",
        responses={**auth_errors, **_errors(400, 404, 413, 422), **_unavailable(), **_full()},
        openapi_extra={
            "requestBody": {
                "required": False,
                "content": {"application/octet-stream": {"schema": {"type": "string"}}},
            }
        },
    )
    async def post_flowfile(
        request: Request,
        port: Annotated[str, Path(description="Input port name.")],
        x_flowfile_attributes: Annotated[
            str | None,
            Header(description='Attributes as a JSON object of strings, e.g. {"a": "b"}.'),
        ] = None,
    ) -> UuidResult:
        attributes = parse_attribute_header(x_flowfile_attributes)
        if port not in node.input_ports:
            raise HTTPException(404, f"no input port named '{port}'")
        declared = check_declared_size(request, limit)
        if declared is not None and declared <= SMALL_BODY:
            # Small and sized (the lean route answers these first; here for an app used
            # without its middleware): read whole, committed with the concurrent ones.
            if CoreAttribute.UUID in attributes:
                raise BadInput(422, "the 'uuid' attribute cannot be set")
            body = await read_body(request, limit)
            return UuidResult(uuid=await batcher.enqueue(port, EnqueueItem(body, attributes)))
        try:
            upload = node.open_upload(port, attributes)
        except ValueError as exc:
            raise BadInput(422, str(exc)) from None
        # The body streams into the content repository chunk by chunk; past the limit
        # (or on any error) the upload is aborted and nothing is left behind. The commit
        # takes its turn in the commit queue, in arrival order with the port's others.
        try:
            async for chunk in request.stream():
                if upload.size + len(chunk) > limit:
                    raise BadInput(413, f"the body exceeds the maximum size of {limit} bytes")
                upload.write(chunk)
            uuid = await batcher.commit_upload(port, upload)
        except BaseException:
            upload.abort()
            raise
        return UuidResult(uuid=uuid)

    @app.post(
        f"{API}/ports/{{port}}/flowfiles/batch",
        status_code=201,
        response_model=UuidsResult,
        dependencies=secured,
        tags=["ports"],
        summary="Enqueue FlowFiles from NDJSON, all or none, in one session",
        responses={**auth_errors, **_errors(400, 404, 413, 422), **_unavailable(), **_full()},
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    NDJSON: {
                        "schema": {
                            "type": "string",
                            "description": 'One {"attributes": {...}, "content": "..."} '
                            '(or "content_base64") per line.',
                        }
                    }
                },
            }
        },
    )
    async def post_batch(
        request: Request, port: Annotated[str, Path(description="Input port name.")]
    ) -> Response:
        if port not in node.input_ports:
            raise HTTPException(404, f"no input port named '{port}'")
        items = parse_ndjson(await read_body(request, limit))
        try:
            uuids = await batcher.enqueue_all(port, items)
        except ValueError as exc:
            raise BadInput(422, str(exc)) from None
        # Encoded here rather than validated again against ``UuidsResult`` (the schema it
        # documents): hundreds of uuids are plain strings.
        return Response(
            _UUIDS.encode({"uuids": uuids}),
            status_code=201,
            media_type="application/json",
        )

    # -- flow -----------------------------------------------------------------------------

    view = node.status_view

    def processor_status(name: str) -> ProcessorStatus:
        processor = view.processor(name)
        return ProcessorStatus(
            name=name,
            type=processor.type,
            run_state=processor.run_state.value,
            runs=processor.runs,
            flowfiles_in=processor.flowfiles_in,
            bytes_in=processor.bytes_in,
            flowfiles_out=processor.flowfiles_out,
            bytes_out=processor.bytes_out,
            commits=processor.commits,
            last_errors=[
                ProcessorError(time=e.time_ms, message=e.message) for e in processor.errors
            ],
        )

    @app.get(
        f"{API}/flow",
        response_model=FlowStatus,
        dependencies=secured,
        tags=["flow"],
        responses=auth_errors,
    )
    def get_flow() -> FlowStatus:
        connections = [
            ConnectionStatus(
                name=c.name,
                source=c.source,
                destination=c.destination,
                relationships=list(c.relationships),
                queued_count=c.queued,
                queued_bytes=c.bytes,
                swapped=c.swapped,
                in_flight=c.in_flight,
                back_pressure=c.back_pressure,
            )
            for c in view.connections()
        ]
        return FlowStatus(
            input_ports=[port.name for port in view.input_ports()],
            processors=[processor_status(name) for name in node.processors],
            connections=connections,
        )

    @app.post(
        f"{API}/processors/{{name}}/run-status",
        response_model=ProcessorStatus,
        dependencies=secured,
        tags=["flow"],
        responses={**auth_errors, **_errors(400, 404)},
    )
    def set_run_status(name: str, body: RunStatusRequest) -> ProcessorStatus:
        processor = node.processors.get(name)
        if processor is None:
            raise HTTPException(404, f"no processor named '{name}'")
        if body.state == "RUNNING":
            processor.start()
        elif processor.run_state is RunState.RUNNING:
            processor.stop()
        return processor_status(name)

    # -- FlowFiles and queues ---------------------------------------------------------------

    @app.get(
        f"{API}/flowfiles/{{uuid}}",
        response_model=FlowFileInfo,
        dependencies=secured,
        tags=["flowfiles"],
        responses={**auth_errors, **_errors(404), **_unavailable()},
    )
    def get_flowfile(uuid: str, wait_for_index: WaitForIndex = False) -> FlowFileInfo:
        found = node.locate(uuid)
        if found is not None:
            flowfile = found.flowfile
            return FlowFileInfo(
                uuid=uuid,
                status=found.state,
                connection=found.connection.name,
                position=found.position,
                attributes=dict(flowfile.attributes),
                size=flowfile.size,
                entry_date=flowfile.entry_date,
                lineage_start_date=flowfile.lineage_start_date,
                penalized=flowfile.penalty_expiration > node.clock.now_ms(),
            )
        if wait_for_index:
            node.index_provenance()
        events = node.provenance.search(ProvenanceQuery(flowfile_uuid=uuid, limit=1))
        if not events:
            raise HTTPException(404, f"no FlowFile with uuid '{uuid}'{not_indexed_note()}")
        last = events[0]
        return FlowFileInfo(
            uuid=uuid,
            status="LEFT_FLOW" if last.event_type in TERMINAL_EVENTS else "NOT_QUEUED",
            attributes=last.attributes,
            size=last.size,
            entry_date=last.entry_date,
            lineage_start_date=last.lineage_start_date,
            last_event_id=last.event_id,
            last_event_type=last.event_type,
        )

    @app.get(
        f"{API}/connections/{{name}}/flowfiles",
        response_model=QueueListing,
        dependencies=secured,
        tags=["flowfiles"],
        responses={**auth_errors, **_errors(404), **_unavailable()},
    )
    def list_queue(
        name: str,
        offset: Annotated[int, Query(ge=0, le=MAX_INT64)] = 0,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> QueueListing:
        connection = node.connections.get(name)
        if connection is None:
            raise HTTPException(404, f"no connection named '{name}'")
        records = connection.queue.listing()
        swapped = view.connection(name).swapped
        page = records[offset : offset + limit]
        return QueueListing(
            connection=name,
            total=len(records),
            swapped=swapped,
            offset=offset,
            limit=limit,
            flowfiles=[
                FlowFileSummary(
                    uuid=r.flowfile.uuid,
                    position=offset + i,
                    filename=r.flowfile.attributes.get("filename"),
                    size=r.flowfile.size,
                    entry_date=r.flowfile.entry_date,
                    lineage_start_date=r.flowfile.lineage_start_date,
                    penalized=r.flowfile.penalty_expiration > node.clock.now_ms(),
                    penalty_expiration=r.flowfile.penalty_expiration,
                    attributes=dict(r.flowfile.attributes),
                )
                for i, r in enumerate(page)
            ],
        )

    # -- provenance -----------------------------------------------------------------------

    @app.get(
        f"{API}/provenance/events",
        response_model=ProvenanceSearchResult,
        dependencies=secured,
        tags=["provenance"],
        responses={**auth_errors, **_errors(422), **_unavailable()},
        openapi_extra={
            "parameters": [
                {
                    "name": "attribute.<name>",
                    "in": "query",
                    "required": False,
                    "description": "attribute.<name>=<value>: the attribute must have the "
                    "value (repeatable with different names).",
                    "schema": {"type": "string"},
                }
            ]
        },
    )
    def search_events(
        request: Request,
        flowfile_uuid: str | None = None,
        event_type: str | None = None,
        component: Annotated[str | None, Query(description="Component id (name).")] = None,
        start: Annotated[
            str | None, Query(description="Epoch ms or ISO 8601; events at or after.")
        ] = None,
        end: Annotated[
            str | None, Query(description="Epoch ms or ISO 8601; events at or before.")
        ] = None,
        details: Annotated[str | None, Query(description="Case-insensitive substring.")] = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        cursor: Annotated[str | None, Query(description="`next_cursor` of a page.")] = None,
        wait_for_index: WaitForIndex = False,
    ) -> ProvenanceSearchResult:
        attributes = {
            key[len("attribute.") :]: value
            for key, value in request.query_params.multi_items()
            if key.startswith("attribute.") and len(key) > len("attribute.")
        }
        before: int | None = None
        if cursor is not None:
            before = parse_bounded(cursor, "cursor", "a `next_cursor` this API gave out")
        if event_type is not None:
            event_type = event_type.upper()
            if event_type not in ProvenanceEventType.__members__:
                raise BadInput(422, f"unknown event type '{event_type}'")
        query = ProvenanceQuery(
            flowfile_uuid=flowfile_uuid,
            event_type=event_type,
            component_id=component,
            start_ms=parse_time(start, "start"),
            end_ms=parse_time(end, "end"),
            details=details,
            attributes=attributes,
            limit=limit,
            before_event_id=before,
        )
        if wait_for_index:
            node.index_provenance()
        events = node.provenance.search(query)
        next_cursor = str(events[-1].event_id) if len(events) == limit else None
        return ProvenanceSearchResult(
            events=[event_model(e) for e in events], next_cursor=next_cursor
        )

    def not_indexed_note() -> str:
        """What a miss may be owed to: events journaled and not yet indexed (a GET reads
        what is indexed and never indexes unless asked to with ``wait_for_index``)."""
        provenance = view.provenance()
        if provenance is None or provenance.not_indexed == 0:
            return ""
        return (
            f" ({provenance.not_indexed} provenance events are not yet indexed; "
            "ask with wait_for_index=true to index them first)"
        )

    def _event(event_id: int, wait: bool) -> ProvenanceEvent:
        if wait:
            node.index_provenance()
        event = node.provenance.get_event(event_id)
        if event is None:
            raise HTTPException(404, f"no provenance event with id {event_id}{not_indexed_note()}")
        return event

    def _available(ref: ContentRef | None) -> bool:
        return ref is not None and node.content.exists(_claim(ref))

    @app.get(
        f"{API}/provenance/events/{{event_id}}",
        response_model=ProvenanceEventModel,
        dependencies=secured,
        tags=["provenance"],
        responses={**auth_errors, **_errors(404), **_unavailable()},
    )
    def get_event(event_id: EventId, wait_for_index: WaitForIndex = False) -> ProvenanceEventModel:
        event = _event(event_id, wait_for_index)
        model = event_model(event)
        model.input_content_available = _available(event.previous_content)
        model.output_content_available = _available(event.current_content)
        return model

    def _content(event_id: int, which: Literal["input", "output"], wait: bool) -> Response:
        event = _event(event_id, wait)
        ref = event.previous_content if which == "input" else event.current_content
        if ref is None:
            raise HTTPException(404, f"event {event_id} has no {which} content")
        claim = _claim(ref)
        if not node.content.exists(claim):
            raise HTTPException(410, f"the {which} content of event {event_id} has aged off")
        try:
            data = node.content.read(claim, 0, ref.size)  # checked against its checksum
        except ContentNotFoundError as exc:  # damaged (ContentCorruptedError) or torn
            raise HTTPException(
                410, f"the {which} content of event {event_id} cannot be served: {exc}"
            ) from None
        except (FileNotFoundError, OSError):
            raise HTTPException(
                410, f"the {which} content of event {event_id} has aged off"
            ) from None
        mime = event.attributes.get("mime.type", "application/octet-stream")
        filename = event.attributes.get("filename", f"event-{event_id}-{which}")
        safe = "".join(c for c in filename if c.isalnum() or c in "._-") or "content"
        return Response(
            data,
            media_type=mime,
            headers={"Content-Disposition": f'attachment; filename="{safe}"'},
        )

    content_responses: dict[int | str, dict[str, Any]] = {
        200: {"content": {"application/octet-stream": {"schema": {"type": "string"}}}},
        **auth_errors,
        **_errors(404, 410),
        **_unavailable(),
    }

    @app.get(
        f"{API}/provenance/events/{{event_id}}/content/input",
        response_class=Response,
        dependencies=secured,
        tags=["provenance"],
        responses=content_responses,
    )
    def get_input_content(event_id: EventId, wait_for_index: WaitForIndex = False) -> Response:
        return _content(event_id, "input", wait_for_index)

    @app.get(
        f"{API}/provenance/events/{{event_id}}/content/output",
        response_class=Response,
        dependencies=secured,
        tags=["provenance"],
        responses=content_responses,
    )
    def get_output_content(event_id: EventId, wait_for_index: WaitForIndex = False) -> Response:
        return _content(event_id, "output", wait_for_index)

    @app.post(
        f"{API}/provenance/events/{{event_id}}/replay",
        status_code=201,
        response_model=UuidResult,
        dependencies=secured,
        tags=["provenance"],
        responses={**auth_errors, **_errors(404, 409, 410), **_unavailable(), **_full()},
    )
    def replay(event_id: EventId) -> UuidResult:
        try:
            return UuidResult(uuid=node.replay(event_id))
        except KeyError:
            raise HTTPException(404, f"no provenance event with id {event_id}") from None
        except ReplayError as exc:
            status = 410 if exc.reason == "content-gone" else 409
            raise HTTPException(status, f"cannot replay event {event_id}: {exc}") from None

    @app.get(
        f"{API}/provenance/lineage/{{uuid}}",
        response_model=LineageResult,
        dependencies=secured,
        tags=["provenance"],
        responses={**auth_errors, **_errors(404), **_unavailable()},
    )
    def lineage(uuid: str, wait_for_index: WaitForIndex = False) -> LineageResult:
        if wait_for_index:
            node.index_provenance()
        graph = node.provenance.lineage(uuid)
        if not graph.nodes:
            raise HTTPException(
                404, f"no provenance events for FlowFile '{uuid}'{not_indexed_note()}"
            )
        reasons = merge_reasons(node.provenance, graph)
        return LineageResult(
            nodes=[
                LineageNodeModel(
                    id=n.id,
                    type=n.node_type,
                    flowfile_uuid=n.flowfile_uuid,
                    timestamp=n.timestamp,
                    event_type=n.event_type,
                    event_id=n.event_id,
                    details=reasons.get(n.id),
                )
                for n in graph.nodes
            ],
            links=[
                LineageLinkModel(
                    source_id=link.source_id,
                    target_id=link.target_id,
                    flowfile_uuid=link.flowfile_uuid,
                    timestamp=link.timestamp,
                )
                for link in graph.links
            ],
        )

    # -- operations -----------------------------------------------------------------------

    @app.get("/healthz", response_model=Health, tags=["operations"])
    def healthz() -> Health:
        return Health(status="ok")

    @app.get(
        "/metrics",
        response_class=Response,
        dependencies=secured,
        tags=["operations"],
        responses={
            200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}},
            **auth_errors,
        },
    )
    def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    @app.get(
        "/nifi-api/flow/metrics/prometheus",
        response_class=Response,
        dependencies=secured,
        tags=["operations"],
        responses={
            200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}},
            **auth_errors,
        },
    )
    def nifi_metrics() -> Response:
        """The flow's status under NiFi 2's Prometheus series names and labels."""
        return Response(generate_latest(nifi_registry), media_type=CONTENT_TYPE_LATEST)

    @app.get(
        f"{API}/bulletins",
        response_model=BulletinBoardResult,
        dependencies=secured,
        tags=["operations"],
        responses=auth_errors,
    )
    def bulletins(
        after: Annotated[
            int | None, Query(ge=-1, le=MAX_INT64, description="Only bulletins after this id.")
        ] = None,
        limit: Annotated[
            int | None, Query(ge=1, le=10_000, description="At most this many (the newest).")
        ] = None,
    ) -> BulletinBoardResult:
        """The node's recent warnings and errors, as NiFi's bulletin board."""
        entities = []
        for b in node.bulletins.list(after=after, limit=limit):
            stamp = _iso(b.time_ms)
            entities.append(
                BulletinEntity(
                    id=b.id,
                    sourceId=b.component_id,
                    groupId="root",
                    timestamp=stamp,
                    bulletin=BulletinModel(
                        id=b.id,
                        category=b.category,
                        groupId="root",
                        sourceId=b.component_id,
                        sourceName=b.component_name,
                        sourceType=b.component_type,
                        level="ERROR" if b.level == "ERROR" else "WARNING",
                        message=b.message,
                        timestamp=stamp,
                        timestampMillis=b.time_ms,
                    ),
                )
            )
        generated = _iso(node.clock.now_ms())
        return BulletinBoardResult(
            bulletinBoard=BulletinBoardModel(bulletins=entities, generated=generated)
        )

    def openapi() -> dict[str, Any]:
        """The schema, with every 422 documented as the string ``detail`` it really is."""
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.setdefault("ErrorBody", ErrorBody.model_json_schema())
            error_ref = {"$ref": "#/components/schemas/ErrorBody"}
            for operations in schema.get("paths", {}).values():
                for operation in operations.values():
                    response = operation.get("responses", {}).get("422")
                    if response is not None:
                        response["content"] = {"application/json": {"schema": error_ref}}
            components.pop("HTTPValidationError", None)
            components.pop("ValidationError", None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.include_router(ui_router(node, secured))
    mount_ui(app)  # the web UI's page and assets, after every API route
    app.openapi = openapi  # type: ignore[method-assign]
    return app
