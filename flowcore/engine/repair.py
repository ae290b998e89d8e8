"""``flowcore repair``: make a refused data directory start again, keeping what still exists.

``plan`` probes the repositories as a start would (``data_identity``) and lists what is
wrong and what would be done; ``Repair.apply`` does it. What it does, by finding:

- a damaged repository file is moved aside (renamed ``<name>.damaged-<time>``, never
  deleted) and a new, empty repository takes its place;
- a missing or damaged FlowFile repository is started empty, its event ids continuing
  after the provenance repository's ``indexed_through``; the FlowFiles it held are gone,
  and the content only they referenced is archived by the next start's sweep;
- a missing or damaged provenance repository is started empty at the FlowFile
  repository's journal start, so the journaled events are indexed and none is skipped;
- a FlowFile repository whose event ids fall at or below ``indexed_through`` (an older
  copy) continues after it; journaled events at or below it, already indexed, are
  dropped;
- repositories from another node, older or newer copies, and ``node.json`` itself are
  adopted as they are;
- last, every repository and ``node.json`` are marked with the node id and a generation
  above every one seen, so the next start accepts them.

A repair interrupted half way leaves the directory refused; running it again finishes
it (moved-aside files stay aside).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from flowcore.clock import Clock, SystemClock
from flowcore.engine.data_identity import (
    NODE_FILE,
    Finding,
    NodeRecord,
    examine,
    probe_repositories,
    read_node_record,
    write_node_record,
)
from flowcore.repository.identity import RepositoryIdentity, RepositoryProbe
from flowcore.repository.registry import load_repository_class
from flowcore.settings import EngineSettings


@dataclass(slots=True)
class Repair:
    """What is wrong with a data directory and the steps that mend it."""

    settings: EngineSettings
    findings: list[Finding]
    steps: list[tuple[str, Callable[[], None]]] = field(default_factory=list)

    @property
    def needed(self) -> bool:
        return bool(self.findings)

    @property
    def descriptions(self) -> list[str]:
        return [text for text, _ in self.steps]

    def apply(self) -> None:
        for _, step in self.steps:
            step()


def plan(settings: EngineSettings, clock: Clock | None = None) -> Repair:
    """Probe the data directory and plan its repair; nothing is changed."""
    data_dir = settings.data_dir
    stamp = datetime.fromtimestamp((clock or SystemClock()).now_ms() / 1000, tz=UTC).strftime(
        "%Y%m%dT%H%M%S"
    )
    findings: list[Finding] = []
    try:
        record = read_node_record(data_dir)
    except ValueError as exc:
        record = None
        findings.append(Finding("node file", f"{data_dir / NODE_FILE} cannot be read ({exc})"))
    probes = probe_repositories(settings)
    findings.extend(examine(record, probes))
    repair = Repair(settings, findings)
    if not findings:
        return repair
    flowfile = next((p for p in probes if p.repository == "FlowFile"), None)
    provenance = next((p for p in probes if p.repository == "provenance"), None)
    steps = repair.steps
    for probe in probes:
        if probe.damaged is not None and probe.container is None:
            steps.extend(_set_aside(probe, stamp))
    flowfile_new = flowfile is not None and (flowfile.missing or flowfile.damaged is not None)
    provenance_new = provenance is not None and (
        provenance.missing or provenance.damaged is not None
    )
    mark = -1
    if provenance is not None and not provenance_new and provenance.indexed_through is not None:
        mark = provenance.indexed_through
    next_event_id = 0
    if flowfile is not None and not flowfile_new and flowfile.next_event_id is not None:
        next_event_id = flowfile.next_event_id
    if flowfile is not None:
        if flowfile_new:
            steps.append(
                (
                    "start a new, empty FlowFile repository whose event ids continue at "
                    f"{mark + 1}; the FlowFiles it held are gone (content that nothing else "
                    "references is archived at the next start)",
                    _restart_event_ids(settings, mark + 1),
                )
            )
        elif next_event_id <= mark:
            steps.append(
                (
                    f"keep the FlowFile repository's FlowFiles as they are (FlowFiles handled "
                    f"since this copy was taken may be handled again) and continue its event "
                    f"ids at {mark + 1}, dropping journaled events up to {mark}, which "
                    "provenance already holds",
                    _restart_event_ids(settings, mark + 1),
                )
            )
    if provenance is not None and provenance_new:
        start = (
            max(mark + 1, 0)
            if flowfile is None or flowfile_new or flowfile.journal_start is None
            else flowfile.journal_start
        )
        steps.append(
            (
                f"start a new, empty provenance repository that indexes from event {start}; "
                "the events it held are gone",
                _restart_provenance(settings, start),
            )
        )
    for probe in probes:
        if probe.container is not None and probe.missing:
            steps.append(
                (
                    f"create {probe.name} {probe.location} empty; FlowFiles whose content "
                    "was there will fail to read it",
                    lambda: None,
                )
            )
    node_id = _node_id(record, probes)
    generation = 1 + max(
        [record.generation, *record.accepted] if record is not None else [0],
        default=0,
    )
    generation = max(generation, 1 + max((p.generation for p in probes), default=0))
    adopted = [
        f.probe.name
        for f in findings
        if f.problem in ("foreign", "older", "newer") and f.probe is not None
    ]
    what = f"adopt the {', '.join(adopted)} as they are, and " if adopted else ""
    steps.append(
        (
            f"{what}record node {node_id} generation {generation} in every repository and in "
            f"{data_dir / NODE_FILE}",
            _mark_all(settings, RepositoryIdentity(node_id, generation)),
        )
    )
    return repair


def _set_aside(probe: RepositoryProbe, stamp: str) -> list[tuple[str, Callable[[], None]]]:
    present = [path for path in probe.files if path.exists()]

    def move() -> None:
        for path in present:
            if path.exists():
                path.rename(path.with_name(f"{path.name}.damaged-{stamp}"))

    names = ", ".join(str(path) for path in present)
    return [(f"move the damaged {names} aside (to *.damaged-{stamp})", move)]


def _restart_event_ids(settings: EngineSettings, next_event_id: int) -> Callable[[], None]:
    def run() -> None:
        cls = load_repository_class(settings.flowfile_repository.implementation)
        settings.flowfile_repository_dir.mkdir(parents=True, exist_ok=True)
        cls.restart_event_ids(settings, next_event_id)

    return run


def _restart_provenance(settings: EngineSettings, start: int) -> Callable[[], None]:
    def run() -> None:
        load_repository_class(settings.provenance.implementation).restart_at(settings, start)

    return run


def _mark_all(settings: EngineSettings, identity: RepositoryIdentity) -> Callable[[], None]:
    def run() -> None:
        clock = SystemClock()
        flowfiles = load_repository_class(settings.flowfile_repository.implementation)(
            settings, clock
        )
        try:
            content = load_repository_class(settings.content.implementation)(settings, clock)
            try:
                provenance = load_repository_class(settings.provenance.implementation)(
                    settings, clock, flowfiles
                )
                try:
                    for repository in (flowfiles, content, provenance):
                        repository.write_identity(identity, durable=True)
                finally:
                    provenance.close()
            finally:
                content.close()
        finally:
            flowfiles.close()
        record = NodeRecord(
            identity.node_id,
            identity.generation,
            containers=len(settings.content_containers),
        )
        write_node_record(settings.data_dir, record, durable=True)

    return run


def _node_id(record: NodeRecord | None, probes: list[RepositoryProbe]) -> str:
    """The directory's node id: node.json's, else the one most repositories carry."""
    if record is not None:
        return record.node_id
    carried = Counter(p.identity.node_id for p in probes if p.identity is not None)
    return carried.most_common(1)[0][0] if carried else str(uuid.uuid4())
