"""Connection queues: prioritizers, penalties, back pressure and swapping."""

from flowcore.queue.prioritizers import PRIORITIZERS, Prioritizer, resolve_prioritizers
from flowcore.queue.queue import BackPressure, FlowFileQueue, PutPlan, QueueSnapshot, SwapStore

__all__ = [
    "PRIORITIZERS",
    "BackPressure",
    "FlowFileQueue",
    "Prioritizer",
    "PutPlan",
    "QueueSnapshot",
    "SwapStore",
    "resolve_prioritizers",
]
