"""Benchmark: EnforceOrder, FlowFiles put in order per second through the wait loop.

1,000 groups of 100 FlowFiles (orders 0..99) arrive in one seeded shuffled order through
an input port of a Node on the durable repositories (LMDB FlowFile repository, file-system
content, DuckDB provenance); EnforceOrder (Batch Count 1000, NiFi's default) has ``wait``
looped back into itself and ``success`` going to a stopped sink queue. The
DeterministicScheduler on a manual clock runs until idle (no timeout ever fires). The
figure is FlowFiles released to ``success`` per second of that run.

The limit is measured in the same run on the same machine: what the work would cost with
no engine at all. Every EnforceOrder trigger of our run polled k FlowFiles, sorted them
and committed them (records plus state) in one LMDB transaction; the limit replays
exactly that shape with raw ``lmdb``: the same number of write transactions, each
putting the same number of records of the same encoded size (``msgspec`` msgpack of a
FlowFile with the same attributes) plus the state map, and sorting the same (group,
order) keys in Python. That is the floor the transactional wait loop cannot go under;
the ratio says how much the engine (sessions, queues, provenance, Expression Language)
adds on top.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import lmdb
import msgspec

import processors.ordering  # noqa: F401  (registers the types)
from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, EnqueueItem, Node
from flowcore.flow import parse_flow
from flowcore.settings import EngineSettings


def flow(batch_count: int) -> dict[str, Any]:
    return {
        "flow": {
            "name": "bench-enforce-order",
            "input_ports": ["in"],
            "processors": {
                "enforce": {
                    "type": "EnforceOrder",
                    "properties": {
                        "Group Identifier": "${group}",
                        "Order Attribute": "order",
                        "Batch Count": str(batch_count),
                    },
                    "auto_terminate": ["overtook", "skipped", "failure"],
                },
                "sink": {"type": "Funnel", "run_state": "STOPPED", "auto_terminate": ["success"]},
            },
            "connections": [
                {
                    "from": "in",
                    "to": "enforce",
                    "name": "incoming",
                    "back_pressure": {"object_threshold": 0},
                },
                {
                    "from": "enforce",
                    "relationships": ["wait"],
                    "to": "enforce",
                    "name": "wait",
                    "back_pressure": {"object_threshold": 0},
                },
                {
                    "from": "enforce",
                    "relationships": ["success"],
                    "to": "sink",
                    "name": "ordered",
                    "back_pressure": {"object_threshold": 0},
                },
            ],
        }
    }


def run_ours(
    data_dir: Path, pairs: list[tuple[str, int]], batch_count: int
) -> tuple[float, list[int], int]:
    """Seconds to release everything, the batch size of every trigger, the success count."""
    node = Node.from_flow(
        EngineSettings(data_dir=data_dir), parse_flow(flow(batch_count)), ManualClock()
    )
    try:
        for start in range(0, len(pairs), 10_000):
            node.enqueue(
                "in",
                [
                    EnqueueItem(b"", {"group": g, "order": str(o)})
                    for g, o in pairs[start : start + 10_000]
                ],
            )
        enforce = node.processors["enforce"]
        assert enforce.binding is not None
        stats = enforce.binding.stats
        batches: list[int] = []
        last = stats.flowfiles_in

        def record(_: int) -> None:
            nonlocal last
            if stats.flowfiles_in != last:
                batches.append(stats.flowfiles_in - last)
                last = stats.flowfiles_in

        started = time.perf_counter()
        DeterministicScheduler(node).run_until_idle(on_pass=record)
        elapsed = time.perf_counter() - started
        released = node.connections["ordered"].queue.size
    finally:
        node.close()
    return elapsed, batches, released


def run_limit(data_dir: Path, pairs: list[tuple[str, int]], batches: list[int]) -> float:
    """Raw LMDB transactions of the same shape plus the same sorts (see the docstring)."""
    env = lmdb.open(str(data_dir), map_size=1 << 32, max_dbs=4, sync=False, metasync=False)
    flowfiles = env.open_db(b"flowfiles")
    state_db = env.open_db(b"state")
    encoder = msgspec.msgpack.Encoder()
    groups = sorted({g for g, _ in pairs})
    state = {f"{g}.target": "0" for g in groups} | {f"{g}.updatedAt": "0" for g in groups}
    encoded_state = encoder.encode(state)
    n = len(pairs)
    started = time.perf_counter()
    cursor = 0
    for size in batches:
        chunk = [pairs[(cursor + i) % n] for i in range(size)]
        cursor += size
        chunk.sort(key=lambda p: (p[0], p[1]))
        with env.begin(write=True) as txn:
            for i, (group, order) in enumerate(chunk):
                record = encoder.encode(
                    [
                        "wait",
                        cursor + i,
                        i,
                        {
                            "group": group,
                            "order": str(order),
                            "uuid": "0" * 36,
                            "filename": "x",
                            "path": "./",
                            "EnforceOrder.startedAt": "1700000000000",
                            "EnforceOrder.result": "wait",
                            "EnforceOrder.expectedOrder": "0",
                        },
                    ]
                )
                txn.put((cursor + i).to_bytes(8, "big"), record, db=flowfiles)
            txn.put(b"enforce", encoded_state, db=state_db)
    elapsed = time.perf_counter() - started
    env.close()
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--batch-count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=4)
    args = parser.parse_args(argv)
    pairs = [(f"group-{g:04d}", o) for g in range(args.groups) for o in range(args.size)]
    random.Random(args.seed).shuffle(pairs)
    with tempfile.TemporaryDirectory(prefix="bench-enforce-order-") as directory:
        root = Path(directory)
        ours_s, batches, released = run_ours(root / "ours", pairs, args.batch_count)
        assert released == len(pairs), f"released {released} of {len(pairs)}"
        limit_s = run_limit(root / "limit", pairs, batches)
    ours = len(pairs) / ours_s
    limit = len(pairs) / limit_s
    passes = sum(batches)
    print(
        f"({len(pairs)} FlowFiles, {len(batches)} triggers, {passes} FlowFile passes "
        f"through the wait loop, {ours_s:.1f} s)"
    )
    print(
        f"enforce order: ours {ours:,.0f} FlowFiles/s | raw LMDB commits + sort "
        f"{limit:,.0f} | ratio {ours / limit:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
