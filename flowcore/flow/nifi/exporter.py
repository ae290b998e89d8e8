"""flowcore flow definition -> NiFi flow definition ("Download flow definition" form).

The flow becomes one process group (names stay qualified, ``Group/Processor``; nested
groups are not rebuilt), with its parameters as a parameter context of the flow's name.
Identifiers are UUIDs derived from the names, so exporting the same flow twice gives the
same file. Importing the result gives the same flowcore flow back; what NiFi cannot hold
(``max_runs``) is dropped, with a note.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from flowcore.flow.definition import FlowDefinition, ProcessorSpec
from flowcore.flow.nifi.importer import NIFI_DATA_SIZE_THRESHOLD, NIFI_OBJECT_THRESHOLD
from flowcore.flow.nifi.mapping import (
    FUNNEL_TYPE,
    NIFI_VERSION,
    PRIORITIZER_PACKAGE,
    STUB_COMPONENT_TYPE,
    STUB_RELATIONSHIPS,
    STUB_TYPE,
    TypeMapping,
    nifi_class,
)
from flowcore.flow.nifi.model import (
    Bundle,
    ConnectableComponent,
    ControllerServiceAPI,
    Position,
    VersionedConnection,
    VersionedControllerService,
    VersionedFlowDefinition,
    VersionedFunnel,
    VersionedParameter,
    VersionedParameterContext,
    VersionedPort,
    VersionedProcessGroup,
    VersionedProcessor,
    VersionedPropertyDescriptor,
)
from flowcore.processor.descriptors import PropertyDescriptor
from flowcore.processor.registry import processor_class, service_class
from flowcore.settings import EngineSettings

_NAMESPACE = uuid.UUID("6f1c1f4e-2b1e-4c55-9a59-7d3c3a0e9b11")


@dataclass(slots=True)
class ExportResult:
    """The NiFi flow definition (JSON-ready) and notes on what NiFi could not hold."""

    document: dict[str, Any]
    notes: list[str] = field(default_factory=list)


def _id(kind: str, name: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{kind}:{name}"))


def _bundle(mapping: TypeMapping) -> Bundle:
    group = "org.apache.nifi" if mapping.artifact != "flowcore" else "flowcore"
    return Bundle(group=group, artifact=mapping.artifact, version=NIFI_VERSION)


class _Exporter:
    def __init__(self, definition: FlowDefinition) -> None:
        self.flow = definition.flow
        self.root_id = _id("group", self.flow.name)
        self.notes: list[str] = []
        self.service_ids = {name: _id("service", name) for name in self.flow.controller_services}
        self.extension_dirs = EngineSettings().python_extension_dirs(definition.folder)

    def _properties(
        self, values: dict[str, str], descriptors: list[PropertyDescriptor], mapping: TypeMapping
    ) -> tuple[dict[str, str | None], dict[str, VersionedPropertyDescriptor]]:
        reverse = {flowcore: nifi for nifi, flowcore in mapping.aliases.items()}
        by_key: dict[str, PropertyDescriptor] = {}
        for descriptor in descriptors:
            by_key[descriptor.name] = descriptor
            by_key.setdefault(descriptor.label, descriptor)
        properties: dict[str, str | None] = {}
        nifi_descriptors: dict[str, VersionedPropertyDescriptor] = {}
        for key, value in values.items():
            found = by_key.get(key)
            if found is None:
                properties[key] = self.service_ids.get(value, value)
                nifi_descriptors[key] = VersionedPropertyDescriptor(
                    name=key,
                    display_name=key,
                    identifies_controller_service=value in self.service_ids,
                    dynamic=True,
                )
                continue
            descriptor = found
            name = reverse.get(descriptor.name, descriptor.name)
            if descriptor.controller_service:
                value = self.service_ids.get(value, value)
            properties[name] = value
            nifi_descriptors[name] = VersionedPropertyDescriptor(
                name=name,
                display_name=descriptor.label,
                identifies_controller_service=bool(descriptor.controller_service),
                sensitive=descriptor.sensitive,
            )
        return properties, nifi_descriptors

    def _processor(self, name: str, spec: ProcessorSpec, index: int) -> VersionedProcessor:
        values = dict(spec.properties)
        bundle: Bundle | None = None
        if spec.type == STUB_TYPE:
            nifi_type = values.pop(STUB_COMPONENT_TYPE, STUB_TYPE)
            values.pop(STUB_RELATIONSHIPS, None)
            mapping = TypeMapping(nifi_type, STUB_TYPE, "processor", "unknown")
            descriptors: list[PropertyDescriptor] = []
            state = "DISABLED"
        else:
            mapping = nifi_class(spec.type, "processor")
            cls = processor_class(spec.type, self.extension_dirs)
            descriptors = list(cls().property_descriptors)
            state = "ENABLED" if spec.run_state == "RUNNING" else "DISABLED"
            python_bundle = getattr(cls, "nifi_bundle", None)
            if python_bundle is not None:  # a NiFi Python processor: NiFi's own bundle
                group, artifact, version = python_bundle
                mapping = TypeMapping(spec.type, spec.type, "processor", artifact)
                bundle = Bundle(group=group, artifact=artifact, version=version)
        properties, nifi_descriptors = self._properties(values, descriptors, mapping)
        if spec.schedule.max_runs is not None:
            self.notes.append(
                f"processor '{name}': max_runs ({spec.schedule.max_runs}) has no NiFi "
                "equivalent; dropped"
            )
        return VersionedProcessor(
            identifier=_id("processor", name),
            instance_identifier=_id("processor-instance", name),
            group_identifier=self.root_id,
            name=name,
            comments="",
            position=Position(x=float(index % 4) * 400.0, y=float(index // 4) * 240.0),
            component_type="PROCESSOR",
            type=mapping.nifi_type,
            bundle=bundle or _bundle(mapping),
            properties=properties,
            property_descriptors=nifi_descriptors,
            scheduled_state=state,
            bulletin_level="WARN",
            scheduling_period=spec.schedule.period,
            scheduling_strategy=spec.schedule.strategy,
            execution_node="ALL",
            penalty_duration=spec.penalty_duration,
            yield_duration=spec.yield_duration,
            run_duration_millis=0,
            concurrently_schedulable_task_count=spec.schedule.concurrent_tasks,
            auto_terminated_relationships=list(spec.auto_terminate),
            retry_count=10,
            retried_relationships=[],
            backoff_mechanism="PENALIZE_FLOWFILE",
            max_backoff_period="10 mins",
        )

    def _is_funnel(self, spec: ProcessorSpec) -> bool:
        return spec.type == FUNNEL_TYPE and not spec.properties

    def _endpoint(self, name: str) -> ConnectableComponent:
        if name in self.flow.input_ports:
            return ConnectableComponent(
                id=_id("port", name), type="INPUT_PORT", group_id=self.root_id, name=name
            )
        spec = self.flow.processors[name]
        if self._is_funnel(spec):
            return ConnectableComponent(
                id=_id("funnel", name), type="FUNNEL", group_id=self.root_id, name=name
            )
        return ConnectableComponent(
            id=_id("processor", name), type="PROCESSOR", group_id=self.root_id, name=name
        )

    def run(self) -> ExportResult:
        flow = self.flow
        defaults = flow.defaults.back_pressure
        objects = (
            defaults.object_threshold
            if defaults.object_threshold is not None
            else NIFI_OBJECT_THRESHOLD
        )
        size = defaults.data_size_threshold or NIFI_DATA_SIZE_THRESHOLD
        processors: list[VersionedProcessor] = []
        funnels: list[VersionedFunnel] = []
        for index, (name, spec) in enumerate(flow.processors.items()):
            if self._is_funnel(spec):
                outgoing = any(c.source == name for c in flow.connections)
                if spec.run_state == "STOPPED" and outgoing:
                    self.notes.append(f"funnel '{name}': a NiFi funnel cannot be stopped")
                funnels.append(
                    VersionedFunnel(
                        identifier=_id("funnel", name),
                        instance_identifier=_id("funnel-instance", name),
                        group_identifier=self.root_id,
                        name=name,
                        position=Position(x=float(index % 4) * 400.0, y=float(index // 4) * 240.0),
                        component_type="FUNNEL",
                    )
                )
            else:
                processors.append(self._processor(name, spec, index))
        ports = [
            VersionedPort(
                identifier=_id("port", name),
                instance_identifier=_id("port-instance", name),
                group_identifier=self.root_id,
                name=name,
                comments=port.description,
                position=Position(x=-400.0, y=float(index) * 120.0),
                component_type="INPUT_PORT",
                type="INPUT_PORT",
                scheduled_state="ENABLED",
                allow_remote_access=False,
                port_function="STANDARD",
            )
            for index, (name, port) in enumerate(flow.input_ports.items())
        ]
        connections = []
        for connection in flow.connections:
            from_processor = connection.source in flow.processors and not self._is_funnel(
                flow.processors[connection.source]
            )
            pressure = connection.back_pressure
            connections.append(
                VersionedConnection(
                    identifier=_id("connection", connection.identifier),
                    instance_identifier=_id("connection-instance", connection.identifier),
                    group_identifier=self.root_id,
                    name=connection.name or "",
                    component_type="CONNECTION",
                    source=self._endpoint(connection.source),
                    destination=self._endpoint(connection.destination),
                    selected_relationships=list(connection.relationships)
                    if from_processor
                    else [""],
                    back_pressure_object_threshold=pressure.object_threshold
                    if pressure and pressure.object_threshold is not None
                    else objects,
                    back_pressure_data_size_threshold=pressure.data_size_threshold
                    if pressure and pressure.data_size_threshold
                    else size,
                    flow_file_expiration="0 sec",
                    prioritizers=[
                        PRIORITIZER_PACKAGE
                        + (p if p.endswith("Prioritizer") else f"{p}Prioritizer")
                        for p in connection.prioritizers
                    ],
                    bends=[],
                    load_balance_strategy="DO_NOT_LOAD_BALANCE",
                    partitioning_attribute="",
                    load_balance_compression="DO_NOT_COMPRESS",
                    label_index=1,
                    z_index=0,
                )
            )
        services = []
        for name, svc in flow.controller_services.items():
            mapping = nifi_class(svc.type, "service")
            descriptors = list(service_class(svc.type)().property_descriptors)
            values = {**mapping.exported, **svc.properties}
            properties, nifi_descriptors = self._properties(values, descriptors, mapping)
            services.append(
                VersionedControllerService(
                    identifier=self.service_ids[name],
                    instance_identifier=_id("service-instance", name),
                    group_identifier=self.root_id,
                    name=name,
                    comments="",
                    component_type="CONTROLLER_SERVICE",
                    type=mapping.nifi_type,
                    bundle=_bundle(mapping),
                    properties=properties,
                    property_descriptors=nifi_descriptors,
                    controller_service_apis=[
                        ControllerServiceAPI(
                            type=mapping.api,
                            bundle=Bundle(
                                artifact="nifi-standard-services-api-nar", version=NIFI_VERSION
                            ),
                        )
                    ]
                    if mapping.api
                    else [],
                    scheduled_state="ENABLED",
                    bulletin_level="WARN",
                )
            )
        contexts: dict[str, VersionedParameterContext] = {}
        if flow.parameters:
            contexts[flow.name] = VersionedParameterContext(
                name=flow.name,
                identifier=_id("parameter-context", flow.name),
                description="",
                parameters=[
                    VersionedParameter(
                        name=key, description="", sensitive=False, provided=False, value=value
                    )
                    for key, value in flow.parameters.items()
                ],
                inherited_parameter_contexts=[],
                component_type="PARAMETER_CONTEXT",
            )
        group = VersionedProcessGroup(
            identifier=self.root_id,
            instance_identifier=_id("group-instance", flow.name),
            name=flow.name,
            comments="",
            position=Position(),
            component_type="PROCESS_GROUP",
            processors=processors,
            funnels=funnels,
            input_ports=ports,
            connections=connections,
            controller_services=services,
            parameter_context_name=flow.name if flow.parameters else None,
            default_flow_file_expiration="0 sec",
            default_back_pressure_object_threshold=objects,
            default_back_pressure_data_size_threshold=size,
            flow_file_concurrency="UNBOUNDED",
            flow_file_outbound_policy="STREAM_WHEN_AVAILABLE",
            scheduled_state="ENABLED",
            execution_engine="INHERITED",
        )
        document = VersionedFlowDefinition(
            flow_contents=group,
            parameter_contexts=contexts,
            flow_encoding_version="1.0",
            latest=False,
        )
        data = document.model_dump(mode="json", exclude_none=True)
        for key in ("snapshotMetadata", "flow", "bucket"):
            data.pop(key, None)
        return ExportResult(data, self.notes)


def export_nifi(definition: FlowDefinition) -> ExportResult:
    """Convert a flowcore flow (its parameters not yet substituted) to NiFi's format."""
    return _Exporter(definition).run()
