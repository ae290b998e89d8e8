"""The identity of a data directory: refuse missing, damaged or foreign repositories at start.

``<data_dir>/node.json`` names the directory's node id, its generation and the
generations its repositories may still carry; every repository carries the node id and
its own generation (``flowcore.repository.identity``). Before a node opens anything for
writing, ``check`` probes each repository and compares; a repository that is missing
while the directory was initialised, damaged, from another node, an older or newer copy,
or whose event ids fall below what provenance already indexed, is refused with
``RepositoryDamagedError``, nothing changed. ``flowcore repair`` (``repair.py``) says
what it would do about it and does it.

Generations and crashes. Each start raises the generation so that a copy of a repository
taken before it is recognised as older. The raise is written in three steps:

1. ``node.json`` gets the new generation Q and, under ``accepted``, every generation the
   repositories carry now (0 for a repository that carries none: new, or from before
   identities existed);
2. each repository is marked with Q (synced when ``durability`` is ``power``);
3. ``node.json`` is rewritten with Q alone.

A repository is accepted when its generation is the generation in ``node.json`` or one
of ``accepted``. A crash before 1 leaves the old, consistent state; a crash between 1 and
3 leaves each repository at its old generation or at Q, both accepted; after 3 every
repository is at Q. So no crash during start-up refuses the next start. ``node.json`` is
replaced atomically (a temporary file renamed over it).
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from flowcore.errors import RepositoryDamagedError
from flowcore.repository.identity import UNMARKED, RepositoryIdentity, RepositoryProbe
from flowcore.repository.registry import load_repository_class
from flowcore.settings import EngineSettings

log = logging.getLogger("flowcore.engine")

NODE_FILE = "node.json"

#: Called with the name of each start-up step as it completes (``begun``, ``marked
#: FlowFile``, ``marked content``, ``marked provenance``, ``finished``); the crash tests
#: end the process there.
phase_hook: Callable[[str], None] | None = None

Problem = Literal["missing", "damaged", "foreign", "older", "newer", "behind", "node file"]


@dataclass(frozen=True, slots=True)
class NodeRecord:
    """What ``node.json`` holds."""

    node_id: str
    generation: int
    accepted: frozenset[int] = frozenset()
    containers: int = 0

    def accepts(self, generation: int) -> bool:
        return generation == self.generation or generation in self.accepted


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong with a data directory."""

    problem: Problem
    text: str
    probe: RepositoryProbe | None = None

    @property
    def repository(self) -> str:
        return self.probe.repository if self.probe is not None else "data directory"


def recovery_command(data_dir: Path) -> str:
    return (
        f"run 'flowcore repair --data-dir {data_dir}' to see what it would do, "
        "then again with --yes to do it"
    )


def node_file(data_dir: Path) -> Path:
    return data_dir / NODE_FILE


def read_node_record(data_dir: Path) -> NodeRecord | None:
    """``node.json``, None if absent; ``ValueError`` if it cannot be read."""
    try:
        text = node_file(data_dir).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ValueError(str(exc)) from exc
    try:
        fields = json.loads(text)
        record = NodeRecord(
            node_id=str(fields["node_id"]),
            generation=int(fields["generation"]),
            accepted=frozenset(int(g) for g in fields.get("accepted", [])),
            containers=int(fields.get("containers", 0)),
        )
    except (ValueError, TypeError, KeyError) as exc:
        msg = f"not a node record ({exc})"
        raise ValueError(msg) from None
    return record


