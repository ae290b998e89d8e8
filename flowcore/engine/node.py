"""A flowcore node: repositories, connections, processors and ports, wired in one place.

``Node`` opens the three repositories named by the settings (found through entry points),
recovers from them (queues, swap state, claimant counts, id counters, component state),
sweeps orphaned content, and then offers what the scheduler, the TestRunner, the CLI and
the REST API need: triggering processors, enqueueing into input ports, checkpoints,
provenance indexing, queries and replay.
"""

from __future__ import annotations

import socket
import threading
import uuid as uuid_module
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from flowcore.clock import Clock, SystemClock
from flowcore.engine.bulletins import BULLETIN_FILE, BulletinBoard
from flowcore.engine.bulletins import attach as attach_bulletins
from flowcore.engine.connection import Connection
from flowcore.engine.processor_node import ProcessorNode, RunState, ScheduleConfig
from flowcore.engine.repositories import Repositories, open_repositories
from flowcore.engine.validation import validate_properties
from flowcore.errors import (
    ConfigurationError,
    ContentNotFoundError,
    FlowCoreError,
    RepositoryError,
)
from flowcore.flow.definition import FlowDefinition, FlowDefinitionError
from flowcore.lineage.openlineage import ExportHook, Naming, configured_emitter
from flowcore.logsafe import safe_logger
from flowcore.model.flowfile import ContentClaim, CoreAttribute, FlowFile, ResourceClaim
from flowcore.model.provenance import ProvenanceEvent, ProvenanceEventType
from flowcore.offload import ComputeServices
from flowcore.processor.context import ProcessContext
from flowcore.processor.processor import Processor
from flowcore.processor.registry import processor_class, service_class
from flowcore.processor.service import ControllerService
from flowcore.processor.validation import ValidationResult
from flowcore.queue.prioritizers import resolve_prioritizers
from flowcore.queue.queue import BackPressure, FlowFileQueue
from flowcore.repository.content import ContentRepository
from flowcore.repository.flowfile import FlowFileRepository, QueuedFlowFile
from flowcore.repository.provenance import ProvenanceRepository
from flowcore.session.binding import ComponentBinding, IdGenerator, SessionServices
from flowcore.session.commit import SessionChanges, SessionCommitter
from flowcore.session.session import OpenContent, ProcessSession
from flowcore.settings import EngineSettings
from flowcore.units import parse_data_size, parse_time_period_ms

log = safe_logger("flowcore.engine")

PORT_RELATIONSHIP = "success"
REPLAY_COMPONENT = "flowcore-replay"


