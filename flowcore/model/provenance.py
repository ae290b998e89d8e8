"""Provenance events, with the fields of NiFi's event record."""

from __future__ import annotations

from enum import StrEnum

import msgspec


class ProvenanceEventType(StrEnum):
    """Every event type NiFi defines."""

    CREATE = "CREATE"
    RECEIVE = "RECEIVE"
    FETCH = "FETCH"
    SEND = "SEND"
    UPLOAD = "UPLOAD"
    REMOTE_INVOCATION = "REMOTE_INVOCATION"
    DOWNLOAD = "DOWNLOAD"
    DROP = "DROP"
    EXPIRE = "EXPIRE"
    FORK = "FORK"
    JOIN = "JOIN"
    CLONE = "CLONE"
    CONTENT_MODIFIED = "CONTENT_MODIFIED"
    ATTRIBUTES_MODIFIED = "ATTRIBUTES_MODIFIED"
    ROUTE = "ROUTE"
    ADDINFO = "ADDINFO"
    REPLAY = "REPLAY"
    UNKNOWN = "UNKNOWN"


class ContentRef(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """Where an event's content was: resource claim, byte offset in the file, size.

    ``checksum``: the content claim's checksum when the FlowFile's content was the whole
    claim (so that a download or a replay can check it), else None.
    """

    container: str
    section: str
    identifier: str
    offset: int
    size: int
    checksum: int | None = None


class ProvenanceEvent(msgspec.Struct, kw_only=True, gc=False):
    """One provenance event.

    ``event_id`` is -1 until the FlowFile repository assigns it inside the commit's
    transaction. ``updated_attributes`` holds only what changed: a removed attribute maps
    to ``None``. The effective attributes are ``previous_attributes`` overlaid with it.
    """

    event_id: int = -1
    event_time: int
    event_type: str
    flowfile_uuid: str
    component_id: str
    component_type: str
    entry_date: int = 0
    lineage_start_date: int = 0
    event_duration: int = -1
    parent_uuids: list[str] = msgspec.field(default_factory=list)
    child_uuids: list[str] = msgspec.field(default_factory=list)
    previous_attributes: dict[str, str] = msgspec.field(default_factory=dict)
    updated_attributes: dict[str, str | None] = msgspec.field(default_factory=dict)
    previous_content: ContentRef | None = None
    current_content: ContentRef | None = None
    details: str | None = None
    relationship: str | None = None
    transit_uri: str | None = None
    source_system_flowfile_id: str | None = None
    alternate_identifier: str | None = None
    source_queue_id: str | None = None
    size: int = 0

    @property
    def attributes(self) -> dict[str, str]:
        """The FlowFile's attributes after the event."""
        merged = dict(self.previous_attributes)
        for key, value in self.updated_attributes.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        return merged
