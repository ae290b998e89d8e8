"""The FlowFile repository contract: the write-ahead log of FlowFile state, by role.

One ``commit`` is one atomic, ordered change: the FlowFiles a session put (with the
connection each now waits in), the ids it deleted, the provenance events it produced
(appended to a journal that the provenance repository indexes from), the processor
state it changed and its keyed-state writes. Either all of it is recovered after a crash
or none of it is.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

import msgspec

from flowcore.model.flowfile import FlowFile, ResourceClaim
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository.identity import IdentifiedRepository
from flowcore.repository.provenance import ProvenanceJournal

if TYPE_CHECKING:
    from flowcore.settings import EngineSettings


class QueuedFlowFile(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A FlowFile and where it waits: its connection and its place in that queue."""

    queue: str
    seq: int
    flowfile: FlowFile


class SwapSummary(msgspec.Struct, frozen=True):
    """What a swapped-out batch holds, kept so that recovery never reads the batch itself."""

    queue: str
    location: str
    count: int
    total_bytes: int
    max_flowfile_id: int
    min_seq: int
    max_seq: int
    resource_claims: list[tuple[ResourceClaim, int]]


@dataclass(frozen=True, slots=True)
class SwapOut:
    """A batch of one queue's FlowFiles that leaves memory in the same transaction.

    ``records`` are in queue order; some may be live records of earlier commits (they
    move from the live set into the batch), the others are put by this very update
    (they go straight into the batch and are not among its ``puts``).
    """

    queue: str
    records: list[QueuedFlowFile]


@dataclass(slots=True)
class RepositoryUpdate:
    """One session's changes, written in one transaction."""

    puts: list[QueuedFlowFile] = field(default_factory=list)
    deletes: list[int] = field(default_factory=list)
    events: list[ProvenanceEvent] = field(default_factory=list)
    state: dict[str, dict[str, str]] = field(default_factory=dict)
    keyed_state: dict[str, dict[bytes, bytes | None]] = field(default_factory=dict)
    """Per component: key -> new value, or ``None`` to delete the key."""
    swap_outs: list[SwapOut] = field(default_factory=list)

    def only_removes(self) -> bool:
        """Whether the update adds no FlowFile, swap batch, state or keyed value.

        Such an update (removals, with their DROP events) may use the room a repository
        holds back, so that a full repository can always be drained.
        """
        return (
            not self.puts
            and not self.swap_outs
            and not self.state
            and all(v is None for changes in self.keyed_state.values() for v in changes.values())
        )


def unstorable_text(update: RepositoryUpdate) -> str | None:
    """What in ``update`` is text a repository cannot store, described for a user; None
    when all of it can be.

    Text is stored as UTF-8, which has no form for a lone surrogate (Python's stand-in for
    a byte that is not UTF-8, as in a file name read with ``os.listdir``). A repository
    refuses such an update whole with ``FlowFileHandlingError`` and this description.
    """
    for record in update.puts:
        flowfile = record.flowfile
        for name, value in flowfile.attributes.items():
            for text in (name, value):
                if not _is_unicode(text):
                    return (
                        f"attribute {name!r} of FlowFile {flowfile.uuid} holds text that is "
                        f"not valid Unicode ({text!r}: a lone surrogate, such as a byte "
                        "of a file name that is not UTF-8)"
                    )
    for component, values in update.state.items():
        for key, value in values.items():
            if not (_is_unicode(key) and _is_unicode(value)):
                return f"the state of {component!r} holds text that is not valid Unicode"
    for event in update.events:
        if not all(_is_unicode(text) for text in _event_texts(event)):
            return f"a {event.event_type} provenance event holds text that is not valid Unicode"
    return None


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _event_texts(event: ProvenanceEvent) -> list[str]:
    optional = (
        event.details,
        event.transit_uri,
        event.relationship,
        event.alternate_identifier,
        event.source_queue_id,
        event.source_system_flowfile_id,
    )
    texts = [event.flowfile_uuid, event.component_id, event.component_type]
    texts += event.parent_uuids + event.child_uuids
    texts += [text for text in optional if text is not None]
    for attributes in (event.previous_attributes, event.updated_attributes):
        texts += attributes
        texts += [value for value in attributes.values() if value is not None]
    return texts


