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
]
