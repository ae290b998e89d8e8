"""Demo hook: the merged entities of both merges, and the lineage of one merged customer.

``samples/demo.py`` calls ``show(node, out_dir, console)`` after the flow has run.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console

from cli.provenance import render_lineage
from flowcore.engine import Node
from flowcore.repository import ProvenanceQuery


def merged_entities(directory: Path) -> list[dict[str, Any]]:
    """Every entity PutFile wrote under ``directory``, in ``_updated`` order."""
    entities: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.json")):
        entities.extend(json.loads(path.read_text(encoding="utf-8")))
    return sorted(entities, key=lambda e: e["_updated"])


def sizes(entities: list[dict[str, Any]]) -> dict[int, int]:
    """How many merged entities have 1, 2, 3 ... members (live ones)."""
    counts = Counter(len(e["$ids"]) for e in entities if not e.get("_deleted"))
    return dict(sorted(counts.items()))


def show(node: Node, out_dir: Path, console: Console) -> None:
    console.print("seed example (Sesam's documented output):")
    for entity in merged_entities(out_dir / "1_seed"):
        console.print("  " + json.dumps(entity, sort_keys=True))
    customers = merged_entities(out_dir / "2_customers")
    deleted = sum(1 for e in customers if e.get("_deleted"))
    console.print(
        f"customers: {len(customers)} merged entities ({deleted} deleted); live entities "
        f"by number of members: {sizes(customers)}"
    )
    example = next(e for e in customers if len(e["$ids"]) == 3)
    console.print("one merged customer: " + json.dumps(example, sort_keys=True))
    node.index_provenance()
    (join,) = node.provenance.search(
        ProvenanceQuery(event_type="JOIN", component_id="seed_merge", limit=1)
    )
    parents = [
        node.provenance.search(ProvenanceQuery(flowfile_uuid=uuid, limit=1))[0]
        for uuid in join.parent_uuids
    ]
    names = ", ".join(sorted(p.attributes.get("filename", "?") for p in parents))
    console.print(
        f"the seed's merged entities came from {names} through JOIN event {join.event_id} "
        f"([bold]{join.details}[/]); lineage:"
    )
    console.print(render_lineage(node.provenance.lineage(join.flowfile_uuid), join.flowfile_uuid))
