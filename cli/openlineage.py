"""``flowcore openlineage export``: a data directory's provenance as OpenLineage run events."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from cli._common import DataDirRepositories, engine_settings, err, fail
from flowcore.lineage.openlineage import (
    Emitter,
    FileEmitter,
    Naming,
    OpenLineageError,
    StreamEmitter,
    configured_emitter,
    export,
)

openlineage_app = typer.Typer(
    help="Export provenance as OpenLineage run events.", no_args_is_help=True
)


@openlineage_app.command("export")
def export_command(
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", help="Data directory (default: $FLOWCORE_DATA_DIR or ./data)."),
    ] = None,
    since: Annotated[
        int, typer.Option("--since", min=0, help="First provenance event id to export.")
    ] = 0,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="JSON lines file the events are appended to (default: the openlineage "
            "settings' transport, else standard output).",
        ),
    ] = None,
) -> None:
    """Send a run (START, then COMPLETE or FAIL) for each commit of each processor."""
    settings = engine_settings(data_dir).openlineage
    emitter: Emitter = (
        FileEmitter(output)
        if output is not None
        else configured_emitter(settings) or StreamEmitter(sys.stdout)
    )
    naming = Naming(settings.namespace, settings.flow_name, socket.gethostname())
    with DataDirRepositories(data_dir) as repos:
        try:
            result = export(repos.provenance, naming, emitter, since)
        except OpenLineageError as exc:
            raise fail(exc) from None
    err.print(
        f"{result.runs} runs ({result.run_events} OpenLineage events) from "
        f"{result.provenance_events} provenance events; last event id {result.last_event_id}"
    )
