"""What the NiFi import sample should produce, and the check the demo prints.

The flow (a NiFi flow definition, ``flow.json``) reads the CSV exports in ``input/``,
tags each with its kind and store from the file name, routes the ``orders`` exports into
the process group "Merge orders", where MergeRecord merges them per store, and writes one
``orders-<store>.csv`` per store under ``merged/``; other exports go to ``other/``
unchanged.
"""

from __future__ import annotations

import csv
from pathlib import Path

from rich.console import Console

from flowcore.engine import Node


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def expected(input_dir: Path) -> dict[str, list[str]]:
    """Order ids per store, from the ``orders-*`` exports."""
    stores: dict[str, list[str]] = {}
    for path in sorted(input_dir.glob("orders-*.csv")):
        for row in _rows(path):
            stores.setdefault(row["store"], []).append(row["order_id"])
    return {store: sorted(ids, key=int) for store, ids in stores.items()}


def merged(out_dir: Path) -> dict[str, list[str]]:
    """Order ids per store, from the merged files written."""
    found: dict[str, list[str]] = {}
    for path in sorted((out_dir / "merged").glob("orders-*.csv")):
        store = path.stem.removeprefix("orders-")
        found[store] = sorted((row["order_id"] for row in _rows(path)), key=int)
    return found


def show(node: Node, out_dir: Path, console: Console) -> None:
    input_dir = Path(__file__).parent / "input"
    ok = merged(out_dir) == expected(input_dir)
    others = sorted(p.name for p in (out_dir / "other").glob("*"))
    console.print(
        f"merged per store: {merged(out_dir)}; matches the input: "
        f"{'[green]yes[/]' if ok else '[red]NO[/]'}; other exports kept: {others}"
    )
