"""Lineage: collect a FlowFile's ancestors and descendants, then build NiFi's graph.

Collecting walks the uuid graph breadth first in two directions, one storage query per
step for the whole frontier:

- up: an event that names the uuid as a child (FORK, CLONE, REPLAY, or the JOIN that made
  it) leads to its parent uuids, the FlowFile's ancestors;
- down: an event of the uuid itself, or one naming it as a parent (FORK/CLONE/REPLAY of
  it, a JOIN it went into), leads to its child uuids, the descendants.

Siblings and cousins are not followed: they are neither ancestors nor descendants. The
events of every uuid reached are all kept, as NiFi's lineage query returns every event
indexed under the uuids it asks for.

The graph follows NiFi's ``StandardLineageResult``: events sorted by (event time, event
id); every event is an EVENT node linked from the previous node of its FlowFile uuid;
CREATE/RECEIVE/FETCH add a FLOWFILE node after the event; FORK/JOIN/CLONE/REPLAY add a
FLOWFILE node per child (children inside the lineage only, as NiFi does) and are linked
from the last node of every parent; a FLOWFILE node is the predecessor of its uuid's next
event. Where NiFi fails the whole lineage because two events claim to create the same
FlowFile, the second claim is ignored here, so nodes are never duplicated and a FETCH of a
FlowFile that already has its node adds no cycle. A link carries the time of the node it
leads to.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from flowcore.model.provenance import ProvenanceEventType
from flowcore.repository.provenance import LineageGraph, LineageLink, LineageNode

_CREATES_FLOWFILE = frozenset(
    {ProvenanceEventType.CREATE, ProvenanceEventType.RECEIVE, ProvenanceEventType.FETCH}
)
_SPAWNS_CHILDREN = frozenset(
    {
        ProvenanceEventType.FORK,
        ProvenanceEventType.JOIN,
        ProvenanceEventType.CLONE,
        ProvenanceEventType.REPLAY,
    }
)
# Events whose link from the previous node carries that node's uuid (NiFi's rule).
_LINK_UUID_FROM_PREVIOUS = frozenset(
    {ProvenanceEventType.JOIN, ProvenanceEventType.CLONE, ProvenanceEventType.REPLAY}
)


@dataclass(frozen=True, slots=True)
class LineageEvent:
    """The fields of an event that lineage needs."""

    event_id: int
    event_time: int
    event_type: str
    flowfile_uuid: str
    parent_uuids: tuple[str, ...]
    child_uuids: tuple[str, ...]


FetchTouching = Callable[[Collection[str]], Iterable[LineageEvent]]
"""Every stored event whose own, parent or child uuids include one of the given uuids."""


@dataclass(frozen=True, slots=True)
class CollectedLineage:
    events: list[LineageEvent]
    uuids: frozenset[str]


def collect_lineage(flowfile_uuid: str, fetch_touching: FetchTouching) -> CollectedLineage:
    """The events of ``flowfile_uuid``, its ancestors and its descendants."""
    events: dict[int, LineageEvent] = {}
    seen_up = {flowfile_uuid}
    seen_down = {flowfile_uuid}
    up = {flowfile_uuid}
    down = {flowfile_uuid}
    while up or down:
        next_up: set[str] = set()
        next_down: set[str] = set()
        for event in fetch_touching(up | down):
            events.setdefault(event.event_id, event)
            for uuid in up.intersection(event.child_uuids):
                next_up.update(p for p in event.parent_uuids if p != uuid)
            if down:
                spawned_from = down.intersection(event.parent_uuids)
                if event.flowfile_uuid in down and event.flowfile_uuid not in event.child_uuids:
                    spawned_from.add(event.flowfile_uuid)
                if spawned_from:
                    next_down.update(c for c in event.child_uuids if c not in spawned_from)
        up = next_up - seen_up
        down = next_down - seen_down
        seen_up |= up
        seen_down |= down
    return CollectedLineage(events=list(events.values()), uuids=frozenset(seen_up | seen_down))


def build_graph(events: Iterable[LineageEvent], lineage_uuids: Collection[str]) -> LineageGraph:
    """NiFi's lineage graph of ``events``; FLOWFILE nodes only for ``lineage_uuids``."""
    nodes: dict[tuple[str, str], LineageNode] = {}
    links: dict[LineageLink, None] = {}
    last: dict[str, LineageNode] = {}

    def link(source: LineageNode, target: LineageNode, uuid: str) -> None:
        links.setdefault(LineageLink(source.id, target.id, uuid, target.timestamp))

    def add_flowfile(uuid: str, creator: LineageNode) -> None:
        if ("FLOWFILE", uuid) in nodes:
            return
        node = LineageNode(
            id=uuid, node_type="FLOWFILE", flowfile_uuid=uuid, timestamp=creator.timestamp
        )
        nodes["FLOWFILE", uuid] = node
        link(creator, node, uuid)
        last[uuid] = node

    for event in sorted(events, key=lambda e: (e.event_time, e.event_id)):
        node = LineageNode(
            id=str(event.event_id),
            node_type="EVENT",
            flowfile_uuid=event.flowfile_uuid,
            timestamp=event.event_time,
            event_type=event.event_type,
            event_id=event.event_id,
        )
        nodes.setdefault(("EVENT", node.id), node)
        previous = last.get(event.flowfile_uuid)
        if previous is not None:
            uuid = (
                previous.flowfile_uuid
                if event.event_type in _LINK_UUID_FROM_PREVIOUS
                else event.flowfile_uuid
            )
            link(previous, node, uuid)
        last[event.flowfile_uuid] = node
        if event.event_type in _SPAWNS_CHILDREN:
            for child in event.child_uuids:
                if child in lineage_uuids:
                    add_flowfile(child, node)
            for parent in event.parent_uuids:
                parent_last = last.get(parent)
                if parent_last is not None and parent_last is not node:
                    link(parent_last, node, parent)
                last[parent] = node
        elif event.event_type in _CREATES_FLOWFILE:
            add_flowfile(event.flowfile_uuid, node)
    return LineageGraph(nodes=list(nodes.values()), links=list(links))
