"""A whole flow under randomized repository faults: the flow, the fault injector and the
conservation check, shared by the in-process property tests and the kill -9 child.

The flow: input port ``in`` -> ``split`` (SplitText, 2 lines per split) -> ``tag``
(UpdateAttribute) -> ``route`` (RouteOnAttribute on the document's ``mode``) ->
``defrag`` (MergeContent, Defragment) or ``pack`` (MergeContent, Bin-Packing, Max Bin
Age) -> ``out`` (a stopped Funnel, so what reaches it stays queued). Every ``failure``
relationship goes to ``failed`` (a stopped Funnel too), where a FlowFile must carry a
reason. Each document's lines are unique (``d<doc>-l<line>``), so conservation is a count.

``RepositoryFaults`` makes chosen calls of the real repositories fail the way the OS,
LMDB or DuckDB fail: ENOSPC writing or creating a content file, EIO or ENOSPC from
fsync, EIO reading content, ``MapFullError`` / ``DiskError`` / ``lmdb.Error`` on a write
transaction (commits, journal trims, swap-ins), an error inside the transaction while it
journals provenance, and DuckDB errors while indexing. Each site fails for a window of
its calls (counted from when the injector is installed) and then heals; a window may
instead end the "process" with ``Abort`` (a ``BaseException``, as a crash mid-call).
"""

from __future__ import annotations

import errno
import os
import threading
import types
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import duckdb
import lmdb

import repos.filesystem_content.appendable as appendable_module
import repos.filesystem_content.claim_lender as lender_module
import repos.filesystem_content.durability as durability_module
import repos.filesystem_content.repository as content_module
from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, Node
from flowcore.engine.ports import EnqueueItem
from flowcore.flow import parse_flow
from flowcore.settings import EngineSettings
from flowcore.simulation import invariants
from repos.filesystem_content.repository import FileSystemContentRepository

START_MS = 1_700_000_000_000
MERGED = ("merged", "packed", "rmerged")
OUTPUTS = (
    *MERGED,
    "split_failed",
    "defrag_failed",
    "pack_failed",
    "rsplit_failed",
    "rmerge_failed",
)
FAILURE_REASONS = ("content.error.reason", "merge.failure.reason")


