"""The ``flowcore repair`` command (the work is in ``flowcore.engine.repair``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from flowcore.engine import repair as repairing
from flowcore.errors import FlowCoreError, RepositoryDamagedError
from flowcore.settings import EngineSettings

DAMAGED_EXIT_CODE = 3
console = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def repair(
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", help="Data directory (default: $FLOWCORE_DATA_DIR or ./data)."),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Do it (without: only say what).")] = False,
) -> None:
    """Say what is wrong with a data directory's repositories and how it would be mended;
    mend it with --yes (nothing that still exists is deleted)."""
    settings = EngineSettings()
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    try:
        planned = repairing.plan(settings)
        if not planned.needed:
            console.print(f"{settings.data_dir}: nothing to repair")
            return
        console.print(f"{settings.data_dir}: found")
        for finding in planned.findings:
            console.print(f"  - {finding.text}")
        if yes:
            planned.apply()
        console.print("done:" if yes else "would (run again with --yes to do it):")
        for step in planned.descriptions:
            console.print(f"  - {step}")
    except FlowCoreError as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(code=2) from None


def damaged_exit(exc: RepositoryDamagedError) -> typer.Exit:
    """Print a refused start as one message (it names the repair command); exit code 3.

    Not folded: the command in it stays whole for copying."""
    err.print(f"[bold red]error:[/] {exc}")
    return typer.Exit(code=DAMAGED_EXIT_CODE)
