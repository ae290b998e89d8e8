"""A processor node's lifecycle against its tasks: stop, start and triggers that race.

The interleavings are forced on one thread: what another thread would do (a scheduler's
trigger, a user's start) runs at the worst moment, from a wrapped ``on_stopped`` or just
after a task lets go of the node's lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import EnqueueItem, Node, RunState
from flowcore.engine.processor_node import ProcessorNode, ScheduleConfig
from flowcore.flow import parse_flow
from flowcore.processor import ProcessContext, Processor, Relationship, Scheduling, processor
from flowcore.session import ProcessSession
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


class _LockWithHook:
    """A lock that runs ``hook`` once, right after the next release once armed: what
    another thread does in the instant after a task lets go of the node's lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.hook: Callable[[], None] | None = None

    def __enter__(self) -> bool:
        return self._lock.__enter__()

    def __exit__(self, *exc: object) -> None:
        self._lock.__exit__(*exc)
        hook, self.hook = self.hook, None
        if hook is not None:
            hook()


@processor("NodeTestStoppedWhileRunning")
class StoppedWhileRunning(Processor):
    """Its one trigger calls ``during`` (a stop by a user, while the task runs)."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    scheduling = Scheduling(input_required=False)
    during: ClassVar[Callable[[], None]]
    stopped: ClassVar[int] = 0

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        type(self).during()

    def on_stopped(self, context: ProcessContext) -> None:
        type(self).stopped += 1


def test_a_start_as_the_last_task_ends_keeps_the_processor_running(
    settings: EngineSettings,
    clock: ManualClock,
    closing: Callable[[Any], Any],
) -> None:
    """Stopped while its task runs, started again in the instant that task ends: it stays
    RUNNING (``on_stopped`` is not called). Before, the ending task stopped it once more,
    so the user's start was lost and the processor sat stopped."""
    flow = {
        "flow": {
            "name": "restart",
            "processors": {
                "src": {"type": "NodeTestStoppedWhileRunning", "auto_terminate": ["success"]}
            },
        }
    }
    node: Node = closing(Node.from_flow(settings, parse_flow(flow), clock))
    src = node.processors["src"]
    lock = _LockWithHook()
    src._lock = lock  # type: ignore[assignment]

    def stop_then_start_as_the_task_ends() -> None:
        src.stop()  # by a user: the task still runs, so on_stopped waits for it
        lock.hook = src.start  # lands just after the task counts itself out

    StoppedWhileRunning.during = stop_then_start_as_the_task_ends
    StoppedWhileRunning.stopped = 0
    assert src.trigger(node.services)

    assert src.run_state is RunState.RUNNING
    assert StoppedWhileRunning.stopped == 0
    assert src.is_runnable(clock.now_ms())


@processor("NodeTestLifecycle")
class Lifecycle(Processor):
    """Records its lifecycle calls and the FlowFiles it passes on."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    calls: ClassVar[list[str]] = []

    def on_scheduled(self, context: ProcessContext) -> None:
        type(self).calls.append("scheduled")

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is not None:
            type(self).calls.append("trigger")
            session.transfer(flowfile, Relationship("success"))

    def on_stopped(self, context: ProcessContext) -> None:
        type(self).calls.append("stopped")


def test_node_trigger_runs_a_stopped_processor_once_as_nifi_run_once(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    """``Node.trigger`` by name is a user's Run Once: a stopped processor is scheduled,
    triggered once and stopped again (only a scheduler's trigger is skipped once its
    processor is stopped)."""
    flow = {
        "flow": {
            "name": "run-once",
            "input_ports": ["in"],
            "processors": {
                "step": {
                    "type": "NodeTestLifecycle",
                    "run_state": "STOPPED",
                    "auto_terminate": ["success"],
                }
            },
            "connections": [{"from": "in", "to": "step", "name": "incoming"}],
        }
    }
    Lifecycle.calls = []
    node: Node = closing(Node.from_flow(settings, parse_flow(flow), clock))
    node.enqueue("in", [EnqueueItem(b"a"), EnqueueItem(b"b")])
    step = node.processors["step"]

    assert step.trigger(node.services)  # a scheduler's trigger: stopped, nothing runs
    assert Lifecycle.calls == []

    assert node.trigger("step")
    assert Lifecycle.calls == ["scheduled", "trigger", "stopped"]
    assert step.run_state is RunState.STOPPED
    assert node.connections["incoming"].queue.size == 1


def test_property_changes_are_told_to_the_processor_once_it_was_scheduled() -> None:
    """NiFi's onPropertyModified: a change to the configured processor (set, changed or
    removed) is told; the properties it is built or first configured with are not."""

    class _Watcher(Processor):
        property_descriptors = ()
        supports_dynamic_properties = True

        def __init__(self) -> None:
            super().__init__()
            self.changes: list[tuple[str, str | None, str | None]] = []

        def on_property_modified(self, name: str, old: str | None, new: str | None) -> None:
            self.changes.append((name, old, new))

        def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
            return

    watcher = _Watcher()
    node = ProcessorNode("w", watcher, {"a": "1"}, ScheduleConfig(), ManualClock())
    node.set_property("b", "2")  # still being configured
    assert watcher.changes == []
    node.ensure_scheduled()
    node.set_property("a", "1")  # the same value: no change
    node.set_property("a", "3")
    node.set_property("b", None)
    assert watcher.changes == [("a", "1", "3"), ("b", "2", None)]