def flow_document() -> dict[str, Any]:
    failed = {"to": "failed", "name": "failed"}
    return {
        "flow": {
            "name": "faults",
            "input_ports": ["in"],
            "controller_services": {
                "csv_reader": {
                    "type": "CSVReader",
                    "properties": {"Treat First Line as Header": "true"},
                },
                "csv_writer": {"type": "CSVRecordSetWriter"},
            },
            "processors": {
                "kind": {
                    "type": "RouteOnAttribute",
                    "properties": {"records": "${mode:equals('records')}"},
                },
                "rsplit": {
                    "type": "SplitRecord",
                    "properties": {
                        "Record Reader": "csv_reader",
                        "Record Writer": "csv_writer",
                        "Records Per Split": "3",
                    },
                    "auto_terminate": ["original"],
                },
                "rtag": {
                    "type": "UpdateAttribute",
                    "properties": {"stage": "record-${fragment.index}"},
                },
                "rmerge": {
                    "type": "MergeRecord",
                    "properties": {
                        "Record Reader": "csv_reader",
                        "Record Writer": "csv_writer",
                        "Minimum Number of Records": "7",
                        "Maximum Number of Records": "12",
                        "Max Bin Age": "5 sec",
                    },
                    "auto_terminate": ["original"],
                },
                "split": {
                    "type": "SplitText",
                    "properties": {"Line Split Count": "2", "Remove Trailing Newlines": "false"},
                    "auto_terminate": ["original"],
                },
                "tag": {
                    "type": "UpdateAttribute",
                    "properties": {"stage": "tagged-${fragment.index}"},
                },
                "route": {
                    "type": "RouteOnAttribute",
                    "properties": {"defrag": "${mode:equals('defrag')}"},
                },
                "defrag": {
                    "type": "MergeContent",
                    "properties": {"Merge Strategy": "Defragment", "Max Bin Age": "10 min"},
                    "auto_terminate": ["original"],
                },
                "pack": {
                    "type": "MergeContent",
                    "properties": {
                        "Merge Strategy": "Bin-Packing Algorithm",
                        "Minimum Number of Entries": "3",
                        "Maximum Number of Entries": "5",
                        "Max Bin Age": "5 sec",
                    },
                    "auto_terminate": ["original"],
                },
                "out": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
                "failed": {
                    "type": "Funnel",
                    "auto_terminate": ["success"],
                    "run_state": "STOPPED",
                },
            },
            "connections": [
                {"from": "in", "to": "kind", "name": "incoming"},
                {"from": "kind", "relationships": ["unmatched"], "to": "split", "name": "texts"},
                {"from": "kind", "relationships": ["records"], "to": "rsplit", "name": "tables"},
                {"from": "rsplit", "relationships": ["splits"], "to": "rtag", "name": "rsplits"},
                {"from": "rtag", "relationships": ["success"], "to": "rmerge", "name": "rtagged"},
                {"from": "rmerge", "relationships": ["merged"], "to": "out", "name": "rmerged"},
                {**failed, "from": "rsplit", "relationships": ["failure"], "name": "rsplit_failed"},
                {**failed, "from": "rmerge", "relationships": ["failure"], "name": "rmerge_failed"},
                {"from": "split", "relationships": ["splits"], "to": "tag", "name": "splits"},
                {"from": "tag", "relationships": ["success"], "to": "route", "name": "tagged"},
                {"from": "route", "relationships": ["defrag"], "to": "defrag", "name": "whole"},
                {"from": "route", "relationships": ["unmatched"], "to": "pack", "name": "loose"},
                {"from": "defrag", "relationships": ["merged"], "to": "out", "name": "merged"},
                {"from": "pack", "relationships": ["merged"], "to": "out", "name": "packed"},
                {**failed, "from": "split", "relationships": ["failure"], "name": "split_failed"},
                {**failed, "from": "defrag", "relationships": ["failure"], "name": "defrag_failed"},
                {**failed, "from": "pack", "relationships": ["failure"], "name": "pack_failed"},
            ],
        }
    }


def engine_settings(data_dir: Path, durability: str = "process") -> EngineSettings:
    return EngineSettings.model_validate(
        {
            "data_dir": data_dir,
            "durability": durability,
            "queue": {"swap_threshold": 20, "swap_batch_size": 10},
            "content": {"max_appendable_size": "200 B"},
            "provenance": {"index_batch_size": 50},
        }
    )


@contextmanager
def no_file_stock() -> Iterator[None]:
    """Content files are created on the writer's path, in order (no background thread),
    so that a fault placed on the n-th file creation is the same in every run."""
    defaults = FileSystemContentRepository.__init__.__kwdefaults__
    assert defaults is not None
    before = defaults["file_stock_size"]
    defaults["file_stock_size"] = 0
    try:
        yield
    finally:
        defaults["file_stock_size"] = before


def open_node(data_dir: Path, clock: ManualClock, durability: str = "process") -> Node:
    with no_file_stock():
        return Node.from_flow(
            engine_settings(data_dir, durability), parse_flow(flow_document()), clock
        )


# -- documents -------------------------------------------------------------------------------


HEADER = "line"
MODES = ("defrag", "pack", "records")


def document(doc: int, lines: int) -> bytes:
    """A document's unique lines; a CSV table of them (header ``line``) in ``records``
    mode."""
    head = f"{HEADER}\n" if MODES[doc % len(MODES)] == "records" else ""
    return (head + "".join(f"d{doc}-l{line}\n" for line in range(lines))).encode()


def document_item(doc: int, lines: int) -> EnqueueItem:
    mode = MODES[doc % len(MODES)]
    return EnqueueItem(document(doc, lines), {"doc": str(doc), "mode": mode})


# -- faults ----------------------------------------------------------------------------------


class Site(Enum):
    CONTENT_WRITE = "content write"
    CLAIM_CREATE = "claim file creation"
    FSYNC = "fsync"
    CONTENT_READ = "content read"
    LMDB_WRITE = "LMDB commit transaction"
    SWAP_IN = "LMDB swap-in transaction"
    JOURNAL_TRIM = "LMDB journal trim transaction"
    LMDB_SYNC = "LMDB sync (checkpoint)"
    JOURNAL = "provenance journaling"
    INDEX = "provenance indexing"


