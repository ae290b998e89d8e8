"""Demo hook: each region's current table, which engine merged it, and why it merged.

``samples/demo.py`` calls ``show(node, out_dir, console)`` after the flow has run. Each
region's merged FlowFile was written by PutFile under ``out_dir/<region>/`` as JSON lines;
the JOIN event of each merge carries NiFi's reason ("Records Merged due to: ...") and the
merged FlowFile's attributes name the engine (``merge.engine``) and the record counts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from flowcore.engine import Node
from flowcore.model.provenance import ProvenanceEvent
from flowcore.repository import ProvenanceQuery
from samples.cdc_upsert.prepare import REGIONS, expected

COLUMNS = ("order_id", "customer", "status", "amount", "updated_at")


def merged_table(out_dir: Path, region: str) -> list[dict[str, Any]]:
    """The records PutFile wrote for a region (one merged FlowFile per region)."""
    rows: list[dict[str, Any]] = []
    directory = out_dir / region
    if not directory.is_dir():
        return rows  # nothing merged for the region (see the processors' last error)
    for path in sorted(p for p in directory.iterdir() if p.is_file()):
        rows.extend(json.loads(line) for line in path.read_text("utf-8").splitlines() if line)
    return rows


def merge_events(node: Node) -> dict[str, ProvenanceEvent]:
    """The JOIN event of each region's merge, by region."""
    node.index_provenance()
    events = node.provenance.search(
        ProvenanceQuery(event_type="JOIN", component_id="upsert", limit=1000)
    )
    by_region: dict[str, ProvenanceEvent] = {}
    for event in events:
        attributes = {**event.previous_attributes, **event.updated_attributes}
        region = attributes.get("region")
        if region:
            by_region[str(region)] = event
    return by_region


def show(node: Node, out_dir: Path, console: Console) -> None:
    input_dir = out_dir.parent / "input"  # where the demo had prepare.py write the changes
    events = merge_events(node)
    summary = Table(title="orders merged by key (event time on updated_at)")
    for column in ("region", "changes in", "orders out", "engine", "merge reason", "as expected"):
        summary.add_column(column)
    for region in REGIONS:
        event = events.get(region)
        attributes = (
            {} if event is None else {**event.previous_attributes, **event.updated_attributes}
        )
        rows = merged_table(out_dir, region)
        matches = "yes" if rows == expected(input_dir, region) else "NO"
        summary.add_row(
            region,
            str(attributes.get("merge.record.count.in", "?")),
            str(len(rows)),
            str(attributes.get("merge.engine", "?")),
            "" if event is None or event.details is None else event.details,
            matches,
        )
    console.print(summary)
    eu = merged_table(out_dir, "eu")
    table = Table(title=f"current table of region eu: first 8 of {len(eu)} orders")
    for column in COLUMNS:
        table.add_column(column)
    for row in eu[:8]:
        table.add_row(*(str(row[c]) for c in COLUMNS))
    console.print(table)
