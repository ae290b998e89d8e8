"""A flowcore node: repositories, connections, processors and ports, wired in one place.

``Node`` opens the three repositories named by the settings (found through entry points),
recovers from them (queues, swap state, claimant counts, id counters, component state),
sweeps orphaned content, and then offers what the scheduler, the TestRunner, the CLI and
the REST API need: triggering processors, checkpoints and provenance indexing. It
composes the parts that do the rest, each in its own module, and keeps their methods
under its own name: ``wiring`` (building the flow), ``ports`` (enqueueing into input
ports), ``replayer`` (provenance replay) and ``status_view`` (read-only status, locate).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flowcore.clock import Clock, SystemClock
from flowcore.engine.bulletins import BULLETIN_FILE, BulletinBoard
from flowcore.engine.bulletins import attach as attach_bulletins
from flowcore.engine.connection import Connection
from flowcore.engine.ports import (
    PORT_RELATIONSHIP,
    BackPressureError,
    EnqueueItem,
    InputPorts,
    PortUpload,
)
from flowcore.engine.processor_node import ProcessorNode, RunState, ScheduleConfig
from flowcore.engine.replay import Replayer, ReplayError
from flowcore.engine.repositories import Repositories, open_repositories
from flowcore.engine.status import FlowFileLocation, FlowStatusView, locate
from flowcore.engine.wiring import FlowWiring
from flowcore.errors import FlowCoreError
from flowcore.flow.definition import FlowDefinition
from flowcore.lineage.openlineage import ExportHook, Naming, configured_emitter
from flowcore.logsafe import safe_logger
from flowcore.offload import ComputeServices
from flowcore.processor.processor import Processor
from flowcore.processor.service import ControllerService
from flowcore.processor.validation import ValidationResult
from flowcore.queue.queue import BackPressure
from flowcore.repository.content import ContentRepository
from flowcore.repository.flowfile import FlowFileRepository
from flowcore.repository.provenance import ProvenanceRepository
from flowcore.session.binding import ComponentBinding, IdGenerator
from flowcore.session.commit import SessionCommitter
from flowcore.session.services import SessionServices
from flowcore.session.session import ProcessSession
from flowcore.settings import EngineSettings

log = safe_logger("flowcore.engine")

__all__ = [
    "PORT_RELATIONSHIP",
    "BackPressureError",
    "EnqueueItem",
    "FlowFileLocation",
    "Node",
    "PortUpload",
    "RecoveryReport",
    "ReplayError",
]


@dataclass(frozen=True, slots=True)
class RecoveryReport:
    flowfiles: int
    swapped: int
    orphaned_claims: int
    journaled_events: int


class Node:
    """One running flowcore instance."""

    def __init__(
        self,
        settings: EngineSettings,
        clock: Clock | None = None,
        repositories: Repositories | None = None,
    ) -> None:
        """``repositories``: already open ones to run on (the TestRunner's in-memory
        twins); by default the node opens those the settings name, checked and marked."""
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        # Missing, damaged or foreign repositories are refused before anything changes.
        self.repositories = repositories or open_repositories(settings, self.clock)
        self.flowfiles: FlowFileRepository = self.repositories.flowfiles
        self.content: ContentRepository = self.repositories.content
        self.provenance: ProvenanceRepository = self.repositories.provenance
        self.committer = SessionCommitter(self.flowfiles, self.content)
        self.committer.make_room = self._make_room
        self.ids = IdGenerator()
        self.services = SessionServices(self.clock, self.content, self.ids, self.committer)
        self.compute = ComputeServices(settings)
        self.wiring = FlowWiring(settings, self.clock, self.compute, self.flowfiles)
        self.processors: dict[str, ProcessorNode] = self.wiring.processors
        self.connections: dict[str, Connection] = self.wiring.connections
        self.input_ports: dict[str, ComponentBinding] = self.wiring.input_ports
        self.controller_services: dict[str, ControllerService] = self.wiring.controller_services
        self.ports = InputPorts(self.input_ports, self.session_for)
        self.replayer = Replayer(
            self.provenance, self.content, self.connections, self.session_for, self.clock.now_ms
        )
        self.status_view = FlowStatusView(
            settings,
            self.processors,
            self.input_ports,
            self.connections,
            self.flowfiles,
            self.provenance,
        )
        self.recovery: RecoveryReport | None = None
        self._index_lock = threading.Lock()
        self._closed = False
        self.bulletins = BulletinBoard(self.clock, settings.data_dir / BULLETIN_FILE)
        self._detach_bulletins = attach_bulletins(
            self.bulletins,
            self.committer.add_listener,
            lambda: {name: p.type_name for name, p in self.processors.items()},
        )
        self._lineage_hook = _lineage_hook(settings, self.provenance)

    # -- building the flow ----------------------------------------------------------------

    @classmethod
    def from_flow(
        cls, settings: EngineSettings, flow: FlowDefinition, clock: Clock | None = None
    ) -> Node:
        """Build and recover a node for a validated flow definition."""
        node = cls(settings, clock)
        try:
            node.wiring.wire(flow)
            node.recover()
        except BaseException:
            node.close()
            raise
        return node

    def add_controller_service(
        self,
        identifier: str,
        service: ControllerService,
        properties: Mapping[str, str] | None = None,
    ) -> ControllerService:
        return self.wiring.add_controller_service(identifier, service, properties)

    def validate_controller_service(
        self,
        identifier: str,
        service: ControllerService,
        properties: Mapping[str, str] | None = None,
    ) -> list[ValidationResult]:
        """Every problem with a service's configuration (nothing is enabled)."""
        return self.wiring.validate_controller_service(identifier, service, properties)

    def add_processor(
        self,
        name: str,
        processor: Processor,
        properties: Mapping[str, str],
        schedule: ScheduleConfig | None = None,
        auto_terminate: frozenset[str] = frozenset(),
    ) -> ProcessorNode:
        return self.wiring.add_processor(name, processor, properties, schedule, auto_terminate)

    def add_input_port(self, name: str) -> None:
        self.wiring.add_input_port(name)

    def add_connection(
        self,
        name: str,
        source: str,
        relationships: Sequence[str],
        destination: str | None,
        *,
        prioritizers: Sequence[str] = (),
        back_pressure: BackPressure | None = None,
    ) -> Connection:
        return self.wiring.add_connection(
            name,
            source,
            relationships,
            destination,
            prioritizers=prioritizers,
            back_pressure=back_pressure,
        )

    def rebind(self) -> None:
        """(Re)bind each component to its connections (see ``FlowWiring.rebind``)."""
        self.wiring.rebind()

    # -- recovery -------------------------------------------------------------------------

    def recover(self) -> RecoveryReport:
        """Rebuild queues, claimant counts, ids and state from the repositories alone."""
        recovered = self.flowfiles.recover()
        self.ids = IdGenerator(recovered.next_flowfile_id)
        self.services.ids = self.ids
        flowfiles = swapped = 0
        for name, connection in self.connections.items():
            records = recovered.queues.pop(name, [])
            summaries = recovered.swapped.pop(name, [])
            connection.queue.restore(records, summaries, recovered.next_seq.get(name, 0))
            flowfiles += len(records)
            swapped += sum(s.count for s in summaries)
        for queue_name in set(recovered.queues) | set(recovered.swapped):
            log.warning(
                "FlowFiles recovered for connection '%s', which is not in the flow: "
                "kept in the repository (their content is retained)",
                queue_name,
            )
        orphans = self.content.recover(recovered.claim_references)
        self.compute.sweep_staging()
        for name, node in self.processors.items():
            node.binding.state.values = self.flowfiles.load_state(name)
        journaled = self.index_provenance()
        self.recovery = RecoveryReport(flowfiles, swapped, orphans, journaled)
        return self.recovery

    # -- running --------------------------------------------------------------------------

    def trigger(self, name: str, *, raise_errors: bool = False) -> bool:
        """Trigger one processor once, running or not (a stopped one as NiFi's Run Once:
        ``on_scheduled``, the trigger, ``on_stopped``); False if the trigger failed."""
        return self.processors[name].trigger(
            self.services, raise_errors=raise_errors, run_once=True
        )

    def session_for(self, binding: ComponentBinding) -> ProcessSession:
        return ProcessSession(binding, self.services)

    def checkpoint(self) -> int:
        """Sync the FlowFile repository and release the content claims that waited for it."""
        return self.committer.checkpoint()

    def index_provenance(self, *, wait: bool = True) -> int:
        """Index the journaled provenance (see ``ProvenanceRepository.index_pending``)."""
        with self._index_lock:
            return self.provenance.index_pending(wait=wait)

    def export_lineage(self) -> None:
        """Send the OpenLineage runs of newly indexed provenance, when a transport is set."""
        if self._lineage_hook is None:
            return
        try:
            with self._index_lock:
                self._lineage_hook.after_indexing()
        except FlowCoreError as exc:
            log.warning("OpenLineage export will be retried: %s", exc)

    def _make_room(self) -> bool:
        """The FlowFile repository is full: index the provenance journal, which trims it.

        Journal pressure must not wait for the next index batch: the pages the trimmed
        events held take the commit that found the repository full. True if any went.
        """
        if self.flowfiles.journal_size() == 0:
            return False
        return self.index_provenance() > 0

    def maintain(self) -> None:
        """Periodic housekeeping: checkpoint, provenance indexing, archive and age-off."""
        now = self.clock.now_ms()
        self.checkpoint()
        self.index_provenance()
        self.export_lineage()
        self.content.cleanup_archive(now)
        self.provenance.age_off(now)

    # -- input ports ----------------------------------------------------------------------

    def enqueue(self, port: str, items: Iterable[EnqueueItem]) -> list[str]:
        """Create FlowFiles at an input port in one session (``InputPorts.enqueue``)."""
        return self.ports.enqueue(port, items)

    def open_upload(self, port: str, attributes: Mapping[str, str]) -> PortUpload:
        """Start one FlowFile whose content arrives in chunks (``InputPorts.open_upload``)."""
        return self.ports.open_upload(port, attributes)

    # -- replay ---------------------------------------------------------------------------

    def replay(self, event_id: int) -> str:
        """Replay a provenance event: a new FlowFile on the connection the event came from.

        The journal is indexed first, so an event just written can be replayed.
        """
        self.index_provenance()
        return self.replayer.replay(event_id)

    # -- observation ----------------------------------------------------------------------

    def locate(self, flowfile_uuid: str) -> FlowFileLocation | None:
        """Where a FlowFile is: queued in memory, swapped out, or held by a session."""
        return locate(self.connections, self.flowfiles, flowfile_uuid)

    def status(self) -> dict[str, Any]:
        """Processors and connections in brief (``status_view`` has the whole status)."""
        return {
            "processors": {
                p.name: {"type": p.type, "run_state": p.run_state.value, "runs": p.runs}
                for p in self.status_view.processors()
            },
            "connections": {c.name: c for c in self.status_view.connections()},
        }

    def start_all(self) -> None:
        for node in self.processors.values():
            node.start()

    def stop_all(self) -> None:
        for node in self.processors.values():
            if node.run_state is RunState.RUNNING:
                node.stop()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for node in self.processors.values():
            try:
                node.stop()
            except Exception:
                log.exception("error stopping %s", node.name)
        # As NiFi shuts down: services are disabled once the processors using them stopped,
        # the last enabled first (a service may use one enabled before it).
        for identifier, service in reversed(list(self.controller_services.items())):
            try:
                service.on_disabled()
            except Exception:
                log.exception("error disabling controller service %s", identifier)
        for closer in (self.checkpoint, self.index_provenance, self.export_lineage):
            try:
                closer()
            except Exception:
                log.exception("error during shutdown")
        self.repositories.close()
        self._detach_bulletins()

    def abandon(self) -> None:
        """Let go of the node as a killed process would: no processor is stopped, nothing
        is checkpointed, indexed or released; only the repositories' handles are closed
        (their files stay as written), so that a simulated crash can open the same data
        directory again in this process."""
        if self._closed:
            return
        self._closed = True
        self.repositories.close()
        self._detach_bulletins()


def _lineage_hook(settings: EngineSettings, provenance: ProvenanceRepository) -> ExportHook | None:
    emitter = configured_emitter(settings.openlineage)
    if emitter is None:
        return None
    lineage = settings.openlineage
    naming = Naming(lineage.namespace, lineage.flow_name, socket.gethostname())
    return ExportHook(provenance, naming, emitter)