class Abort(BaseException):
    """The simulated process dies inside a repository call."""


@dataclass(frozen=True, slots=True)
class Window:
    """Calls ``start`` .. ``start + length - 1`` of ``site`` fail with error ``kind``
    (an index into the site's errors); ``crash`` ends the process at call ``start``."""

    site: Site
    start: int
    length: int
    kind: int = 0
    crash: bool = False


def _os_error(code: int) -> Callable[[], BaseException]:
    return lambda: OSError(code, os.strerror(code))


ERRORS: dict[Site, list[Callable[[], BaseException]]] = {
    Site.CONTENT_WRITE: [_os_error(errno.ENOSPC), _os_error(errno.EIO)],
    Site.CLAIM_CREATE: [_os_error(errno.ENOSPC), _os_error(errno.EMFILE)],
    Site.FSYNC: [_os_error(errno.EIO), _os_error(errno.ENOSPC)],
    Site.CONTENT_READ: [_os_error(errno.EIO)],
    Site.LMDB_WRITE: [
        lambda: lmdb.MapFullError("mdb_txn_commit: MDB_MAP_FULL"),
        lambda: lmdb.DiskError("mdb_txn_commit: No space left on device"),
        lambda: lmdb.Error("mdb_txn_commit: Input/output error"),
    ],
    Site.SWAP_IN: [
        lambda: lmdb.DiskError("mdb_txn_commit: No space left on device"),
        lambda: lmdb.Error("mdb_txn_commit: Input/output error"),
    ],
    Site.JOURNAL_TRIM: [lambda: lmdb.Error("mdb_txn_commit: Input/output error")],
    Site.LMDB_SYNC: [lambda: lmdb.Error("mdb_env_sync: Input/output error")],
    Site.JOURNAL: [lambda: lmdb.Error("mdb_cursor_put: MDB_PAGE_FULL")],
    Site.INDEX: [
        lambda: duckdb.IOException("IO Error: could not write the WAL: No space left on device"),
        lambda: duckdb.TransactionException("TransactionContext Error: failed to commit"),
    ],
}


@dataclass
class RepositoryFaults:
    """Counts each site's calls and fails those inside a window (main thread only for the
    content sites: background threads make no counted calls)."""

    windows: list[Window]
    calls: Counter[Site] = field(default_factory=Counter)
    fired: Counter[Site] = field(default_factory=Counter)
    healed: bool = False
    on_crash: Callable[[], None] | None = None
    """Called at a crash instead of raising ``Abort`` (a child process ends itself)."""

    def hit(self, site: Site) -> None:
        if self.healed:
            return
        self.calls[site] += 1
        number = self.calls[site]
        for window in self.windows:
            if window.site is not site or not window.start <= number < window.start + window.length:
                continue
            self.fired[site] += 1
            if window.crash and self.on_crash is not None:
                self.on_crash()
            if window.crash and site is not Site.INDEX:  # DuckDB runs on its own thread
                raise Abort(f"crash at {site.value} call {number}")
            errors = ERRORS[site]
            raise errors[window.kind % len(errors)]()

    @contextmanager
    def installed(self, node: Node) -> Iterator[None]:
        """Put the faults into ``node``'s repositories (module ``os`` proxies for the
        content repository, wrappers for LMDB's write transactions and DuckDB's store)."""
        undo: list[Callable[[], None]] = []
        main = threading.get_ident()

        def on_main(site: Site) -> None:
            if threading.get_ident() == main:
                self.hit(site)

        faulty_os = _FaultyOs(on_main)
        for module in (lender_module, appendable_module, content_module, durability_module):
            undo.append(_replace(module, "os", faulty_os))
        flowfiles: Any = node.flowfiles
        size_map = flowfiles._map
        doing = {"what": "commit"}
        inner_write = size_map.write

        def write(body: Any, removal_only: Any, what: str) -> Any:
            doing["what"] = what
            return inner_write(body, removal_only, what)

        def hit_write() -> None:
            self.hit(_WRITE_SITES.get(doing["what"], Site.LMDB_WRITE))

        undo.append(_replace(size_map, "write", write))
        undo.append(_replace(size_map, "_env", _FaultyEnv(size_map._env, hit_write)))
        env = flowfiles._env
        undo.append(_replace(flowfiles, "_env", _FaultyEnv(env, hit_write, self.hit)))
        inner_body = flowfiles._write_txn_body

        def body(txn: Any, batch: Any) -> Any:
            self.hit(Site.JOURNAL)
            return inner_body(txn, batch)

        undo.append(_replace(flowfiles, "_write_txn_body", body))
        store: Any = node.provenance._store  # type: ignore[attr-defined]
        undo.append(_replace(store, "_writer", _FaultyDuckDb(store._writer, self.hit)))
        try:
            yield
        finally:
            for step in reversed(undo):
                step()


