"""Benchmark: EnforceOrder, FlowFiles put in order per second, ``wait`` looped back.

1,000 groups of 100 FlowFiles (orders 0..99) arrive in one seeded shuffled order through
an input port of a Node on the durable repositories (LMDB FlowFile repository, file-system
content, DuckDB provenance); EnforceOrder (Batch Count 1000, NiFi's default) has ``wait``
looped back into itself (so waiting FlowFiles are parked, not looped) and ``success``
going to a stopped sink queue. The DeterministicScheduler on a manual clock runs until
idle (no timeout ever fires). The figure is FlowFiles released to ``success`` per second
of that run (the provenance events of the enqueue are indexed before the clock starts;
EnforceOrder's own are indexed within it).

Two references are measured in the same run on the same machine, with no engine at all:

* **the limit**: every commit of our run replayed with raw ``lmdb``: the same number of
  write transactions, each putting as many records of the same encoded size (``msgspec``
  msgpack of a FlowFile with the same attributes) as that commit took FlowFiles, plus the
  state map, and sorting the same (group, order) keys in Python. The keyed-state index
  writes are left out, so the limit is, if anything, too strong. The ratio says how much
  the engine (sessions, queues, provenance, Expression Language) adds per FlowFile.
* **NiFi's wait loop**: the same arrivals routed NiFi's way, every waiting FlowFile read
  and committed again on each pass round the loop (polled as the session polls: up to
  Batch Count, the incoming connections in turn), its passes counted by an engine-free
  simulation and replayed on raw ``lmdb`` the same way. It is what the loop costs even
  with no engine at all, which was this benchmark's limit while EnforceOrder went round
  the loop.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections import deque
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
        stats = enforce.binding.stats
        batches: list[int] = []
        last, commits = stats.flowfiles_in, stats.commits

        def record(_: int) -> None:
            # One pass triggers EnforceOrder at most once: one commit, maybe none.
            nonlocal last, commits
            if stats.commits != commits:
                batches.append(stats.flowfiles_in - last)
                last, commits = stats.flowfiles_in, stats.commits

        node.index_provenance()  # the input's own events, not EnforceOrder's work
        started = time.perf_counter()
        DeterministicScheduler(node).run_until_idle(on_pass=record)
        elapsed = time.perf_counter() - started
        released = node.connections["ordered"].queue.size
    finally:
        node.close()
    return elapsed, batches, released


def wait_loop_batches(pairs: list[tuple[str, int]], batch_count: int) -> list[int]:
    """The batch sizes of NiFi's wait loop on these arrivals (no timeout, initial order 0).

    Each trigger polls up to Batch Count FlowFiles from ``incoming`` and ``wait`` in turn
    (as ``ProcessSession.get_batch`` does), routes them group by group in order and sends
    every waiting FlowFile round the loop to the back of ``wait``.
    """
    queues: list[deque[tuple[str, int]]] = [deque(pairs), deque()]
    targets: dict[str, int] = {}
    batches: list[int] = []
    poll_index = 0
    while queues[0] or queues[1]:
        batch: list[tuple[str, int]] = []
        for offset in range(2):
            queue = queues[(poll_index + offset) % 2]
            while queue and len(batch) < batch_count:
                batch.append(queue.popleft())
            if len(batch) >= batch_count:
                poll_index = (poll_index + offset + 1) % 2
                break
        batches.append(len(batch))
        for group, order in sorted(batch):
            target = targets.get(group, 0)
            if order == target:
                targets[group] = target + 1
            elif order > target:
                queues[1].append((group, order))
    return batches


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
        loop = wait_loop_batches(pairs, args.batch_count)
        loop_s = run_limit(root / "loop", pairs, loop)
    ours = len(pairs) / ours_s
    limit = len(pairs) / limit_s
    looped = len(pairs) / loop_s
    print(
        f"({len(pairs)} FlowFiles, {len(batches)} commits taking {sum(batches)} FlowFiles "
        f"in all, {ours_s:.1f} s; NiFi's wait loop: {len(loop)} triggers, {sum(loop)} "
        "FlowFile passes)"
    )
    print(
        f"enforce order: ours {ours:,.0f} FlowFiles/s | raw LMDB commits + sort "
        f"{limit:,.0f} | ratio {ours / limit:.2f}"
    )
    goal = "met" if ours / looped >= 0.5 else "MISSED"
    print(
        f"enforce order vs NiFi's loop: ours {ours:,.0f} FlowFiles/s | the wait loop on raw "
        f"LMDB {looped:,.0f} | ratio {ours / looped:.2f} | goal >= 0.5: {goal}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
