"""Bulletins: the node's recent warnings and errors, each tied to the component it is about.

As in NiFi, where a component's log message at WARN or above becomes a bulletin, a
bulletin comes from: a processor's own log at WARNING or above; a processor failing (its
trigger raised, the session rolled back); a FlowFile routed to ``failure`` with a reason
attribute (``*.failure.reason``, ``*.error.reason``, ``*.error.message``); and a repository
warning. The board keeps the newest ``capacity`` of them in memory and appends each to
``bulletins.jsonl`` in the data directory (rewritten to the newest ``capacity`` when it
grows past twice that), so ``flowcore bulletins`` reads them on a stopped node and a
restarted node continues the ids. See ``docs/bulletins-and-metrics.md``.
"""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import msgspec

from flowcore.clock import Clock
from flowcore.session.commit import CommitListener, SessionChanges

BULLETIN_FILE = "bulletins.jsonl"
DEFAULT_CAPACITY = 1000
REASON_SUFFIXES = (".failure.reason", ".error.reason", ".error.message")
"""Attributes naming why a FlowFile went to failure (putfile.failure.reason, ...)."""
FAILURE = "failure"
AUTO_TERMINATED_FAILURE = f"Auto-Terminated by {FAILURE} Relationship"
COMPONENT_ID = "bulletin_component_id"
COMPONENT_TYPE = "bulletin_component_type"
MESSAGE = "bulletin_message"
"""``extra`` keys a log record may carry to name its component and a short message."""

_REPOSITORIES = {
    "lmdb_flowfile": "FlowFile Repository",
    "flowfile": "FlowFile Repository",
    "filesystem_content": "Content Repository",
    "content": "Content Repository",
    "duckdb_provenance": "Provenance Repository",
    "provenance": "Provenance Repository",
}


@dataclass(frozen=True, slots=True)
class Bulletin:
    id: int
    level: str
    category: str
    component_type: str
    component_name: str
    component_id: str
    message: str
    time_ms: int


class BulletinBoard:
    """A bounded ring of bulletins, mirrored to a JSON-lines file when given one."""

    def __init__(self, clock: Clock, path: Path | None, capacity: int = DEFAULT_CAPACITY) -> None:
        self._clock = clock
        self._path = path
        self._capacity = capacity
        self._lock = threading.Lock()
        self._ring: collections.deque[Bulletin] = collections.deque(maxlen=capacity)
        self._written = 0
        self._out: BinaryIO | None = None  # the file, open for appending while in use
        if path is not None:
            self._ring.extend(read_bulletins(path)[-capacity:])
            if path.exists():
                self._rewrite()  # drops a torn last line before anything is appended to it
        self._next_id = self._ring[-1].id + 1 if self._ring else 0

    def add(
        self,
        level: str,
        category: str,
        component_type: str,
        component_name: str,
        component_id: str,
        message: str,
    ) -> Bulletin:
        with self._lock:
            bulletin = Bulletin(
                self._next_id,
                level,
                category,
                component_type,
                component_name,
                component_id,
                message,
                self._clock.now_ms(),
            )
            self._next_id += 1
            self._ring.append(bulletin)
            self._persist(bulletin)
            return bulletin

    def _persist(self, bulletin: Bulletin) -> None:
        if self._path is None:
            return
        if self._written >= 2 * self._capacity:
            self._rewrite()
            return
        try:
            if self._out is None:
                self._out = self._path.open("ab", buffering=0)
            self._out.write(_ENCODER.encode(bulletin) + b"\n")  # one write: whole lines
            self._written += 1
        except OSError:  # a full or read-only disk loses the copy, never the bulletin
            return

    def _rewrite(self) -> None:
        """The file replaced by the ring's bulletins, atomically."""
        if self._path is None:
            return
        self._close()
        data = b"".join(_ENCODER.encode(b) + b"\n" for b in self._ring)
        temporary = self._path.with_suffix(".tmp")
        try:
            temporary.write_bytes(data)
            temporary.replace(self._path)
        except OSError:
            return
        self._written = len(self._ring)

    def close(self) -> None:
        """Close the file (the next bulletin opens it again)."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    def list(self, after: int | None = None, limit: int | None = None) -> list[Bulletin]:
        """Oldest first: those with an id above ``after``, at most ``limit`` (the newest)."""
        with self._lock:
            found = [b for b in self._ring if after is None or b.id > after]
        return found[-limit:] if limit is not None else found


def read_bulletins(path: Path) -> list[Bulletin]:
    """The bulletins a board wrote to ``path``; a torn last line is skipped."""
    if not path.exists():
        return []
    found: list[Bulletin] = []
    for line in path.read_bytes().splitlines():
        try:
            found.append(_DECODER.decode(line))
        except msgspec.DecodeError:
            continue
    return found


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(Bulletin)


class BulletinLogHandler(logging.Handler):
    """Turns WARNING-or-above log records about this node's components into bulletins."""

    def __init__(self, board: BulletinBoard, processor_types: Callable[[], dict[str, str]]):
        super().__init__(level=logging.WARNING)
        self._board = board
        self._processor_types = processor_types

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._emit(record)
        except Exception:  # a bulletin must never break the code that logged
            self.handleError(record)

    def _emit(self, record: logging.LogRecord) -> None:
        level = "WARNING" if record.levelno < logging.ERROR else "ERROR"
        message = getattr(record, MESSAGE, None) or record.getMessage()
        processors = self._processor_types()
        component = getattr(record, COMPONENT_ID, None)
        if component is not None:
            kind = getattr(record, COMPONENT_TYPE, None) or processors.get(component, "")
            self._board.add(level, "Log Message", kind, component, component, message)
            return
        name = record.name
        if name.startswith("flowcore.processor."):
            source = name.removeprefix("flowcore.processor.")
            if source not in processors:  # a processor's class logger: its type name
                owners = [n for n, t in processors.items() if t == source]
                if len(owners) != 1:
                    return
                source = owners[0]
            self._board.add(level, "Log Message", processors[source], source, source, message)
            return
        repository = _repository(name)
        if repository is not None:
            self._board.add(level, repository, "FlowController", repository, repository, message)


