"""Lineage across FORK, JOIN, REPLAY and CLONE, with the exact graph asserted.

The flow: CREATE A, update it, FORK it into B, C and D; B and C are JOINed into E; E is
sent, then REPLAYed as F; D is sent and CLONEd as G. X is an unrelated FlowFile.
"""

from __future__ import annotations

from typing import Any

import pytest

from flowcore.repository import LineageGraph, LineageLink, LineageNode
from flowcore.repository.lineage import LineageEvent, build_graph

T0 = 1_700_000_000_000

FLOW = [
    # (event id, type, uuid, time offset, parents, children)
    (0, "CREATE", "A", 0, [], []),
    (1, "ATTRIBUTES_MODIFIED", "A", 1, [], []),
    (2, "FORK", "A", 2, ["A"], ["B", "C", "D"]),
    (3, "DROP", "A", 3, [], []),
    (4, "CREATE", "X", 3, [], []),
    (5, "CONTENT_MODIFIED", "B", 4, [], []),
    (6, "ROUTE", "C", 5, [], []),
    (7, "SEND", "D", 6, [], []),
    (8, "JOIN", "E", 7, ["B", "C"], ["E"]),
    # Same time as 10: the id breaks the tie, as in NiFi.
    (9, "DROP", "B", 8, [], []),
    (10, "DROP", "C", 8, [], []),
    (11, "SEND", "E", 10, [], []),
    (12, "REPLAY", "E", 11, ["E"], ["F"]),
    (13, "SEND", "F", 12, [], []),
    (14, "CLONE", "D", 13, ["D"], ["G"]),
    (15, "DROP", "G", 14, [], []),
    (16, "DROP", "X", 14, [], []),
]
TYPES = {row[0]: row[1] for row in FLOW}
UUIDS = {row[0]: row[2] for row in FLOW}


@pytest.fixture
def flow(provenance_factory: Any, journal: Any, event: Any) -> Any:
    stored = journal.append(
        [
            event(kind, uuid, event_time=T0 + offset, parent_uuids=parents, child_uuids=children)
            for _, kind, uuid, offset, parents, children in FLOW
        ]
    )
    assert [e.event_id for e in stored] == [row[0] for row in FLOW]
    repository = provenance_factory(index_batch_size=5)
    repository.index_pending()
    return repository


def ev(event_id: int) -> LineageNode:
    offset = next(row[3] for row in FLOW if row[0] == event_id)
    return LineageNode(
        id=str(event_id),
        node_type="EVENT",
        flowfile_uuid=UUIDS[event_id],
        timestamp=T0 + offset,
        event_type=TYPES[event_id],
        event_id=event_id,
    )


def ff(uuid: str, created_by: int) -> LineageNode:
    return LineageNode(
        id=uuid, node_type="FLOWFILE", flowfile_uuid=uuid, timestamp=ev(created_by).timestamp
    )


def link(source: LineageNode, target: LineageNode, uuid: str) -> LineageLink:
    return LineageLink(source.id, target.id, uuid, target.timestamp)


def assert_graph(graph: LineageGraph, nodes: set[LineageNode], links: set[LineageLink]) -> None:
    assert len(graph.nodes) == len(set(graph.nodes)), "duplicate nodes"
    assert len(graph.links) == len(set(graph.links)), "duplicate links"
    assert set(graph.nodes) == nodes
    assert set(graph.links) == links


def test_lineage_of_the_root_holds_every_descendant(flow: Any) -> None:
    a, b, c, d = ff("A", 0), ff("B", 2), ff("C", 2), ff("D", 2)
    e, f, g = ff("E", 8), ff("F", 12), ff("G", 14)
    events = {i: ev(i) for i in UUIDS if UUIDS[i] != "X"}
    assert_graph(
        flow.lineage("A"),
        {*events.values(), a, b, c, d, e, f, g},
        {
            link(events[0], a, "A"),
            link(a, events[1], "A"),
            link(events[1], events[2], "A"),
            link(events[2], b, "B"),
            link(events[2], c, "C"),
            link(events[2], d, "D"),
            link(events[2], events[3], "A"),
            link(b, events[5], "B"),
            link(c, events[6], "C"),
            link(d, events[7], "D"),
            link(events[8], e, "E"),
            link(events[5], events[8], "B"),
            link(events[6], events[8], "C"),
            link(events[8], events[9], "B"),
            link(events[8], events[10], "C"),
            link(e, events[11], "E"),
            link(events[11], events[12], "E"),
            link(events[12], f, "F"),
            link(f, events[13], "F"),
            link(events[7], events[14], "D"),
            link(events[14], g, "G"),
            link(g, events[15], "G"),
        },
    )


