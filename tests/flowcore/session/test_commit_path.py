"""The commit path on a real node: a commit fails whole before its transaction and never
after it; a full repository makes room by indexing the provenance journal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import EnqueueItem, Node
from flowcore.errors import CommitFailedError, RepositoryFullError
from flowcore.flow import parse_flow
from flowcore.repository import ProvenanceQuery
from flowcore.settings import EngineSettings
from repos.lmdb_flowfile import codec

SettingsFactory = Callable[..., EngineSettings]


def port_flow() -> dict[str, Any]:
    """in -> sink (Funnel, auto-terminated), stopped until a test triggers it."""
    return {
        "flow": {
            "name": "commit-path",
            "input_ports": ["in"],
            "processors": {
                "sink": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"}
            },
            "connections": [{"from": "in", "to": "sink", "name": "incoming"}],
        }
    }


def open_node(settings: EngineSettings, clock: ManualClock) -> Node:
    return Node.from_flow(settings, parse_flow(port_flow()), clock)


def items(start: int, count: int, pad: int = 0) -> list[EnqueueItem]:
    return [
        EnqueueItem(f"c{i}".encode(), {"n": str(i), "pad": "x" * pad})
        for i in range(start, start + count)
    ]


def queued_numbers(node: Node) -> list[int]:
    queue = node.connections["incoming"].queue
    numbers = [int(r.flowfile.attributes["n"]) for r in queue.listing()]
    for summary in queue.swapped_batches():
        numbers += [int(r.flowfile.attributes["n"]) for r in node.flowfiles.read_swapped(summary)]
    return sorted(numbers)


def test_a_swap_batch_that_cannot_be_stored_fails_the_enqueue_with_nothing_durable(
    settings_factory: SettingsFactory, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_factory(queue={"swap_threshold": 100, "swap_batch_size": 40})
    node = open_node(settings, clock)
    try:
        node.enqueue("in", items(0, 100))  # the active part is full: the next 40 swap out
        real_encode = codec.encode

        def refuse_swap_batches(value: Any) -> bytes:
            if isinstance(value, list):
                raise RepositoryFullError("no room for the swap batch", repository="FlowFile")
            return real_encode(value)

        monkeypatch.setattr(codec, "encode", refuse_swap_batches)
        with pytest.raises(CommitFailedError):
            node.enqueue("in", items(100, 50))
        monkeypatch.setattr(codec, "encode", real_encode)
        # Refused means refused: neither the queue nor the repository holds any of them.
        assert node.connections["incoming"].queue.size == 100
        node.enqueue("in", items(100, 50))  # the client's retry
        assert queued_numbers(node) == list(range(150))
    finally:
        node.close()
    node = open_node(settings, clock)
    try:
        assert queued_numbers(node) == list(range(150))
        assert node.connections["incoming"].queue.snapshot().swap_batches == 1
    finally:
        node.close()


def test_after_its_transaction_a_commit_never_reports_failure(
    settings_factory: SettingsFactory, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_factory()
    node = open_node(settings, clock)
    try:
        node.enqueue("in", items(0, 5))

        real_decrement = node.content.decrement
        failures = [OSError("cannot archive the claim")]

        def archive_fails_once(resource: Any, amount: int = 1) -> None:
            if failures:
                raise failures.pop()
            real_decrement(resource, amount)

        monkeypatch.setattr(node.content, "decrement", archive_fails_once)  # step 4
        node.processors["sink"].start()
        node.trigger("sink")
        # The drop is durable, so the queue must not hold (and deliver) the FlowFiles again.
        queue = node.connections["incoming"].queue
        assert queue.listing() == []
        snapshot = queue.snapshot()
        assert (snapshot.count, snapshot.active, snapshot.in_flight) == (0, 0, 0)
        node.index_provenance()
        drops = node.provenance.search(ProvenanceQuery(event_type="DROP", limit=100))
        assert len(drops) == 5
    finally:
        monkeypatch.undo()
        node.close()
    node = open_node(settings, clock)
    try:
        assert node.connections["incoming"].queue.size == 0
    finally:
        node.close()


def test_a_journal_that_fills_the_repository_is_indexed_and_the_commit_goes_through(
    settings_factory: SettingsFactory, clock: ManualClock
) -> None:
    settings = settings_factory(
        flowfile_repository={"map_size": "1 MB", "max_map_size": "4 MB"},
        provenance={"index_batch_size": 1_000_000},
    )
    node = open_node(settings, clock)
    try:
        for n in range(1000):
            node.enqueue("in", items(n, 1, pad=1000))
        assert node.flowfiles.journal_size() < 1000  # indexing made room on the way
        node.index_provenance()
        received = node.provenance.search(ProvenanceQuery(event_type="RECEIVE", limit=2000))
        assert len(received) == 1000
        assert queued_numbers(node) == list(range(1000))
    finally:
        node.close()


def test_the_references_of_one_resource_claim_are_released_together(
    settings_factory: SettingsFactory, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Step 4 drops a commit's references to one resource claim in one call, with their
    count: the claimant counts end as if dropped one by one."""
    node = open_node(settings_factory(), clock)
    try:
        node.enqueue("in", items(0, 12))
        node.enqueue("in", items(12, 3))
        resources = {
            r.flowfile.claim.resource
            for r in node.connections["incoming"].queue.listing()
            if r.flowfile.claim is not None
        }
        assert len(resources) == 1
        (resource,) = resources
        assert node.content.claimant_count(resource) == 15
        calls: list[tuple[Any, int]] = []
        real_decrement = node.content.decrement

        def counting(claim: Any, amount: int = 1) -> int:
            calls.append((claim, amount))
            return real_decrement(claim, amount)

        monkeypatch.setattr(node.content, "decrement", counting)
        node.processors["sink"].start()
        node.trigger("sink")
        assert node.connections["incoming"].queue.size == 0
        assert calls == [(resource, 15)]
        assert node.content.claimant_count(resource) == 0
    finally:
        monkeypatch.undo()
        node.close()
