"""NiFi's versioned flow classes (nifi-api ``org.apache.nifi.flow``), as far as import needs.

Field names follow NiFi's JSON (camelCase). Unknown fields are ignored, so flows from
newer NiFi versions still load; what a field means is NiFi's, not ours.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class _Versioned(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", serialize_by_alias=True
    )


class Bundle(_Versioned):
    group: str = "org.apache.nifi"
    artifact: str = ""
    version: str = ""


class Position(_Versioned):
    x: float = 0.0
    y: float = 0.0


class ConnectableComponent(_Versioned):
    """One end of a connection; ``type`` is PROCESSOR, FUNNEL, INPUT_PORT, OUTPUT_PORT,
    REMOTE_INPUT_PORT or REMOTE_OUTPUT_PORT."""

    id: str
    type: str
    group_id: str = ""
    name: str | None = None
    comments: str | None = None


class VersionedPropertyDescriptor(_Versioned):
    name: str
    display_name: str | None = None
    identifies_controller_service: bool = False
    sensitive: bool = False
    dynamic: bool = False


class VersionedComponent(_Versioned):
    identifier: str
    instance_identifier: str | None = None
    group_identifier: str | None = None
    name: str | None = None
    comments: str | None = None
    position: Position | None = None
    component_type: str | None = None


class _Configurable(VersionedComponent):
    type: str
    bundle: Bundle | None = None
    properties: dict[str, str | None] = Field(default_factory=dict)
    property_descriptors: dict[str, VersionedPropertyDescriptor] = Field(default_factory=dict)
    annotation_data: str | None = None
    scheduled_state: str | None = None
    bulletin_level: str | None = None


class VersionedProcessor(_Configurable):
    style: dict[str, str] = Field(default_factory=dict)
    scheduling_period: str = "0 sec"
    scheduling_strategy: str = "TIMER_DRIVEN"
    execution_node: str = "ALL"
    penalty_duration: str = "30 sec"
    yield_duration: str = "1 sec"
    run_duration_millis: int = 0
    concurrently_schedulable_task_count: int = 1
    auto_terminated_relationships: list[str] = Field(default_factory=list)
    retry_count: int | None = None
    retried_relationships: list[str] = Field(default_factory=list)
    backoff_mechanism: str | None = None
    max_backoff_period: str | None = None


class ControllerServiceAPI(_Versioned):
    type: str
    bundle: Bundle | None = None


class VersionedControllerService(_Configurable):
    controller_service_apis: list[ControllerServiceAPI] = Field(default_factory=list)


class VersionedPort(VersionedComponent):
    type: str = "INPUT_PORT"
    concurrently_schedulable_task_count: int = 1
    scheduled_state: str | None = None
    allow_remote_access: bool | None = None
    port_function: str | None = None


class VersionedFunnel(VersionedComponent):
    pass


class VersionedRemoteGroupPort(VersionedComponent):
    remote_group_id: str | None = None
    target_id: str | None = None


class VersionedRemoteProcessGroup(VersionedComponent):
    target_uris: str | None = None
    input_ports: list[VersionedRemoteGroupPort] = Field(default_factory=list)
    output_ports: list[VersionedRemoteGroupPort] = Field(default_factory=list)


class VersionedConnection(VersionedComponent):
    source: ConnectableComponent
    destination: ConnectableComponent
    selected_relationships: list[str] = Field(default_factory=list)
    back_pressure_object_threshold: int | None = None
    back_pressure_data_size_threshold: str | None = None
    flow_file_expiration: str | None = None
    prioritizers: list[str] = Field(default_factory=list)
    bends: list[Position] = Field(default_factory=list)
    load_balance_strategy: str | None = None
    partitioning_attribute: str | None = None
    load_balance_compression: str | None = None
    label_index: int | None = None
    z_index: int | None = None


class VersionedProcessGroup(VersionedComponent):
    process_groups: list[VersionedProcessGroup] = Field(default_factory=list)
    remote_process_groups: list[VersionedRemoteProcessGroup] = Field(default_factory=list)
    processors: list[VersionedProcessor] = Field(default_factory=list)
    input_ports: list[VersionedPort] = Field(default_factory=list)
    output_ports: list[VersionedPort] = Field(default_factory=list)
    connections: list[VersionedConnection] = Field(default_factory=list)
    labels: list[dict[str, Any]] = Field(default_factory=list)
    funnels: list[VersionedFunnel] = Field(default_factory=list)
    controller_services: list[VersionedControllerService] = Field(default_factory=list)
    parameter_context_name: str | None = None
    default_flow_file_expiration: str | None = None
    default_back_pressure_object_threshold: int | None = None
    default_back_pressure_data_size_threshold: str | None = None
    flow_file_concurrency: str | None = None
    flow_file_outbound_policy: str | None = None
    scheduled_state: str | None = None
    execution_engine: str | None = None


class VersionedParameter(_Versioned):
    name: str
    description: str | None = None
    sensitive: bool = False
    provided: bool = False
    value: str | None = None


class VersionedParameterContext(_Versioned):
    name: str
    identifier: str | None = None
    description: str | None = None
    parameters: list[VersionedParameter] = Field(default_factory=list)
    inherited_parameter_contexts: list[str] = Field(default_factory=list)
    parameter_provider: str | None = None
    component_type: str | None = None


class ExternalControllerServiceReference(_Versioned):
    identifier: str
    name: str | None = None


class VersionedFlowDefinition(_Versioned):
    """A "Download flow definition" document (``VersionedExternalFlow``) or a registry
    ``VersionedFlowSnapshot``; the registry's ``snapshotMetadata``, ``flow`` and
    ``bucket`` are kept as they came."""

    flow_contents: VersionedProcessGroup
    external_controller_services: dict[str, ExternalControllerServiceReference] = Field(
        default_factory=dict
    )
    parameter_contexts: dict[str, VersionedParameterContext] = Field(default_factory=dict)
    parameter_providers: dict[str, Any] = Field(default_factory=dict)
    flow_encoding_version: str | None = None
    snapshot_metadata: dict[str, Any] | None = None
    flow: dict[str, Any] | None = None
    bucket: dict[str, Any] | None = None
    latest: bool | None = None


def is_nifi_flow(data: Any) -> bool:
    """Whether a parsed JSON document is a NiFi flow definition, a registry snapshot or a
    NiFi instance's whole flow (``flow.json.gz``, a ``VersionedDataflow``)."""
    return isinstance(data, dict) and (
        isinstance(data.get("flowContents"), dict) or isinstance(data.get("rootGroup"), dict)
    )


def from_dataflow(data: dict[str, Any]) -> dict[str, Any]:
    """A ``VersionedDataflow`` (``flow.json.gz``: ``rootGroup``, parameter contexts and
    controller-level services as lists) in the shape of a flow definition; the
    controller-level services join the root group, which is where NiFi lets every
    component use them."""
    root = dict(data["rootGroup"])
    services = list(data.get("controllerServices") or [])
    root["controllerServices"] = [*services, *(root.get("controllerServices") or [])]
    contexts = data.get("parameterContexts") or []
    return {
        "flowContents": root,
        "parameterContexts": {c["name"]: c for c in contexts if isinstance(c, dict)},
    }