class ReplayError(FlowCoreError):
    """A provenance event that cannot be replayed, with NiFi's reason.

    ``reason`` says which rule refused it: ``join`` (JOIN events are never replayed),
    ``no-content`` (the event has no content claim), ``no-connection`` (the connection
    it came from is unknown or gone) or ``content-gone`` (the content has aged off, or
    fails its checksum).
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class EnqueueItem:
    """One FlowFile for an input port: content and attributes."""

    content: bytes
    attributes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FlowFileLocation:
    """A FlowFile found in a connection: queued in memory (with its position), swapped
    out, or taken by a session that has not committed yet."""

    connection: Connection
    flowfile: FlowFile
    state: Literal["QUEUED", "SWAPPED_OUT", "IN_PROCESS"]
    position: int | None


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
        self.processors: dict[str, ProcessorNode] = {}
        self.connections: dict[str, Connection] = {}
        self.input_ports: dict[str, ComponentBinding] = {}
        self.controller_services: dict[str, ControllerService] = {}
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
            node._wire(flow)
            node.recover()
        except BaseException:
            node.close()
            raise
        return node

    def _wire(self, definition: FlowDefinition) -> None:
        """Build the flow; every problem found is reported at once, each under its key."""
        flow = definition.flow
        problems: list[FlowDefinitionError] = []
        for name, svc in flow.controller_services.items():
            try:
                instance = service_class(svc.type)()
            except ConfigurationError as exc:
                problems.append(
                    FlowDefinitionError(f"flow.controller_services.{name}.type", str(exc))
                )
                continue
            results = self.validate_controller_service(name, instance, svc.properties)
            problems.extend(
                FlowDefinitionError(
                    f"flow.controller_services.{name}.properties.{r.subject}", str(r)
                )
                for r in results
            )
            if not results:
                try:
                    self.add_controller_service(name, instance, svc.properties)
                except ConfigurationError as exc:  # refused when enabled
                    problems.append(
                        FlowDefinitionError(f"flow.controller_services.{name}.properties", str(exc))
                    )
        extension_dirs = self.settings.python_extension_dirs(definition.folder)
        for name, spec in flow.processors.items():
            try:
                processor = processor_class(spec.type, extension_dirs)()
            except ConfigurationError as exc:
                problems.append(FlowDefinitionError(f"flow.processors.{name}.type", str(exc)))
                continue
            schedule = ScheduleConfig(
                period_ms=parse_time_period_ms(spec.schedule.period),
                concurrent_tasks=spec.schedule.concurrent_tasks,
                max_runs=spec.schedule.max_runs,
                penalty_ms=parse_time_period_ms(spec.penalty_duration),
                yield_ms=parse_time_period_ms(spec.yield_duration),
                administrative_yield_ms=parse_time_period_ms(
                    self.settings.scheduler.administrative_yield_duration
                ),
            )
            node = self.add_processor(
                name, processor, spec.properties, schedule, frozenset(spec.auto_terminate)
            )
            relationships = set(node.relationship_names())
            for rel in spec.auto_terminate:
                if rel not in relationships:
                    problems.append(
                        FlowDefinitionError(
                            f"flow.processors.{name}.auto_terminate",
                            f"'{spec.type}' has no relationship '{rel}'",
                        )
                    )
            problems.extend(
                FlowDefinitionError(f"flow.processors.{name}.properties.{r.subject}", str(r))
                for r in node.validate()
            )
            if spec.run_state == "RUNNING":
                node.start()
        for port in flow.input_ports:
            self.add_input_port(port)
        defaults = flow.defaults.back_pressure
        for index, spec_c in enumerate(flow.connections):
            if spec_c.source in self.processors:
                known = set(self.processors[spec_c.source].relationship_names())
                for rel in spec_c.relationships:
                    if rel not in known:
                        problems.append(
                            FlowDefinitionError(
                                f"flow.connections.{index}.relationships",
                                f"'{spec_c.source}' has no relationship '{rel}'",
                            )
                        )
            pressure = spec_c.back_pressure
            objects = next(
                v
                for v in (
                    pressure.object_threshold if pressure else None,
                    defaults.object_threshold,
                    self.settings.queue.back_pressure_object_threshold,
                )
                if v is not None
            )
            size = next(
                v
                for v in (
                    pressure.data_size_threshold if pressure else None,
                    defaults.data_size_threshold,
                    self.settings.queue.back_pressure_data_size_threshold,
                )
                if v is not None
            )
            try:
                resolve_prioritizers(spec_c.prioritizers)  # refuse unknown names here
            except ConfigurationError as exc:
                problems.append(
                    FlowDefinitionError(f"flow.connections.{index}.prioritizers", str(exc))
                )
                continue
            self.add_connection(
                spec_c.identifier,
                spec_c.source,
                spec_c.relationships or [PORT_RELATIONSHIP],
                spec_c.destination,
                prioritizers=spec_c.prioritizers,
                back_pressure=BackPressure(objects, parse_data_size(size)),
            )
        for name, node in self.processors.items():
            unconnected = (
                set(node.relationship_names())
                - node.auto_terminate
                - {
                    rel
                    for c in self.connections.values()
                    if c.source == name
                    for rel in c.relationships
                }
            )
            if unconnected:
                problems.append(
                    FlowDefinitionError(
                        f"flow.processors.{name}",
                        f"relationship(s) {', '.join(sorted(unconnected))} are neither "
                        "connected nor auto-terminated",
                    )
                )
        if problems:
            raise FlowDefinitionError.combine(problems)
        self.rebind()

    def add_controller_service(
        self,
        identifier: str,
        service: ControllerService,
        properties: Mapping[str, str] | None = None,
    ) -> ControllerService:
        context = self._service_context(identifier, service, properties)
        errors = self._validate_service(service, context)
        if errors:
            kind = service.type_name or type(service).__name__
            msg = f"controller service '{identifier}' ({kind}) is not valid: " + "; ".join(
                str(e) for e in errors
            )
            raise ConfigurationError(msg)
        service.on_enabled(context)
        self.controller_services[identifier] = service
        return service

    def validate_controller_service(
        self,
        identifier: str,
        service: ControllerService,
        properties: Mapping[str, str] | None = None,
    ) -> list[ValidationResult]:
        """Every problem with a service's configuration (nothing is enabled)."""
        return self._validate_service(
            service, self._service_context(identifier, service, properties)
        )

    def _service_context(
        self, identifier: str, service: ControllerService, properties: Mapping[str, str] | None
    ) -> ProcessContext:
        by_display = {
            d.display_name: d.name for d in service.property_descriptors if d.display_name
        }
        return ProcessContext(
            component_id=identifier,
            name=identifier,
            descriptors={d.name: d for d in service.property_descriptors},
            properties={by_display.get(k, k): v for k, v in (properties or {}).items()},
            clock=self.clock,
            services=self.controller_services,
            settings=self.settings,
            compute=self.compute,
        )

    def _validate_service(
        self, service: ControllerService, context: ProcessContext
    ) -> list[ValidationResult]:
        known = {d.name for d in service.property_descriptors}
        dynamic = {
            name: descriptor
            for name in context.properties
            if name not in known
            and (descriptor := service.get_dynamic_property_descriptor(name)) is not None
        }
        errors = validate_properties(
            service.property_descriptors, context.properties, dynamic, self.controller_services
        )
        if not errors:
            errors = [r for r in service.custom_validate(context) if not r.valid]
        return errors

    def add_processor(
        self,
        name: str,
        processor: Processor,
        properties: Mapping[str, str],
        schedule: ScheduleConfig | None = None,
        auto_terminate: frozenset[str] = frozenset(),
    ) -> ProcessorNode:
        if name in self.processors or name in self.input_ports:
            msg = f"a component named '{name}' already exists"
            raise ConfigurationError(msg)
        node = ProcessorNode(
            name, processor, properties, schedule or ScheduleConfig(), self.clock, auto_terminate
        )
        node.services = self.controller_services
        node.settings = self.settings
        node.compute = self.compute
        self.processors[name] = node
        return node

    def add_input_port(self, name: str) -> None:
        self.input_ports[name] = ComponentBinding(
            component_id=name,
            component_type="InputPort",
            incoming=[],
            outgoing={},
            auto_terminated=frozenset(),
            relationships=frozenset({PORT_RELATIONSHIP}),
        )

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
        queue_settings = self.settings.queue
        queue = FlowFileQueue(
            name,
            prioritizers=resolve_prioritizers(prioritizers),
            back_pressure=back_pressure
            or BackPressure(
                queue_settings.back_pressure_object_threshold,
                parse_data_size(queue_settings.back_pressure_data_size_threshold),
            ),
            swap_threshold=queue_settings.swap_threshold,
            swap_batch_size=queue_settings.swap_batch_size,
            swap_store=self.flowfiles,
        )
        connection = Connection(name, source, tuple(relationships), destination, queue)
        self.connections[name] = connection
        return connection

    def rebind(self) -> None:
        """(Re)build each component's binding from the connections."""
        for name, node in self.processors.items():
            outgoing: dict[str, list[FlowFileQueue]] = {}
            for connection in self.connections.values():
                if connection.source == name:
                    for rel in connection.relationships:
                        outgoing.setdefault(rel, []).append(connection.queue)
            incoming = [c.queue for c in self.connections.values() if c.destination == name]
            state = node.binding.state if node.binding is not None else None
            stats = node.binding.stats if node.binding is not None else None
            node.binding = ComponentBinding(
                component_id=name,
                component_type=node.type_name,
                incoming=incoming,
                outgoing=outgoing,
                auto_terminated=node.auto_terminate,
                relationships=frozenset(node.relationship_names()),
                penalty_ms=node.schedule.penalty_ms,
            )
            if state is not None and stats is not None:
                node.binding.state, node.binding.stats = state, stats
        for name, port in self.input_ports.items():
            port.outgoing = {
                PORT_RELATIONSHIP: [c.queue for c in self.connections.values() if c.source == name]
            }

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
            assert node.binding is not None
            node.binding.state.values = self.flowfiles.load_state(name)
        journaled = self.index_provenance()
        self.recovery = RecoveryReport(flowfiles, swapped, orphans, journaled)
        return self.recovery

    # -- running --------------------------------------------------------------------------

    def trigger(self, name: str, *, raise_errors: bool = False) -> bool:
        return self.processors[name].trigger(self.services, raise_errors=raise_errors)

    def session_for(self, binding: ComponentBinding) -> ProcessSession:
        return ProcessSession(binding, self.services)

    def checkpoint(self) -> int:
        """Sync the FlowFile repository and release the content claims that waited for it."""
        return self.committer.checkpoint()

    def index_provenance(self) -> int:
        with self._index_lock:
            return self.provenance.index_pending()

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
        """Create FlowFiles at an input port in one session; returns their uuids once durable.

        Raises ``BackPressureError`` if a connection of the port is full (nothing is
        enqueued) and ``ValueError`` for an attempt to set ``uuid``.
        """
        binding = self.input_ports.get(port)
        if binding is None:
            msg = f"no input port named '{port}'"
            raise KeyError(msg)
        for queue in binding.outgoing.get(PORT_RELATIONSHIP, []):
            if queue.is_full():
                raise BackPressureError(port, queue.name)
        session = self.session_for(binding)
        uuids: list[str] = []
        try:
            for item in items:
                if CoreAttribute.UUID in item.attributes:
                    msg = "the 'uuid' attribute cannot be set"
                    raise ValueError(msg)
                flowfile = session.create()
                if item.attributes:
                    flowfile = session.put_all_attributes(flowfile, item.attributes)
                flowfile = session.write(flowfile, item.content)
                session.provenance.receive(flowfile, f"flowcore://input-port/{port}")
                session.transfer(flowfile, PORT_RELATIONSHIP)
                uuids.append(flowfile.uuid)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return uuids

    def open_upload(self, port: str, attributes: Mapping[str, str]) -> PortUpload:
        """Start one FlowFile at an input port whose content arrives in chunks.

        The content streams into the content repository as it comes (never whole in
        memory); ``commit`` makes the FlowFile durable and returns its uuid, ``abort``
        leaves nothing behind. Raises as ``enqueue`` does for an unknown port, back
        pressure or a ``uuid`` attribute.
        """
        binding = self.input_ports.get(port)
        if binding is None:
            msg = f"no input port named '{port}'"
            raise KeyError(msg)
        if CoreAttribute.UUID in attributes:
            msg = "the 'uuid' attribute cannot be set"
            raise ValueError(msg)
        for queue in binding.outgoing.get(PORT_RELATIONSHIP, []):
            if queue.is_full():
                raise BackPressureError(port, queue.name)
        session = self.session_for(binding)
        flowfile = session.create()
        if attributes:
            flowfile = session.put_all_attributes(flowfile, attributes)
        return PortUpload(port, session, session.open_write(flowfile))

    # -- replay ---------------------------------------------------------------------------

    def replay(self, event_id: int) -> str:
        """Replay a provenance event: a new FlowFile on the connection the event came from."""
        self.index_provenance()
        event = self.provenance.get_event(event_id)
        if event is None:
            raise KeyError(f"no provenance event with id {event_id}")
        if event.event_type == ProvenanceEventType.JOIN:
            raise ReplayError("join", "cannot replay a JOIN event")
        ref = event.previous_content or event.current_content
        attributes = event.previous_attributes if event.previous_content else event.attributes
        if ref is None:
            raise ReplayError("no-content", "the event has no content to replay")
        if not event.source_queue_id or event.source_queue_id not in self.connections:
            raise ReplayError(
                "no-connection",
                "the connection the FlowFile came from no longer exists"
                if event.source_queue_id
                else "the event has no source connection",
            )
        claim = ContentClaim(
            ResourceClaim(ref.container, ref.section, ref.identifier),
            ref.offset,
            ref.size,
            ref.checksum,
        )
        if not self.content.exists(claim):
            raise ReplayError("content-gone", "the content of the event is no longer available")
        if claim.checksum is not None:
            try:
                self.content.verify(claim)  # never replay damaged bytes into the flow
            except ContentNotFoundError as exc:
                msg = f"the content of the event cannot be read whole: {exc}"
                raise ReplayError("content-gone", msg) from exc
        now = self.clock.now_ms()
        new_uuid = str(uuid_module.uuid4())
        new_attributes = {
            **attributes,
            CoreAttribute.UUID.value: new_uuid,
            "flowfile.replay": "true",
            "flowfile.replay.timestamp": str(now),
        }
        flowfile = FlowFile(
            id=self.ids.next(),
            attributes=new_attributes,
            claim=claim,
            claim_offset=0,
            size=ref.size,
            entry_date=now,
            lineage_start_date=event.lineage_start_date or now,
        )
        queue = self.connections[event.source_queue_id].queue
        self.content.increment(claim.resource)
        binding = ComponentBinding(
            component_id=REPLAY_COMPONENT,
            component_type="Replay",
            incoming=[],
            outgoing={},
            auto_terminated=frozenset(),
            relationships=frozenset(),
        )
        replay_event = ProvenanceEvent(
            event_time=now,
            event_type=ProvenanceEventType.REPLAY.value,
            flowfile_uuid=event.flowfile_uuid,
            component_id=event.component_id,
            component_type=event.component_type,
            entry_date=now,
            lineage_start_date=flowfile.lineage_start_date,
            parent_uuids=[event.flowfile_uuid],
            child_uuids=[new_uuid],
            previous_attributes=dict(attributes),
            updated_attributes=cast(
                dict[str, str | None],
                {k: v for k, v in new_attributes.items() if attributes.get(k) != v},
            ),
            previous_content=ref,
            current_content=ref,
            source_queue_id=queue.name,
            size=ref.size,
            details=f"Replay of event {event_id}",
        )
        changes = SessionChanges(binding=binding, events=[replay_event])
        changes.puts.append((queue, QueuedFlowFile(queue.name, queue.next_seq(), flowfile)))
        try:
            self.committer.commit(changes, now)
        except BaseException:
            self.content.decrement(claim.resource)
            raise
        return new_uuid

    # -- observation ----------------------------------------------------------------------

    def locate(self, flowfile_uuid: str) -> FlowFileLocation | None:
        """Where a FlowFile is: queued in memory, swapped out, or held by a session."""
        for connection in self.connections.values():
            for position, record in enumerate(connection.queue.listing()):
                if record.flowfile.uuid == flowfile_uuid:
                    return FlowFileLocation(connection, record.flowfile, "QUEUED", position)
        for connection in self.connections.values():
            for record in connection.queue.in_flight():
                if record.flowfile.uuid == flowfile_uuid:
                    return FlowFileLocation(connection, record.flowfile, "IN_PROCESS", None)
        for connection in self.connections.values():
            for summary in connection.queue.swapped_batches():
                try:
                    swapped = self.flowfiles.read_swapped(summary)
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

    def status(self) -> dict[str, Any]:
        return {
            "processors": {
                name: {"type": n.type_name, "run_state": n.run_state.value, "runs": n.runs}
                for name, n in self.processors.items()
            },
            "connections": {name: c.queue.snapshot() for name, c in self.connections.items()},
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


class BackPressureError(FlowCoreError):
    """An input port's connection is full: nothing was enqueued."""

    def __init__(self, port: str, connection: str) -> None:
        super().__init__(
            f"back pressure is engaged on connection '{connection}' of input port '{port}'"
        )
        self.port = port
        self.connection = connection


class PortUpload:
    """One FlowFile being uploaded into an input port (see ``Node.open_upload``)."""

    def __init__(self, port: str, session: ProcessSession, content: OpenContent) -> None:
        self._port = port
        self._session = session
        self._content = content
        self._done = False

    @property
    def size(self) -> int:
        return self._content.bytes_written

    def write(self, chunk: bytes | bytearray | memoryview) -> None:
        self._content.write(chunk)

    def commit(self) -> str:
        """Close the content, commit durably, and return the new FlowFile's uuid."""
        if self._done:
            msg = "the upload is already finished"
            raise ValueError(msg)
        self._done = True
        session = self._session
        try:
            flowfile = self._content.close()
            session.provenance.receive(flowfile, f"flowcore://input-port/{self._port}")
            session.transfer(flowfile, PORT_RELATIONSHIP)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return flowfile.uuid

    def abort(self) -> None:
        """Drop the upload: nothing is enqueued and the partial content is released."""
        if not self._done:
            self._done = True
            self._session.rollback()
