"""The ``flowcore`` command: run and validate flows, and read a data directory.

``flowcore run`` is made for CI as well as for a terminal: its exit code says how the run
went (``EXIT_*`` below, docs/ci.md), ``--output json`` prints one JSON document instead of
tables, and ``--timeout`` bounds it.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import signal
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.tree import Tree

from flowcore import lineage_export
from flowcore.cli_repair import damaged_exit, repair
from flowcore.engine.bulletins import BULLETIN_FILE, read_bulletins
from flowcore.engine.node import Node
from flowcore.engine.repositories import open_repositories
from flowcore.engine.scheduler import DeterministicScheduler, RunSummary, ThreadedScheduler
from flowcore.engine.status import ConnectionStatus, ProvenanceStatus
from flowcore.errors import (
    ConfigurationError,
    FlowCoreError,
    RepositoryDamagedError,
    RepositoryError,
)
from flowcore.flow.definition import FlowDefinition, FlowDefinitionError, load_flow
from flowcore.flow.definition import parameter_overrides as _parameter_overrides
from flowcore.flow.nifi.commands import AllowUnsupported
from flowcore.flow.paths import resolve_relative_paths
from flowcore.model.provenance import ProvenanceEventType
from flowcore.repository.flowfile import FlowFileRepository
from flowcore.repository.provenance import LineageGraph, ProvenanceQuery, ProvenanceRepository
from flowcore.settings import EngineSettings
from flowcore.units import parse_time_period

EXIT_CLEAN = 0
"""The run finished and nothing went wrong."""
EXIT_FAILURES = 1
"""FlowFiles were left in a connection fed by a ``failure`` relationship or waiting to be
retried, or a processor failed or logged an error."""
EXIT_INVALID = 2
"""The flow (or a flag) is invalid: nothing ran."""
EXIT_RUNTIME = 3
"""The run could not go on: a repository failed, or ``--until-idle`` reached --timeout."""

FAILURE_RELATIONSHIP = "failure"
PARAMETER_ENV_PREFIX = "FLOWCORE_PARAM_"

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


class Output(StrEnum):
    text = "text"
    json = "json"


class LogLevel(StrEnum):
    """NiFi's log levels (TRACE is Python level 5)."""

    trace = "TRACE"
    debug = "DEBUG"
    info = "INFO"
    warn = "WARN"
    error = "ERROR"

    @property
    def number(self) -> int:
        return {"TRACE": 5, "WARN": logging.WARNING}.get(self.value) or logging.getLevelName(
            self.value
        )


DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Data directory (default: $FLOWCORE_DATA_DIR or ./data)."),
]
OutputOption = Annotated[
    Output, typer.Option("--output", help="text (tables) or json (one JSON document).")
]
Params = Annotated[
    list[str] | None,
    typer.Option(
        "--param",
        help="NAME=VALUE overriding a flow parameter #{NAME}; repeatable. "
        f"{PARAMETER_ENV_PREFIX}<NAME> environment variables do the same (--param wins).",
    ),
]
LogLevelOption = Annotated[
    LogLevel,
    typer.Option(
        "--log-level",
        case_sensitive=False,
        help="Least level logged to stderr; processors such as LogAttribute log at INFO.",
    ),
]


def _settings(data_dir: Path | None) -> EngineSettings:
    settings = EngineSettings()
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    return settings


