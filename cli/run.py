"""``flowcore validate`` and ``flowcore run``.

``flowcore run`` is made for CI as well as for a terminal: its exit code says how the run
went (``EXIT_*`` in ``cli._common``, docs/ci.md), ``--output json`` prints one JSON document
instead of tables, and ``--timeout`` bounds it.
"""

from __future__ import annotations

import dataclasses
import logging
import signal
import threading
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from cli._common import (
    EXIT_CLEAN,
    EXIT_FAILURES,
    EXIT_RUNTIME,
    DataDir,
    LogLevel,
    LogLevelOption,
    Output,
    OutputOption,
    Params,
    console,
    crash,
    engine_settings,
    err,
    fail,
    load_definition,
    logging_to_stderr,
    print_json,
    refuse,
    time_period,
)
from flowcore.engine.node import Node
from flowcore.engine.scheduler import DeterministicScheduler, RunSummary, ThreadedScheduler
from flowcore.engine.status import ConnectionStatus
from flowcore.errors import (
    ConfigurationError,
    FlowCoreError,
)
from flowcore.flow.definition import FlowDefinitionError
from flowcore.flow.nifi.commands import AllowUnsupported
from flowcore.settings import EngineSettings

FAILURE_RELATIONSHIP = "failure"


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
        raise refuse(exc, output) from None
    if output is Output.json:
        print_json(
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
    timeout_s = time_period("--timeout", timeout) if timeout is not None else None
    idle_wait_s = time_period("--idle-wait", idle_wait)
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
        raise refuse(exc, output) from None
    try:
        settings = engine_settings(data_dir)
    except ValidationError as exc:
        raise fail(f"engine settings: {exc}") from None
    try:
        node = Node.from_flow(settings, definition)
    except (FlowDefinitionError, ConfigurationError) as exc:
        raise refuse(exc, output) from None
    except Exception as exc:
        raise crash(exc, output) from None
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
        print_json(report.to_json())
    else:
        if summary is not None:
            console.print(f"idle after {summary.triggers} triggers")
        print_status(node)
        report.print_problems()
    return report.exit_code


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
                if error.repository:
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


def print_status(node: Node) -> None:
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
