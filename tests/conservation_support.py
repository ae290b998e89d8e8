"""Conservation checks for flows run by the ThreadedScheduler with several Concurrent Tasks.

Two flows exercise the processors that keep FlowFiles or state between triggers under
concurrent tasks, with back pressure small enough to engage all the time, prioritizers
that reorder, and (by settings) a swap threshold small enough to swap:

* ``text_flow``: documents of numbered lines are tagged (UpdateAttribute), split into
  lines (SplitText), put back in order per document (EnforceOrder, its ``wait`` looping
  back), routed by line parity (RouteOnAttribute) and merged (two MergeContents, one
  binning per document with few bins, so bins are forced out while others fill).
* ``record_flow``: CSV exports are converted to JSON (ConvertRecord), partitioned by store
  (PartitionRecord), split (SplitRecord) and merged per store (MergeRecord).

Every output ends in a stopped Funnel's queue (``held`` connections). ``Run`` feeds the
flow while it runs, can stop and start processors meanwhile, waits for the flow to settle
by polling its queues (the ManualClock is advanced meanwhile so that bins age out and
penalties end) and then checks what must hold whatever the interleaving: every input
line or record comes out exactly once, provenance has exactly one DROP for each FlowFile
that left the flow and none for one still queued, and the FlowFile repository reopened
holds exactly what the queues held.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flowcore.clock import ManualClock
from flowcore.engine import BackPressureError, EnqueueItem, Node, ThreadedScheduler
from flowcore.flow import parse_flow
from flowcore.repository import ProvenanceQuery
from flowcore.repository.flowfile import QueuedFlowFile
from flowcore.settings import EngineSettings

DEADLINE_SECONDS = 120.0
SWITCH_INTERVAL = 1e-6
"""The interpreter switches threads every microsecond while a flow runs, so that tasks
interleave inside what they do (with the default 5 ms, a task mostly runs a whole trigger
alone: a MergeContent without its lock passed)."""
Units = Callable[[str, dict[str, str], bytes], list[str]]
"""A held FlowFile's units, from its connection, attributes and content."""
HELD = {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"}


def _held(name: str, source: str, relationships: list[str], **extra: Any) -> dict[str, Any]:
    return {"from": source, "relationships": relationships, "to": name, "name": name, **extra}


def text_flow(tasks: int = 3, threshold: int = 8) -> dict[str, Any]:
    """in -> tag -> split -> order -> route -> merge_even / merge_odd -> held queues."""
    bp = {"object_threshold": threshold}
    return {
        "flow": {
            "name": "text-conservation",
            "input_ports": ["in"],
            "processors": {
                "tag": {
                    "type": "UpdateAttribute",
                    "properties": {"tagged": "${doc}"},
                    "schedule": {"concurrent_tasks": tasks},
                },
                "split": {
                    "type": "SplitText",
                    "properties": {"Line Split Count": "1", "Remove Trailing Newlines": "false"},
                    "schedule": {"concurrent_tasks": tasks},
                    "auto_terminate": ["original"],
                },
                "order": {
                    "type": "EnforceOrder",
                    "properties": {
                        "Group Identifier": "${doc}",
                        "Order Attribute": "fragment.index",
                        "Initial Order": "1",
                        "Wait Timeout": "1 hour",
                        "Inactive Timeout": "2 hours",
                    },
                    "penalty_duration": "1 sec",
                },
                "route": {
                    "type": "RouteOnAttribute",
                    "properties": {"even": "${fragment.index:mod(2):equals(0)}"},
                    "schedule": {"concurrent_tasks": tasks},
                },
                "merge_even": {
                    "type": "MergeContent",
                    "properties": {
                        "Correlation Attribute Name": "doc",
                        "Minimum Number of Entries": "3",
                        "Maximum Number of Entries": "3",
                        "Maximum number of Bins": "2",
                        "Max Bin Age": "5 sec",
                    },
                    "schedule": {"concurrent_tasks": tasks},
                    "auto_terminate": ["original"],
                },
                "merge_odd": {
                    "type": "MergeContent",
                    "properties": {
                        "Minimum Number of Entries": "5",
                        "Maximum Number of Entries": "7",
                        "Max Bin Age": "5 sec",
                    },
                    "schedule": {"concurrent_tasks": tasks},
                    "auto_terminate": ["original"],
                },
                "out_even": HELD,
                "out_odd": HELD,
                "out_failed": HELD,
            },
            "connections": [
                {"from": "in", "to": "tag", "name": "incoming", "back_pressure": bp},
                {
                    "from": "tag",
                    "relationships": ["success"],
                    "to": "split",
                    "name": "tagged",
                    "back_pressure": bp,
                    "prioritizers": ["NewestFlowFileFirstPrioritizer"],
                },
                {
                    "from": "split",
                    "relationships": ["splits"],
                    "to": "order",
                    "name": "lines",
                    "back_pressure": {"object_threshold": threshold * 4},
                    "prioritizers": ["NewestFlowFileFirstPrioritizer"],
                },
                {"from": "order", "relationships": ["wait"], "to": "order", "name": "waiting"},
                {
                    "from": "order",
                    "relationships": ["success", "overtook"],
                    "to": "route",
                    "name": "ordered",
                    "back_pressure": bp,
                },
                {
                    "from": "route",
                    "relationships": ["even"],
                    "to": "merge_even",
                    "name": "even",
                    "back_pressure": bp,
                    "prioritizers": ["PriorityAttributePrioritizer"],
                },
                {
                    "from": "route",
                    "relationships": ["unmatched"],
                    "to": "merge_odd",
                    "name": "odd",
                    "back_pressure": bp,
                },
                _held("out_even", "merge_even", ["merged"]),
                _held("out_odd", "merge_odd", ["merged"]),
            ]
            + [
                {
                    "from": name,
                    "relationships": ["failure"],
                    "to": "out_failed",
                    "name": f"failed_{name}",
                }
                for name in ("split", "merge_even", "merge_odd")
            ]
            + [
                {
                    "from": "order",
                    "relationships": ["failure", "skipped"],
                    "to": "out_failed",
                    "name": "failed_order",
                }
            ],
        }
    }


def record_flow(tasks: int = 3, threshold: int = 6) -> dict[str, Any]:
    """in -> convert -> partition -> split -> merge (per store) -> held queue."""
    bp = {"object_threshold": threshold}
    record_io = {"Record Reader": "csv", "Record Writer": "json"}
    json_io = {"Record Reader": "json_in", "Record Writer": "json"}
    return {
        "flow": {
            "name": "record-conservation",
            "input_ports": ["in"],
            "controller_services": {
                "csv": {"type": "CSVReader", "properties": {"Treat First Line as Header": "true"}},
                "json": {"type": "JsonRecordSetWriter"},
                "json_in": {"type": "JsonTreeReader"},
            },
            "processors": {
                "convert": {
                    "type": "ConvertRecord",
                    "properties": record_io,
                    "schedule": {"concurrent_tasks": tasks},
                },
                "partition": {
                    "type": "PartitionRecord",
                    "properties": {**json_io, "store": "/store"},
                    "schedule": {"concurrent_tasks": tasks},
                    "auto_terminate": ["original"],
                },
                "split": {
                    "type": "SplitRecord",
                    "properties": {**json_io, "Records Per Split": "3"},
                    "schedule": {"concurrent_tasks": tasks},
                    "auto_terminate": ["original"],
                },
                "merge": {
                    "type": "MergeRecord",
                    "properties": {
                        **json_io,
                        "Correlation Attribute Name": "store",
                        "Minimum Number of Records": "7",
                        "Maximum Number of Records": "10",
                        "Maximum Number of Bins": "2",
                        "Max Bin Age": "5 sec",
                    },
                    "schedule": {"concurrent_tasks": tasks},
                    "auto_terminate": ["original"],
                },
                "out": HELD,
                "out_failed": HELD,
            },
            "connections": [
                {"from": "in", "to": "convert", "name": "incoming", "back_pressure": bp},
                {
                    "from": "convert",
                    "relationships": ["success"],
                    "to": "partition",
                    "name": "converted",
                    "back_pressure": bp,
                    "prioritizers": ["NewestFlowFileFirstPrioritizer"],
                },
                {
                    "from": "partition",
                    "relationships": ["success"],
                    "to": "split",
                    "name": "partitioned",
                    "back_pressure": bp,
                },
                {
                    "from": "split",
                    "relationships": ["splits"],
                    "to": "merge",
                    "name": "splits",
                    "back_pressure": bp,
                },
                _held("out", "merge", ["merged"]),
            ]
            + [
                {
                    "from": name,
                    "relationships": ["failure"],
                    "to": "out_failed",
                    "name": f"failed_{name}",
                }
                for name in ("convert", "partition", "split", "merge")
            ],
        }
    }


def signal_flow(cache_dir: Path, tasks: int = 3, threshold: int = 6) -> dict[str, Any]:
    """in -> dedupe (DetectDuplicate) -> wait (Wait, looping) -> held; signals -> notify
    (Notify), both Wait and Notify on one map cache, so each signal releases one item."""
    bp = {"object_threshold": threshold}
    cache = {"Distributed Cache Service": "cache", "Release Signal Identifier": "${group}"}
    return {
        "flow": {
            "name": "signal-conservation",
            "input_ports": ["in", "signals"],
            "controller_services": {
                "cache": {
                    "type": "LmdbMapCacheService",
                    "properties": {"Persistence Directory": str(cache_dir)},
                }
            },
            "processors": {
                "dedupe": {
                    "type": "DetectDuplicate",
                    "properties": {
                        "Distributed Cache Service": "cache",
                        "Cache Entry Identifier": "${key}",
                        "FlowFile Description": "${item}",
                    },
                    "schedule": {"concurrent_tasks": tasks},
                },
                "wait": {
                    "type": "Wait",
                    "properties": {
                        **cache,
                        "Target Signal Count": "1",
                        "Expiration Duration": "1 hour",
                    },
                    "schedule": {"concurrent_tasks": tasks},
                    "penalty_duration": "1 sec",
                    "yield_duration": "100 millis",
                },
                "notify": {
                    "type": "Notify",
                    "properties": cache,
                    "schedule": {"concurrent_tasks": tasks},
                    "auto_terminate": ["success"],
                },
                "out_released": HELD,
                "out_duplicate": HELD,
                "out_failed": HELD,
            },
            "connections": [
                {"from": "in", "to": "dedupe", "name": "incoming", "back_pressure": bp},
                {"from": "signals", "to": "notify", "name": "signalled", "back_pressure": bp},
                {
                    "from": "dedupe",
                    "relationships": ["non-duplicate"],
                    "to": "wait",
                    "name": "unique",
                    "back_pressure": bp,
                },
                {"from": "wait", "relationships": ["wait"], "to": "wait", "name": "waiting"},
                _held("out_released", "wait", ["success"]),
                _held("out_duplicate", "dedupe", ["duplicate"]),
                {
                    "from": "dedupe",
                    "relationships": ["failure"],
                    "to": "out_failed",
                    "name": "failed_dedupe",
                },
                {
                    "from": "wait",
                    "relationships": ["failure", "expired"],
                    "to": "out_failed",
                    "name": "failed_wait",
                },
                {
                    "from": "notify",
                    "relationships": ["failure"],
                    "to": "out_failed",
                    "name": "failed_notify",
                },
            ],
        }
    }


# -- inputs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Document:
    """One input FlowFile: its content, attributes and the units it must yield."""

    content: bytes
    attributes: dict[str, str]
    units: tuple[str, ...]


def text_documents(rng: random.Random, count: int) -> list[Document]:
    """Documents of 1 to 9 numbered lines (each line a unit)."""
    documents = []
    for doc in range(count):
        lines = tuple(f"d{doc}-l{i}" for i in range(1, rng.randint(1, 9) + 1))
        content = "".join(f"{line}\n" for line in lines).encode()
        documents.append(Document(content, {"doc": str(doc)}, lines))
    return documents


def csv_documents(rng: random.Random, count: int) -> list[Document]:
    """CSV exports of 1 to 12 records over four stores (each record's id a unit)."""
    documents = []
    for doc in range(count):
        ids = tuple(f"r{doc}-{i}" for i in range(rng.randint(1, 12)))
        rows = "".join(f"{rid},{rng.choice('abcd')}\n" for rid in ids)
        documents.append(Document(f"id,store\n{rows}".encode(), {"doc": str(doc)}, ids))
    return documents


@dataclass(frozen=True)
class SignalInputs:
    """Items (some keys repeated) and, per group, one signal for each distinct key."""

    items: list[Document]
    signals: list[Document]

    def expected(self) -> Counter[str]:
        """Each item once, as ``released:<key>`` (the first of its key) or
        ``duplicate``; the keys each released once."""
        keys = {item.attributes["key"] for item in self.items}
        return Counter({f"released:{key}": 1 for key in keys}) + Counter(
            {"duplicate": len(self.items) - len(keys)}
        )


def signal_inputs(rng: random.Random, count: int) -> SignalInputs:
    items = []
    for n in range(count):
        key = f"k{rng.randrange(count * 2 // 3)}"
        group = f"g{int(key[1:]) % 5}"
        items.append(Document(b"", {"key": key, "group": group, "item": str(n)}, (key,)))
    distinct = {(item.attributes["group"], item.attributes["key"]) for item in items}
    signals = [Document(b"", {"group": group}, ()) for group, _ in sorted(distinct)]
    rng.shuffle(signals)
    return SignalInputs(items, signals)


def signal_units(connection: str, attributes: dict[str, str], _content: bytes) -> list[str]:
    if connection == "out_duplicate":
        return ["duplicate"]
    return [f"released:{attributes.get('key')}"]


def text_units(content: bytes) -> list[str]:
    return content.decode().splitlines()


def record_units(content: bytes) -> list[str]:
    records = json.loads(content)
    stores = {record["store"] for record in records}
    assert len(stores) == 1, f"a merged FlowFile mixes stores {sorted(stores)}"
    return [record["id"] for record in records]


# -- running --------------------------------------------------------------------------------


@dataclass
class Run:
    """One flow on a node, fed while the ThreadedScheduler runs it, then checked."""

    settings: EngineSettings
    flow: dict[str, Any]
    held: tuple[str, ...]
    failed: tuple[str, ...] = ("out_failed",)
    clock: ManualClock = field(default_factory=ManualClock)
    node: Node = field(init=False)
    errors: list[BaseException] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.node = Node.from_flow(self.settings, parse_flow(self.flow), self.clock)

    def close(self) -> None:
        self.node.close()

    def run(
        self,
        feed: Callable[[Node], None],
        *,
        toggle: Iterable[str] = (),
        seed: int = 0,
        crash: bool = False,
    ) -> None:
        """Run ``feed`` (on its own thread) while the scheduler runs; meanwhile stop and
        start the processors named in ``toggle`` at random; then wait for every queue but
        the held ones to empty. With ``crash``, the node is let go of as a killed process
        once fed (no processor stopped: bins are not rolled back, nothing checkpointed)
        and opened again from its repositories to finish."""
        interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        try:
            self._run(feed, list(toggle), seed, crash)
        finally:
            sys.setswitchinterval(interval)

    def _run(self, feed: Callable[[Node], None], toggle: list[str], seed: int, crash: bool) -> None:
        scheduler = ThreadedScheduler(self.node)
        fed = threading.Event()
        feeder = threading.Thread(target=self._guard(feed, fed), name="feeder", daemon=True)
        toggler = threading.Thread(
            target=self._guard(lambda _: self._toggle(toggle, fed, seed), None),
            name="toggler",
            daemon=True,
        )
        ticking = threading.Event()
        ticker = threading.Thread(target=self._tick, args=(ticking,), name="ticker", daemon=True)
        scheduler.start()
        ticker.start()
        try:
            feeder.start()
            toggler.start()
            feeder.join(DEADLINE_SECONDS)
            toggler.join(DEADLINE_SECONDS)
            assert not self.errors, self.errors
            assert fed.is_set(), "the feeder did not finish: " + self._describe()
            if crash:
                scheduler.stop()  # the tasks running end; what they committed stays
                self.node.abandon()
                self.node = Node.from_flow(self.settings, parse_flow(self.flow), self.clock)
                scheduler = ThreadedScheduler(self.node)
                scheduler.start()
            for name, processor in self.node.processors.items():
                if name not in self._sinks:  # a sink started would drop what it holds
                    processor.start()
            assert self._settle(scheduler), "the flow did not settle: " + self._describe()
        finally:
            ticking.set()
            ticker.join()
            scheduler.stop()

    def _tick(self, done: threading.Event) -> None:
        """Time goes by on the ManualClock (0.1 s every few real milliseconds): yields
        and penalties end, bins reach their Max Bin Age."""
        while not done.wait(0.003):
            self.clock.advance(0.1)

    def _guard(
        self, body: Callable[[Node], None], done: threading.Event | None
    ) -> Callable[[], None]:
        def run() -> None:
            try:
                body(self.node)
            except BaseException as error:  # reported by run()
                self.errors.append(error)
            finally:
                if done is not None:
                    done.set()

        return run

    def _toggle(self, names: list[str], fed: threading.Event, seed: int) -> None:
        rng = random.Random(seed)
        pause = threading.Event()
        while names and not fed.is_set():
            processor = self.node.processors[rng.choice(names)]
            processor.stop()
            pause.wait(rng.uniform(0.0, 0.01))
            processor.start()
            pause.wait(rng.uniform(0.0, 0.02))

    def _settle(self, scheduler: ThreadedScheduler) -> bool:
        """Wait (advancing the clock, so bins age out and penalties end) until every
        queue but the held ones is empty and the scheduler is idle."""
        held = {name for name, c in self.node.connections.items() if c.destination in self._sinks}
        pause = threading.Event()
        deadline = time.monotonic() + DEADLINE_SECONDS
        while time.monotonic() < deadline:
            busy = [
                name
                for name, c in self.node.connections.items()
                if name not in held and c.queue.size
            ]
            if not busy and scheduler.is_idle():
                return True
            pause.wait(0.005)
        return False

    @property
    def _sinks(self) -> set[str]:
        return {*self.held, *self.failed}

    def _describe(self) -> str:
        return ", ".join(
            f"{name}={c.queue.snapshot()}"
            for name, c in self.node.connections.items()
            if c.queue.size
        )

    # -- checks ---------------------------------------------------------------------------

    def queued(self, node: Node | None = None) -> dict[str, list[QueuedFlowFile]]:
        """Every FlowFile each connection holds: in memory, swapped out, in flight."""
        node = node or self.node
        found: dict[str, list[QueuedFlowFile]] = {}
        for name, connection in node.connections.items():
            queue = connection.queue
            records = [*queue.listing(), *queue.in_flight()]
            for summary in queue.swapped_batches():
                records.extend(node.flowfiles.read_swapped(summary))
            found[name] = records
        return found

    def outputs(self) -> list[tuple[str, dict[str, str], bytes]]:
        """The connection, attributes and content of every FlowFile in a held connection."""
        node = self.node
        return [
            (
                name,
                r.flowfile.attributes,
                node.content.read(r.flowfile.claim, r.flowfile.claim_offset, r.flowfile.size)
                if r.flowfile.claim is not None
                else b"",
            )
            for name, records in self.queued().items()
            if node.connections[name].destination in self.held
            for r in records
        ]

    def check(self, documents: list[Document], units: Callable[[bytes], list[str]]) -> None:
        """Each document's units come out exactly once, in the held connections."""
        expected = Counter(unit for document in documents for unit in document.units)
        self.check_units(expected, lambda _connection, _attributes, content: units(content))

    def check_units(self, expected: Counter[str], units: Units) -> None:
        """The held FlowFiles' units (from their attributes and content) are ``expected``;
        provenance and the reopened repository agree with the queues."""
        queued = self.queued()
        failed = [
            r.flowfile.attributes
            for name, records in queued.items()
            if self.node.connections[name].destination in self.failed
            for r in records
        ]
        assert failed == [], failed
        out = Counter(unit for output in self.outputs() for unit in units(*output))
        assert out == expected, (
            f"missing {sorted((expected - out).elements())[:20]}, "
            f"extra {sorted((out - expected).elements())[:20]}"
        )
        self._check_provenance(queued)
        self._check_reopened(queued)

    def _check_provenance(self, queued: dict[str, list[QueuedFlowFile]]) -> None:
        node = self.node
        node.index_provenance()
        events = node.provenance.search(ProvenanceQuery(limit=10_000_000))
        drops = Counter(e.flowfile_uuid for e in events if e.event_type == "DROP")
        seen = {uuid for e in events for uuid in (e.flowfile_uuid, *e.parent_uuids, *e.child_uuids)}
        still = Counter(r.flowfile.uuid for records in queued.values() for r in records)
        assert [u for u, n in still.items() if n > 1] == [], "a FlowFile queued twice"
        assert [u for u, n in drops.items() if n > 1] == [], "a FlowFile dropped twice"
        assert set(drops) & set(still) == set(), "a queued FlowFile has a DROP"
        assert seen - set(drops) - set(still) == set(), "FlowFiles lost without a DROP"

    def _check_reopened(self, queued: dict[str, list[QueuedFlowFile]]) -> None:
        before = {name: sorted(r.flowfile.uuid for r in rs) for name, rs in queued.items()}
        self.node.close()
        self.node = Node.from_flow(self.settings, parse_flow(self.flow), self.clock)
        after = {name: sorted(r.flowfile.uuid for r in rs) for name, rs in self.queued().items()}
        assert after == before


def feed_ports(
    documents: list[Document], rng: random.Random, port: str = "in", **more: list[Document]
) -> Callable[[Node], None]:
    """Enqueue the documents through the node's input port (and those of ``more`` through
    the ports named) in random batches, the ports taken in random turns, waiting while
    back pressure refuses them."""

    def feed(node: Node) -> None:
        pause = threading.Event()
        left = {port: list(documents), **{name: list(docs) for name, docs in more.items()}}
        while any(left.values()):
            name = rng.choice([name for name, docs in left.items() if docs])
            batch = left[name][: rng.randint(1, 4)]
            try:
                node.enqueue(name, [EnqueueItem(d.content, d.attributes) for d in batch])
            except BackPressureError:
                pause.wait(0.002)
                continue
            del left[name][: len(batch)]

    return feed
