"""Provenance: search events, one event and its content, replay, a FlowFile's lineage.

GET handlers read what is indexed; they index the journaled events first only when asked
with ``wait_for_index``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request, Response

from api.deps import API, EventId, NodeDep, WaitForIndex
from api.inputs import BadInput, parse_bounded, parse_time
from api.models import (
    AUTH_ERRORS,
    LineageLinkModel,
    LineageNodeModel,
    LineageResult,
    ProvenanceEventModel,
    ProvenanceSearchResult,
    UuidResult,
    errors,
    full,
    unavailable,
)
from api.security import SECURED
from api.views import claim, event_model, not_indexed_note
from flowcore.engine.node import Node, ReplayError
from flowcore.errors import ContentNotFoundError
from flowcore.lineage_export import merge_reasons
from flowcore.model.provenance import ContentRef, ProvenanceEvent, ProvenanceEventType
from flowcore.repository.provenance import ProvenanceQuery

router = APIRouter()


@router.get(
    f"{API}/provenance/events",
    response_model=ProvenanceSearchResult,
    dependencies=SECURED,
    tags=["provenance"],
    responses={**AUTH_ERRORS, **errors(422), **unavailable()},
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
    node: NodeDep,
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
    return ProvenanceSearchResult(events=[event_model(e) for e in events], next_cursor=next_cursor)


def _event(node: Node, event_id: int, wait: bool) -> ProvenanceEvent:
    """The event (404 when there is none), after indexing when ``wait``."""
    if wait:
        node.index_provenance()
    event = node.provenance.get_event(event_id)
    if event is None:
        raise HTTPException(404, f"no provenance event with id {event_id}{not_indexed_note(node)}")
    return event


def _available(node: Node, ref: ContentRef | None) -> bool:
    return ref is not None and node.content.exists(claim(ref))


@router.get(
    f"{API}/provenance/events/{{event_id}}",
    response_model=ProvenanceEventModel,
    dependencies=SECURED,
    tags=["provenance"],
    responses={**AUTH_ERRORS, **errors(404), **unavailable()},
)
def get_event(
    event_id: EventId, node: NodeDep, wait_for_index: WaitForIndex = False
) -> ProvenanceEventModel:
    event = _event(node, event_id, wait_for_index)
    model = event_model(event)
    model.input_content_available = _available(node, event.previous_content)
    model.output_content_available = _available(node, event.current_content)
    return model


def _content(node: Node, event_id: int, which: Literal["input", "output"], wait: bool) -> Response:
    """The event's input or output content as a download: 404 without one, 410 when gone."""
    event = _event(node, event_id, wait)
    ref = event.previous_content if which == "input" else event.current_content
    if ref is None:
        raise HTTPException(404, f"event {event_id} has no {which} content")
    found = claim(ref)
    if not node.content.exists(found):
        raise HTTPException(410, f"the {which} content of event {event_id} has aged off")
    try:
        data = node.content.read(found, 0, ref.size)  # checked against its checksum
    except ContentNotFoundError as exc:  # damaged (ContentCorruptedError) or torn
        raise HTTPException(
            410, f"the {which} content of event {event_id} cannot be served: {exc}"
        ) from None
    except (FileNotFoundError, OSError):
        raise HTTPException(410, f"the {which} content of event {event_id} has aged off") from None
    mime = event.attributes.get("mime.type", "application/octet-stream")
    filename = event.attributes.get("filename", f"event-{event_id}-{which}")
    safe = "".join(c for c in filename if c.isalnum() or c in "._-") or "content"
    return Response(
        data,
        media_type=mime,
        headers={"Content-Disposition": f'attachment; filename="{safe}"'},
    )


_CONTENT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/octet-stream": {"schema": {"type": "string"}}}},
    **AUTH_ERRORS,
    **errors(404, 410),
    **unavailable(),
}


@router.get(
    f"{API}/provenance/events/{{event_id}}/content/input",
    response_class=Response,
    dependencies=SECURED,
    tags=["provenance"],
    responses=_CONTENT_RESPONSES,
)
def get_input_content(
    event_id: EventId, node: NodeDep, wait_for_index: WaitForIndex = False
) -> Response:
    return _content(node, event_id, "input", wait_for_index)


@router.get(
    f"{API}/provenance/events/{{event_id}}/content/output",
    response_class=Response,
    dependencies=SECURED,
    tags=["provenance"],
    responses=_CONTENT_RESPONSES,
)
def get_output_content(
    event_id: EventId, node: NodeDep, wait_for_index: WaitForIndex = False
) -> Response:
    return _content(node, event_id, "output", wait_for_index)


@router.post(
    f"{API}/provenance/events/{{event_id}}/replay",
    status_code=201,
    response_model=UuidResult,
    dependencies=SECURED,
    tags=["provenance"],
    responses={**AUTH_ERRORS, **errors(404, 409, 410), **unavailable(), **full()},
)
def replay(event_id: EventId, node: NodeDep) -> UuidResult:
    try:
        return UuidResult(uuid=node.replay(event_id))
    except KeyError:
        raise HTTPException(404, f"no provenance event with id {event_id}") from None
    except ReplayError as exc:
        status = 410 if exc.reason == "content-gone" else 409
        raise HTTPException(status, f"cannot replay event {event_id}: {exc}") from None


@router.get(
    f"{API}/provenance/lineage/{{uuid}}",
    response_model=LineageResult,
    dependencies=SECURED,
    tags=["provenance"],
    responses={**AUTH_ERRORS, **errors(404), **unavailable()},
)
def lineage(uuid: str, node: NodeDep, wait_for_index: WaitForIndex = False) -> LineageResult:
    if wait_for_index:
        node.index_provenance()
    graph = node.provenance.lineage(uuid)
    if not graph.nodes:
        raise HTTPException(
            404, f"no provenance events for FlowFile '{uuid}'{not_indexed_note(node)}"
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
