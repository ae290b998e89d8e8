"""The web UI: its static page at ``/`` and the few read endpoints it needs beyond the API.

The page (``api/static``: HTML, CSS, JavaScript and the vendored graph libraries) holds
no data, so it is served without a token; everything it shows comes from the API with the
bearer token the user gives it, so the UI has exactly the API's authentication. The
endpoints here add what the REST API did not expose: the flow's topology with each
component's kind and each connection's back-pressure thresholds, a processor's
configuration, and the content of a queued FlowFile. They read the engine through the
``Node``'s public surface only.
"""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated, Any, Literal

from fastapi import APIRouter, FastAPI, HTTPException, Query, Request
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from flowcore.engine.node import Node
from flowcore.engine.processor_node import ProcessorNode
from flowcore.errors import ContentNotFoundError
from flowcore.model.flowfile import FlowFile
from flowcore.units import format_data_size

STATIC = FilePath(__file__).parent / "static"
API = "/api/v1"
FUNNEL = "Funnel"
PREVIEW_LIMIT = 1024 * 1024
SENSITIVE_MASK = "********"


class ComponentModel(BaseModel):
    """A component on the canvas: an input port, a processor or a funnel."""

    id: str
    name: str
    kind: Literal["INPUT_PORT", "PROCESSOR", "FUNNEL"]
    type: str


class GraphConnectionModel(BaseModel):
    name: str
    source: str
    destination: str | None
    relationships: list[str]
    back_pressure_object_threshold: int = Field(description="0: no object threshold.")
    back_pressure_data_size_threshold: int = Field(description="Bytes; 0: no size threshold.")
    back_pressure_data_size: str = Field(description="The size threshold, e.g. '1 GB'.")


class FlowGraph(BaseModel):
    name: str
    components: list[ComponentModel]
    connections: list[GraphConnectionModel]


class PropertyModel(BaseModel):
    name: str
    display_name: str
    value: str | None = Field(description="Null when unset; sensitive values are masked.")
    default: str | None
    description: str
    required: bool
    sensitive: bool
    dynamic: bool


class RelationshipModel(BaseModel):
    name: str
    description: str
    auto_terminated: bool


class ScheduleModel(BaseModel):
    strategy: Literal["TIMER_DRIVEN"] = "TIMER_DRIVEN"
    run_schedule: str = Field(description="e.g. '0 sec'.")
    concurrent_tasks: int
    penalty_duration: str
    yield_duration: str
    max_runs: int | None


class ProcessorDetail(BaseModel):
    name: str
    type: str
    kind: Literal["PROCESSOR", "FUNNEL"]
    run_state: Literal["RUNNING", "STOPPED"]
    schedule: ScheduleModel
    properties: list[PropertyModel]
    relationships: list[RelationshipModel]
    validation_errors: list[str]


class ErrorBody(BaseModel):
    detail: str


def _period(ms: int) -> str:
    """Milliseconds as NiFi writes a time period: '30 sec', '250 millis'."""
    if ms % 1000:
        return f"{ms} millis"
    seconds = ms // 1000
    if seconds and seconds % 3600 == 0:
        return f"{seconds // 3600} hours" if seconds != 3600 else "1 hour"
    if seconds and seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} sec"


