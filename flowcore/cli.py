"""The ``flowcore`` command: run and validate flows, and read a data directory."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.tree import Tree

from flowcore.cli_repair import damaged_exit, repair
from flowcore.engine import data_identity
from flowcore.engine.node import Node
from flowcore.engine.scheduler import DeterministicScheduler, ThreadedScheduler
from flowcore.errors import FlowCoreError, RepositoryDamagedError
from flowcore.flow.definition import load_flow
from flowcore.repository.flowfile import FlowFileRepository
from flowcore.repository.provenance import LineageGraph, ProvenanceQuery, ProvenanceRepository
from flowcore.repository.registry import load_repository_class
from flowcore.settings import EngineSettings

app = typer.Typer(
    help="flowcore: a dataflow engine in the manner of Apache NiFi.",
    no_args_is_help=True,
    add_completion=False,
)
provenance_app = typer.Typer(help="Query the provenance repository.", no_args_is_help=True)
app.add_typer(provenance_app, name="provenance")
app.command()(repair)
console = Console()
err = Console(stderr=True)

DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Data directory (default: $FLOWCORE_DATA_DIR or ./data)."),
]


def _settings(data_dir: Path | None) -> EngineSettings:
    settings = EngineSettings()
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    return settings


def _fail(message: str | FlowCoreError) -> typer.Exit:
    if isinstance(message, RepositoryDamagedError):
        return damaged_exit(message)
    err.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code=2)


@app.command()
def validate(flow: Annotated[Path, typer.Argument(help="Flow definition (YAML).")]) -> None:
    """Check a flow definition: schema, references, processor types and properties."""
    try:
        definition = load_flow(flow)
        import tempfile

        with tempfile.TemporaryDirectory() as scratch:
            node = Node.from_flow(EngineSettings(data_dir=Path(scratch)), definition)
            node.close()
    except FlowCoreError as exc:
        raise _fail(str(exc)) from None
    console.print(
        f"[green]valid[/]: {flow} ({len(definition.flow.processors)} processors, "
        f"{len(definition.flow.connections)} connections)"
    )


@app.command()
def run(
    flow: Annotated[Path, typer.Argument(help="Flow definition (YAML).")],
    data_dir: DataDir = None,
    until_idle: Annotated[
        bool, typer.Option("--until-idle", help="Stop once nothing is left to do.")
    ] = False,
) -> None:
    """Run a flow; it continues where it was on the same data directory."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        node = Node.from_flow(_settings(data_dir), load_flow(flow))
    except FlowCoreError as exc:
        raise _fail(exc) from None
    recovery = node.recovery
    if recovery is not None and (recovery.flowfiles or recovery.swapped):
        console.print(
            f"resumed: {recovery.flowfiles + recovery.swapped} FlowFiles queued "
            f"({recovery.swapped} swapped out)"
        )
    try:
        if until_idle:
            _run_until_idle(node)
        else:
            _run_forever(node)
    finally:
        node.close()
    _print_status(node)


def _run_until_idle(node: Node) -> None:
    scheduler = DeterministicScheduler(node)
    with Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[moved]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("running", total=None, moved="")

        def update(triggers: int) -> None:
            moved = sum(
                p.binding.stats.flowfiles_out
                for p in node.processors.values()
                if p.binding is not None
            )
            progress.update(task, moved=f"{triggers} triggers, {moved} FlowFiles out")

        summary = scheduler.run_until_idle(on_pass=update)
    console.print(f"idle after {summary.triggers} triggers")


def _run_forever(node: Node) -> None:
    scheduler = ThreadedScheduler(node)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    scheduler.start()
    console.print("running; Ctrl-C stops cleanly")
    stop.wait()
    scheduler.stop()


def _print_status(node: Node) -> None:
    table = Table(title="Processors")
    for column in ("name", "type", "runs", "in", "out", "last error"):
        table.add_column(column)
    for name, processor in node.processors.items():
        stats = processor.binding.stats if processor.binding else None
        errors = processor.errors
        table.add_row(
            name,
            processor.type_name,
            str(processor.runs),
            str(stats.flowfiles_in if stats else 0),
            str(stats.flowfiles_out if stats else 0),
            errors[-1].message if errors else "",
        )
    console.print(table)
    queues = Table(title="Connections")
    for column in ("name", "queued", "bytes", "swapped", "back pressure"):
        queues.add_column(column)
    for name, connection in node.connections.items():
        snap = connection.queue.snapshot()
        queues.add_row(
            name,
            str(snap.count),
            str(snap.total_bytes),
            str(snap.swapped),
            "yes" if snap.back_pressure else "no",
        )
    console.print(queues)


