"""The REST API's request and response models, and the error answers each route documents."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


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


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorBody} for code in codes}


RETRY_AFTER = {
    "Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "string"}}
}


def unavailable() -> dict[int | str, dict[str, Any]]:
    """503: a repository cannot serve now (or back pressure); retry after ``Retry-After``."""
    return {503: {"model": ErrorBody, "headers": RETRY_AFTER}}


def full() -> dict[int | str, dict[str, Any]]:
    """507: a repository is full; the message names the setting to change."""
    return {507: {"model": ErrorBody}}


AUTH_ERRORS = errors(401, 403)
