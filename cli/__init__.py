"""The ``flowcore`` command: run, validate and serve flows, and read a data directory.

The top layer, beside ``api``: it may import ``flowcore``, ``processors`` (through the
entry points, as the engine does) and ``api`` (for ``serve``); nothing imports it. Each
module holds one group of commands; ``_common`` holds what they share.
"""

from __future__ import annotations

import sys

import typer

from cli import openlineage, provenance, repair, run, serve, simulate, status
from cli._common import fail
from flowcore.errors import FlowCoreError
from flowcore.flow.nifi.commands import export_app, import_app

__all__ = ["app", "main"]

app = typer.Typer(
    help="flowcore: a dataflow engine in the manner of Apache NiFi.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(provenance.provenance_app, name="provenance")
app.command()(repair.repair)
app.command()(run.validate)
app.command()(run.run)
app.command()(status.status)
app.command()(status.bulletins)
app.command()(provenance.lineage)
app.add_typer(import_app, name="import")
app.add_typer(export_app, name="export")
app.add_typer(openlineage.openlineage_app, name="openlineage")
app.command()(simulate.simulate)
app.command()(serve.serve)


def main() -> None:
    """The console script: a ``FlowCoreError`` that escapes a command is one error line."""
    try:
        app()
    except FlowCoreError as exc:
        sys.exit(fail(exc).exit_code)