def _threshold(num_bytes: int) -> str:
    """A size threshold as it is usually written: '1 GB' when whole, else '1.50 GB'."""
    for unit, factor in (("TB", 1024**4), ("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if num_bytes >= factor and num_bytes % factor == 0:
            return f"{num_bytes // factor} {unit}"
    return format_data_size(num_bytes)


def _kind(processor: ProcessorNode) -> Literal["PROCESSOR", "FUNNEL"]:
    return "FUNNEL" if processor.type_name == FUNNEL else "PROCESSOR"


def processor_detail(processor: ProcessorNode) -> ProcessorDetail:
    """A processor's configuration as the processor panel shows it."""
    values = processor.properties
    descriptors = {**processor.descriptors, **processor.dynamic_descriptors()}
    properties = []
    for name, descriptor in descriptors.items():
        value = values.get(name)
        if value is not None and descriptor.sensitive:
            value = SENSITIVE_MASK
        properties.append(
            PropertyModel(
                name=name,
                display_name=descriptor.display_name or name,
                value=value,
                default=descriptor.default,
                description=descriptor.description,
                required=descriptor.required,
                sensitive=descriptor.sensitive,
                dynamic=name not in processor.descriptors,
            )
        )
    relationships = [
        RelationshipModel(
            name=r.name,
            description=r.description,
            auto_terminated=r.name in processor.auto_terminate,
        )
        for r in processor.processor.get_relationships(values)
    ]
    schedule = processor.schedule
    return ProcessorDetail(
        name=processor.name,
        type=processor.type_name,
        kind=_kind(processor),
        run_state=processor.run_state.value,
        schedule=ScheduleModel(
            run_schedule=_period(schedule.period_ms),
            concurrent_tasks=schedule.concurrent_tasks,
            penalty_duration=_period(schedule.penalty_ms),
            yield_duration=_period(schedule.yield_ms),
            max_runs=schedule.max_runs,
        ),
        properties=properties,
        relationships=relationships,
        validation_errors=_validation(processor),
    )


def _validation(processor: ProcessorNode) -> list[str]:
    """The processor's validation problems; a validator that fails is one itself."""
    try:
        return [str(r) for r in processor.validate()]
    except Exception as exc:  # a custom validation (e.g. a Python processor's) that raised
        return [f"validation failed: {exc}"]


def flow_graph(node: Node, name: str) -> FlowGraph:
    """The flow's components and connections, for drawing the canvas."""
    components = [
        ComponentModel(id=port, name=port, kind="INPUT_PORT", type="Input Port")
        for port in node.input_ports
    ]
    components += [
        ComponentModel(id=name, name=name, kind=_kind(p), type=p.type_name)
        for name, p in node.processors.items()
    ]
    connections = []
    for key, connection in node.connections.items():
        limits = connection.queue.back_pressure
        connections.append(
            GraphConnectionModel(
                name=key,
                source=connection.source,
                destination=connection.destination,
                relationships=list(connection.relationships),
                back_pressure_object_threshold=limits.object_threshold,
                back_pressure_data_size_threshold=limits.data_size_threshold,
                back_pressure_data_size=_threshold(limits.data_size_threshold),
            )
        )
    return FlowGraph(name=name, components=components, connections=connections)


def _queued(node: Node, connection: str, uuid: str) -> FlowFile:
    found = node.connections.get(connection)
    if found is None:
        raise HTTPException(404, f"no connection named '{connection}'")
    for record in found.queue.listing():
        if record.flowfile.uuid == uuid:
            return record.flowfile
    raise HTTPException(404, f"no FlowFile '{uuid}' queued in '{connection}'")


def ui_router(node: Node, dependencies: list[Any]) -> APIRouter:
    """The UI's endpoints, behind the same ``dependencies`` (authorization) as the API."""
    router = APIRouter(dependencies=dependencies, tags=["ui"])
    errors: dict[int | str, dict[str, Any]] = {
        code: {"model": ErrorBody} for code in (401, 403, 404)
    }

    @router.get(f"{API}/flow/graph", response_model=FlowGraph, responses=errors)
    def get_graph(request: Request) -> FlowGraph:
        """The canvas: input ports, processors, funnels and connections with thresholds."""
        return flow_graph(node, getattr(request.app.state, "flow_name", "flow"))

    @router.get(f"{API}/processors/{{name}}", response_model=ProcessorDetail, responses=errors)
    def get_processor(name: str) -> ProcessorDetail:
        """A processor's properties, schedule, relationships and validation."""
        processor = node.processors.get(name)
        if processor is None:
            raise HTTPException(404, f"no processor named '{name}'")
        return processor_detail(processor)

    @router.get(
        f"{API}/connections/{{name}}/flowfiles/{{uuid}}/content",
        response_class=Response,
        responses={
            200: {"content": {"application/octet-stream": {"schema": {"type": "string"}}}},
            **errors,
            410: {"model": ErrorBody},
        },
    )
    def get_queued_content(
        name: str,
        uuid: str,
        max_bytes: Annotated[
            int | None,
            Query(ge=0, le=PREVIEW_LIMIT, description="Only the first bytes (a preview)."),
        ] = None,
        download: Annotated[bool, Query(description="Sent as an attachment.")] = False,
    ) -> Response:
        """The content of a FlowFile waiting in a queue, as NiFi's queue listing offers."""
        flowfile = _queued(node, name, uuid)
        length = flowfile.size if max_bytes is None else min(max_bytes, flowfile.size)
        data = b""
        if flowfile.claim is not None and length:
            try:
                data = node.content.read(flowfile.claim, flowfile.claim_offset, length)
            except (ContentNotFoundError, OSError) as exc:
                raise HTTPException(410, f"the content of '{uuid}' cannot be read: {exc}") from None
        filename = flowfile.attributes.get("filename", uuid)
        safe = "".join(c for c in filename if c.isalnum() or c in "._-") or "content"
        disposition = "attachment" if download else "inline"
        return Response(
            data,
            media_type=flowfile.attributes.get("mime.type", "application/octet-stream"),
            headers={
                "Content-Disposition": f'{disposition}; filename="{safe}"',
                "X-FlowFile-Size": str(flowfile.size),
            },
        )

    return router


def mount_ui(app: FastAPI) -> None:
    """``/`` serves the page; ``/ui/`` its assets (no data, so no token needed)."""

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/ui", StaticFiles(directory=STATIC), name="ui")
