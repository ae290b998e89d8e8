"""A FlowFile's lineage graph written as Graphviz DOT, Mermaid, JSON or SVG.

The CLI and the REST API label JOIN event nodes with the merge reason: the JOIN event's
details (MergeRecord: "Records Merged due to: Bin is full"), or else the merged FlowFile's
``merge.reason`` attribute (MergeContent).
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from datetime import UTC, datetime
from typing import Any

from flowcore.errors import FlowCoreError
from flowcore.repository.provenance import LineageGraph, LineageNode, ProvenanceRepository

MERGE_REASON_ATTRIBUTE = "merge.reason"


class LineageExportError(FlowCoreError):
    """The lineage cannot be written in the asked format (e.g. no Graphviz for SVG)."""


def merge_reasons(provenance: ProvenanceRepository, graph: LineageGraph) -> dict[str, str]:
    """The merge reason of each JOIN event node that has one, by node id."""
    reasons: dict[str, str] = {}
    for node in graph.nodes:
        if node.event_type != "JOIN" or node.event_id is None:
            continue
        event = provenance.get_event(node.event_id)
        if event is None:
            continue
        if event.details:
            reasons[node.id] = event.details
            continue
        attributes: dict[str, str | None] = {**event.previous_attributes}
        attributes.update(event.updated_attributes)
        reason = attributes.get(MERGE_REASON_ATTRIBUTE)
        if reason:
            reasons[node.id] = reason
    return reasons


def _time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


def node_label(node: LineageNode, reasons: dict[str, str]) -> str:
    """One line naming the node: the event type, id and time, or the FlowFile uuid."""
    if node.node_type == "FLOWFILE":
        return f"FlowFile {node.flowfile_uuid}"
    label = f"{node.event_type} event {node.event_id} at {_time(node.timestamp)}"
    reason = reasons.get(node.id)
    return f"{label}: {reason}" if reason else label


def to_json(graph: LineageGraph, reasons: dict[str, str]) -> dict[str, Any]:
    """The graph as plain data; each node carries ``details`` (the merge reason or null)."""
    document = dataclasses.asdict(graph)
    for node in document["nodes"]:
        node["details"] = reasons.get(node["id"])
    return document


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph: LineageGraph, focus: str, reasons: dict[str, str]) -> str:
    """Graphviz DOT: FlowFiles as ellipses (the focus filled), events as boxes."""
    lines = [f"digraph {_dot_quote('lineage of ' + focus)} {{", "  rankdir=TB;"]
    for node in graph.nodes:
        attributes = [f"label={_dot_quote(node_label(node, reasons))}"]
        if node.node_type == "EVENT":
            attributes.append("shape=box")
        else:
            attributes.append("shape=ellipse")
            if node.flowfile_uuid == focus:
                attributes.append('style=filled, fillcolor="#fde68a"')
        lines.append(f"  {_dot_quote(node.id)} [{', '.join(attributes)}];")
    for link in graph.links:
        lines.append(f"  {_dot_quote(link.source_id)} -> {_dot_quote(link.target_id)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _mermaid_text(text: str) -> str:
    # Mermaid labels are quoted; a double quote is written as its entity code.
    return '"' + text.replace('"', "#quot;") + '"'


def to_mermaid(graph: LineageGraph, focus: str, reasons: dict[str, str]) -> str:
    """A Mermaid flowchart: FlowFiles as rounded nodes, events as boxes."""
    ids = {node.id: f"n{index}" for index, node in enumerate(graph.nodes)}
    lines = ["flowchart TD"]
    for node in graph.nodes:
        text = _mermaid_text(node_label(node, reasons))
        shape = f"[{text}]" if node.node_type == "EVENT" else f"({text})"
        lines.append(f"  {ids[node.id]}{shape}")
    for link in graph.links:
        lines.append(f"  {ids[link.source_id]} --> {ids[link.target_id]}")
    focused = [ids[n.id] for n in graph.nodes if n.node_type == "FLOWFILE" and n.id == focus]
    if focused:
        lines.append("  classDef focus fill:#fde68a")
        lines.append(f"  class {','.join(focused)} focus")
    return "\n".join(lines) + "\n"


def to_svg(dot: str) -> str:
    """Render DOT text with Graphviz's ``dot``; a clear error when it is not installed."""
    program = shutil.which("dot")
    if program is None:
        raise LineageExportError(
            "--format svg needs Graphviz's 'dot' program on the PATH; install Graphviz or "
            "use --format dot and render it elsewhere"
        )
    done = subprocess.run(
        [program, "-Tsvg"], input=dot, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise LineageExportError(f"Graphviz 'dot' failed: {done.stderr.strip()}")
    return done.stdout
