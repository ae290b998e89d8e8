"""NiFi flow definition -> flowcore flow document (the YAML form, before validation).

Nested process groups are flattened: a component of group ``Ingest`` inside the exported
group is named ``Ingest/<name>``; connections through input and output ports are followed
to the components at their ends (the relationships of the first hop, the queue settings of
the last). Funnels become Funnel processors. What flowcore cannot run is listed, one line
per component, and put in place as a stopped ``Unsupported`` stub; the caller refuses the
flow unless stubs were asked for. Notes say what was dropped or changed on the way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from flowcore.errors import ConfigurationError
from flowcore.flow.nifi.mapping import (
    ANY,
    FUNNEL_TYPE,
    STUB_COMPONENT_TYPE,
    STUB_RELATIONSHIPS,
    STUB_TYPE,
    TypeMapping,
    nifi_mapping,
)
from flowcore.flow.nifi.model import (
    VersionedConnection,
    VersionedControllerService,
    VersionedFlowDefinition,
    VersionedParameterContext,
    VersionedProcessGroup,
    VersionedProcessor,
    from_dataflow,
)
from flowcore.processor.descriptors import PropertyDescriptor
from flowcore.processor.registry import processor_class, service_class
from flowcore.queue.prioritizers import PRIORITIZERS
from flowcore.units import parse_data_size, parse_time_period_ms

PYTHON_ARTIFACT = "python-extensions"
"""The bundle NiFi gives its Python processors (``org.apache.nifi:python-extensions``)."""

NIFI_OBJECT_THRESHOLD = 10_000
NIFI_DATA_SIZE_THRESHOLD = "1 GB"
_PARAM = re.compile(r"#\{([^}]+)\}")

EndpointKind = Literal["processor", "input_port", "port"]


@dataclass(frozen=True, slots=True)
class UnsupportedComponent:
    """A NiFi component flowcore cannot run, and why."""

    kind: str
    name: str
    nifi_type: str
    reasons: tuple[str, ...]

    @property
    def line(self) -> str:
        return f"{self.kind} '{self.name}' ({self.nifi_type}): {'; '.join(self.reasons)}"


@dataclass(slots=True)
class ImportResult:
    """The flowcore flow document, what is unsupported, and notes on what changed."""

    document: dict[str, Any]
    unsupported: list[UnsupportedComponent] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Endpoint:
    kind: EndpointKind
    name: str
    source_relationships: tuple[str, ...] | None = None  # None: the connection's own


@dataclass(slots=True)
class _Group:
    group: VersionedProcessGroup
    prefix: str
    parameters: dict[str, str] | None  # None: the flow's own parameters apply


class _Importer:
    def __init__(self, definition: VersionedFlowDefinition, *, live: bool = False) -> None:
        self.definition = definition
        # A flow definition says ENABLED for a processor that may run (never RUNNING); a
        # NiFi instance's own flow says RUNNING for a running one and ENABLED for stopped.
        self.running_states = {"RUNNING"} if live else {"RUNNING", "ENABLED", None}
        root = definition.flow_contents
        self.unsupported: list[UnsupportedComponent] = []
        self.notes: list[str] = []
        self.used_names: set[str] = set()
        self.processors: dict[str, dict[str, Any]] = {}
        self.services: dict[str, dict[str, Any]] = {}
        self.service_names: dict[str, str] = {}
        self.bad_services: set[str] = set()
        self.input_ports: dict[str, dict[str, str]] = {}
        self.endpoints: dict[str, _Endpoint] = {}
        self.stubs: set[str] = set()
        self.connections: list[tuple[str, VersionedConnection]] = []
        self.outgoing: dict[str, list[VersionedConnection]] = {}
        self.contexts = definition.parameter_contexts
        self.root_context = root.parameter_context_name
        self.parameters = self._context_parameters(self.root_context, announce=True)
        self.groups = list(self._walk(root, ""))
        self.defaults_objects = root.default_back_pressure_object_threshold or NIFI_OBJECT_THRESHOLD
        self.defaults_size = root.default_back_pressure_data_size_threshold or (
            NIFI_DATA_SIZE_THRESHOLD
        )

    # -- groups and parameters ------------------------------------------------------------

    def _walk(self, group: VersionedProcessGroup, prefix: str) -> Iterator[_Group]:
        context = group.parameter_context_name
        parameters: dict[str, str] | None = None
        if context != self.root_context:
            parameters = self._context_parameters(context, announce=False)
            if context is not None:
                self.notes.append(
                    f"process group '{prefix.rstrip('/')}' uses parameter context "
                    f"'{context}': its parameters are written into its components' properties"
                )
        yield _Group(group, prefix, parameters)
        for child in group.process_groups:
            yield from self._walk(child, f"{prefix}{child.name or child.identifier}/")

    def _context_parameters(self, name: str | None, *, announce: bool) -> dict[str, str]:
        if name is None:
            return {}
        found: dict[str, str] = {}
        seen: set[str] = set()

        def collect(context_name: str) -> None:
            if context_name in seen:
                return
            seen.add(context_name)
            context: VersionedParameterContext | None = self.contexts.get(context_name)
            if context is None:
                context = next((c for c in self.contexts.values() if c.name == context_name), None)
            if context is None:
                self.notes.append(f"parameter context '{context_name}' is not in the file")
                return
            for parameter in context.parameters:
                if parameter.name in found:
                    continue
                if parameter.sensitive and parameter.value is None:
                    if announce:
                        self.notes.append(
                            f"parameter '{parameter.name}' is sensitive and NiFi does not "
                            "export its value: give it one (FLOWCORE_PARAM_"
                            f"{parameter.name} or the flow's parameters) before running"
                        )
                    found[parameter.name] = ""
                else:
                    found[parameter.name] = parameter.value or ""
            # Own parameters first, then inherited contexts in order of precedence.
            for inherited in context.inherited_parameter_contexts:
                collect(inherited)

        collect(name)
        return found

    @staticmethod
    def _substitute(value: str, parameters: Mapping[str, str] | None) -> str:
        if parameters is None:
            return value
        return _PARAM.sub(lambda m: parameters.get(m.group(1).strip(), m.group(0)), value)

    def _unique(self, name: str) -> str:
        candidate, n = name, 1
        while candidate in self.used_names:
            n += 1
            candidate = f"{name} ({n})"
        self.used_names.add(candidate)
        return candidate

    # -- the import -----------------------------------------------------------------------

    def run(self) -> ImportResult:
        for entry in self.groups:
            for connection in entry.group.connections:
                self.connections.append((entry.prefix, connection))
                self.outgoing.setdefault(connection.source.id, []).append(connection)
        for entry in self.groups:
            for service in entry.group.controller_services:
                self.service_names[service.identifier] = self._unique(
                    entry.prefix + (service.name or service.identifier)
                )
        for ref_id, ref in self.definition.external_controller_services.items():
            self.bad_services.add(ref_id)
            self.service_names.setdefault(ref_id, ref.name or ref_id)
        for ref_id, ref in self.definition.external_controller_services.items():
            self.unsupported.append(
                UnsupportedComponent(
                    "Controller Service",
                    ref.name or ref_id,
                    "external controller service",
                    ("defined outside the exported process group, so not in the file",),
                )
            )
        for entry in self.groups:
            for service in entry.group.controller_services:
                if nifi_mapping(service.type, "service") is None:
                    self.bad_services.add(service.identifier)  # known before it is named
        for entry in self.groups:
            for service in entry.group.controller_services:
                self._service(service, entry)
        for entry in self.groups:
            self._components(entry)
        connections = self._resolve_connections()
        for name in self.stubs:
            spec = self.processors[name]
            relationships = list(spec.get("auto_terminate", []))
            for resolved in connections:
                if resolved["from"] == name:
                    relationships += [
                        r for r in resolved.get("relationships", []) if r not in relationships
                    ]
            spec["properties"][STUB_RELATIONSHIPS] = ",".join(sorted(set(relationships)))
        flow: dict[str, Any] = {"name": self.definition.flow_contents.name or "flow"}
        if self.parameters:
            flow["parameters"] = self.parameters
        pressure: dict[str, Any] = {}
        if self.defaults_objects != NIFI_OBJECT_THRESHOLD:
            pressure["object_threshold"] = self.defaults_objects
        if parse_data_size(self.defaults_size) != parse_data_size(NIFI_DATA_SIZE_THRESHOLD):
            pressure["data_size_threshold"] = self.defaults_size
        if pressure:
            flow["defaults"] = {"back_pressure": pressure}
        if self.input_ports:
            flow["input_ports"] = self.input_ports
        if self.services:
            flow["controller_services"] = self.services
        flow["processors"] = self.processors
        flow["connections"] = connections
        return ImportResult({"version": 1, "flow": flow}, self.unsupported, self.notes)

    # -- controller services --------------------------------------------------------------

    def _service(self, service: VersionedControllerService, entry: _Group) -> None:
        name = self.service_names[service.identifier]
        mapping = nifi_mapping(service.type, "service")
        reasons: list[str] = []
        properties: dict[str, str] = {}
        if mapping is None:
            reasons.append("no flowcore controller service of this type")
        else:
            try:
                descriptors = list(service_class(mapping.flowcore_type)().property_descriptors)
            except ConfigurationError as exc:
                descriptors = []
                reasons.append(str(exc))
            properties, problems = self._properties(
                service.properties,
                service,
                mapping,
                descriptors,
                None if reasons else mapping.flowcore_type,
                entry,
            )
            reasons += problems
        if service.scheduled_state == "DISABLED":
            self.notes.append(
                f"controller service '{name}' is disabled in NiFi; flowcore enables it"
            )
        if reasons:
            self.bad_services.add(service.identifier)
            self.unsupported.append(
                UnsupportedComponent("Controller Service", name, service.type, tuple(reasons))
            )
            return
        assert mapping is not None
        spec: dict[str, Any] = {"type": mapping.flowcore_type}
        if properties:
            spec["properties"] = properties
        self.services[name] = spec

    # -- processors, funnels, ports -------------------------------------------------------

    def _components(self, entry: _Group) -> None:
        group, prefix = entry.group, entry.prefix
        for processor in group.processors:
            self._processor(processor, entry)
        for funnel in group.funnels:
            name = self._unique(prefix + (funnel.name or "Funnel"))
            self.endpoints[funnel.identifier] = _Endpoint("processor", name, ("success",))
            self.processors[name] = self._sink(FUNNEL_TYPE, funnel.identifier)
        for port in group.input_ports:
            if not prefix:
                name = self._unique(port.name or port.identifier)
                self.input_ports[name] = {"description": port.comments} if port.comments else {}
                self.endpoints[port.identifier] = _Endpoint("input_port", name, ())
            else:
                self._inner_port(port.identifier, prefix + (port.name or port.identifier))
        for port in group.output_ports:
            full = prefix + (port.name or port.identifier)
            if not prefix:
                self.notes.append(
                    f"output port '{full}': flowcore has no output ports; FlowFiles sent to "
                    "it wait in the connection in front of a stopped Funnel of that name"
                )
            self._inner_port(port.identifier, full, sink=not prefix)
        for remote in group.remote_process_groups:
            full = prefix + (remote.name or remote.identifier)
            self.unsupported.append(
                UnsupportedComponent(
                    "Remote Process Group",
                    full,
                    remote.target_uris or "site-to-site",
                    ("site-to-site is not supported",),
                )
            )
            for remote_port in [*remote.input_ports, *remote.output_ports]:
                name = self._unique(f"{full}/{remote_port.name or remote_port.identifier}")
                self.endpoints[remote_port.identifier] = _Endpoint("processor", name, ("success",))
                self.processors[name] = {
                    "type": STUB_TYPE,
                    "properties": {STUB_COMPONENT_TYPE: "REMOTE_PORT"},
                    "run_state": "STOPPED",
                }
                self.stubs.add(name)

    def _inner_port(self, identifier: str, full: str, *, sink: bool = False) -> None:
        if not sink and self.outgoing.get(identifier):
            self.endpoints[identifier] = _Endpoint("port", full)
            return
        if not sink:
            self.notes.append(
                f"port '{full}' is connected to nothing downstream; FlowFiles sent to it wait "
                "in front of a stopped Funnel of that name"
            )
        name = self._unique(full)
        self.endpoints[identifier] = _Endpoint("processor", name, ("success",))
        self.processors[name] = self._sink(FUNNEL_TYPE, identifier, stopped=True)

    def _sink(self, kind: str, identifier: str, *, stopped: bool = False) -> dict[str, Any]:
        if stopped or not self.outgoing.get(identifier):
            return {"type": kind, "auto_terminate": ["success"], "run_state": "STOPPED"}
        return {"type": kind}

    def _processor(self, processor: VersionedProcessor, entry: _Group) -> None:
        name = self._unique(entry.prefix + (processor.name or processor.identifier))
        self.endpoints[processor.identifier] = _Endpoint("processor", name)
        mapping = nifi_mapping(processor.type, "processor")
        reasons: list[str] = []
        properties: dict[str, str] = {}
        python = processor.bundle is not None and processor.bundle.artifact == PYTHON_ARTIFACT
        if python:
            # A NiFi Python processor: its type is its class name, found in the flow's
            # python/extensions folder when the flow is built; properties as they are.
            mapping = TypeMapping(processor.type, processor.type, "processor", PYTHON_ARTIFACT)
            properties = {
                key: self._reference(self._substitute(value, entry.parameters))
                for key, value in processor.properties.items()
                if value is not None
            }
        elif mapping is None:
            reasons.append("no flowcore processor of this type")
        else:
            try:
                descriptors = list(processor_class(mapping.flowcore_type)().property_descriptors)
            except ConfigurationError as exc:
                descriptors = []
                reasons.append(str(exc))
            properties, problems = self._properties(
                processor.properties, processor, mapping, descriptors, mapping.flowcore_type, entry
            )
            reasons += problems
        if processor.scheduling_strategy != "TIMER_DRIVEN":
            reasons.append(f"scheduling strategy {processor.scheduling_strategy}")
        if processor.retry_count and processor.retried_relationships:
            self.notes.append(
                f"processor '{name}': retrying relationships is not supported; ignored"
            )
        spec: dict[str, Any] = {"type": mapping.flowcore_type if mapping else STUB_TYPE}
        schedule: dict[str, Any] = {}
        if parse_time_period_ms(processor.scheduling_period) != 0:
            schedule["period"] = processor.scheduling_period
        if processor.concurrently_schedulable_task_count != 1:
            schedule["concurrent_tasks"] = processor.concurrently_schedulable_task_count
        if schedule:
            spec["schedule"] = schedule
        if processor.auto_terminated_relationships:
            spec["auto_terminate"] = list(processor.auto_terminated_relationships)
        if parse_time_period_ms(processor.penalty_duration) != 30_000:
            spec["penalty_duration"] = processor.penalty_duration
        if parse_time_period_ms(processor.yield_duration) != 1_000:
            spec["yield_duration"] = processor.yield_duration
        if processor.scheduled_state not in self.running_states:
            spec["run_state"] = "STOPPED"
        if reasons:
            self.unsupported.append(
                UnsupportedComponent("Processor", name, processor.type, tuple(reasons))
            )
            raw = {
                k: self._reference(self._substitute(v, entry.parameters))
                for k, v in processor.properties.items()
                if v is not None
            }
            spec["type"] = STUB_TYPE
            spec["properties"] = {STUB_COMPONENT_TYPE: processor.type, **raw}
            spec["run_state"] = "STOPPED"
            self.stubs.add(name)
        else:
            spec["properties"] = properties
        if not spec["properties"]:
            del spec["properties"]
        self.processors[name] = {k: spec[k] for k in _SPEC_ORDER if k in spec}

    def _reference(self, value: str) -> str:
        return self.service_names.get(value, value)

    def _properties(
        self,
        values: Mapping[str, str | None],
        component: VersionedProcessor | VersionedControllerService,
        mapping: TypeMapping,
        descriptors: list[PropertyDescriptor],
        component_type: str | None,
        entry: _Group,
    ) -> tuple[dict[str, str], list[str]]:
        by_key: dict[str, PropertyDescriptor] = {}
        for descriptor in descriptors:
            by_key[descriptor.name] = descriptor
            by_key.setdefault(descriptor.label, descriptor)
        dynamic_ok = False
        if component_type is not None:
            component_class = (
                processor_class(component_type)
                if mapping.kind == "processor"
                else service_class(component_type)
            )
            dynamic_ok = component_class().get_dynamic_property_descriptor("x") is not None
        result: dict[str, str] = {}
        problems: list[str] = []
        for key, raw in values.items():
            if raw is None:
                continue
            value = self._substitute(raw, entry.parameters)
            if mapping.exported.get(key) == value:
                continue  # flowcore's default, written by export for NiFi's sake
            nifi_descriptor = component.property_descriptors.get(key)
            found = by_key.get(mapping.aliases.get(key, key))
            if found is not None:
                descriptor = found
                if descriptor.controller_service or (
                    nifi_descriptor is not None and nifi_descriptor.identifies_controller_service
                ):
                    if value in self.bad_services and (
                        descriptor.name in mapping.ignored or key in mapping.ignored
                    ):
                        # a reference only some settings use (a reader's Schema Registry)
                        self.notes.append(
                            f"property '{key}' names controller service "
                            f"'{self.service_names[value]}', which is not supported; dropped"
                        )
                        continue
                    if value in self.bad_services:
                        problems.append(
                            f"uses controller service '{self.service_names[value]}', "
                            "which is not supported"
                        )
                    elif value not in self.service_names:
                        problems.append(f"property '{key}' names no controller service in the flow")
                    value = self._reference(value)
                result[descriptor.label] = value
                continue
            if key in mapping.ignored:
                default = mapping.ignored[key]
                if default == ANY or value == default:
                    continue
                problems.append(f"property '{key}' = '{value}' is not supported")
                continue
            if dynamic_ok and (nifi_descriptor is None or nifi_descriptor.dynamic):
                result[key] = value
                continue
            problems.append(f"property '{key}' is not supported")
        return result, problems

    # -- connections ----------------------------------------------------------------------

    def _resolve_connections(self) -> list[dict[str, Any]]:
        resolved: list[dict[str, Any]] = []
        seen: set[str] = set()
        for prefix, connection in self.connections:
            source = self.endpoints.get(connection.source.id)
            if source is None:
                self.notes.append(
                    f"a connection in '{prefix.rstrip('/') or 'the root group'}' comes from "
                    f"unknown component {connection.source.id}; dropped"
                )
                continue
            if source.kind == "port":
                continue  # reached through the connections into the port
            relationships = (
                list(source.source_relationships)
                if source.source_relationships is not None
                else [r for r in connection.selected_relationships if r]
            )
            for destination, last in self._destinations(connection, frozenset()):
                spec: dict[str, Any] = {"from": source.name}
                if relationships:
                    spec["relationships"] = relationships
                spec["to"] = destination
                spec.update(self._queue(last, f"{source.name} -> {destination}"))
                rels = "+".join(relationships) if relationships else "out"
                identifier = spec.get("name") or f"{source.name}.{rels}->{destination}"
                if identifier in seen:
                    n = 2
                    while f"{identifier} ({n})" in seen:
                        n += 1
                    identifier = spec["name"] = f"{identifier} ({n})"
                seen.add(identifier)
                resolved.append(spec)
        return resolved

    def _destinations(
        self, connection: VersionedConnection, visited: frozenset[str]
    ) -> Iterator[tuple[str, VersionedConnection]]:
        target = connection.destination.id
        endpoint = self.endpoints.get(target)
        if endpoint is None:
            self.notes.append(f"a connection goes to unknown component {target}; dropped")
            return
        if endpoint.kind != "port":
            yield endpoint.name, connection
            return
        if target in visited:
            return
        for onward in self.outgoing.get(target, []):
            yield from self._destinations(onward, visited | {target})

    def _queue(self, connection: VersionedConnection, label: str) -> dict[str, Any]:
        spec: dict[str, Any] = {}
        if connection.name:
            spec["name"] = connection.name
        prioritizers: list[str] = []
        for full in connection.prioritizers:
            short = full.rsplit(".", 1)[-1]
            if short in PRIORITIZERS:
                prioritizers.append(short)
            else:
                self.notes.append(
                    f"connection {label}: prioritizer {full} is not supported; dropped"
                )
        if prioritizers:
            spec["prioritizers"] = prioritizers
        pressure: dict[str, Any] = {}
        objects = connection.back_pressure_object_threshold
        if objects is not None and objects != self.defaults_objects:
            pressure["object_threshold"] = objects
        size = connection.back_pressure_data_size_threshold
        if size and parse_data_size(size) != parse_data_size(self.defaults_size):
            pressure["data_size_threshold"] = size
        if pressure:
            spec["back_pressure"] = pressure
        expiration = connection.flow_file_expiration
        if expiration and parse_time_period_ms(expiration) != 0:
            self.notes.append(
                f"connection {label}: FlowFile expiration ({expiration}) is not supported; ignored"
            )
        balance = connection.load_balance_strategy
        if balance and balance != "DO_NOT_LOAD_BALANCE":
            self.notes.append(f"connection {label}: load balancing ({balance}) does not apply")
        return spec


_SPEC_ORDER = (
    "type",
    "properties",
    "schedule",
    "auto_terminate",
    "penalty_duration",
    "yield_duration",
    "run_state",
)


def import_nifi(data: Mapping[str, Any]) -> ImportResult:
    """Convert a parsed NiFi flow definition, registry snapshot or ``flow.json.gz`` to a
    flowcore document.

    Unsupported components are stubbed in the document and listed in the result; whether
    that is acceptable is the caller's decision.
    """
    live = "flowContents" not in data and isinstance(data.get("rootGroup"), dict)
    document = from_dataflow(dict(data)) if live else data
    definition = VersionedFlowDefinition.model_validate(document)
    return _Importer(definition, live=live).run()