def test_lineage_of_a_joined_flowfile_has_its_ancestors_and_descendants_only(
    flow: Any,
) -> None:
    # E's ancestors are B, C and A; its descendant is F. Sibling D and its clone G are
    # neither, so they are left out, and D gets no FlowFile node under the FORK.
    a, b, c, e, f = ff("A", 0), ff("B", 2), ff("C", 2), ff("E", 8), ff("F", 12)
    events = {i: ev(i) for i in (0, 1, 2, 3, 5, 6, 8, 9, 10, 11, 12, 13)}
    assert_graph(
        flow.lineage("E"),
        {*events.values(), a, b, c, e, f},
        {
            link(events[0], a, "A"),
            link(a, events[1], "A"),
            link(events[1], events[2], "A"),
            link(events[2], b, "B"),
            link(events[2], c, "C"),
            link(events[2], events[3], "A"),
            link(b, events[5], "B"),
            link(c, events[6], "C"),
            link(events[8], e, "E"),
            link(events[5], events[8], "B"),
            link(events[6], events[8], "C"),
            link(events[8], events[9], "B"),
            link(events[8], events[10], "C"),
            link(e, events[11], "E"),
            link(events[11], events[12], "E"),
            link(events[12], f, "F"),
            link(f, events[13], "F"),
        },
    )


def test_lineage_of_a_clone_walks_up_through_the_fork(flow: Any) -> None:
    a, d, g = ff("A", 0), ff("D", 2), ff("G", 14)
    events = {i: ev(i) for i in (0, 1, 2, 3, 7, 14, 15)}
    assert_graph(
        flow.lineage("G"),
        {*events.values(), a, d, g},
        {
            link(events[0], a, "A"),
            link(a, events[1], "A"),
            link(events[1], events[2], "A"),
            link(events[2], d, "D"),
            link(events[2], events[3], "A"),
            link(d, events[7], "D"),
            link(events[7], events[14], "D"),
            link(events[14], g, "G"),
            link(g, events[15], "G"),
        },
    )


def test_lineage_of_a_replayed_flowfile_reaches_the_root(flow: Any) -> None:
    graph = flow.lineage("F")
    event_ids = {n.event_id for n in graph.nodes if n.node_type == "EVENT"}
    assert event_ids == {0, 1, 2, 3, 5, 6, 8, 9, 10, 11, 12, 13}
    flowfiles = {n.id for n in graph.nodes if n.node_type == "FLOWFILE"}
    assert flowfiles == {"A", "B", "C", "E", "F"}


def test_lineage_of_an_unrelated_or_unknown_flowfile(flow: Any) -> None:
    x = ff("X", 4)
    assert_graph(
        flow.lineage("X"),
        {ev(4), ev(16), x},
        {link(ev(4), x, "X"), link(x, ev(16), "X")},
    )
    assert flow.lineage("nobody") == LineageGraph(nodes=[], links=[])


def lineage_event(event_id: int, kind: str, uuid: str, time: int) -> LineageEvent:
    return LineageEvent(event_id, time, kind, uuid, (), ())


def test_second_claim_to_create_a_flowfile_adds_no_node_and_no_cycle() -> None:
    # NiFi fails the whole lineage here; this graph keeps the first claim.
    graph = build_graph(
        [
            lineage_event(0, "RECEIVE", "A", 10),
            lineage_event(1, "FETCH", "A", 11),
            lineage_event(2, "CREATE", "A", 12),
        ],
        {"A"},
    )
    a = LineageNode(id="A", node_type="FLOWFILE", flowfile_uuid="A", timestamp=10)
    nodes = [
        LineageNode(str(i), "EVENT", "A", 10 + i, kind, i)
        for i, kind in enumerate(["RECEIVE", "FETCH", "CREATE"])
    ]
    assert graph.nodes == [nodes[0], a, nodes[1], nodes[2]]
    assert graph.links == [
        link(nodes[0], a, "A"),
        link(a, nodes[1], "A"),
        link(nodes[1], nodes[2], "A"),
    ]
