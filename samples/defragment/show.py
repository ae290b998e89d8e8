"""Demo hook: prove that each reassembled file is byte for byte its input.

``samples/demo.py`` calls ``show(node, out_dir, console)`` after the flow has run. The
order in which MergeRecord received the splits is read from the provenance repository:
the JOIN event's parents, in the order of their events on the ``in_order`` queue.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from flowcore.engine import Node
from flowcore.repository import ProvenanceQuery

INPUT = Path(__file__).parent / "input"


def compare(out_dir: Path, input_dir: Path = INPUT) -> dict[str, bool]:
    """Per input file, whether a file of the same name under ``out_dir`` has its bytes."""
    result: dict[str, bool] = {}
    for source in sorted(input_dir.glob("orders-*.csv")):
        written = out_dir / source.name
        result[source.name] = written.is_file() and written.read_bytes() == source.read_bytes()
    return result


def shuffled_order(node: Node) -> list[list[str]]:
    """Per split FlowFile group, the fragment indices in the order UpdateAttribute `order`
    received them (its ATTRIBUTES_MODIFIED events, oldest first)."""
    node.index_provenance()
    events = node.provenance.search(
        ProvenanceQuery(event_type="ATTRIBUTES_MODIFIED", component_id="order", limit=100_000)
    )
    groups: dict[str, list[str]] = {}
    for event in sorted(events, key=lambda e: e.event_id):
        group = event.attributes.get("fragment.identifier", "?")
        groups.setdefault(group, []).append(event.attributes.get("fragment.index", "?"))
    return list(groups.values())


def show(node: Node, out_dir: Path, console: Console) -> None:
    for indices in shuffled_order(node):
        console.print(f"splits arrived shuffled, fragment.index: {' '.join(indices)}")
    for name, same in compare(out_dir).items():
        verdict = "[green]identical to the input[/]" if same else "[red]DIFFERS from the input[/]"
        console.print(f"reassembled {name}: {verdict}")
