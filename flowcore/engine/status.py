"""What a node is doing, read without changing anything: status snapshots and locate.

``FlowStatusView`` is the one reader of a running node's status: processors (run state,
runs, active tasks, running totals, recent errors), input ports, connections (queued
count and bytes, swapped, in flight, back pressure and its thresholds), provenance
(how far it is indexed and how many events wait in the journal) and repository disk
usage. The CLI, the REST API and both metrics collectors read it instead of the engine's
internals. Nothing here indexes provenance or writes: a reader sees what is indexed and
how much is not yet.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from flowcore.engine.connection import Connection
from flowcore.engine.ports import PORT_RELATIONSHIP
from flowcore.engine.processor_node import ProcessorError, ProcessorNode, RunState
from flowcore.errors import RepositoryError
from flowcore.model.flowfile import FlowFile
from flowcore.repository.flowfile import FlowFileRepository
from flowcore.repository.provenance import ProvenanceRepository
from flowcore.session.binding import ComponentBinding
from flowcore.settings import EngineSettings


@dataclass(frozen=True, slots=True)
class ProcessorStatus:
    """One processor: configuration summary, run state and running totals."""

    name: str
    type: str
    run_state: RunState
    runs: int
    active_tasks: int
    flowfiles_in: int
    bytes_in: int
    flowfiles_out: int
    bytes_out: int
    commits: int
    errors: tuple[ProcessorError, ...]


@dataclass(frozen=True, slots=True)
class PortStatus:
    """One input port and the connections it feeds."""

    name: str
    connections: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ConnectionStatus:
    """One connection: what waits in its queue and its back-pressure thresholds."""

    name: str
    source: str
    relationships: tuple[str, ...]
    destination: str | None
    queued: int
    bytes: int
    active: int
    penalized: int
    swapped: int
    in_flight: int
    back_pressure: bool
    object_threshold: int
    data_size_threshold: int


@dataclass(frozen=True, slots=True)
class ProvenanceStatus:
    """How far provenance is indexed (queryable) and how many events are not yet."""

    indexed_through: int
    """The highest event id indexed, -1 if none."""
    not_indexed: int
    """Events journaled and not yet indexed: the index lag."""

    @classmethod
    def read(
        cls, flowfiles: FlowFileRepository, provenance: ProvenanceRepository
    ) -> ProvenanceStatus:
        return cls(provenance.indexed_through(), flowfiles.journal_size())


@dataclass(frozen=True, slots=True)
class RepositoryUsage:
    """Disk space where one repository (or content container) lives."""

    kind: Literal["flow_file", "provenance", "content"]
    identifier: str
    directory: Path
    total: int
    used: int
    free: int


@dataclass(frozen=True, slots=True)
class FlowStatus:
    """A node's status at one moment."""

    processors: tuple[ProcessorStatus, ...]
    input_ports: tuple[PortStatus, ...]
    connections: tuple[ConnectionStatus, ...]
    provenance: ProvenanceStatus | None
    """None when the repositories cannot answer (closed, or failing)."""


