"""Demo hook: what each merge stage did, and the records in the final file.

``samples/demo.py`` calls ``show(node, out_dir, console)`` after the flow has run. The JOIN
events of each MergeRecord (one per merge) carry the merged FlowFile's ``record.count``
and ``merge.count`` and, in their details, the reason the bin was merged.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from rich.console import Console

from flowcore.engine import Node
from flowcore.repository import ProvenanceQuery

STAGES = ("stage1", "stage2")


def output_records(out_dir: Path) -> dict[str, int]:
    """Per file written under ``out_dir``, its records (lines after the CSV header)."""
    counts: dict[str, int] = {}
    for path in sorted(p for p in out_dir.rglob("*") if p.is_file()):
        with path.open("rb") as handle:
            counts[path.name] = max(sum(1 for _ in handle) - 1, 0)
    return counts


def merges(node: Node, stage: str) -> Counter[tuple[str, str, str]]:
    """A stage's merges: (records, inputs, reason) -> how many merged FlowFiles."""
    node.index_provenance()
    events = node.provenance.search(
        ProvenanceQuery(event_type="JOIN", component_id=stage, limit=1_000_000)
    )
    return Counter(
        (
            event.attributes.get("record.count", "?"),
            event.attributes.get("merge.count", "?"),
            event.details or "",
        )
        for event in events
    )


def show(node: Node, out_dir: Path, console: Console) -> None:
    for stage in STAGES:
        console.print(f"{stage}:")
        for (records, inputs, reason), times in sorted(merges(node, stage).items()):
            console.print(
                f"  {times} x merged {inputs} FlowFiles into {records} records ({reason})"
            )
    for name, count in output_records(out_dir).items():
        console.print(f"written: {name}: {count:,} records")
