"""Wiring a flow: controller services, processors, input ports and connections.

``FlowWiring`` builds the components a flow definition names, validates them (every
problem reported at once, each under its key in the definition) and binds each
component to its connections. It holds the registries the rest of the node reads:
``processors``, ``connections``, ``input_ports`` and ``controller_services``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from flowcore.clock import Clock
from flowcore.engine.connection import Connection
from flowcore.engine.ports import PORT_RELATIONSHIP, port_binding
from flowcore.engine.processor_node import ProcessorNode, ScheduleConfig
from flowcore.engine.validation import validate_properties
from flowcore.errors import ConfigurationError
from flowcore.flow.definition import ControllerServiceSpec, FlowDefinition, FlowDefinitionError
from flowcore.offload import ComputeServices
from flowcore.processor.context import ProcessContext
from flowcore.processor.processor import Processor
from flowcore.processor.registry import processor_class, service_class
from flowcore.processor.service import ControllerService
from flowcore.processor.validation import ValidationResult
from flowcore.queue.prioritizers import resolve_prioritizers
from flowcore.queue.queue import BackPressure, FlowFileQueue
from flowcore.repository.flowfile import FlowFileRepository
from flowcore.session.binding import ComponentBinding
from flowcore.settings import EngineSettings
from flowcore.units import parse_data_size, parse_time_period_ms


class FlowWiring:
    """The components of one node's flow and the connections between them."""

    def __init__(
        self,
        settings: EngineSettings,
        clock: Clock,
        compute: ComputeServices,
        swap_store: FlowFileRepository,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.compute = compute
        self._swap_store = swap_store
        self.processors: dict[str, ProcessorNode] = {}
        self.connections: dict[str, Connection] = {}
        self.input_ports: dict[str, ComponentBinding] = {}
        self.controller_services: dict[str, ControllerService] = {}

    def wire(self, definition: FlowDefinition) -> None:
        """Build the flow; every problem found is reported at once, each under its key."""
        flow = definition.flow
        problems: list[FlowDefinitionError] = []
        for name, svc in _services_in_order(flow.controller_services):
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
        self.input_ports[name] = port_binding(name)

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
            swap_store=self._swap_store,
        )
        connection = Connection(name, source, tuple(relationships), destination, queue)
        self.connections[name] = connection
        return connection

    def rebind(self) -> None:
        """Bind each component to its connections, updating its binding in place.

        A processor's binding (with its committed state and running totals) lives as
        long as the processor; only its queues, relationships and penalty change here.
        """
        for name, node in self.processors.items():
            outgoing: dict[str, list[FlowFileQueue]] = {}
            for connection in self.connections.values():
                if connection.source == name:
                    for rel in connection.relationships:
                        outgoing.setdefault(rel, []).append(connection.queue)
            incoming = [c.queue for c in self.connections.values() if c.destination == name]
            node.rebind(incoming, outgoing)
        for name, port in self.input_ports.items():
            port.outgoing = {
                PORT_RELATIONSHIP: [c.queue for c in self.connections.values() if c.source == name]
            }


def _services_in_order(
    services: Mapping[str, ControllerServiceSpec],
) -> list[tuple[str, ControllerServiceSpec]]:
    """The flow's services, each after the services its properties name (a reader after
    its Schema Registry), so a reference is enabled when the service referring to it is
    validated; otherwise in the flow's order."""
    pending = dict(services)
    ordered: list[tuple[str, ControllerServiceSpec]] = []
    while pending:
        ready = [
            name
            for name, spec in pending.items()
            if not any(v in pending and v != name for v in spec.properties.values())
        ] or [next(iter(pending))]
        for name in ready:
            ordered.append((name, pending.pop(name)))
    return ordered
