"""Flow definitions in YAML."""

from flowcore.flow.definition import (
    BackPressureSpec,
    ConnectionSpec,
    ControllerServiceSpec,
    FlowDefinition,
    FlowSpec,
    ProcessorSpec,
    ScheduleSpec,
    load_flow,
    parse_flow,
    read_flow_document,
)

__all__ = [
    "BackPressureSpec",
    "ConnectionSpec",
    "ControllerServiceSpec",
    "FlowDefinition",
    "FlowSpec",
    "ProcessorSpec",
    "ScheduleSpec",
    "load_flow",
    "parse_flow",
    "read_flow_document",
]
