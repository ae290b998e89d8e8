"""Demo hook: per store, the merged files PutFile wrote and their record counts.

``samples/demo.py`` calls ``show(node, out_dir, console)`` after the flow has run. Each
store has its own directory under ``out_dir`` (PutFile's Directory is
``#{out_dir}/${storeId}``); every file in it is one merged FlowFile: a CSV header line and
its records.
"""

from __future__ import annotations

import csv
from pathlib import Path

from rich.console import Console

from flowcore.engine import Node

INPUT = Path(__file__).parent / "input"


def record_counts(directory: Path) -> list[int]:
    """The number of records of each CSV file directly in ``directory``, by file name."""
    counts: list[int] = []
    for path in sorted(p for p in directory.iterdir() if p.is_file()):
        with path.open(newline="", encoding="utf-8") as handle:
            counts.append(sum(1 for _ in csv.DictReader(handle)))
    return counts


def merged_counts(out_dir: Path) -> dict[str, list[int]]:
    """Per store, the record count of each merged file written for it."""
    return {
        store.name: record_counts(store)
        for store in sorted(p for p in out_dir.iterdir() if p.is_dir())
    }


def input_counts(input_dir: Path = INPUT) -> dict[str, int]:
    """Per store, how many records the registers' exports hold."""
    counts: dict[str, int] = {}
    for path in sorted(input_dir.glob("register-*.csv")):
        with path.open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                counts[row["storeId"]] = counts.get(row["storeId"], 0) + 1
    return dict(sorted(counts.items()))


def show(node: Node, out_dir: Path, console: Console) -> None:
    expected = input_counts()
    console.print("merged per store (records in each merged file; records in the input):")
    for store, counts in merged_counts(out_dir).items():
        console.print(f"  store {store}: {counts} of {expected.get(store, 0)}")