def _fail(message: str | FlowCoreError, code: int = EXIT_INVALID) -> typer.Exit:
    if isinstance(message, RepositoryDamagedError):
        return damaged_exit(message)  # one message with the repair command, exit code 3
    err.print("[bold red]error:[/] ", end="")
    err.print(str(message), markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(code=code)


def _print_json(document: Any) -> None:
    sys.stdout.write(json.dumps(document, indent=2, default=str) + "\n")
    sys.stdout.flush()


class _StderrHandler(logging.Handler):
    """Writes to whatever ``sys.stderr`` is when a record comes (a test may swap it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:
            self.handleError(record)


@contextmanager
def logging_to_stderr(level: LogLevel) -> Iterator[None]:
    """Log flowcore's messages from ``level`` up to stderr (never into the JSON output).

    Other libraries (py4j, uvicorn) log from WARN up whatever the level, so INFO shows
    the flow's messages (LogAttribute's) without their chatter. The previous logging
    set-up comes back afterwards (the commands also run inside tests).
    """
    logging.addLevelName(5, "TRACE")
    root = logging.getLogger()
    engine = logging.getLogger("flowcore")
    saved = root.level, engine.level
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(max(level.number, logging.WARNING))
    engine.setLevel(level.number)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(saved[0])
        engine.setLevel(saved[1])


def parameter_values(params: list[str] | None) -> dict[str, str]:
    """Parameter overrides: ``FLOWCORE_PARAM_<NAME>`` variables, then ``--param``."""
    values = {
        key.removeprefix(PARAMETER_ENV_PREFIX): value
        for key, value in os.environ.items()
        if key.startswith(PARAMETER_ENV_PREFIX) and key != PARAMETER_ENV_PREFIX
    }
    for item in params or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise _fail(f"--param takes NAME=VALUE, not '{item}'")
        values[name.strip()] = value
    return values


def load_definition(
    flow: Path, params: list[str] | None = None, *, allow_unsupported: bool = False
) -> FlowDefinition:
    """Load a flow (YAML or a NiFi flow definition) with the parameter overrides, its
    relative paths resolved from its folder; NiFi components flowcore lacks are refused
    unless ``allow_unsupported`` stubs them as stopped."""
    with _parameter_overrides(parameter_values(params)):
        definition = load_flow(flow, allow_unsupported=allow_unsupported)
    return resolve_relative_paths(definition, flow.parent)


def _refuse(exc: FlowCoreError, output: Output) -> typer.Exit:
    """An invalid flow: every problem, as text on stderr or as JSON."""
    problems = exc.problems if isinstance(exc, FlowDefinitionError) else []
    if output is Output.json:
        _print_json(
            {
                "outcome": "invalid",
                "exit_code": EXIT_INVALID,
                "problems": [{"key": p.key, "reason": p.reason} for p in problems]
                or [{"key": "", "reason": str(exc)}],
            }
        )
        return typer.Exit(code=EXIT_INVALID)
    return _fail(str(exc))


def _crash(exc: BaseException, output: Output) -> typer.Exit:
    """A runtime failure (a repository error...): exit code 3."""
    message = str(exc) if isinstance(exc, FlowCoreError) else f"{type(exc).__name__}: {exc}"
    if isinstance(exc, RepositoryDamagedError) and output is Output.text:
        return damaged_exit(exc)
    if output is Output.json:
        _print_json({"outcome": "error", "exit_code": EXIT_RUNTIME, "error": message})
        return typer.Exit(code=EXIT_RUNTIME)
    return _fail(message, EXIT_RUNTIME)


@app.command()
def validate(
    flow: Annotated[Path, typer.Argument(help="Flow definition (YAML).")],
    param: Params = None,
    output: OutputOption = Output.text,
    allow_unsupported: AllowUnsupported = False,
) -> None:
    """Check a flow definition: schema, references, processor types and properties.

    Every problem is reported, each under its key; exit code 2 if there is any.
    """
    try:
        definition = load_definition(flow, param, allow_unsupported=allow_unsupported)
        import tempfile

        with tempfile.TemporaryDirectory() as scratch:
            node = Node.from_flow(EngineSettings(data_dir=Path(scratch)), definition)
            node.close()
    except FlowCoreError as exc:
        raise _refuse(exc, output) from None
    if output is Output.json:
        _print_json(
            {
                "outcome": "valid",
                "processors": len(definition.flow.processors),
                "connections": len(definition.flow.connections),
            }
        )
        return
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
    timeout: Annotated[
        str | None,
        typer.Option(
            "--timeout",
            help='Longest the run may take ("5 min"); with --until-idle, reaching it is a '
            "failure (exit code 3), without it the run stops there.",
        ),
    ] = None,
    idle_wait: Annotated[
        str,
        typer.Option(
            "--idle-wait",
            help="With --until-idle: how long the same FlowFiles may wait for a retry "
            "(penalised) or a yielded processor before the flow counts as idle.",
        ),
    ] = "10 sec",
    param: Params = None,
    output: OutputOption = Output.text,
    log_level: LogLevelOption = LogLevel.info,
    allow_unsupported: AllowUnsupported = False,
) -> None:
    """Run a flow; it continues where it was on the same data directory.

    Exit code 0: clean; 1: FlowFiles left in a failure connection or waiting for a retry,
    or a processor error; 2: invalid flow; 3: runtime failure (see docs/ci.md).
    """
    timeout_s = _period("--timeout", timeout) if timeout is not None else None
    idle_wait_s = _period("--idle-wait", idle_wait)
    with logging_to_stderr(log_level):
        code = _run(
            flow,
            data_dir,
            until_idle,
            timeout,
            timeout_s,
            idle_wait_s,
            param,
            output,
            allow_unsupported=allow_unsupported,
        )
    raise typer.Exit(code=code)


def _run(
    flow: Path,
    data_dir: Path | None,
    until_idle: bool,
    timeout: str | None,
    timeout_s: float | None,
    idle_wait_s: float,
    param: list[str] | None,
    output: Output,
    *,
    allow_unsupported: bool = False,
) -> int:
    try:
        definition = load_definition(flow, param, allow_unsupported=allow_unsupported)
    except FlowCoreError as exc:
        raise _refuse(exc, output) from None
    try:
        settings = _settings(data_dir)
    except ValidationError as exc:
        raise _fail(f"engine settings: {exc}") from None
    try:
        node = Node.from_flow(settings, definition)
    except (FlowDefinitionError, ConfigurationError) as exc:
        raise _refuse(exc, output) from None
    except Exception as exc:
        raise _crash(exc, output) from None
    report = RunReport(node)
    recovery = node.recovery
    if output is Output.text and recovery is not None and (recovery.flowfiles or recovery.swapped):
        console.print(
            f"resumed: {recovery.flowfiles + recovery.swapped} FlowFiles queued "
            f"({recovery.swapped} swapped out)"
        )
    bulletins = _Bulletins()
    processor_log = logging.getLogger("flowcore.processor")
    processor_log.addHandler(bulletins)
    summary: RunSummary | None = None
    try:
        if until_idle:
            summary = _run_until_idle(node, timeout_s, idle_wait_s, output is Output.text)
        else:
            _run_forever(node, timeout_s, output is Output.text)
    except FlowCoreError as exc:
        report.crash = exc
    except Exception as exc:  # a bug or the platform: still a runtime failure, reported
        logging.getLogger("flowcore.cli").exception("the run failed")
        report.crash = exc
    finally:
        processor_log.removeHandler(bulletins)
        node.close()
    report.finish(summary, bulletins, timeout)
    if output is Output.json:
        _print_json(report.to_json())
    else:
        if summary is not None:
            console.print(f"idle after {summary.triggers} triggers")
        _print_status(node)
        report.print_problems()
    return report.exit_code


def _period(flag: str, value: str) -> float:
    try:
        return parse_time_period(value)
    except (ValueError, FlowCoreError):
        raise _fail(
            f"{flag} takes a time period such as '30 sec' or '5 min', not '{value}'"
        ) from None


class _Bulletins(logging.Handler):
    """Counts what processors log at ERROR (NiFi's error bulletins), by logger."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.counts: Counter[str] = Counter()
        self.last: dict[str, str] = {}

    def emit(self, record: logging.LogRecord) -> None:
        source = record.name.removeprefix("flowcore.processor.")
        self.counts[source] += 1
        try:
            self.last[source] = record.getMessage()
        except Exception:  # a message that cannot be formatted still counts
            self.last[source] = str(record.msg)


class RunReport:
    """What a run left behind, and the exit code it earns."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.crash: BaseException | None = None
        self.summary: RunSummary | None = None
        self.timeout: str | None = None
        self.failures: dict[str, int] = {}
        self.retrying: dict[str, int] = {}
        self.errors: dict[str, list[str]] = {}
        self.logged: dict[str, tuple[int, str]] = {}
        self.repository_failure: str | None = None

    def finish(
        self, summary: RunSummary | None, bulletins: _Bulletins, timeout: str | None
    ) -> None:
        self.summary = summary
        self.timeout = timeout
        for connection in self.node.status_view.connections():
            if FAILURE_RELATIONSHIP in connection.relationships and connection.queued:
                self.failures[connection.name] = connection.queued
            if connection.penalized:
                self.retrying[connection.name] = connection.penalized
        for name, processor in self.node.processors.items():
            errors = processor.errors
            if errors:
                self.errors[name] = [e.message for e in errors]
            for error in errors:
                if error.kind is not None and issubclass(error.kind, RepositoryError):
                    self.repository_failure = f"{name}: {error.message}"
        self.logged = {k: (n, bulletins.last.get(k, "")) for k, n in bulletins.counts.items()}

    @property
    def timed_out(self) -> bool:
        return self.summary is not None and self.summary.timed_out

    @property
    def exit_code(self) -> int:
        if self.crash is not None or self.repository_failure or self.timed_out:
            return EXIT_RUNTIME
        if self.failures or self.retrying or self.errors or self.logged:
            return EXIT_FAILURES
        return EXIT_CLEAN

    @property
    def outcome(self) -> str:
        return {EXIT_CLEAN: "clean", EXIT_FAILURES: "failures", EXIT_RUNTIME: "error"}[
            self.exit_code
        ]

    def problems(self) -> list[str]:
        lines: list[str] = []
        if self.crash is not None:
            lines.append(f"the run failed: {self.crash}")
        if self.repository_failure:
            lines.append(f"repository failure in {self.repository_failure}")
        if self.timed_out:
            lines.append(f"not idle within --timeout {self.timeout}")
        for name, count in self.failures.items():
            lines.append(f"{count} FlowFiles left in failure connection '{name}'")
        for name, count in self.retrying.items():
            lines.append(f"{count} FlowFiles penalised, waiting for a retry in '{name}'")
        for name, messages in self.errors.items():
            lines.append(f"processor '{name}' failed {len(messages)} time(s): {messages[-1]}")
        for source, (count, last) in self.logged.items():
            lines.append(f"{source} logged {count} error(s), the last: {last}")
        return lines

    def print_problems(self) -> None:
        lines = self.problems()
        if not lines:
            return
        err.print(f"[bold red]{self.outcome}[/] (exit code {self.exit_code}):")
        for line in lines:
            err.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)

    def to_json(self) -> dict[str, Any]:
        node = self.node
        summary = self.summary
        recovery = node.recovery
        return {
            "outcome": self.outcome,
            "exit_code": self.exit_code,
            "problems": self.problems(),
            "run": None
            if summary is None
            else {
                "triggers": summary.triggers,
                "idle": summary.idle,
                "stalled": summary.stalled,
                "timed_out": summary.timed_out,
            },
            "resumed": None if recovery is None else dataclasses.asdict(recovery),
            "processors": {
                p.name: {
                    "type": p.type,
                    "run_state": p.run_state.value,
                    "runs": p.runs,
                    "flowfiles_in": p.flowfiles_in,
                    "flowfiles_out": p.flowfiles_out,
                    "errors": [e.message for e in p.errors],
                }
                for p in node.status_view.processors()
            },
            "connections": {
                c.name: {
                    "source": c.source,
                    "relationships": list(c.relationships),
                    "destination": c.destination,
                    **_queue_json(c),
                }
                for c in node.status_view.connections()
            },
            "errors_logged": {k: {"count": n, "last": m} for k, (n, m) in self.logged.items()},
        }


def _queue_json(connection: ConnectionStatus) -> dict[str, Any]:
    return {
        "queued": connection.queued,
        "bytes": connection.bytes,
        "penalized": connection.penalized,
        "swapped": connection.swapped,
        "back_pressure": connection.back_pressure,
    }


def _run_until_idle(
    node: Node, timeout_s: float | None, idle_wait_s: float, show_progress: bool
) -> RunSummary:
    scheduler = DeterministicScheduler(node)
    deadline = None if timeout_s is None else node.clock.now_ms() + int(timeout_s * 1000)
    retry_wait = int(idle_wait_s * 1000)
    if not show_progress:
        return scheduler.run_until_idle(retry_wait_ms=retry_wait, deadline_ms=deadline)
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
            moved = sum(p.flowfiles_out for p in node.status_view.processors())
            progress.update(task, moved=f"{triggers} triggers, {moved} FlowFiles out")

        return scheduler.run_until_idle(
            on_pass=update, retry_wait_ms=retry_wait, deadline_ms=deadline
        )


def _run_forever(node: Node, timeout_s: float | None, chatty: bool) -> None:
    scheduler = ThreadedScheduler(node)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    scheduler.start()
    if chatty:
        console.print(
            "running; Ctrl-C stops cleanly"
            if timeout_s is None
            else "running until --timeout; Ctrl-C stops cleanly"
        )
    stop.wait(timeout_s)
    scheduler.stop()


def _print_status(node: Node) -> None:
    table = Table(title="Processors")
    for column in ("name", "type", "runs", "in", "out", "last error"):
        table.add_column(column)
    view = node.status_view
    for processor in view.processors():
        errors = processor.errors
        table.add_row(
            processor.name,
            processor.type,
            str(processor.runs),
            str(processor.flowfiles_in),
            str(processor.flowfiles_out),
            errors[-1].message if errors else "",
        )
    console.print(table)
    queues = Table(title="Connections")
    for column in ("name", "queued", "bytes", "swapped", "back pressure"):
        queues.add_column(column)
    for connection in view.connections():
        queues.add_row(
            connection.name,
            str(connection.queued),
            str(connection.bytes),
            str(connection.swapped),
            "yes" if connection.back_pressure else "no",
        )
    console.print(queues)


class _Repositories:
    """The FlowFile and provenance repositories of a data directory, opened for reading.

    ``index`` first indexes what the journal holds, so that a query answers for every
    event; ``status`` reads without it and reports how many are not yet indexed.
    """

    def __init__(self, data_dir: Path | None, *, index: bool = True) -> None:
        from flowcore.clock import SystemClock

        settings = _settings(data_dir)
        if not settings.flowfile_repository_dir.exists():
            raise _fail(f"no flowcore data directory at {settings.data_dir}")
        clock = SystemClock()
        try:
            self.opened = open_repositories(settings, clock, for_writing=False)
            self.flowfiles: FlowFileRepository = self.opened.flowfiles
            self.provenance: ProvenanceRepository = self.opened.provenance
            if index:
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
        self.opened.close()


@app.command()
def status(data_dir: DataDir = None, output: OutputOption = Output.text) -> None:
    """Queued FlowFiles per connection and provenance totals of a data directory.

    Read-only: events still in the journal are counted and reported as not yet indexed,
    never indexed here.
    """
    with _Repositories(data_dir, index=False) as repos:
        recovered = repos.flowfiles.recover()
        rows: dict[str, dict[str, int]] = {}
        for name in sorted(set(recovered.queues) | set(recovered.swapped)):
            live = recovered.queues.get(name, [])
            swapped = recovered.swapped.get(name, [])
            rows[name] = {
                "queued": len(live) + sum(s.count for s in swapped),
                "bytes": sum(r.flowfile.size for r in live) + sum(s.total_bytes for s in swapped),
                "swapped": sum(s.count for s in swapped),
            }
        provenance = ProvenanceStatus.read(repos.flowfiles, repos.provenance)
        pending = provenance.not_indexed
        events = repos.provenance.event_count() + pending
        latest = recovered.next_event_id - 1 if pending else provenance.indexed_through
    if output is Output.json:
        _print_json(
            {
                "connections": rows,
                "provenance": {
                    "events": events,
                    "latest_event_id": latest,
                    "indexed_through": provenance.indexed_through,
                    "not_indexed": pending,
                },
            }
        )
        return
    table = Table(title="Queues")
    for column in ("connection", "queued", "bytes", "swapped"):
        table.add_column(column)
    for name, row in rows.items():
        table.add_row(name, str(row["queued"]), str(row["bytes"]), str(row["swapped"]))
    console.print(table)
    console.print(f"provenance events: {events} (latest id {latest})")
    if pending:
        console.print(
            f"{pending} events not yet indexed (a run or a provenance query indexes them)"
        )


def _time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


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
            raise _fail(f"--attribute takes name=value, not '{item}'")
        key, value = item.split("=", 1)
        attributes[key] = value
    kind = event_type.strip().upper() if event_type else None
    if kind is not None and kind not in EVENT_TYPES:
        raise _fail(f"--type '{event_type}' is not an event type; one of: {', '.join(EVENT_TYPES)}")
    query = ProvenanceQuery(
        flowfile_uuid=uuid,
        event_type=kind,
        component_id=component,
        details=details,
        attributes=attributes,
        limit=limit,
    )
    with _Repositories(data_dir) as repos:
        events = repos.provenance.search(query)
    if output is Output.json:
        _print_json({"events": msgspec.to_builtins(events)})
        return
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
def bulletins(
    data_dir: DataDir = None,
    after: Annotated[int | None, typer.Option(help="Only bulletins after this id.")] = None,
    limit: Annotated[int, typer.Option(help="Most bulletins to show (the newest).", min=1)] = 50,
    output: OutputOption = Output.text,
) -> None:
    """The node's recent warnings and errors (bulletins), oldest first.

    Reads the data directory's bulletin file, so it works on a stopped node and beside a
    running one."""
    settings = _settings(data_dir)
    if not settings.data_dir.exists():
        raise _fail(f"no flowcore data directory at {settings.data_dir}")
    found = read_bulletins(settings.data_dir / BULLETIN_FILE)
    shown = [b for b in found if after is None or b.id > after][-limit:]
    if output is Output.json:
        _print_json({"bulletins": [dataclasses.asdict(b) for b in shown]})
        return
    table = Table(title=f"{len(shown)} bulletins")
    for column in ("id", "time", "level", "component", "type", "message"):
        table.add_column(column)
    for b in shown:
        table.add_row(
            str(b.id),
            _time(b.time_ms),
            b.level,
            escape(b.component_name),
            escape(b.component_type),
            escape(b.message),
        )
    console.print(table)


class LineageFormat(StrEnum):
    tree = "tree"
    dot = "dot"
    mermaid = "mermaid"
    json = "json"
    svg = "svg"


@app.command()
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
    with _Repositories(data_dir) as repos:
        graph = repos.provenance.lineage(uuid)
        reasons = lineage_export.merge_reasons(repos.provenance, graph)
    if not graph.nodes:
        raise _fail(f"no provenance events for FlowFile {uuid}")
    chosen = format_ or (LineageFormat.json if output is Output.json else LineageFormat.tree)
    if chosen is LineageFormat.json:
        _print_json(lineage_export.to_json(graph, reasons))
    elif chosen is LineageFormat.dot:
        sys.stdout.write(lineage_export.to_dot(graph, uuid, reasons))
    elif chosen is LineageFormat.mermaid:
        sys.stdout.write(lineage_export.to_mermaid(graph, uuid, reasons))
    elif chosen is LineageFormat.svg:
        try:
            sys.stdout.write(lineage_export.to_svg(lineage_export.to_dot(graph, uuid, reasons)))
        except lineage_export.LineageExportError as exc:
            raise _fail(exc, EXIT_RUNTIME) from None
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
            text = f"[cyan]{node.event_type}[/] event {node.event_id} at {_time(node.timestamp)}"
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


from flowcore.flow.nifi.commands import export_app, import_app  # noqa: E402

app.add_typer(import_app, name="import")
app.add_typer(export_app, name="export")
from flowcore.cli_openlineage import openlineage_app  # noqa: E402

app.add_typer(openlineage_app, name="openlineage")
from flowcore.cli_simulate import simulate  # noqa: E402

app.command()(simulate)


def main() -> None:
    try:
        app()
    except FlowCoreError as exc:
        sys.exit(_fail(exc).exit_code)


if __name__ == "__main__":
    main()
