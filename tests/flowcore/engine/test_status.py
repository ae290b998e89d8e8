"""The read-only status view, and processor bindings that live as long as the processor.

A real node (LMDB, file-system content, DuckDB) under tmp_path on a ManualClock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flowcore.clock import ManualClock
from flowcore.engine import EnqueueItem, Node, RunState
from flowcore.engine.status import ProvenanceStatus
from flowcore.flow import parse_flow
from flowcore.processor.registry import processor_class
from flowcore.settings import EngineSettings


def port_flow(threshold: int = 10_000) -> dict[str, Any]:
    """in -> tag (UpdateAttribute, stopped) -> sink (Funnel, auto-terminated)."""
    return {
        "flow": {
            "name": "status",
            "input_ports": ["in"],
            "processors": {
                "tag": {"type": "UpdateAttribute", "run_state": "STOPPED"},
                "sink": {"type": "Funnel", "auto_terminate": ["success"]},
            },
            "connections": [
                {
                    "from": "in",
                    "to": "tag",
                    "name": "incoming",
                    "back_pressure": {"object_threshold": threshold},
                },
                {"from": "tag", "relationships": ["success"], "to": "sink", "name": "tagged"},
            ],
        }
    }


def test_a_processor_has_its_binding_from_construction_and_rebinding_keeps_it(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(Node(settings, clock))
    funnel = node.add_processor("funnel", processor_class("Funnel")(), {})
    binding = funnel.binding
    assert binding.component_id == "funnel"
    assert binding.component_type == funnel.type_name
    assert binding.incoming == [] and binding.outgoing == {}
    binding.state.values = {"kept": "yes"}
    binding.stats.commits = 7

    node.add_input_port("in")
    incoming = node.add_connection("incoming", "in", ["success"], "funnel")
    node.rebind()

    assert funnel.binding is binding  # updated in place, state and totals kept
    assert binding.incoming == [incoming.queue]
    assert binding.state.values == {"kept": "yes"}
    assert binding.stats.commits == 7
    assert node.input_ports["in"].outgoing == {"success": [incoming.queue]}


def test_the_view_reports_processors_ports_connections_and_the_index_lag(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(Node.from_flow(settings, parse_flow(port_flow(threshold=5)), clock))
    node.enqueue("in", [EnqueueItem(b"abc"), EnqueueItem(b"defg")])
    indexed = node.provenance.indexed_through()

    status = node.status_view.snapshot()

    tag = next(p for p in status.processors if p.name == "tag")
    assert (tag.type, tag.run_state, tag.runs, tag.flowfiles_in) == (
        "UpdateAttribute",
        RunState.STOPPED,
        0,
        0,
    )
    assert [(p.name, p.connections) for p in status.input_ports] == [("in", ("incoming",))]
    incoming = next(c for c in status.connections if c.name == "incoming")
    assert (incoming.source, incoming.destination, incoming.relationships) == (
        "in",
        "tag",
        ("success",),
    )
    assert (incoming.queued, incoming.bytes, incoming.object_threshold) == (2, 7, 5)
    assert incoming.back_pressure is False
    # Two RECEIVE events wait in the journal; reading the status does not index them.
    assert status.provenance == ProvenanceStatus(indexed_through=indexed, not_indexed=2)
    assert node.provenance.indexed_through() == indexed
    assert node.flowfiles.journal_size() == 2

    node.index_provenance()
    provenance = node.status_view.provenance()
    assert provenance is not None and provenance.not_indexed == 0
    assert provenance.indexed_through > indexed


def test_the_view_reports_repository_disk_usage(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(Node.from_flow(settings, parse_flow(port_flow()), clock))
    usage = node.status_view.repositories()
    assert {u.kind for u in usage} == {"flow_file", "provenance", "content"}
    for repository in usage:
        assert repository.total > 0
        assert repository.used + repository.free == repository.total


def test_the_view_answers_after_the_repositories_close(
    settings: EngineSettings, clock: ManualClock
) -> None:
    node = Node.from_flow(settings, parse_flow(port_flow()), clock)
    node.close()
    assert node.status_view.provenance() is None
    assert [c.name for c in node.status_view.connections()] == ["incoming", "tagged"]
