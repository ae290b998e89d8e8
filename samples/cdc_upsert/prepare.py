"""Generate the change stream of ``samples/cdc_upsert``: orders, updated out of order.

``prepare(input_dir)`` writes JSON-lines files ``<region>-<nnnn>.jsonl`` of change records
``{"order_id", "region", "customer", "status", "amount", "updated_at", "op"}``. Every order
is inserted (``op`` I), updated a few times (U) and sometimes deleted (D); the changes of an
order carry increasing ``updated_at`` values (event time), but they arrive shuffled within
a window, so that late updates and late deletes come after newer versions, and some
changes tie on ``updated_at``. The region ``eu`` is the big one (its bin is the one the
sample sends to Spark). Deterministic: the same seed gives the same files.

``expected(input_dir)`` is the table merging by key must produce, computed the plain way:
per order, the change with the highest ``updated_at`` (ties to the later arrival) stands;
an order whose standing change is a delete is gone; orders in order of first arrival.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

REGIONS = {"eu": 6_000, "us": 1_200, "apac": 400}
RECORDS_PER_FILE = 2_000
STATUSES = ("created", "paid", "packed", "shipped", "delivered")
BASE_TIME = 1_767_225_600_000  # 2026-01-01T00:00:00Z in epoch milliseconds


def _changes(region: str, orders: int, rng: random.Random) -> list[dict[str, Any]]:
    stream: list[tuple[float, dict[str, Any]]] = []
    for number in range(orders):
        order_id = f"{region.upper()}-{number:05d}"
        customer = f"C{rng.randrange(100_000):05d}"
        at = BASE_TIME + number * 60_000
        amount = round(rng.uniform(5, 500), 2)
        versions = rng.randint(1, len(STATUSES))
        for step in range(versions):
            tie = step > 0 and rng.random() < 0.1  # same event time as the previous change
            if not tie:
                at += rng.randint(1_000, 600_000)
            if step and rng.random() < 0.3:
                amount = round(amount * rng.uniform(0.8, 1.0), 2)  # a discount
            change = {
                "order_id": order_id,
                "region": region,
                "customer": customer,
                "status": STATUSES[step],
                "amount": amount,
                "updated_at": at,
                "op": "I" if step == 0 else "U",
            }
            stream.append((at + rng.uniform(-900_000, 900_000), change))
        if rng.random() < 0.15:
            at += rng.randint(1_000, 600_000)
            delete = {**stream[-1][1], "op": "D", "updated_at": at}
            stream.append((at + rng.uniform(-900_000, 900_000), delete))
    stream.sort(key=lambda item: item[0])
    return [change for _, change in stream]


def prepare(input_dir: Path, seed: int = 101) -> dict[str, int]:
    """Write the change files; returns the number of changes per region."""
    input_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    counts: dict[str, int] = {}
    for region, orders in REGIONS.items():
        changes = _changes(region, orders, rng)
        counts[region] = len(changes)
        for part, start in enumerate(range(0, len(changes), RECORDS_PER_FILE)):
            chunk = changes[start : start + RECORDS_PER_FILE]
            path = input_dir / f"{region}-{part:04d}.jsonl"
            path.write_text("".join(json.dumps(c) + "\n" for c in chunk), encoding="utf-8")
    return counts


def read_changes(input_dir: Path, region: str) -> list[dict[str, Any]]:
    """A region's changes in arrival order (file name order, then line order)."""
    changes: list[dict[str, Any]] = []
    for path in sorted(input_dir.glob(f"{region}-*.jsonl")):
        changes.extend(json.loads(line) for line in path.read_text("utf-8").splitlines())
    return changes


def expected(input_dir: Path, region: str) -> list[dict[str, Any]]:
    """The merged table of a region, computed without the engine (see the module doc)."""
    standing: dict[str, dict[str, Any]] = {}
    for change in read_changes(input_dir, region):
        current = standing.get(change["order_id"])
        if current is None or change["updated_at"] >= current["updated_at"]:
            standing[change["order_id"]] = change
    return [c for c in standing.values() if c["op"] != "D"]
