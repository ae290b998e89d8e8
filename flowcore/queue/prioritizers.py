"""NiFi's FlowFile prioritizers, as sort keys over queued FlowFiles.

A queue orders FlowFiles by the keys of its prioritizers in turn, then by the order in
which they were enqueued. Smaller keys come out first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from flowcore.errors import ConfigurationError
from flowcore.repository.flowfile import QueuedFlowFile

SortKey = tuple[object, ...]
Prioritizer = Callable[[QueuedFlowFile], SortKey]

PRIORITY_ATTRIBUTE = "priority"


def first_in_first_out(record: QueuedFlowFile) -> SortKey:
    return (record.seq,)


def oldest_flowfile_first(record: QueuedFlowFile) -> SortKey:
    return (record.flowfile.entry_date, record.flowfile.id)


def newest_flowfile_first(record: QueuedFlowFile) -> SortKey:
    return (-record.flowfile.entry_date, -record.flowfile.id)


def priority_attribute(record: QueuedFlowFile) -> SortKey:
    """NiFi's PriorityAttributePrioritizer: numbers before text, missing last."""
    value = record.flowfile.attributes.get(PRIORITY_ATTRIBUTE)
    if value is None or value == "":
        return (2, 0, "")
    try:
        return (0, int(value.strip()), "")
    except ValueError:
        return (1, 0, value)


PRIORITIZERS: dict[str, Prioritizer] = {
    "FirstInFirstOutPrioritizer": first_in_first_out,
    "OldestFlowFileFirstPrioritizer": oldest_flowfile_first,
    "NewestFlowFileFirstPrioritizer": newest_flowfile_first,
    "PriorityAttributePrioritizer": priority_attribute,
}
_SHORT_NAMES = {name.removesuffix("Prioritizer"): name for name in PRIORITIZERS}


def resolve_prioritizers(names: Sequence[str]) -> list[Prioritizer]:
    """Prioritizers by NiFi name (with or without the ``Prioritizer`` suffix)."""
    resolved: list[Prioritizer] = []
    for name in names:
        full = name if name in PRIORITIZERS else _SHORT_NAMES.get(name)
        if full is None:
            msg = f"unknown prioritizer '{name}' (known: {', '.join(PRIORITIZERS)})"
            raise ConfigurationError(msg)
        resolved.append(PRIORITIZERS[full])
    return resolved
