"""``flowcore status`` and ``flowcore bulletins``: what a data directory holds, read-only."""

from __future__ import annotations

import dataclasses
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from cli._common import (
    DataDir,
    DataDirRepositories,
    Output,
    OutputOption,
    console,
    engine_settings,
    fail,
    format_time,
    print_json,
)
from flowcore.engine.bulletins import BULLETIN_FILE, read_bulletins
from flowcore.engine.status import ProvenanceStatus


def status(data_dir: DataDir = None, output: OutputOption = Output.text) -> None:
    """Queued FlowFiles per connection and provenance totals of a data directory.

    Read-only: events still in the journal are counted and reported as not yet indexed,
    never indexed here.
    """
    with DataDirRepositories(data_dir, index=False) as repos:
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
        print_json(
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


def bulletins(
    data_dir: DataDir = None,
    after: Annotated[int | None, typer.Option(help="Only bulletins after this id.")] = None,
    limit: Annotated[int, typer.Option(help="Most bulletins to show (the newest).", min=1)] = 50,
    output: OutputOption = Output.text,
) -> None:
    """The node's recent warnings and errors (bulletins), oldest first.

    Reads the data directory's bulletin file, so it works on a stopped node and beside a
    running one."""
    settings = engine_settings(data_dir)
    if not settings.data_dir.exists():
        raise fail(f"no flowcore data directory at {settings.data_dir}")
    found = read_bulletins(settings.data_dir / BULLETIN_FILE)
    shown = [b for b in found if after is None or b.id > after][-limit:]
    if output is Output.json:
        print_json({"bulletins": [dataclasses.asdict(b) for b in shown]})
        return
    table = Table(title=f"{len(shown)} bulletins")
    for column in ("id", "time", "level", "component", "type", "message"):
        table.add_column(column)
    for b in shown:
        table.add_row(
            str(b.id),
            format_time(b.time_ms),
            b.level,
            escape(b.component_name),
            escape(b.component_type),
            escape(b.message),
        )
    console.print(table)
