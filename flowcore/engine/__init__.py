"""The engine: processor nodes, connections, the node that wires them, and schedulers."""

from flowcore.engine import heap
from flowcore.engine.connection import Connection
from flowcore.engine.node import BackPressureError, EnqueueItem, Node, ReplayError
from flowcore.engine.processor_node import ProcessorNode, RunState, ScheduleConfig
from flowcore.engine.scheduler import DeterministicScheduler, RunSummary, ThreadedScheduler

__all__ = [
    "BackPressureError",
    "Connection",
    "DeterministicScheduler",
    "EnqueueItem",
    "Node",
    "ProcessorNode",
    "ReplayError",
    "RunState",
    "RunSummary",
    "ScheduleConfig",
    "ThreadedScheduler",
    "heap",
]
