"""A processor node's lifecycle against its tasks: stop, start and triggers that race.

The interleavings are forced on one thread: a processor's ``on_stopped`` is wrapped so
that the trigger a scheduler had already chosen runs at the worst moment.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import EnqueueItem, Node, RunState
from flowcore.flow import parse_flow
from flowcore.processor import ProcessContext
from flowcore.settings import EngineSettings


def _merge_flow() -> dict[str, Any]:
    """in -> merge (MergeContent whose bins never fill: the FlowFiles stay binned) -> held."""
    return {
        "flow": {
            "name": "bins",
            "input_ports": ["in"],
            "processors": {
                "merge": {
                    "type": "MergeContent",
                    "properties": {"Minimum Number of Entries": "100", "Max Bin Age": "1 hour"},
                    "auto_terminate": ["original", "failure"],
                },
                "held": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            },
            "connections": [
                {"from": "in", "to": "merge", "name": "incoming"},
                {"from": "merge", "relationships": ["merged"], "to": "held", "name": "merged"},
            ],
        }
    }


def test_a_trigger_chosen_before_a_stop_does_not_run_after_on_stopped(
    settings: EngineSettings,
    clock: ManualClock,
    closing: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker chose MergeContent (runnable) just before it was stopped and triggers it
    while ``on_stopped`` is about to roll its bins back. Before, that trigger scheduled
    the processor again (``on_scheduled`` emptied the bins), so ``on_stopped`` found no
    bin: three FlowFiles stayed in flight, never processed until a restart."""
    node: Node = closing(Node.from_flow(settings, parse_flow(_merge_flow()), clock))
    node.enqueue("in", [EnqueueItem(b"x", {"n": n}) for n in "abc"])
    merge = node.processors["merge"]
    merge.trigger(node.services)
    queue = node.connections["incoming"].queue
    assert len(queue.in_flight()) == 3  # binned

    original = merge.processor.on_stopped
    raced: list[str] = []

    def chosen_trigger_runs_first(context: ProcessContext) -> None:
        if not raced:  # once (the trigger's own end may stop the processor again)
            raced.append("chosen")
            merge.trigger(node.services)
        original(context)

    monkeypatch.setattr(merge.processor, "on_stopped", chosen_trigger_runs_first)
    merge.stop()

    assert raced == ["chosen"]
    assert merge.run_state is RunState.STOPPED
    assert queue.in_flight() == []
    assert [r.flowfile.attributes["n"] for r in queue.listing()] == ["a", "b", "c"]
    assert merge.runs == 1
