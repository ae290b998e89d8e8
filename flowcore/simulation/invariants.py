"""The checks made after every simulated run, on a node opened again on its data directory.

Those that hold for every flow:

* **accounted**: every FlowFile provenance knows of (any event names it) is, after the
  final restart, either waiting in exactly one queue or dropped with exactly one DROP
  event, never both; every queued FlowFile is known to provenance.
* **provenance**: event ids run 0..n-1, each once; a FlowFile is born once (CREATE,
  RECEIVE, or as the child of a FORK, CLONE, JOIN or REPLAY) and dropped at most once,
  with nothing after its DROP.
* **claims**: each resource claim's claimant count equals the FlowFiles referencing it,
  every queued FlowFile's content reads back whole (its checksum matches), and after a
  restart no claim file is left that nothing references.
* **state**: the state each processor holds in memory is the state committed for it.
* **deliveries**: every SEND of a processor that keeps the delivery ledger has its
  delivery in the ledger (a SEND without one is a lost delivery). A delivery made again
  after a crash (the same FlowFile to the same place) is listed as a re-delivery; it fails
  the run only under ``exactly_once_delivery``.

The declared ones (``simulation.invariants``) and the Python hook are checked by the
harness with what it gathered here.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from flowcore.delivery import Delivery
from flowcore.engine.node import Node
from flowcore.errors import FlowCoreError
from flowcore.model.flowfile import FlowFile
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository.provenance import ProvenanceQuery

_BIRTH_BY_SELF = frozenset({"CREATE"})
_BIRTH_AS_CHILD = frozenset({"FORK", "CLONE", "REPLAY"})
_GONE = frozenset({"DROP", "EXPIRE"})
_MAX_LISTED = 10


@dataclass(frozen=True, slots=True)
class Violation:
    invariant: str
    message: str


@dataclass(frozen=True, slots=True)
class Redelivery:
    """The same FlowFile delivered to the same place more than once."""

    component: str
    flowfile_uuid: str
    uri: str
    times: int


def all_events(node: Node) -> list[ProvenanceEvent]:
    node.index_provenance()
    events = node.provenance.search(ProvenanceQuery(limit=100_000_000))
    return sorted(events, key=lambda e: e.event_id or 0)


def queued_flowfiles(node: Node) -> list[tuple[str, FlowFile]]:
    """Every FlowFile the FlowFile repository holds, with its connection (swapped too)."""
    recovered = node.flowfiles.recover()
    found = [(name, r.flowfile) for name, records in recovered.queues.items() for r in records]
    for name, summaries in recovered.swapped.items():
        for summary in summaries:
            found.extend((name, r.flowfile) for r in node.flowfiles.read_swapped(summary))
    return found


def _listed(items: Iterable[str]) -> str:
    items = list(items)
    shown = ", ".join(items[:_MAX_LISTED])
    return shown + (f" and {len(items) - _MAX_LISTED} more" if len(items) > _MAX_LISTED else "")


def check_accounting(
    events: list[ProvenanceEvent], queued: list[tuple[str, FlowFile]]
) -> list[Violation]:
    problems: list[Violation] = []
    known: set[str] = set()
    births: Counter[str] = Counter()
    drops: Counter[str] = Counter()
    receives: set[str] = set()
    for event in events:
        known.add(event.flowfile_uuid)
        known.update(event.child_uuids)
        kind = event.event_type
        if kind in _BIRTH_BY_SELF:
            births[event.flowfile_uuid] += 1
        elif kind in _BIRTH_AS_CHILD:
            births.update(set(event.child_uuids) - {event.flowfile_uuid})
        elif kind == "JOIN":
            births[event.flowfile_uuid] += 1
        elif kind == "RECEIVE":
            receives.add(event.flowfile_uuid)
        elif kind in _GONE:
            drops[event.flowfile_uuid] += 1
    for uuid in receives:
        if births[uuid] == 0:
            births[uuid] = 1
    where: Counter[str] = Counter(flowfile.uuid for _, flowfile in queued)
    twice = sorted(u for u, n in where.items() if n > 1)
    if twice:
        problems.append(
            Violation(
                "accounted", f"{len(twice)} FlowFile(s) queued more than once: {_listed(twice)}"
            )
        )
    both = sorted(u for u in where if drops[u])
    if both:
        problems.append(
            Violation(
                "accounted",
                f"{len(both)} FlowFile(s) both queued and dropped: {_listed(both)}",
            )
        )
    lost = sorted(u for u in known if not where[u] and not drops[u])
    if lost:
        problems.append(
            Violation(
                "accounted",
                f"{len(lost)} FlowFile(s) neither queued nor dropped (lost): {_listed(lost)}",
            )
        )
    unknown = sorted(u for u in where if u not in known)
    if unknown:
        problems.append(
            Violation(
                "accounted",
                f"{len(unknown)} queued FlowFile(s) unknown to provenance: {_listed(unknown)}",
            )
        )
    reborn = sorted(u for u, n in births.items() if n > 1)
    if reborn:
        problems.append(
            Violation(
                "provenance", f"{len(reborn)} FlowFile(s) born more than once: {_listed(reborn)}"
            )
        )
    dropped_twice = sorted(u for u, n in drops.items() if n > 1)
    if dropped_twice:
        problems.append(
            Violation(
                "provenance",
                f"{len(dropped_twice)} FlowFile(s) dropped more than once: "
                + _listed(dropped_twice),
            )
        )
    return problems


def check_provenance(events: list[ProvenanceEvent]) -> list[Violation]:
    problems: list[Violation] = []
    ids = [e.event_id for e in events]
    if ids != list(range(len(ids))):
        repeated = sorted(i for i, n in Counter(ids).items() if n > 1 and i is not None)
        problems.append(
            Violation(
                "provenance",
                f"event ids are not 0..{len(ids) - 1} each once "
                f"(repeated: {_listed(str(i) for i in repeated) or 'none'})",
            )
        )
    dropped_at: dict[str, int] = {}
    after: list[str] = []
    for event in events:
        uuid = event.flowfile_uuid
        if uuid in dropped_at:
            after.append(f"{event.event_type} {event.event_id} of {uuid}")
        if event.event_type in _GONE:
            dropped_at.setdefault(uuid, event.event_id or 0)
    if after:
        problems.append(
            Violation("provenance", f"events after a FlowFile's DROP: {_listed(after)}")
        )
    return problems


def check_claims(node: Node, queued: list[tuple[str, FlowFile]]) -> list[Violation]:
    problems: list[Violation] = []
    references = node.flowfiles.recover().claim_references
    wrong = [
        f"{resource} counts {node.content.claimant_count(resource)}, referenced {count}"
        for resource, count in references.items()
        if node.content.claimant_count(resource) != count
    ]
    if wrong:
        problems.append(Violation("claims", f"claimant counts differ: {_listed(wrong)}"))
    damaged: list[str] = []
    for _, flowfile in queued:
        if flowfile.claim is None:
            continue
        try:
            if flowfile.claim.checksum is not None:
                node.content.verify(flowfile.claim)
            node.content.read(flowfile.claim, flowfile.claim_offset, flowfile.size)
        except FlowCoreError as exc:
            damaged.append(f"{flowfile.uuid}: {exc}")
    if damaged:
        problems.append(Violation("claims", f"content cannot be read whole: {_listed(damaged)}"))
    return problems


def unreferenced_claim_files(node: Node) -> list[str]:
    """Claim files no FlowFile references, on a node just opened (recovery swept them)."""
    referenced = {r.id for r in node.flowfiles.recover().claim_references}
    found: list[str] = []
    for container in node.settings.content_containers:
        root = Path(container)
        for path in root.glob("*/*"):
            if path.is_file() and path.parent.name.isdigit() and path.name not in referenced:
                found.append(str(path.relative_to(root)))
    return sorted(found)


def check_state(node: Node) -> list[Violation]:
    problems: list[Violation] = []
    for name, processor in node.processors.items():
        binding = processor.binding
        if binding is None:
            continue
        committed = node.flowfiles.load_state(name)
        if binding.state.values != committed:
            problems.append(
                Violation(
                    "state",
                    f"processor '{name}' holds state {binding.state.values} in memory but "
                    f"{committed} is committed",
                )
            )
    return problems


def check_deliveries(
    events: list[ProvenanceEvent], deliveries: list[Delivery], exactly_once: bool
) -> tuple[list[Violation], list[Redelivery]]:
    problems: list[Violation] = []
    keeping = {d.component for d in deliveries}
    delivered = {(d.flowfile_uuid, d.uri) for d in deliveries}
    lost = [
        f"{e.flowfile_uuid} to {e.transit_uri} by '{e.component_id}'"
        for e in events
        if e.event_type == "SEND"
        and e.component_id in keeping
        and (e.flowfile_uuid, e.transit_uri) not in delivered
    ]
    if lost:
        problems.append(
            Violation(
                "deliveries",
                f"{len(lost)} SEND event(s) without a delivery (lost): {_listed(lost)}",
            )
        )
    counts = Counter((d.component, d.flowfile_uuid, d.uri) for d in deliveries)
    again = [Redelivery(c, u, uri, n) for (c, u, uri), n in counts.items() if n > 1]
    if again and exactly_once:
        problems.append(
            Violation(
                "exactly_once_delivery",
                f"{len(again)} FlowFile(s) delivered more than once: "
                + _listed(f"{r.flowfile_uuid} to {r.uri} ({r.times} times)" for r in again),
            )
        )
    return problems, again


def file_digests(folders: dict[str, Path]) -> dict[str, str]:
    """``parameter/relative path`` -> sha256 of every file under the output folders
    (hidden files, such as PutFile's temporary ones, left out)."""
    digests: dict[str, str] = {}
    for name, folder in sorted(folders.items()):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not any(
                p.startswith(".") for p in path.relative_to(folder).parts
            ):
                relative = path.relative_to(folder).as_posix()
                digests[f"{name}/{relative}"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def check_lines(inputs: Path, outputs: dict[str, Path], skip_header: bool) -> list[Violation]:
    """Every line of the input files appears exactly once across the output files."""
    expected: Counter[str] = Counter()
    for path in sorted(inputs.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            expected.update(_lines(path, skip_header))
    found: Counter[str] = Counter()
    for folder in outputs.values():
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file() and not path.name.startswith("."):
                    found.update(_lines(path, skip_header))
    missing = sorted((expected - found).elements())
    extra = sorted((found - expected).elements())
    problems: list[Violation] = []
    if missing:
        problems.append(
            Violation(
                "lines_delivered_once",
                f"{len(missing)} input line(s) not delivered: {_listed(repr(m) for m in missing)}",
            )
        )
    if extra:
        problems.append(
            Violation(
                "lines_delivered_once",
                f"{len(extra)} line(s) delivered more often than input: "
                + _listed(repr(m) for m in extra),
            )
        )
    return problems


def _lines(path: Path, skip_header: bool) -> list[str]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines[1:] if skip_header else lines