def _repository(logger: str) -> str | None:
    parts = logger.split(".")
    if parts[0] == "repos" and len(parts) > 1:
        return _REPOSITORIES.get(parts[1], "Repository")
    if logger.startswith("flowcore.repository"):
        return _REPOSITORIES.get(parts[2] if len(parts) > 2 else "", "Repository")
    return None


def failure_reasons(changes: SessionChanges) -> Iterable[tuple[str, str]]:
    """(uuid, reason) of each FlowFile this commit routed to ``failure`` with a reason:
    queued in a failure connection, or auto-terminated there (its DROP event says so)."""
    failure_queues = {id(q) for q in changes.binding.outgoing.get(FAILURE, [])}
    if failure_queues:
        for queue, record in changes.puts:
            if id(queue) in failure_queues:
                reason = _reason(record.flowfile.attributes)
                if reason:
                    yield record.flowfile.uuid, reason
    if FAILURE not in changes.binding.auto_terminated:
        return  # every commit passes here: most processors have nothing to look at
    for event in changes.events:
        if event.event_type == "DROP" and event.details == AUTO_TERMINATED_FAILURE:
            attributes: dict[str, str | None] = {**event.previous_attributes}
            attributes.update(event.updated_attributes)
            reason = _reason(attributes)
            if reason:
                yield event.flowfile_uuid, reason


def _reason(attributes: Mapping[str, str | None]) -> str | None:
    for key, value in attributes.items():
        if value and key.endswith(REASON_SUFFIXES):
            return value
    return None


def attach(
    board: BulletinBoard,
    add_listener: Callable[[CommitListener], None],
    processor_types: Callable[[], dict[str, str]],
) -> Callable[[], None]:
    """Feed ``board`` from the component and repository logs and from failure routing;
    returns what detaches the log handler again."""
    handler = BulletinLogHandler(board, processor_types)
    loggers = [logging.getLogger("flowcore"), logging.getLogger("repos")]
    for logger in loggers:
        logger.addHandler(handler)

    def on_commit(changes: SessionChanges, _seconds: float) -> None:
        binding = changes.binding
        for uuid, reason in failure_reasons(changes):
            board.add(
                "ERROR",
                "Routed to failure",
                binding.component_type,
                binding.component_id,
                binding.component_id,
                f"FlowFile {uuid} routed to failure: {reason}",
            )

    add_listener(CommitListener(on_commit=on_commit))

    def detach() -> None:
        for logger in loggers:
            logger.removeHandler(handler)
        board.close()

    return detach
