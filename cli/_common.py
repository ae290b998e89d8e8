"""What the ``flowcore`` commands share: exit codes, consoles, option types, loading a flow,
reporting a failure, and opening a data directory's repositories for reading."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from cli.repair import damaged_exit
from flowcore.engine.repositories import open_repositories
from flowcore.errors import (
    FlowCoreError,
    RepositoryDamagedError,
)
from flowcore.flow.definition import FlowDefinition, FlowDefinitionError, load_flow
from flowcore.flow.definition import parameter_overrides as _parameter_overrides
from flowcore.flow.paths import resolve_relative_paths
from flowcore.repository.flowfile import FlowFileRepository
from flowcore.repository.provenance import ProvenanceRepository
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

PARAMETER_ENV_PREFIX = "FLOWCORE_PARAM_"

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


def engine_settings(data_dir: Path | None) -> EngineSettings:
    settings = EngineSettings()
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    return settings


def fail(message: str | FlowCoreError, code: int = EXIT_INVALID) -> typer.Exit:
    if isinstance(message, RepositoryDamagedError):
        return damaged_exit(message)  # one message with the repair command, exit code 3
    err.print("[bold red]error:[/] ", end="")
    err.print(str(message), markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(code=code)


def print_json(document: Any) -> None:
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
            raise fail(f"--param takes NAME=VALUE, not '{item}'")
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


def refuse(exc: FlowCoreError, output: Output) -> typer.Exit:
    """An invalid flow: every problem, as text on stderr or as JSON."""
    problems = exc.problems if isinstance(exc, FlowDefinitionError) else []
    if output is Output.json:
        print_json(
            {
                "outcome": "invalid",
                "exit_code": EXIT_INVALID,
                "problems": [{"key": p.key, "reason": p.reason} for p in problems]
                or [{"key": "", "reason": str(exc)}],
            }
        )
        return typer.Exit(code=EXIT_INVALID)
    return fail(str(exc))


def crash(exc: BaseException, output: Output) -> typer.Exit:
    """A runtime failure (a repository error...): exit code 3."""
    message = str(exc) if isinstance(exc, FlowCoreError) else f"{type(exc).__name__}: {exc}"
    if isinstance(exc, RepositoryDamagedError) and output is Output.text:
        return damaged_exit(exc)
    if output is Output.json:
        print_json({"outcome": "error", "exit_code": EXIT_RUNTIME, "error": message})
        return typer.Exit(code=EXIT_RUNTIME)
    return fail(message, EXIT_RUNTIME)


def time_period(flag: str, value: str) -> float:
    try:
        return parse_time_period(value)
    except (ValueError, FlowCoreError):
        raise fail(
            f"{flag} takes a time period such as '30 sec' or '5 min', not '{value}'"
        ) from None


class DataDirRepositories:
    """The FlowFile and provenance repositories of a data directory, opened for reading.

    ``index`` first indexes what the journal holds, so that a query answers for every
    event; ``status`` reads without it and reports how many are not yet indexed.
    """

    def __init__(self, data_dir: Path | None, *, index: bool = True) -> None:
        from flowcore.clock import SystemClock

        settings = engine_settings(data_dir)
        if not settings.flowfile_repository_dir.exists():
            raise fail(f"no flowcore data directory at {settings.data_dir}")
        clock = SystemClock()
        try:
            self.opened = open_repositories(settings, clock, for_writing=False)
            self.flowfiles: FlowFileRepository = self.opened.flowfiles
            self.provenance: ProvenanceRepository = self.opened.provenance
            if index:
                self.provenance.index_pending()
        except FlowCoreError as exc:
            raise fail(exc) from None
        except Exception as exc:  # DuckDB refuses a second process with a clear message
            raise fail(
                f"cannot open the repositories in {settings.data_dir} "
                f"(is a flow running on it?): {exc}"
            ) from None

    def __enter__(self) -> DataDirRepositories:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.opened.close()


def format_time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")
