"""The data model: FlowFiles, content claims and provenance events."""

from flowcore.model.flowfile import (
    ContentClaim,
    CoreAttribute,
    FlowFile,
    ResourceClaim,
)
from flowcore.model.provenance import ContentRef, ProvenanceEvent, ProvenanceEventType

__all__ = [
    "ContentClaim",
    "ContentRef",
    "CoreAttribute",
    "FlowFile",
    "ProvenanceEvent",
    "ProvenanceEventType",
    "ResourceClaim",
]