class _Repositories:
    """The FlowFile and provenance repositories of a data directory, opened for reading."""

    def __init__(self, data_dir: Path | None) -> None:
        from flowcore.clock import SystemClock

        settings = _settings(data_dir)
        if not settings.flowfile_repository_dir.exists():
            raise _fail(f"no flowcore data directory at {settings.data_dir}")
        clock = SystemClock()
        try:
            data_identity.check(settings)
            self.flowfiles: FlowFileRepository = load_repository_class(
                settings.flowfile_repository.implementation
            )(settings, clock)
            self.provenance: ProvenanceRepository = load_repository_class(
                settings.provenance.implementation
            )(settings, clock, self.flowfiles)
            self.provenance.index_pending()
        except FlowCoreError as exc:
            raise _fail(exc) from None
        except Exception as exc:  # DuckDB refuses a second process with a clear message
            raise _fail(
                f"cannot open the repositories in {settings.data_dir} "
                f"(is a flow running on it?): {exc}"
            ) from None

    def __enter__(self) -> _Repositories:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.provenance.close()
        self.flowfiles.close()


@app.command()
def status(data_dir: DataDir = None) -> None:
    """Queued FlowFiles per connection and provenance totals of a data directory."""
    with _Repositories(data_dir) as repos:
        recovered = repos.flowfiles.recover()
        table = Table(title="Queues")
        for column in ("connection", "queued", "bytes", "swapped"):
            table.add_column(column)
        names = sorted(set(recovered.queues) | set(recovered.swapped))
        for name in names:
            live = recovered.queues.get(name, [])
            swapped = recovered.swapped.get(name, [])
            table.add_row(
                name,
                str(len(live) + sum(s.count for s in swapped)),
                str(sum(r.flowfile.size for r in live) + sum(s.total_bytes for s in swapped)),
                str(sum(s.count for s in swapped)),
            )
        console.print(table)
        console.print(
            f"provenance events: {repos.provenance.event_count()} "
            f"(latest id {repos.provenance.indexed_through()})"
        )


def _time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


@provenance_app.command("search")
def provenance_search(
    data_dir: DataDir = None,
    uuid: Annotated[str | None, typer.Option(help="FlowFile uuid.")] = None,
    event_type: Annotated[str | None, typer.Option("--type", help="Event type.")] = None,
    component: Annotated[str | None, typer.Option(help="Component id.")] = None,
    details: Annotated[str | None, typer.Option(help="Text in the details.")] = None,
    attribute: Annotated[list[str] | None, typer.Option(help="name=value, repeatable.")] = None,
    limit: Annotated[int, typer.Option(help="Most events to show.")] = 50,
) -> None:
    """Search provenance events, newest first."""
    attributes: dict[str, str] = {}
    for item in attribute or []:
        if "=" not in item:
            raise _fail(f"--attribute takes name=value, not '{item}'")
        key, value = item.split("=", 1)
        attributes[key] = value
    query = ProvenanceQuery(
        flowfile_uuid=uuid,
        event_type=event_type.upper() if event_type else None,
        component_id=component,
        details=details,
        attributes=attributes,
        limit=limit,
    )
    with _Repositories(data_dir) as repos:
        events = repos.provenance.search(query)
    table = Table(title=f"{len(events)} provenance events")
    for column in ("id", "time", "type", "component", "FlowFile", "details"):
        table.add_column(column)
    for event in events:
        table.add_row(
            str(event.event_id),
            _time(event.event_time),
            event.event_type,
            event.component_id,
            event.flowfile_uuid,
            event.details or "",
        )
    console.print(table)


@app.command()
def lineage(
    uuid: Annotated[str, typer.Argument(help="FlowFile uuid.")], data_dir: DataDir = None
) -> None:
    """The lineage of a FlowFile: every ancestor and descendant."""
    with _Repositories(data_dir) as repos:
        graph = repos.provenance.lineage(uuid)
    if not graph.nodes:
        raise _fail(f"no provenance events for FlowFile {uuid}")
    console.print(render_lineage(graph, uuid))


def render_lineage(graph: LineageGraph, focus: str) -> Tree:
    """A tree of the lineage graph, from its roots, events labelled with type and time."""
    nodes = {n.id: n for n in graph.nodes}
    children: dict[str, list[str]] = {}
    has_parent: set[str] = set()
    for link in graph.links:
        children.setdefault(link.source_id, []).append(link.target_id)
        has_parent.add(link.target_id)

    def label(node_id: str) -> str:
        node = nodes[node_id]
        if node.node_type == "EVENT":
            return f"[cyan]{node.event_type}[/] event {node.event_id} at {_time(node.timestamp)}"
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


from flowcore.flow.nifi.commands import export_app, import_app  # noqa: E402

app.add_typer(import_app, name="import")
app.add_typer(export_app, name="export")


def main() -> None:
    try:
        app()
    except FlowCoreError as exc:
        sys.exit(_fail(exc).exit_code)


if __name__ == "__main__":
    main()
