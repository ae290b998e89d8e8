"""The process session: a unit of work on FlowFiles that commits atomically.

A session takes FlowFiles from its component's incoming connections, creates, clones,
reads, writes and routes them, and either commits all of it through the one commit
path (``flowcore.session.commit``) or rolls all of it back. It generates the provenance
events NiFi generates (CREATE, FORK, JOIN, CLONE, CONTENT_MODIFIED, ATTRIBUTES_MODIFIED,
DROP, and auto-terminate DROPs last) and drops spurious ones.

Claim accounting: a FlowFile version holds one reference to its resource claim. A
reference taken in this session (a write, a clone) is *owned*; it is dropped at once if
the session replaces it and on rollback. References committed before the session are
released only after the commit that let them go (step 4 of the commit path).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import BinaryIO

from flowcore.errors import (
    ContentCorruptedError,
    ContentNotFoundError,
    FlowFileHandlingError,
    SessionStateError,
)
from flowcore.logsafe import safe_logger
from flowcore.model.flowfile import ContentClaim, CoreAttribute, FlowFile
from flowcore.model.provenance import ProvenanceEvent, ProvenanceEventType
from flowcore.processor.descriptors import Relationship
from flowcore.queue.queue import FlowFileQueue
from flowcore.repository.content import ContentWriter
from flowcore.repository.flowfile import QueuedFlowFile
from flowcore.session.binding import ComponentBinding
from flowcore.session.commit import SessionChanges
from flowcore.session.content_errors import (
    CONTENT_ERROR_REASON,
    FAILURE,
    has_failure_route,
)
from flowcore.session.events import EventBuilder
from flowcore.session.keyed_state import KeyedState
from flowcore.session.ledger import SessionLedger
from flowcore.session.planner import CommitPlanner
from flowcore.session.records import SessionRecord, describe
from flowcore.session.reporter import ProvenanceReporter, ReportedEvent
from flowcore.session.services import SessionServices
from flowcore.session.uuids import random_uuid

log = safe_logger("flowcore.session")

T = ProvenanceEventType
_CHUNK = 1 << 20
_ENRICHED_AT_REPORT = frozenset({T.SEND, T.UPLOAD, T.CLONE})
# The core attribute names as plain strings: an enum member's ``.value`` is a descriptor
# call, and plain keys keep every attribute map's keys ``str``.
_UUID: str = CoreAttribute.UUID.value
_FILENAME: str = CoreAttribute.FILENAME.value
_PATH: str = CoreAttribute.PATH.value


class SessionStatus(Enum):
    OPEN = "open"
    COMMITTING = "committing"


class ProcessSession:
    """NiFi's ProcessSession: get, create, clone, read, write, route, commit, roll back."""

    def __init__(self, binding: ComponentBinding, services: SessionServices) -> None:
        self._binding = binding
        self._services = services
        self._clock = services.clock
        self._content = services.content
        self._events = EventBuilder(binding)
        self._planner = CommitPlanner(binding, services, self._events)
        self.provenance = ProvenanceReporter(
            self._add_reported, self._clock.now_ms, self._freeze_reported, self._write_forced
        )
        self._status = SessionStatus.OPEN
        self._reset()

    def _reset(self) -> None:
        self._ledger = ledger = SessionLedger()
        # The verbs' shortcut to the records (the same dict as the ledger's).
        self._records = ledger.records

    # -- guards ---------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._status is not SessionStatus.OPEN:
            msg = f"the session is {self._status.value}"
            raise SessionStateError(msg)

    def _record(self, flowfile: FlowFile) -> SessionRecord:
        if self._status is not SessionStatus.OPEN:
            self._check_open()
        record = self._records.get(flowfile.id)
        if record is None:
            msg = f"{describe(flowfile)} is not known in this session"
            raise FlowFileHandlingError(msg)
        if record.current is not flowfile:
            msg = f"{describe(flowfile)} is not the most recent version of this FlowFile"
            raise FlowFileHandlingError(msg)
        if record.removed and not record.auto_terminated:
            msg = f"{describe(flowfile)} has already been removed from the session"
            raise FlowFileHandlingError(msg)
        return record

    def _update(self, record: SessionRecord, flowfile: FlowFile) -> FlowFile:
        record.current = flowfile
        return flowfile

    # -- getting FlowFiles ----------------------------------------------------------------

    def get(self) -> FlowFile | None:
        batch = self.get_batch(1)
        return batch[0] if batch else None

    def get_batch(self, max_results: int, max_bytes: int | None = None) -> list[FlowFile]:
        """Up to ``max_results`` FlowFiles from the incoming connections, in priority order.

        With ``max_bytes``, FlowFiles are taken while those taken hold fewer bytes than
        that (the first is always taken), as NiFi's size-based FlowFileFilter."""
        self._check_open()
        incoming = self._binding.incoming
        if not incoming or max_results <= 0:
            return []
        now = self._clock.now_ms()
        result: list[FlowFile] = []
        count = len(incoming)
        start = self._binding.poll_index
        records = self._records
        taken = self._ledger.taken
        size = 0
        for offset in range(count):
            queue = incoming[(start + offset) % count]
            budget = None if max_bytes is None else max_bytes - size
            if budget is not None and budget <= 0:
                self._binding.poll_index = (start + offset) % count
                break
            for queued in queue.poll_batch(max_results - len(result), now, budget):
                record = SessionRecord(
                    original=queued.flowfile,
                    current=queued.flowfile,
                    source=queue,
                    taken=queued,
                    entered_ms=now,
                )
                records[queued.flowfile.id] = record
                taken[queued.flowfile.id] = record
                result.append(queued.flowfile)
                size += queued.flowfile.size
            if len(result) >= max_results:
                self._binding.poll_index = (start + offset + 1) % count
                break
        return result

    def get_each(self, max_results: int, max_bytes: int) -> list[FlowFile]:
        """What calling ``get`` gives, called until ``max_results`` FlowFiles are taken or
        those taken hold ``max_bytes`` or more: one connection after another, as ``get``
        takes them. From a single incoming connection that is ``get_batch``, one poll of
        its queue instead of one per FlowFile."""
        if len(self._binding.incoming) == 1:
            return self.get_batch(max_results, max_bytes=max_bytes)
        flowfiles: list[FlowFile] = []
        size = 0
        while len(flowfiles) < max_results and size < max_bytes:
            flowfile = self.get()
            if flowfile is None:
                break
            flowfiles.append(flowfile)
            size += flowfile.size
        return flowfiles

    @property
    def queue_size(self) -> int:
        return sum(queue.size for queue in self._binding.incoming)

    def loops_back(self, relationship: Relationship | str) -> bool:
        """Whether FlowFiles routed to ``relationship`` come straight back to this component.

        True when the relationship is not auto-terminated and has exactly one connection,
        one of the component's own incoming ones (a self-loop such as EnforceOrder's
        ``wait``). A processor may then keep such a FlowFile in flight, untouched, instead
        of sending it round the loop.
        """
        name = str(relationship)
        if name in self._binding.auto_terminated:
            return False
        queues = self._binding.outgoing.get(name, [])
        return len(queues) == 1 and any(queues[0] is queue for queue in self._binding.incoming)

    # -- creating FlowFiles ---------------------------------------------------------------

    def create(
        self, parent: FlowFile | Sequence[FlowFile] | None = None, *, uuid: str | None = None
    ) -> FlowFile:
        """A new FlowFile; from one parent (FORK) or several (JOIN) it inherits attributes.

        ``uuid`` is for the framework's receivers that keep a FlowFile's identity (the
        TestRunner's ``enqueue`` with a given uuid); processors leave it to the session.
        """
        self._check_open()
        now = self._clock.now_ms()
        new_uuid = uuid or random_uuid()
        if parent is None:
            attributes = {_UUID: new_uuid, _FILENAME: new_uuid, _PATH: "./"}
            lineage_start = now
        elif isinstance(parent, FlowFile):
            self._record(parent)
            attributes = dict(parent.attributes)
            attributes[_UUID] = new_uuid
            lineage_start = parent.lineage_start_date
        else:
            parents = list(parent)
            if not parents:
                return self.create()
            for each in parents:
                self._record(each)
            attributes = _intersection([p.attributes for p in parents])
            attributes[_UUID] = new_uuid
            attributes.setdefault(_FILENAME, new_uuid)
            attributes.setdefault(_PATH, "./")
            lineage_start = min(p.lineage_start_date for p in parents)
        flowfile = FlowFile(
            id=self._services.ids.next(),
            attributes=attributes,
            claim=None,
            claim_offset=0,
            size=0,
            entry_date=now,
            lineage_start_date=lineage_start,
        )
        self._records[flowfile.id] = SessionRecord(original=None, current=flowfile, entered_ms=now)
        if isinstance(parent, FlowFile):
            self._ledger.forks.setdefault(parent.id, []).append(flowfile.id)
        elif parent is not None:
            self._ledger.joins.append((flowfile.id, list(parent)))
        return flowfile

    def clone(self, flowfile: FlowFile, offset: int = 0, size: int | None = None) -> FlowFile:
        """A copy sharing the content claim; a byte range of it points into the same claim."""
        self._record(flowfile)
        whole = offset == 0 and (size is None or size == flowfile.size)
        length = flowfile.size - offset if size is None else size
        if offset < 0 or length < 0 or offset + length > flowfile.size:
            msg = f"range {offset}+{length} is outside the {flowfile.size} bytes of the FlowFile"
            raise FlowFileHandlingError(msg)
        now = self._clock.now_ms()
        attributes = dict(flowfile.attributes)
        attributes[_UUID] = random_uuid()
        child = FlowFile(
            id=self._services.ids.next(),
            attributes=attributes,
            claim=flowfile.claim,
            claim_offset=flowfile.claim_offset + offset,
            size=length,
            entry_date=now,
            lineage_start_date=flowfile.lineage_start_date,
        )
        if child.claim is not None:
            self._content.increment(child.claim.resource)
        self._records[child.id] = SessionRecord(
            original=None, current=child, owns_claim=child.claim is not None, entered_ms=now
        )
        if whole:
            self.provenance.clone(flowfile, child)
        else:
            self._ledger.forks.setdefault(flowfile.id, []).append(child.id)
        return child

    def replay(self, parent: FlowFile, source: FlowFileQueue, details: str) -> FlowFile:
        """A new FlowFile replaying ``parent`` (the framework's provenance replay).

        ``parent`` is the FlowFile as a provenance event recorded it. The new one shares
        its content claim (a reference this session owns until it commits), keeps its
        attributes but for a new ``uuid`` and NiFi's ``flowfile.replay`` and
        ``flowfile.replay.timestamp``, and counts as taken from ``source``: ``transfer``
        with no relationship puts it there. The REPLAY event (parent to child) is built
        now, as NiFi builds it when the FlowFile is replayed.
        """
        self._check_open()
        now = self._clock.now_ms()
        new_uuid = random_uuid()
        child = parent.with_changes(
            id=self._services.ids.next(),
            attributes={
                **parent.attributes,
                _UUID: new_uuid,
                "flowfile.replay": "true",
                "flowfile.replay.timestamp": str(now),
            },
            entry_date=now,
            penalty_expiration=0,
        )
        if child.claim is not None:
            self._content.increment(child.claim.resource)
        self._records[child.id] = SessionRecord(
            original=parent,
            current=child,
            source=source,
            owns_claim=child.claim is not None,
            entered_ms=now,
        )
        event = ReportedEvent(
            T.REPLAY, child, now, details=details, parents=[parent.uuid], children=[new_uuid]
        )
        event.frozen = self._freeze_reported(event)
        self._ledger.reported.append(event)
        return child

    # -- content --------------------------------------------------------------------------

    def read(self, flowfile: FlowFile) -> bytes:
        self._record(flowfile)
        if flowfile.claim is None or flowfile.size == 0:
            return b""
        return self._read_range(flowfile, flowfile.claim, flowfile.claim_offset, flowfile.size)

    def read_many(self, flowfiles: Sequence[FlowFile]) -> list[bytes]:
        """The content of each FlowFile, in order, as ``read`` gives it (and raising what
        ``read`` raises for the first that cannot be read); contents that share a file
        are read together."""
        ranges: list[tuple[ContentClaim, int, int]] = []
        for flowfile in flowfiles:
            self._record(flowfile)
            if flowfile.claim is not None and flowfile.size:
                ranges.append((flowfile.claim, flowfile.claim_offset, flowfile.size))
        try:
            read = iter(self._content.read_many(ranges))
        except ContentNotFoundError:
            return [self.read(flowfile) for flowfile in flowfiles]  # names the one missing
        return [
            next(read) if flowfile.claim is not None and flowfile.size else b""
            for flowfile in flowfiles
        ]

    def stream(self, flowfile: FlowFile, chunk_size: int = _CHUNK) -> Iterator[bytes]:
        """The content in chunks, never all of it in memory.

        Content that is a whole claim is checked as it streams: if it is damaged, the last
        chunk is never handed over (``ContentCorruptedError`` is raised instead).
        """
        self._record(flowfile)
        claim = flowfile.claim
        if claim is None or flowfile.size == 0:
            return
        try:
            yield from self._content.stream(claim, flowfile.claim_offset, flowfile.size, chunk_size)
        except ContentNotFoundError as exc:
            self._ledger.content_missing[flowfile.id] = (claim, exc)
            raise

    def _read_range(
        self, flowfile: FlowFile, claim: ContentClaim, offset: int, length: int
    ) -> bytes:
        """Read content; remember a FlowFile whose content is missing (see ``rollback``)."""
        try:
            return self._content.read(claim, offset, length)
        except ContentNotFoundError as exc:
            self._ledger.content_missing[flowfile.id] = (claim, exc)
            raise

    def write(
        self,
        flowfile: FlowFile,
        content: bytes | bytearray | memoryview | Callable[[ContentWriter], None],
    ) -> FlowFile:
        """Replace the content (copy-on-write into a new claim)."""
        record = self._record(flowfile)
        if not callable(content):
            # Whole bytes: the repository's one-call write, no writer object.
            return self._replace_claim(record, self._content.write(content))
        writer = self._content.create_writer()
        try:
            content(writer)
        except BaseException:
            writer.abort()
            raise
        return self._replace_claim(record, writer.close())

    def append(
        self,
        flowfile: FlowFile,
        content: bytes | bytearray | memoryview | Callable[[ContentWriter], None],
    ) -> FlowFile:
        """Content followed by more bytes, as a new claim (the old claim is untouched)."""

        def copy_then_add(writer: ContentWriter) -> None:
            for chunk in self.stream(flowfile):
                writer.write(chunk)
            if callable(content):
                content(writer)
            else:
                writer.write(content)

        return self.write(flowfile, copy_then_add)

    def open_write(self, flowfile: FlowFile) -> OpenContent:
        """Replace the content through a writer that stays open across calls and triggers.

        Write to the handle as records arrive, then ``close()`` it for the new FlowFile
        version (or ``abort()``). The FlowFile cannot be used otherwise while it is open, a
        commit refuses open handles, and a rollback aborts them.
        """
        self._record(flowfile)
        if flowfile.id in self._ledger.open:
            msg = f"{describe(flowfile)} already has content open for writing"
            raise FlowFileHandlingError(msg)
        writer = self._content.create_writer()
        self._ledger.open[flowfile.id] = writer
        return OpenContent(self, flowfile, writer)

    def _close_open(self, handle: OpenContent) -> FlowFile:
        writer = self._ledger.open.pop(handle.flowfile.id, None)
        if writer is None:
            msg = f"the content of {describe(handle.flowfile)} is not open in this session"
            raise FlowFileHandlingError(msg)
        record = self._record(handle.flowfile)
        return self._replace_claim(record, writer.close())

    def _abort_open(self, handle: OpenContent) -> None:
        writer = self._ledger.open.pop(handle.flowfile.id, None)
        if writer is not None:
            writer.abort()

    def import_from(self, path: Path, flowfile: FlowFile) -> FlowFile:
        """Content from a file, streamed."""

        def copy(writer: ContentWriter) -> None:
            with path.open("rb") as source:
                while chunk := source.read(_CHUNK):
                    writer.write(chunk)

        return self.write(flowfile, copy)

    def export_to(self, flowfile: FlowFile, target: BinaryIO) -> int:
        """Stream the content into an open binary file; returns the bytes written."""
        written = 0
        for chunk in self.stream(flowfile):
            target.write(chunk)
            written += len(chunk)
        return written

    def _replace_claim(self, record: SessionRecord, claim: ContentClaim) -> FlowFile:
        self._ledger.written.add(claim.resource)
        old = record.current
        if record.owns_claim and old.claim is not None:
            self._content.decrement(old.claim.resource)
        record.owns_claim = True
        return self._update(
            record, old.with_changes(claim=claim, claim_offset=0, size=claim.length)
        )

    # -- attributes -----------------------------------------------------------------------

    def put_attribute(self, flowfile: FlowFile, key: str, value: str) -> FlowFile:
        return self.put_all_attributes(flowfile, {key: value})

    def put_all_attributes(self, flowfile: FlowFile, attributes: Mapping[str, str]) -> FlowFile:
        """Set attributes; ``uuid`` cannot change and is ignored, as in NiFi."""
        record = self._record(flowfile)
        merged = dict(flowfile.attributes)
        for key, value in attributes.items():
            if key != CoreAttribute.UUID:
                merged[key] = str(value)
        return self._update(record, flowfile.with_changes(attributes=merged))

    def remove_attribute(self, flowfile: FlowFile, key: str) -> FlowFile:
        return self.remove_all_attributes(flowfile, [key])

    def remove_all_attributes(self, flowfile: FlowFile, keys: Sequence[str]) -> FlowFile:
        record = self._record(flowfile)
        remaining = {
            k: v for k, v in flowfile.attributes.items() if k not in keys or k == CoreAttribute.UUID
        }
        return self._update(record, flowfile.with_changes(attributes=remaining))

    # -- routing --------------------------------------------------------------------------

    def transfer(self, flowfile: FlowFile, relationship: Relationship | str | None = None) -> None:
        """Route to a relationship, or with none back to the connection it came from."""
        record = self._record(flowfile)
        if relationship is None:
            if record.source is None:
                msg = f"{describe(flowfile)} was created in this session and has no source queue"
                raise FlowFileHandlingError(msg)
            record.to_source, record.relationship = True, None
            self._ledger.transfers += 1
            record.transfer_seq = self._ledger.transfers
            return
        name = str(relationship)
        if name not in self._binding.relationships:
            msg = f"relationship '{name}' is not known to {self._binding.component_type}"
            raise FlowFileHandlingError(msg)
        record.relationship, record.to_source = name, False
        self._ledger.transfers += 1
        record.transfer_seq = self._ledger.transfers

    def remove(self, flowfile: FlowFile) -> None:
        """Drop a FlowFile from the flow (a DROP event if it existed before this session)."""
        record = self._record(flowfile)
        if record.original is not None:
            self.provenance.drop(flowfile, details=_discard_reason(flowfile))
        else:
            self._forget_created(flowfile)
        record.removed = True

    def penalize(self, flowfile: FlowFile) -> FlowFile:
        record = self._record(flowfile)
        expiration = self._clock.now_ms() + self._binding.penalty_ms
        return self._update(record, flowfile.with_changes(penalty_expiration=expiration))

    def _forget_created(self, flowfile: FlowFile) -> None:
        ledger = self._ledger
        for children in ledger.forks.values():
            if flowfile.id in children:
                children.remove(flowfile.id)
        ledger.joins = [(child, parents) for child, parents in ledger.joins if child != flowfile.id]
        ledger.reported = [e for e in ledger.reported if e.flowfile.id != flowfile.id]

    # -- state ----------------------------------------------------------------------------

    def get_state(self) -> dict[str, str]:
        """The component's LOCAL state as this session sees it."""
        self._check_open()
        state = self._ledger.state
        return dict(state if state is not None else self._binding.state.values)

    def set_state(self, values: Mapping[str, str]) -> None:
        """Replace the LOCAL state; it is committed with the session's FlowFiles."""
        self._check_open()
        self._ledger.state = {str(k): str(v) for k, v in values.items()}

    def clear_state(self) -> None:
        self.set_state({})

    @property
    def keyed_state(self) -> KeyedState:
        """The component's keyed durable store; writes commit with this session."""
        self._check_open()
        ledger = self._ledger
        if ledger.keyed is None:
            ledger.keyed = KeyedState(
                self._binding.component_id, self._services.committer.flowfiles
            )
        return ledger.keyed

    def adjust_counter(self, name: str, delta: int) -> None:
        """Add to a named counter of this component; applied when the session commits."""
        self._check_open()
        self._ledger.counters[name] = self._ledger.counters.get(name, 0) + delta

    # -- migration (session-factory processors) -------------------------------------------

    def migrate(self, target: ProcessSession, flowfiles: Sequence[FlowFile]) -> None:
        """Hand FlowFiles, with their pending events, to another session of this component."""
        ids = {self._record(f).current.id for f in flowfiles}
        if ids & set(self._ledger.open):
            msg = "cannot migrate a FlowFile whose content is open for writing"
            raise FlowFileHandlingError(msg)
        forks = self._ledger.forks
        if any(ids & set(children) or parent in ids for parent, children in forks.items()):
            msg = "cannot migrate FlowFiles that take part in a FORK of this session"
            raise FlowFileHandlingError(msg)
        # In the order given, so the target rolls them back in that order.
        for flowfile_id in dict.fromkeys(f.id for f in flowfiles):
            record = self._records.pop(flowfile_id)
            target._records[flowfile_id] = record
            if record.taken is not None:
                del self._ledger.taken[flowfile_id]
                target._ledger.taken[flowfile_id] = record
            if record.owns_claim and record.current.claim is not None:
                target._ledger.written.add(record.current.claim.resource)
        moved = [e for e in self._ledger.reported if e.flowfile.id in ids]
        self._ledger.reported = [e for e in self._ledger.reported if e.flowfile.id not in ids]
        target._ledger.reported.extend(moved)

    # -- commit and rollback --------------------------------------------------------------

    def _has_nothing_to_do(self) -> bool:
        return self._ledger.is_empty()

    def commit(self) -> None:
        """Commit through the one commit path; on failure roll back and raise.

        As in NiFi, a failed commit returns the FlowFiles to their queues without penalty;
        the framework's rollback that follows finds nothing left to do.
        """
        self._check_open()
        if self._has_nothing_to_do():
            return
        if self._ledger.open:
            # A usage error, refused before anything happens: the session stays as it is.
            flowfile = self._records[next(iter(self._ledger.open))].current
            msg = f"{describe(flowfile)} still has content open for writing"
            raise FlowFileHandlingError(msg)
        self._status = SessionStatus.COMMITTING
        changes: SessionChanges | None = None
        try:
            changes = self._planner.plan(self._ledger, self._clock.now_ms())
            self._services.committer.commit(changes, self._clock.now_ms())
        except BaseException:
            self._status = SessionStatus.OPEN
            if changes is not None and changes.durable:
                # Its transaction happened: the work stands; never roll it back.
                self._reset()
            else:
                self.rollback()
            raise
        self._reset()
        self._status = SessionStatus.OPEN

    def rollback(self, penalize: bool = False) -> None:
        """Undo everything: FlowFiles return to their queues (penalized if asked).

        A FlowFile whose own content could not be read does not return to be retried
        forever: see ``_settle_unreadable``.
        """
        if self._has_nothing_to_do():
            return
        now = self._clock.now_ms()
        for record in self._records.values():
            if record.owns_claim and record.current.claim is not None:
                self._content.decrement(record.current.claim.resource)
                record.owns_claim = False
        for writer in self._ledger.open.values():
            writer.abort()
        self._ledger.open.clear()
        unreadable = self._unreadable_taken()
        settled = {r.taken.flowfile.id for r in unreadable if r.taken is not None}
        by_queue: dict[FlowFileQueue, list[QueuedFlowFile]] = {}
        for record in self._ledger.taken.values():
            assert record.source is not None and record.taken is not None
            if record.taken.flowfile.id in settled:
                continue
            queued = record.taken
            if penalize:
                expiration = now + self._binding.penalty_ms
                queued = QueuedFlowFile(
                    queued.queue,
                    queued.seq,
                    queued.flowfile.with_changes(penalty_expiration=expiration),
                )
            by_queue.setdefault(record.source, []).append(queued)
        for queue, records in by_queue.items():
            queue.requeue(records, now)
        try:
            self._settle_unreadable(unreadable, now)
        finally:
            self._binding.stats.rollbacks += 1
            self._reset()

    def _unreadable_taken(self) -> list[SessionRecord]:
        """The FlowFiles taken from a queue whose committed content could not be read."""
        missing = self._ledger.content_missing
        if not missing:
            return []
        return [
            r
            for r in self._ledger.taken.values()
            if r.taken is not None
            and r.taken.flowfile.id in missing
            and missing[r.taken.flowfile.id][0] == r.taken.flowfile.claim
        ]

    def _settle_unreadable(self, records: list[SessionRecord], now: int) -> None:
        """Take FlowFiles whose content cannot be read out of the retry loop.

        Damaged content (``ContentCorruptedError``) goes to the processor's ``failure``
        relationship when it has one, with the reason in ``content.error.reason``. Missing
        content, and damaged content with no failure relationship, is removed as NiFi
        removes a FlowFile whose content is missing: in its own commit, with a DROP event
        whose details say why, and the error logged.
        """
        to_failure = has_failure_route(self._binding)
        damaged: list[SessionRecord] = []
        removed: list[SessionRecord] = []
        for record in records:
            assert record.taken is not None
            error = self._ledger.content_missing[record.taken.flowfile.id][1]
            failing = to_failure and isinstance(error, ContentCorruptedError)
            (damaged if failing else removed).append(record)
        if damaged:
            self._route_damaged_to_failure(damaged)
        if removed:
            self._remove_unreadable(removed, now)

    def _route_damaged_to_failure(self, records: list[SessionRecord]) -> None:
        """Commit, in a session of their own, the FlowFiles as they were taken plus
        ``content.error.reason``, penalized, to ``failure``. If that commit fails they go
        back to their queues (logged): the processor's own error is the one raised."""
        session = ProcessSession(self._binding, self._services)
        for record in records:
            assert record.source is not None and record.taken is not None
            original = record.taken.flowfile
            restored = SessionRecord(
                original=original,
                current=original,
                source=record.source,
                taken=record.taken,
                entered_ms=record.entered_ms,
            )
            session._records[original.id] = restored
            session._ledger.taken[original.id] = restored
            reason = str(self._ledger.content_missing[original.id][1])
            flowfile = session.put_attribute(original, CONTENT_ERROR_REASON, reason)
            session.transfer(session.penalize(flowfile), FAILURE)
            log.error("%s routed to failure: %s", describe(original), reason)
        try:
            session.commit()
        except Exception:
            log.exception("could not route FlowFiles with damaged content to failure")

    def _remove_unreadable(self, records: list[SessionRecord], now: int) -> None:
        changes = SessionChanges(binding=self._binding)
        for record in records:
            assert record.source is not None and record.taken is not None
            original = record.taken.flowfile
            error = self._ledger.content_missing[original.id][1]
            what = "damaged" if isinstance(error, ContentCorruptedError) else "missing"
            changes.taken.setdefault(record.source, []).append(record.taken)
            changes.deletes.append(original.id)
            if original.claim is not None:
                changes.released.append(original.claim.resource)
            details = f"Content {what.capitalize()}: {error}"
            drop = ReportedEvent(T.DROP, original, now, details=details)
            restored = SessionRecord(original=original, current=original, source=record.source)
            changes.events.append(self._events.event(drop, original, restored, now, now))
            log.error(
                "%s removed from the flow: its content is %s (%s)", describe(original), what, error
            )
        try:
            self._services.committer.commit(changes, now)
        except Exception:
            # Nothing was removed: back to their queues (the processor's own error is the
            # one raised), to be met again once the repository takes writes.
            log.exception("could not remove FlowFiles whose content is unreadable")
            for queue, taken in changes.taken.items():
                queue.requeue(taken, now)

    # -- provenance -----------------------------------------------------------------------

    def _add_reported(self, event: ReportedEvent) -> None:
        self._record(event.flowfile)
        self._ledger.reported.append(event)

    def _write_forced(self, event: ProvenanceEvent) -> None:
        """A forced SEND/UPLOAD is journaled at once and survives a later rollback."""
        self._services.committer.record_events([event])

    def _freeze_reported(self, reported: ReportedEvent) -> ProvenanceEvent:
        record = self._records.get(reported.flowfile.id)
        return self._events.event(reported, reported.flowfile, record, reported.time_ms)


def _intersection(maps: Sequence[Mapping[str, str]]) -> dict[str, str]:
    first, *rest = maps
    return {k: v for k, v in first.items() if all(m.get(k) == v for m in rest)}


def _discard_reason(flowfile: FlowFile) -> str | None:
    reason = flowfile.attributes.get(CoreAttribute.DISCARD_REASON)
    return f"Discard reason: {reason}" if reason else None


class OpenContent:
    """Content being written to a FlowFile across calls (``ProcessSession.open_write``)."""

    __slots__ = ("_session", "_writer", "flowfile")

    def __init__(self, session: ProcessSession, flowfile: FlowFile, writer: ContentWriter) -> None:
        self._session = session
        self._writer = writer
        self.flowfile = flowfile

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._writer.write(data)

    @property
    def bytes_written(self) -> int:
        return self._writer.bytes_written

    def close(self) -> FlowFile:
        """The new FlowFile version with the content written."""
        return self._session._close_open(self)

    def abort(self) -> None:
        self._session._abort_open(self)
