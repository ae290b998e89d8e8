"""Connection queues: prioritizers, penalties, back pressure and swapping."""

from flowcore.queue.prioritizers import PRIORITIZERS, Prioritizer, resolve_prioritizers
from flowcore.queue.queue import BackPressure, FlowFileQueue, PutPlan, QueueSnapshot

__all__ = [
    "PRIORITIZERS",
    "BackPressure",
    "FlowFileQueue",
    "Prioritizer",
    "PutPlan",
    "QueueSnapshot",
    "resolve_prioritizers",
]