def write_node_record(data_dir: Path, record: NodeRecord, *, durable: bool) -> None:
    """Replace ``node.json`` atomically (fsynced, with its directory, when ``durable``)."""
    data = json.dumps(
        {
            "node_id": record.node_id,
            "generation": record.generation,
            "accepted": sorted(record.accepted),
            "containers": record.containers,
        },
        indent=2,
    )
    path = node_file(data_dir)
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(data + "\n")
        if durable:
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(temporary, path)
    if durable:
        directory = os.open(data_dir, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def probe_repositories(settings: EngineSettings) -> list[RepositoryProbe]:
    """Every repository (each content container) as found on disk; nothing is changed."""
    probes: list[RepositoryProbe] = []
    for implementation in (
        settings.flowfile_repository.implementation,
        settings.content.implementation,
        settings.provenance.implementation,
    ):
        probes.extend(load_repository_class(implementation).probe(settings))
    return probes


def examine(record: NodeRecord | None, probes: Sequence[RepositoryProbe]) -> list[Finding]:
    """What is wrong with the repositories, given ``node.json`` (None: absent)."""
    findings = [
        Finding("damaged", f"the {p.name} {p.location} is damaged: {p.damaged}", p)
        for p in probes
        if p.damaged is not None
    ]
    sound = [p for p in probes if p.damaged is None]
    if record is None:
        marked = [p for p in sound if p.identity is not None]
        if marked:
            findings.append(
                Finding(
                    "node file",
                    f"{NODE_FILE} is missing, but the {marked[0].name} belongs to node "
                    f"{marked[0].identity.node_id if marked[0].identity else ''}",
                )
            )
        elif any(p.holds_data for p in sound):
            findings.extend(
                Finding(
                    "missing",
                    f"the {p.name} {p.location} is missing (deleted or emptied) while the "
                    "other repositories hold data",
                    p,
                )
                for p in sound
                if p.missing and p.container is None
            )
    else:
        findings.extend(_against_record(record, sound))
    findings.extend(_event_ids(sound))
    return findings


def _against_record(record: NodeRecord, probes: Sequence[RepositoryProbe]) -> list[Finding]:
    findings: list[Finding] = []
    for probe in probes:
        identity = probe.identity
        where = f"the {probe.name} {probe.location}"
        if identity is None:
            if record.accepts(UNMARKED):
                continue  # the start-up that marks it was interrupted
            new_container = probe.container is not None and probe.container >= record.containers
            if new_container and not probe.holds_data:
                continue  # a container added to the settings
            if probe.missing:
                findings.append(
                    Finding("missing", f"{where} is missing (deleted or emptied)", probe)
                )
            elif not probe.holds_data:
                findings.append(
                    Finding("missing", f"{where} is empty: it was deleted and created anew", probe)
                )
            else:
                findings.append(
                    Finding(
                        "foreign",
                        f"{where} carries no identity of this data directory (copied in "
                        "from elsewhere?)",
                        probe,
                    )
                )
        elif identity.node_id != record.node_id:
            findings.append(
                Finding(
                    "foreign",
                    f"{where} belongs to another data directory (node {identity.node_id}, "
                    f"this is node {record.node_id})",
                    probe,
                )
            )
        elif not record.accepts(identity.generation):
            older = identity.generation < record.generation
            findings.append(
                Finding(
                    "older" if older else "newer",
                    f"{where} is {'an older' if older else 'a newer'} copy: generation "
                    f"{identity.generation}, while this data directory is at generation "
                    f"{record.generation}"
                    + ("" if older else f" ({NODE_FILE} restored from an older copy?)"),
                    probe,
                )
            )
    return findings


def _event_ids(probes: Sequence[RepositoryProbe]) -> list[Finding]:
    flowfile = next((p for p in probes if p.next_event_id is not None and not p.missing), None)
    indexed = next((p for p in probes if p.indexed_through is not None and not p.missing), None)
    if flowfile is None or indexed is None or indexed.indexed_through is None:
        return []
    assert flowfile.next_event_id is not None
    if flowfile.next_event_id > indexed.indexed_through:
        return []
    return [
        Finding(
            "behind",
            f"the {flowfile.name} would give the next provenance event id "
            f"{flowfile.next_event_id}, but the {indexed.name} has already indexed "
            f"through id {indexed.indexed_through}: new events would be discarded (the "
            "FlowFile repository is older than the provenance repository)",
            flowfile,
        )
    ]


def refusal(data_dir: Path, findings: Sequence[Finding]) -> RepositoryDamagedError:
    """One error naming every finding and the recovery command."""
    what = "; ".join(f.text for f in findings)
    return RepositoryDamagedError(
        f"the data directory {data_dir} cannot be started: {what}. Nothing was changed; "
        f"{recovery_command(data_dir)}",
        repository=findings[0].repository,
    )


@dataclass(slots=True)
class StartUp:
    """A checked data directory, ready to be marked with its next generation."""

    settings: EngineSettings
    record: NodeRecord
    present: frozenset[int]
    marked: list[str] = field(default_factory=list)

    @property
    def durable(self) -> bool:
        return self.settings.durability == "power"

    def begin(self) -> None:
        """Step 1: ``node.json`` accepts what the repositories carry and the new generation."""
        record = self.record
        self.record = NodeRecord(record.node_id, record.generation, self.present, record.containers)
        write_node_record(self.settings.data_dir, self.record, durable=self.durable)
        _phase("begun")

    def mark(self, repositories: Sequence[tuple[str, Any]]) -> None:
        """Steps 2 and 3: mark each open repository, then settle ``node.json``."""
        identity = RepositoryIdentity(self.record.node_id, self.record.generation)
        for name, repository in repositories:
            repository.write_identity(identity, durable=self.durable)
            _phase(f"marked {name}")
        containers = max(self.record.containers, len(self.settings.content_containers))
        self.record = NodeRecord(identity.node_id, identity.generation, frozenset(), containers)
        write_node_record(self.settings.data_dir, self.record, durable=self.durable)
        _phase("finished")


def _phase(name: str) -> None:
    if phase_hook is not None:
        phase_hook(name)


def check(settings: EngineSettings) -> StartUp:
    """Probe and compare; ``RepositoryDamagedError`` (nothing changed) if anything is wrong.

    Returns the start-up that raises the generation (``begin``, then ``mark``).
    """
    data_dir = settings.data_dir
    try:
        record = read_node_record(data_dir)
    except ValueError as exc:
        raise refusal(
            data_dir,
            [Finding("node file", f"{node_file(data_dir)} cannot be read ({exc})")],
        ) from None
    probes = probe_repositories(settings)
    findings = examine(record, probes)
    if findings:
        raise refusal(data_dir, findings)
    present = frozenset(p.generation for p in probes)
    if record is None:
        if any(p.holds_data for p in probes):
            log.warning(
                "data directory %s has no identity yet: its repositories are adopted", data_dir
            )
        next_record = NodeRecord(str(uuid.uuid4()), 1)
    else:
        newest = max(record.accepted | {record.generation})
        next_record = NodeRecord(record.node_id, newest + 1, containers=record.containers)
    return StartUp(settings, next_record, present)
