"""The journal of a FlowFile repository as provenance tests drive it: events are appended
by commit (ids assigned as a session's commit assigns them), read and trimmed."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository import FlowFileRepository, RepositoryUpdate


class FlowFileRepositoryJournal:
    """The journal of a real (or twin) FlowFile repository: events go in through ``commit``."""

    def __init__(self, repository: FlowFileRepository) -> None:
        self.repository = repository

    def append(self, events: Sequence[ProvenanceEvent]) -> list[ProvenanceEvent]:
        """Journal ``events``; returns them with their assigned ids."""
        receipt = self.repository.commit(RepositoryUpdate(events=list(events)))
        return [
            msgspec.structs.replace(event, event_id=event_id)
            for event, event_id in zip(events, receipt.event_ids, strict=True)
        ]

    def read_journal(self, after_event_id: int, limit: int) -> list[ProvenanceEvent]:
        return self.repository.read_journal(after_event_id, limit)

    def trim_journal(self, through_event_id: int) -> int:
        return self.repository.trim_journal(through_event_id)

    def journal_size(self) -> int:
        return self.repository.journal_size()

    def size(self) -> int:
        return self.repository.journal_size()