MAX_KEYED_STATE_KEY = 400
"""The longest keyed-state key, in bytes (LMDB keys are short; hash longer values)."""


@dataclass(frozen=True, slots=True)
class KeyedStateItem:
    """One committed key of a component's keyed state."""

    key: bytes
    value: bytes


@dataclass(frozen=True, slots=True)
class CommitReceipt:
    """The outcome of a durable commit: the ids given to the session's events and the
    summaries of the swap batches written, in the order of ``RepositoryUpdate.swap_outs``."""

    event_ids: Sequence[int]
    swapped: Sequence[SwapSummary] = ()


@dataclass(slots=True)
class RecoveredState:
    """Everything the engine needs to resume, rebuilt from the repository alone."""

    queues: dict[str, list[QueuedFlowFile]]
    swapped: dict[str, list[SwapSummary]]
    next_flowfile_id: int
    next_event_id: int
    claim_references: Counter[ResourceClaim]
    next_seq: dict[str, int]


class WriteAheadLog(Protocol):
    """The write-ahead log of FlowFile state: atomic commits and recovery from them."""

    @property
    @abstractmethod
    def durability(self) -> Literal["process", "power"]:
        """``process``: survives kill -9; ``power``: also survives power loss (fsync)."""

    @abstractmethod
    def commit(self, update: RepositoryUpdate) -> CommitReceipt:
        """Write ``update`` atomically; concurrent callers may share one transaction.

        Raises ``CommitFailedError`` (and writes nothing) if the change cannot be stored:
        ``RepositoryFullError`` when there is no room. An update that ``only_removes``
        may use room held back for it, so a full repository can still be drained.
        """

    @abstractmethod
    def recover(self) -> RecoveredState:
        """Rebuild queues, swap state, claim references and id counters."""

    @abstractmethod
    def sync(self) -> None:
        """Make every commit so far durable against power loss."""


class SwapStore(Protocol):
    """Where swapped-out batches wait (written by ``RepositoryUpdate.swap_outs``)."""

    @abstractmethod
    def swap_in(self, summary: SwapSummary) -> list[QueuedFlowFile]:
        """Move a swapped batch back into the live set and return it in queue order."""

    @abstractmethod
    def read_swapped(self, summary: SwapSummary) -> list[QueuedFlowFile]:
        """The FlowFiles of a swapped batch, read without swapping them in."""


class ProcessorStateStore(Protocol):
    """Components' committed LOCAL state maps (written by ``RepositoryUpdate.state``)."""

    @abstractmethod
    def load_state(self, component_id: str) -> dict[str, str]:
        """The committed LOCAL state of a component (empty if it has none)."""


class KeyedStateStore(Protocol):
    """Components' committed keyed state (written by ``RepositoryUpdate.keyed_state``)."""

    @abstractmethod
    def load_keyed(self, component_id: str, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        """The committed values of those keys of a component's keyed state that exist."""

    @abstractmethod
    def scan_keyed(
        self, component_id: str, prefix: bytes, after: bytes | None, limit: int
    ) -> list[KeyedStateItem]:
        """Up to ``limit`` committed keys starting with ``prefix``, above ``after``, in order."""


class FlowFileRepository(
    IdentifiedRepository,
    WriteAheadLog,
    SwapStore,
    ProcessorStateStore,
    KeyedStateStore,
    ProvenanceJournal,
):
    """Durable FlowFile state, processor state and the provenance journal: every role.

    Callers depend on the narrowest role they use (``WriteAheadLog``, ``SwapStore``,
    ``ProcessorStateStore``, ``KeyedStateStore``, ``ProvenanceJournal``); only what opens
    and closes the repository (the node, the CLI, repair) holds the whole of it.
    """

    @classmethod
    def restart_event_ids(cls, settings: EngineSettings, next_event_id: int) -> int:
        """For ``flowcore repair``, on the closed repository: the next event gets
        ``next_event_id``; journaled events below it are dropped. Returns how many."""
        raise NotImplementedError

    @abstractmethod
    def close(self) -> None: ...
