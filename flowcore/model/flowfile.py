"""FlowFiles and the claims that point at their content.

A FlowFile is an immutable value: attributes plus a pointer into the content repository.
Every change yields a new version with the same ``id`` and ``uuid``. Content is never
held in the FlowFile; it lives in a *resource claim* (one file on disk) at a *content
claim* (offset and length inside that file), and the FlowFile may see only a range of
its content claim (``claim_offset`` and ``size``) so that a split can point into its
parent's content without copying it.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec


class CoreAttribute(StrEnum):
    """Attributes every FlowFile carries, as NiFi names them."""

    UUID = "uuid"
    FILENAME = "filename"
    PATH = "path"
    DISCARD_REASON = "discard.reason"
    ALTERNATE_IDENTIFIER = "alternate.identifier"


class ResourceClaim(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One file of the content repository: ``<container>/<section>/<id>``."""

    container: str
    section: str
    id: str

    def __str__(self) -> str:
        return f"{self.container}/{self.section}/{self.id}"


class ContentClaim(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A range of bytes inside a resource claim, written once and never modified.

    ``checksum`` is the xxh3_64 of those bytes, taken by the content repository while it
    wrote them (``flowcore.repository.checksum``); a read of the whole claim checks it.
    None for a claim recorded before checksums existed: such a claim is not checked.
    """

    resource: ResourceClaim
    offset: int
    length: int
    checksum: int | None = None


class FlowFile(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """An immutable FlowFile version.

    ``attributes`` always holds ``uuid``, ``filename`` and ``path``. Treat the mapping as
    read-only: session methods return new versions instead of changing it. FlowFiles hold
    only strings, numbers and claims, so they can never be part of a reference cycle and
    are kept out of the garbage collector's tracking (``gc=False``): millions of them sit
    in queues.
    """

    id: int
    attributes: dict[str, str]
    claim: ContentClaim | None
    claim_offset: int
    size: int
    entry_date: int
    lineage_start_date: int
    penalty_expiration: int = 0

    @property
    def uuid(self) -> str:
        return self.attributes["uuid"]  # CoreAttribute.UUID, without the enum lookup

    def get_attribute(self, name: str) -> str | None:
        return self.attributes.get(name)

    def is_penalized(self, now_ms: int) -> bool:
        return self.penalty_expiration > now_ms

    def with_changes(self, **changes: object) -> FlowFile:
        """A new version of this FlowFile with the given fields replaced."""
        return msgspec.structs.replace(self, **changes)
