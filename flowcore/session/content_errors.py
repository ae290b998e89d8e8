"""Where a FlowFile goes when its content is found damaged, and the attribute saying why.

A FlowFile whose content fails its checksum is sent to the ``failure`` relationship of the
processor that read it, when that relationship is connected or auto-terminated, with the
reason in ``content.error.reason``; otherwise it is removed with a DROP event, as NiFi
removes a FlowFile whose content is missing (docs/failure-modes.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from flowcore.errors import ContentCorruptedError, ContentNotFoundError
from flowcore.model.flowfile import ContentClaim
from flowcore.session.binding import ComponentBinding
from flowcore.session.records import SessionRecord

CONTENT_ERROR_REASON = "content.error.reason"
FAILURE = "failure"


def has_failure_route(binding: ComponentBinding) -> bool:
    """Whether the component has a ``failure`` relationship that a FlowFile can take."""
    return FAILURE in binding.relationships and (
        bool(binding.outgoing.get(FAILURE)) or FAILURE in binding.auto_terminated
    )


def mark_damaged(
    records: Mapping[int, SessionRecord],
    unreadable: Mapping[int, tuple[ContentClaim, ContentNotFoundError]],
) -> None:
    """Give ``content.error.reason`` to each FlowFile a processor keeps in the flow (it
    caught the error itself) while it still points at content found damaged."""
    for flowfile_id, (claim, error) in unreadable.items():
        record = records.get(flowfile_id)
        if record is None or record.removed or not isinstance(error, ContentCorruptedError):
            continue
        current = record.current
        reason = str(error)
        if current.claim == claim and current.attributes.get(CONTENT_ERROR_REASON) != reason:
            attributes = {**current.attributes, CONTENT_ERROR_REASON: reason}
            record.current = current.with_changes(attributes=attributes)