class FlowStatusView:
    """Reads a node's status; every method is read-only and cheap enough for a scrape."""

    def __init__(
        self,
        settings: EngineSettings,
        processors: Mapping[str, ProcessorNode],
        input_ports: Mapping[str, ComponentBinding],
        connections: Mapping[str, Connection],
        flowfiles: FlowFileRepository,
        provenance: ProvenanceRepository,
    ) -> None:
        self._settings = settings
        self._processors = processors
        self._ports = input_ports
        self._connections = connections
        self._flowfiles = flowfiles
        self._provenance = provenance

    def processor(self, name: str) -> ProcessorStatus:
        """One processor's status; ``KeyError`` if there is none of that name."""
        node = self._processors[name]
        stats = node.binding.stats
        return ProcessorStatus(
            name=name,
            type=node.type_name,
            run_state=node.run_state,
            runs=node.runs,
            active_tasks=node.active_tasks,
            flowfiles_in=stats.flowfiles_in,
            bytes_in=stats.bytes_in,
            flowfiles_out=stats.flowfiles_out,
            bytes_out=stats.bytes_out,
            commits=stats.commits,
            errors=tuple(node.errors),
        )

    def processors(self) -> tuple[ProcessorStatus, ...]:
        return tuple(self.processor(name) for name in list(self._processors))

    def input_ports(self) -> tuple[PortStatus, ...]:
        by_queue = {c.queue.name: name for name, c in self._connections.items()}
        return tuple(
            PortStatus(
                name,
                tuple(by_queue[q.name] for q in binding.outgoing.get(PORT_RELATIONSHIP, [])),
            )
            for name, binding in list(self._ports.items())
        )

    def connection(self, name: str) -> ConnectionStatus:
        """One connection's status; ``KeyError`` if there is none of that name."""
        connection = self._connections[name]
        queue = connection.queue
        snap = queue.snapshot()
        return ConnectionStatus(
            name=name,
            source=connection.source,
            relationships=connection.relationships,
            destination=connection.destination,
            queued=snap.count,
            bytes=snap.total_bytes,
            active=snap.active,
            penalized=snap.penalized,
            swapped=snap.swapped,
            in_flight=snap.in_flight,
            back_pressure=snap.back_pressure,
            object_threshold=queue.back_pressure.object_threshold,
            data_size_threshold=queue.back_pressure.data_size_threshold,
        )

    def connections(self) -> tuple[ConnectionStatus, ...]:
        return tuple(self.connection(name) for name in list(self._connections))

    def provenance(self) -> ProvenanceStatus | None:
        """The index's progress and lag; None if the repositories cannot say (closed)."""
        try:
            return ProvenanceStatus.read(self._flowfiles, self._provenance)
        except Exception:  # a closed or failing repository: status still answers
            return None

    def repositories(self) -> tuple[RepositoryUsage, ...]:
        """Disk usage of each repository's directory (those not created yet are left out)."""
        settings = self._settings
        places: list[tuple[Literal["flow_file", "provenance", "content"], str, Path]] = [
            ("flow_file", "flowFileRepository", settings.flowfile_repository_dir),
            ("provenance", "provenanceRepository", settings.provenance_dir),
        ]
        places += [("content", c.name, c) for c in settings.content_containers]
        usage: list[RepositoryUsage] = []
        for kind, identifier, directory in places:
            try:
                disk = shutil.disk_usage(directory)
            except OSError:
                continue
            usage.append(
                RepositoryUsage(
                    kind, identifier, directory, disk.total, disk.total - disk.free, disk.free
                )
            )
        return tuple(usage)

    def snapshot(self) -> FlowStatus:
        """Processors, ports, connections and provenance, read once."""
        return FlowStatus(
            processors=self.processors(),
            input_ports=self.input_ports(),
            connections=self.connections(),
            provenance=self.provenance(),
        )


# -- locating one FlowFile ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FlowFileLocation:
    """A FlowFile found in a connection: queued in memory (with its position), swapped
    out, or taken by a session that has not committed yet."""

    connection: Connection
    flowfile: FlowFile
    state: Literal["QUEUED", "SWAPPED_OUT", "IN_PROCESS"]
    position: int | None


def locate(
    connections: Mapping[str, Connection], flowfiles: FlowFileRepository, flowfile_uuid: str
) -> FlowFileLocation | None:
    """Where a FlowFile is: queued in memory, swapped out, or held by a session."""
    for connection in connections.values():
        for position, record in enumerate(connection.queue.listing()):
            if record.flowfile.uuid == flowfile_uuid:
                return FlowFileLocation(connection, record.flowfile, "QUEUED", position)
    for connection in connections.values():
        for record in connection.queue.in_flight():
            if record.flowfile.uuid == flowfile_uuid:
                return FlowFileLocation(connection, record.flowfile, "IN_PROCESS", None)
    for connection in connections.values():
        for summary in connection.queue.swapped_batches():
            try:
                swapped = flowfiles.read_swapped(summary)
            except RepositoryError:
                # Swapped back in meanwhile: its FlowFiles are in the queue's memory.
                for position, record in enumerate(connection.queue.listing()):
                    if record.flowfile.uuid == flowfile_uuid:
                        return FlowFileLocation(connection, record.flowfile, "QUEUED", position)
                continue
            for record in swapped:
                if record.flowfile.uuid == flowfile_uuid:
                    return FlowFileLocation(connection, record.flowfile, "SWAPPED_OUT", None)
    return None
