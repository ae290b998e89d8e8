"""Demo hook: print, per group, the order in which PutFile wrote its files.

``samples/demo.py`` calls ``show(node, out_dir, console)`` after the flow has run. The
SEND events of PutFile, in event order, give the order the files were *written*, which
is the order EnforceOrder released them in.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from rich.console import Console

from flowcore.engine import Node
from flowcore.repository import ProvenanceQuery


def written_order(node: Node) -> dict[str, list[str]]:
    """Per group, the orders in the order they were written (``*`` marks an overtake)."""
    node.index_provenance()
    events = node.provenance.search(ProvenanceQuery(event_type="SEND", limit=1_000_000))
    groups: dict[str, list[str]] = defaultdict(list)
    for event in sorted(events, key=lambda e: e.event_id):
        mark = "*" if event.attributes.get("EnforceOrder.result") == "overtook" else ""
        groups[event.attributes["group"]].append(event.attributes["order"] + mark)
    return dict(sorted(groups.items()))


def show(node: Node, out_dir: Path, console: Console) -> None:
    console.print(f"written per group under {out_dir}, in the order PutFile wrote them:")
    for group, orders in written_order(node).items():
        console.print(f"  {group}: {' '.join(orders)}")
    console.print("  (* overtook: released after Wait Timeout without its missing predecessor)")