_WRITE_SITES = {"swap in": Site.SWAP_IN, "trim the provenance journal": Site.JOURNAL_TRIM}


def _replace(owner: Any, name: str, value: Any) -> Callable[[], None]:
    before = getattr(owner, name)
    setattr(owner, name, value)
    return lambda: setattr(owner, name, before)


class _FaultyDuckDb:
    """The provenance store's DuckDB connection: statements and commits can fail (the
    store's own error handling runs, as for a real DuckDB error)."""

    def __init__(self, connection: Any, hit: Callable[[Site], None]) -> None:
        self._connection = connection
        self._hit = hit

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        self._hit(Site.INDEX)
        return self._connection.execute(*args, **kwargs)

    def commit(self) -> Any:
        self._hit(Site.INDEX)
        return self._connection.commit()


class _FaultyOs(types.SimpleNamespace):
    """``os`` as the content repository's modules see it: some calls can fail."""

    def __init__(self, hit: Callable[[Site], None]) -> None:
        super().__init__()
        self._hit = hit

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def write(self, fd: int, data: Any) -> int:
        self._hit(Site.CONTENT_WRITE)
        return os.write(fd, data)

    def open(self, path: Any, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            self._hit(Site.CLAIM_CREATE)
        return os.open(path, flags, mode, **kwargs)

    def fsync(self, fd: int) -> None:
        self._hit(Site.FSYNC)
        os.fsync(fd)

    def pread(self, fd: int, length: int, offset: int) -> bytes:
        self._hit(Site.CONTENT_READ)
        return os.pread(fd, length, offset)


class _FaultyEnv:
    """An LMDB environment whose write transactions can fail as they commit."""

    def __init__(
        self, env: Any, hit: Callable[[], None], hit_site: Callable[[Site], None] | None = None
    ) -> None:
        self._env = env
        self._hit = hit
        self._hit_site = hit_site

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)

    def sync(self, *args: Any) -> None:
        if self._hit_site is not None:
            self._hit_site(Site.LMDB_SYNC)
        self._env.sync(*args)

    def begin(self, *args: Any, **kwargs: Any) -> Any:
        txn = self._env.begin(*args, **kwargs)
        return _FaultyTxn(txn, self._hit) if kwargs.get("write") else txn


class _FaultyTxn:
    def __init__(self, txn: Any, hit: Callable[[], None]) -> None:
        self._txn = txn
        self._hit = hit

    def __enter__(self) -> Any:
        return self._txn.__enter__()

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> Any:
        if kind is None:
            try:
                self._hit()
            except BaseException:
                self._txn.abort()
                raise
        return self._txn.__exit__(kind, value, traceback)


# -- driving ---------------------------------------------------------------------------------


@dataclass
class Progress:
    """What the outside world knows: the documents whose enqueue returned."""

    acknowledged: set[int] = field(default_factory=set)


def enqueue_some(
    node: Node, docs: list[tuple[int, int]], progress: Progress, per_call: int = 1
) -> None:
    """Enqueue the documents not yet acknowledged, ``per_call`` in each call (one
    session); a call that fails is left for later (the client retries, as after a 507)."""
    waiting = [(doc, lines) for doc, lines in docs if doc not in progress.acknowledged]
    for first in range(0, len(waiting), per_call):
        group = waiting[first : first + per_call]
        try:
            node.enqueue("in", [document_item(doc, lines) for doc, lines in group])
        except Exception:
            continue
        progress.acknowledged.update(doc for doc, _ in group)


