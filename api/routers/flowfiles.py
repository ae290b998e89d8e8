"""FlowFiles: where one is (queued, in process, or left the flow) and a queue's listing."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from api.deps import API, NodeDep, WaitForIndex
from api.inputs import MAX_INT64
from api.models import (
    AUTH_ERRORS,
    FlowFileInfo,
    FlowFileSummary,
    QueueListing,
    errors,
    unavailable,
)
from api.security import SECURED
from api.views import not_indexed_note
from flowcore.model.provenance import ProvenanceEventType
from flowcore.repository.provenance import ProvenanceQuery

TERMINAL_EVENTS = frozenset({ProvenanceEventType.DROP.value, ProvenanceEventType.EXPIRE.value})

router = APIRouter()


@router.get(
    f"{API}/flowfiles/{{uuid}}",
    response_model=FlowFileInfo,
    dependencies=SECURED,
    tags=["flowfiles"],
    responses={**AUTH_ERRORS, **errors(404), **unavailable()},
)
def get_flowfile(uuid: str, node: NodeDep, wait_for_index: WaitForIndex = False) -> FlowFileInfo:
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
        raise HTTPException(404, f"no FlowFile with uuid '{uuid}'{not_indexed_note(node)}")
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


@router.get(
    f"{API}/connections/{{name}}/flowfiles",
    response_model=QueueListing,
    dependencies=SECURED,
    tags=["flowfiles"],
    responses={**AUTH_ERRORS, **errors(404), **unavailable()},
)
def list_queue(
    name: str,
    node: NodeDep,
    offset: Annotated[int, Query(ge=0, le=MAX_INT64)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> QueueListing:
    connection = node.connections.get(name)
    if connection is None:
        raise HTTPException(404, f"no connection named '{name}'")
    records = connection.queue.listing()
    swapped = node.status_view.connection(name).swapped
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
