"""The heap is frozen while a scheduler runs, and collectable again once none runs."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, Node, ThreadedScheduler, heap
from flowcore.flow import parse_flow
from flowcore.processor import ProcessContext, Processor, Relationship, Scheduling, processor
from flowcore.session import ProcessSession
from flowcore.settings import EngineSettings

SettingsFactory = Callable[..., EngineSettings]


@processor("HeapTestObserver")
class Observer(Processor):
    """A source that notes how many objects were frozen when it was triggered."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    scheduling = Scheduling(input_required=False)
    frozen: ClassVar[list[int]] = []

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        Observer.frozen.append(gc.get_freeze_count())
        session.transfer(session.create(), "success")


def _node(settings: EngineSettings, clock: Any) -> Node:
    flow = {
        "flow": {
            "name": "heap",
            "processors": {
                "observe": {
                    "type": "HeapTestObserver",
                    "auto_terminate": ["success"],
                    "schedule": {"max_runs": 3},
                }
            },
        }
    }
    return Node.from_flow(settings, parse_flow(flow), clock)


class _Cycle:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_triggers_run_with_the_heap_frozen_and_it_is_thawed_afterwards(
    settings_factory: SettingsFactory, closing: Callable[[Any], Any]
) -> None:
    Observer.frozen.clear()
    node = closing(_node(settings_factory(), ManualClock()))
    assert gc.get_freeze_count() == 0

    DeterministicScheduler(node).run_until_idle()

    assert len(Observer.frozen) == 3
    assert all(count > 0 for count in Observer.frozen)
    assert gc.get_freeze_count() == 0


def test_the_threaded_scheduler_freezes_from_start_to_stop(
    settings_factory: SettingsFactory, closing: Callable[[Any], Any]
) -> None:
    Observer.frozen.clear()
    node = closing(_node(settings_factory(), ManualClock()))
    scheduler = ThreadedScheduler(node)

    scheduler.start()
    try:
        pause = threading.Event()
        deadline = time.monotonic() + 60
        while len(Observer.frozen) < 3 and time.monotonic() < deadline:
            pause.wait(0.01)
        assert gc.get_freeze_count() > 0
    finally:
        scheduler.stop()
    scheduler.stop()  # a second stop changes nothing

    assert len(Observer.frozen) == 3 and all(count > 0 for count in Observer.frozen)
    assert gc.get_freeze_count() == 0


def test_nested_runs_thaw_only_when_the_last_one_ends() -> None:
    heap.freeze()
    heap.freeze()
    heap.unfreeze()
    assert heap.running() and gc.get_freeze_count() > 0
    heap.unfreeze()
    assert not heap.running() and gc.get_freeze_count() == 0
    heap.unfreeze()  # more stops than starts: nothing to do
    assert not heap.running()


def test_cycles_frozen_during_a_run_are_collected_by_collect_frozen() -> None:
    heap.freeze()
    try:
        cycle = _Cycle()
        heap.refreeze()
        gone = threading.Event()
        weakref.finalize(cycle, gone.set)
        del cycle
        gc.collect()
        assert not gone.is_set()  # frozen: a collection does not see it

        heap.collect_frozen()

        assert gone.is_set()
        assert gc.get_freeze_count() > 0  # still frozen for the rest of the run
    finally:
        heap.unfreeze()
    assert gc.get_freeze_count() == 0


def test_outside_a_run_refreeze_and_collect_frozen_do_nothing() -> None:
    heap.refreeze()
    heap.collect_frozen()
    assert gc.get_freeze_count() == 0


def test_a_scheduler_started_twice_thaws_the_heap_when_it_stops(
    settings_factory: SettingsFactory, closing: Callable[[Any], Any]
) -> None:
    node = closing(_node(settings_factory(), ManualClock()))
    scheduler = ThreadedScheduler(node)

    scheduler.start()
    scheduler.start()
    scheduler.stop()

    assert not heap.running() and gc.get_freeze_count() == 0