def run_until_idle(node: Node, max_triggers: int = 3000, *, must_idle: bool = True) -> None:
    """Run the flow; errors that reach the scheduler (indexing between passes) are met
    again by the next run, as a node's maintenance would. ``must_idle`` False: one run
    of at most ``max_triggers``, idle or not (while faults last)."""
    for _ in range(20):
        try:
            summary = DeterministicScheduler(node).run_until_idle(
                max_triggers=max_triggers, retry_wait_ms=600_000
            )
        except Exception:
            if not must_idle:
                return
            continue
        if summary.idle or not must_idle:
            return
    raise AssertionError("the flow never became idle")


# -- checking --------------------------------------------------------------------------------


def expected_lines(docs: list[tuple[int, int]], acknowledged: set[int]) -> Counter[str]:
    return Counter(
        f"d{doc}-l{line}" for doc, lines in docs if doc in acknowledged for line in range(lines)
    )


def check_conservation(node: Node, docs: list[tuple[int, int]], acknowledged: set[int]) -> None:
    """Every acknowledged line is in exactly one output (or a failure with a reason) and
    nothing else is; every other queue is empty; the FlowFile repository holds exactly
    what the queues hold; claims and provenance agree (``invariants``)."""
    queued = invariants.queued_flowfiles(node)
    found: Counter[str] = Counter()
    busy: Counter[str] = Counter()
    unexplained: list[str] = []
    for name, flowfile in queued:
        if name not in OUTPUTS:
            busy[name] += 1
            continue
        if name not in MERGED and not any(key in flowfile.attributes for key in FAILURE_REASONS):
            unexplained.append(f"{name}: {flowfile.uuid} {dict(flowfile.attributes)}")
        data = (
            node.content.read(flowfile.claim, flowfile.claim_offset, flowfile.size)
            if flowfile.claim is not None
            else b""
        )
        found.update(line for line in data.decode().split("\n") if line and line != HEADER)
    assert not busy, f"FlowFiles left mid-flow after draining: {busy}"
    assert not unexplained, f"FlowFiles in failure without a reason: {unexplained}"
    want = expected_lines(docs, acknowledged)
    lost = sorted((want - found).elements())
    extra = sorted((found - want).elements())
    assert not lost, f"{len(lost)} line(s) lost: {lost[:10]}"
    assert not extra, f"{len(extra)} line(s) duplicated or unexpected: {extra[:10]}"
    events = invariants.all_events(node)
    problems = [
        *invariants.check_accounting(events, queued),
        *invariants.check_provenance(events),
        *invariants.check_claims(node, queued),
    ]
    orphans = invariants.unreferenced_claim_files(node)
    assert not orphans, f"claim files nothing references were kept: {orphans[:10]}"
    assert not problems, "\n".join(f"{p.invariant}: {p.message}" for p in problems)


def check_no_leak(node: Node) -> None:
    """On a running node after a checkpoint: every live claim file is referenced or still
    taking appends (nothing released is kept until the next restart)."""
    counts: Any = node.content._counts  # type: ignore[attr-defined]
    in_use = {r.id for r in counts._counts} | {r.id for r in counts._writable}
    kept = sorted(content_files(node.settings.data_dir) - in_use)
    assert not kept, f"{len(kept)} released claim file(s) kept: {kept[:10]}"


def queue_counts(node: Node) -> dict[str, int]:
    return {name: c.queue.size for name, c in node.connections.items()}


def recovered_counts(node: Node) -> dict[str, int]:
    """Per connection, the FlowFiles the FlowFile repository holds (live and swapped)."""
    recovered = node.flowfiles.recover()
    counts = {name: len(records) for name, records in recovered.queues.items()}
    for name, summaries in recovered.swapped.items():
        counts[name] = counts.get(name, 0) + sum(s.count for s in summaries)
    return {name: counts.get(name, 0) for name in node.connections}


def content_files(data_dir: Path) -> set[str]:
    root = data_dir / "content_repository"
    return {p.name for p in root.glob("*/*") if p.is_file()}
