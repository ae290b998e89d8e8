"""``flowcore provenance search`` and ``flowcore lineage``: a data directory's provenance."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import msgspec
import typer
from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

from cli._common import (
    EXIT_RUNTIME,
    DataDir,
    DataDirRepositories,
    Output,
    OutputOption,
    console,
    fail,
    format_time,
    print_json,
)
from flowcore import lineage_export
from flowcore.model.provenance import ProvenanceEventType
from flowcore.repository.provenance import LineageGraph, ProvenanceQuery

provenance_app = typer.Typer(help="Query the provenance repository.", no_args_is_help=True)


EVENT_TYPES = [t.value for t in ProvenanceEventType]


@provenance_app.command("search")
def provenance_search(
    data_dir: DataDir = None,
    uuid: Annotated[str | None, typer.Option(help="FlowFile uuid.")] = None,
    event_type: Annotated[
        str | None, typer.Option("--type", help=f"Event type: {', '.join(EVENT_TYPES)}.")
    ] = None,
    component: Annotated[str | None, typer.Option(help="Component id.")] = None,
    details: Annotated[str | None, typer.Option(help="Text in the details.")] = None,
    attribute: Annotated[list[str] | None, typer.Option(help="name=value, repeatable.")] = None,
    limit: Annotated[int, typer.Option(help="Most events to show.", min=1)] = 50,
    output: OutputOption = Output.text,
) -> None:
    """Search provenance events, newest first."""
    attributes: dict[str, str] = {}
    for item in attribute or []:
        if "=" not in item:
            raise fail(f"--attribute takes name=value, not '{item}'")
        key, value = item.split("=", 1)
        attributes[key] = value
    kind = event_type.strip().upper() if event_type else None
    if kind is not None and kind not in EVENT_TYPES:
        raise fail(f"--type '{event_type}' is not an event type; one of: {', '.join(EVENT_TYPES)}")
    query = ProvenanceQuery(
        flowfile_uuid=uuid,
        event_type=kind,
        component_id=component,
        details=details,
        attributes=attributes,
        limit=limit,
    )
    with DataDirRepositories(data_dir) as repos:
        events = repos.provenance.search(query)
    if output is Output.json:
        print_json({"events": msgspec.to_builtins(events)})
        return
    table = Table(title=f"{len(events)} provenance events")
    for column in ("id", "time", "type", "component", "FlowFile", "details"):
        table.add_column(column)
    for event in events:
        table.add_row(
            str(event.event_id),
            format_time(event.event_time),
            event.event_type,
            event.component_id,
            event.flowfile_uuid,
            event.details or "",
        )
    console.print(table)


class LineageFormat(StrEnum):
    tree = "tree"
    dot = "dot"
    mermaid = "mermaid"
    json = "json"
    svg = "svg"


def lineage(
    uuid: Annotated[str, typer.Argument(help="FlowFile uuid.")],
    data_dir: DataDir = None,
    output: OutputOption = Output.text,
    format_: Annotated[
        LineageFormat | None,
        typer.Option(
            "--format",
            case_sensitive=False,
            help="tree (the default), dot (Graphviz), mermaid, json, or svg "
            "(needs Graphviz's 'dot' on the PATH).",
        ),
    ] = None,
) -> None:
    """The lineage of a FlowFile: every ancestor and descendant."""
    with DataDirRepositories(data_dir) as repos:
        graph = repos.provenance.lineage(uuid)
        reasons = lineage_export.merge_reasons(repos.provenance, graph)
    if not graph.nodes:
        raise fail(f"no provenance events for FlowFile {uuid}")
    chosen = format_ or (LineageFormat.json if output is Output.json else LineageFormat.tree)
    if chosen is LineageFormat.json:
        print_json(lineage_export.to_json(graph, reasons))
    elif chosen is LineageFormat.dot:
        sys.stdout.write(lineage_export.to_dot(graph, uuid, reasons))
    elif chosen is LineageFormat.mermaid:
        sys.stdout.write(lineage_export.to_mermaid(graph, uuid, reasons))
    elif chosen is LineageFormat.svg:
        try:
            sys.stdout.write(lineage_export.to_svg(lineage_export.to_dot(graph, uuid, reasons)))
        except lineage_export.LineageExportError as exc:
            raise fail(exc, EXIT_RUNTIME) from None
    else:
        console.print(render_lineage(graph, uuid, reasons))


def render_lineage(graph: LineageGraph, focus: str, reasons: dict[str, str] | None = None) -> Tree:
    """A tree of the lineage graph, from its roots, events labelled with type and time
    (a JOIN with its merge reason)."""
    nodes = {n.id: n for n in graph.nodes}
    children: dict[str, list[str]] = {}
    has_parent: set[str] = set()
    for link in graph.links:
        children.setdefault(link.source_id, []).append(link.target_id)
        has_parent.add(link.target_id)
    reasons = reasons or {}

    def label(node_id: str) -> str:
        node = nodes[node_id]
        if node.node_type == "EVENT":
            text = (
                f"[cyan]{node.event_type}[/] event {node.event_id} at {format_time(node.timestamp)}"
            )
            reason = reasons.get(node_id)
            return f"{text}: {escape(reason)}" if reason else text
        mark = " [bold yellow]<-[/]" if node.flowfile_uuid == focus else ""
        return f"FlowFile {node.flowfile_uuid}{mark}"

    tree = Tree(f"lineage of {focus}: {len(graph.nodes)} nodes, {len(graph.links)} links")
    seen: set[str] = set()

    def add(parent: Tree, node_id: str) -> None:
        if node_id in seen:
            parent.add(f"[dim]{label(node_id)} (shown above)[/]")
            return
        branch = parent.add(label(node_id))
        seen.add(node_id)
        for child in children.get(node_id, []):
            add(branch, child)

    for root in [n.id for n in graph.nodes if n.id not in has_parent]:
        add(tree, root)
    return tree
