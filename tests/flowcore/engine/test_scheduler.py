"""Schedulers: the deterministic one on a ManualClock, and the threaded one.

The deterministic scheduler moves time only by advancing the ManualClock to the next
moment something becomes runnable, so the tests assert exact clock advances. The threaded
tests wait for worker threads by polling queue sizes in a bounded loop.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, EnqueueItem, Node, ThreadedScheduler
from flowcore.errors import ProcessException
from flowcore.flow import parse_flow
from flowcore.model.provenance import ProvenanceEvent
from flowcore.processor import (
    ProcessContext,
    Processor,
    Relationship,
    Scheduling,
    SessionFactory,
    SessionFactoryProcessor,
    processor,
)
from flowcore.repository import ProvenanceQuery
from flowcore.session import ProcessSession
from flowcore.session.services import SessionServices
from flowcore.settings import EngineSettings

SettingsFactory = Callable[..., EngineSettings]
THREAD_TIMEOUT = 60.0


@processor("SchedTestPenalizeOnce")
class PenalizeOnce(Processor):
    """Penalizes each FlowFile back to its queue the first time, passes it on the second."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        for flowfile in session.get_batch(10):
            if "tried" in flowfile.attributes:
                session.transfer(flowfile, "success")
            else:
                flowfile = session.put_attribute(flowfile, "tried", str(context.now_ms()))
                session.transfer(session.penalize(flowfile))


@processor("SchedTestDrainInOneTrigger")
class DrainInOneTrigger(SessionFactoryProcessor):
    """Works through its whole queue in one trigger, one session (and commit) per
    FlowFile, as MergeRecord works through its queue; records the journal after each."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    journal_sizes: ClassVar[list[int]] = []
    journal: ClassVar[Callable[[], int]]

    def on_trigger_with_factory(self, context: ProcessContext, factory: SessionFactory) -> None:
        while True:
            session = factory.create_session()
            flowfile = session.get()
            if flowfile is None:
                return
            session.transfer(session.put_attribute(flowfile, "seen", "yes"), "success")
            session.commit()
            self.journal_sizes.append(self.journal())


@processor("SchedTestYieldTwice")
class YieldTwice(Processor):
    """A source that yields on its first two triggers and creates a FlowFile on the third."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    scheduling = Scheduling(input_required=False)

    def __init__(self) -> None:
        super().__init__()
        self.triggers = 0

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        self.triggers += 1
        if self.triggers <= 2:
            context.yield_processor()
            return
        session.transfer(session.create(), "success")


@processor("SchedTestFailOnce")
class FailOnce(Processor):
    """Takes its FlowFiles and raises on the first trigger; passes them on afterwards."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    error: ClassVar[type[Exception]] = RuntimeError

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfiles = session.get_batch(10)
        if not self.failed:
            self.failed = True
            raise self.error("kaboom")
        for flowfile in flowfiles:
            session.transfer(flowfile, "success")


@processor("SchedTestProcessFailOnce")
class ProcessFailOnce(FailOnce):
    error = ProcessException


@processor("SchedTestSource")
class Source(Processor):
    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    scheduling = Scheduling(input_required=False)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        session.transfer(session.create(), "success")


@processor("SchedTestScheduledOnce")
class ScheduledOnce(Processor):
    """Counts its ``on_scheduled`` calls; a call waits (boundedly) for a second one to
    arrive, so that two concurrent first triggers both scheduling it would be seen."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    scheduling = Scheduling(input_required=False)

    def __init__(self) -> None:
        super().__init__()
        self.scheduled = 0
        self.ready = False
        self.barrier = threading.Barrier(2, timeout=0.3)

    def on_scheduled(self, context: ProcessContext) -> None:
        self.scheduled += 1
        self.ready = False
        try:
            self.barrier.wait()
        except threading.BrokenBarrierError:
            pass
        self.ready = True

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.put_attribute(session.create(), "ready", str(self.ready))
        session.transfer(flowfile, "success")


def open_node(settings: EngineSettings, flow: dict[str, Any], clock: Any) -> Node:
    return Node.from_flow(settings, parse_flow(flow), clock)


def events(node: Node, event_type: str | None = None) -> list[ProvenanceEvent]:
    node.index_provenance()
    found = node.provenance.search(ProvenanceQuery(event_type=event_type, limit=1_000_000))
    return sorted(found, key=lambda e: e.event_id)


def two_task_source(processor_type: str, max_runs: int) -> dict[str, Any]:
    """src (``processor_type``, two concurrent tasks, ``max_runs``) -> held (a stopped
    Funnel), through the connection ``out``."""
    return {
        "flow": {
            "name": "two-tasks",
            "processors": {
                "src": {
                    "type": processor_type,
                    "schedule": {"max_runs": max_runs, "concurrent_tasks": 2},
                },
                "held": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            },
            "connections": [
                {"from": "src", "relationships": ["success"], "to": "held", "name": "out"}
            ],
        }
    }


def through(processor_type: str, **spec: Any) -> dict[str, Any]:
    """in -> work (processor_type) -> held (a stopped Funnel that holds what arrives)."""
    return {
        "flow": {
            "name": "through",
            "input_ports": ["in"],
            "processors": {
                "work": {"type": processor_type, **spec},
                "held": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            },
            "connections": [
                {"from": "in", "to": "work", "name": "incoming"},
                {"from": "work", "relationships": ["success"], "to": "held", "name": "done"},
            ],
        }
    }


# -- deterministic scheduler ------------------------------------------------------------------


def test_penalty_is_waited_out_by_advancing_the_clock(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(
        open_node(settings, through("SchedTestPenalizeOnce", penalty_duration="5 sec"), clock)
    )
    node.enqueue("in", [EnqueueItem(b"a"), EnqueueItem(b"b")])
    start = clock.now_ms()
    scheduler = DeterministicScheduler(node)

    scheduler.run_once()

    incoming = node.connections["incoming"].queue
    assert incoming.snapshot().penalized == 2
    assert incoming.next_penalty_expiration() == start + 5_000
    assert not node.processors["work"].is_runnable(start + 4_999)
    assert node.processors["work"].is_runnable(start + 5_000)

    summary = scheduler.run_until_idle()

    assert clock.now_ms() - start == 5_000
    assert summary.clock_advances == 1
    assert incoming.size == 0
    done = node.connections["done"].queue.listing()
    assert len(done) == 2
    assert {r.flowfile.attributes["tried"] for r in done} == {str(start)}


def test_flowfiles_penalized_together_keep_their_fifo_order(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(
        open_node(settings, through("SchedTestPenalizeOnce", penalty_duration="5 sec"), clock)
    )
    uuids = node.enqueue("in", [EnqueueItem(f"{i}".encode()) for i in range(5)])

    DeterministicScheduler(node).run_until_idle()

    done = node.connections["done"].queue.listing()
    assert [r.flowfile.uuid for r in done] == uuids


def test_yield_is_waited_out_by_advancing_the_clock(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    flow = {
        "flow": {
            "name": "yield",
            "processors": {
                "src": {
                    "type": "SchedTestYieldTwice",
                    "yield_duration": "3 sec",
                    "schedule": {"max_runs": 3},
                },
                "held": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            },
            "connections": [
                {"from": "src", "relationships": ["success"], "to": "held", "name": "out"}
            ],
        }
    }
    node = closing(open_node(settings, flow, clock))
    start = clock.now_ms()

    summary = DeterministicScheduler(node).run_until_idle()

    assert node.processors["src"].runs == 3
    assert clock.now_ms() - start == 6_000
    assert summary.clock_advances == 2
    (record,) = node.connections["out"].queue.listing()
    assert record.flowfile.entry_date == start + 6_000


def test_timer_period_advances_the_clock_between_runs(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    flow = {
        "flow": {
            "name": "timer",
            "processors": {
                "gen": {
                    "type": "GenerateFlowFile",
                    "schedule": {"period": "10 sec", "max_runs": 3},
                    "auto_terminate": ["success"],
                }
            },
        }
    }
    node = closing(open_node(settings, flow, clock))
    start = clock.now_ms()

    summary = DeterministicScheduler(node).run_until_idle()

    assert node.processors["gen"].runs == 3
    assert clock.now_ms() - start == 20_000
    assert summary.clock_advances == 2
    assert [e.event_time - start for e in events(node, "CREATE")] == [0, 10_000, 20_000]


def test_provenance_is_indexed_inside_a_trigger_that_commits_many_sessions(
    settings_factory: SettingsFactory, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    settings = settings_factory(provenance={"index_batch_size": 10})
    node = closing(open_node(settings, through("SchedTestDrainInOneTrigger"), clock))
    node.enqueue("in", [EnqueueItem(b"x", {"n": str(i)}) for i in range(30)])
    node.index_provenance()  # the 30 RECEIVE events
    DrainInOneTrigger.journal_sizes = []
    DrainInOneTrigger.journal = node.flowfiles.journal_size

    summary = DeterministicScheduler(node).run_until_idle()

    # One trigger, 30 commits of one ATTRIBUTES_MODIFIED each: a batch of 10 goes to
    # DuckDB as soon as 10 wait, so the journal holds at most one batch in flight and
    # one filling (before, it grew to 30 and was indexed after the trigger).
    assert node.processors["work"].runs == 1 and summary.idle
    assert max(DrainInOneTrigger.journal_sizes) < 20
    assert DrainInOneTrigger.journal_sizes[-1] < 20
    assert node.flowfiles.journal_size() == 0
    assert [e.event_id for e in events(node, "ATTRIBUTES_MODIFIED")] == list(range(30, 60))


def test_provenance_is_indexed_during_a_run_once_the_journal_holds_a_batch(
    settings_factory: SettingsFactory, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    settings = settings_factory(provenance={"index_batch_size": 10})
    flow = {
        "flow": {
            "name": "many",
            "processors": {
                "gen": {
                    "type": "GenerateFlowFile",
                    "properties": {"Batch Size": "4"},
                    "schedule": {"max_runs": 10},
                    "auto_terminate": ["success"],
                }
            },
        }
    }
    node = closing(open_node(settings, flow, clock))
    journal_sizes: list[int] = []
    indexed: list[int] = []

    def after_pass(_triggers: int) -> None:
        journal_sizes.append(node.flowfiles.journal_size())
        indexed.append(node.provenance.indexed_through())

    DeterministicScheduler(node).run_until_idle(on_pass=after_pass)

    # Each pass journals 8 events (4 CREATE, 4 DROP) in one commit. Once 10 or more wait
    # after a commit, one batch of 10 goes to DuckDB in the background (the reader here
    # settles it): the journal never holds a second batch, and indexing happens along
    # the run, the same at every run whatever the indexing thread's timing.
    assert journal_sizes == [8, 16, 14, 12, 10, 8, 16, 14, 12, 10, 0]
    assert indexed == [-1, 9, 19, 29, 39, 39, 49, 59, 69, 79, 79]
    assert node.flowfiles.journal_size() == 0
    assert len(events(node)) == 80


def test_without_advancing_the_clock_only_due_work_runs(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    flow = {
        "flow": {
            "name": "timer",
            "processors": {
                "gen": {
                    "type": "GenerateFlowFile",
                    "schedule": {"period": "1 min", "max_runs": 5},
                    "auto_terminate": ["success"],
                }
            },
        }
    }
    node = closing(open_node(settings, flow, clock))
    start = clock.now_ms()
    scheduler = DeterministicScheduler(node)

    scheduler.run_until_idle(advance_clock=False)
    assert node.processors["gen"].runs == 1
    assert clock.now_ms() == start

    clock.advance(60)
    scheduler.run_until_idle(advance_clock=False)
    assert node.processors["gen"].runs == 2


def test_back_pressure_stops_upstream_until_downstream_drains(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    flow = {
        "flow": {
            "name": "pressure",
            "processors": {
                "gen": {"type": "GenerateFlowFile", "schedule": {"max_runs": 20}},
                "sink": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            },
            "connections": [
                {
                    "from": "gen",
                    "relationships": ["success"],
                    "to": "sink",
                    "name": "generated",
                    "back_pressure": {"object_threshold": 5},
                }
            ],
        }
    }
    node = closing(open_node(settings, flow, clock))
    queue = node.connections["generated"].queue
    gen = node.processors["gen"]
    scheduler = DeterministicScheduler(node)

    scheduler.run_until_idle()

    assert gen.runs == 5
    assert queue.size == 5
    assert queue.snapshot().back_pressure
    assert not gen.is_runnable(clock.now_ms())

    # Nothing changes however often the scheduler looks.
    scheduler.run_until_idle()
    assert gen.runs == 5

    sizes: list[int] = []
    node.processors["sink"].start()
    scheduler.run_until_idle(on_pass=lambda _: sizes.append(queue.size))

    assert gen.runs == 20
    assert queue.size == 0
    assert max(sizes) <= 5
    assert len(events(node, "DROP")) == 20


def test_processor_that_raises_is_yielded_and_its_flowfiles_penalized(
    settings_factory: SettingsFactory, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    settings = settings_factory(scheduler={"administrative_yield_duration": "30 sec"})
    node = closing(
        open_node(settings, through("SchedTestFailOnce", penalty_duration="5 sec"), clock)
    )
    uuids = node.enqueue("in", [EnqueueItem(b"a"), EnqueueItem(b"b")])
    start = clock.now_ms()
    work = node.processors["work"]
    scheduler = DeterministicScheduler(node)

    triggers, _ = scheduler.run_once()

    assert triggers == 1
    (error,) = work.errors
    assert error.message == "RuntimeError: kaboom"
    assert error.time_ms == start
    assert work.yielded_until == start + 30_000
    incoming = node.connections["incoming"].queue
    snapshot = incoming.snapshot()
    assert snapshot.count == 2
    assert snapshot.penalized == 2
    assert snapshot.in_flight == 0
    records = incoming.listing()
    assert sorted(r.flowfile.uuid for r in records) == sorted(uuids)
    assert {r.flowfile.penalty_expiration for r in records} == {start + 5_000}
    assert node.connections["done"].queue.size == 0
    # Penalties end before the yield: the processor still waits for the yield.
    assert not work.is_runnable(start + 5_000)
    assert not work.is_runnable(start + 29_999)
    assert work.is_runnable(start + 30_000)

    scheduler.run_until_idle()

    assert clock.now_ms() - start == 30_000
    assert [r.flowfile.uuid for r in node.connections["done"].queue.listing()] == uuids
    assert len(work.errors) == 1


def test_process_exception_yields_for_the_processor_yield_duration(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    flow = through("SchedTestProcessFailOnce", penalty_duration="1 sec", yield_duration="2 sec")
    node = closing(open_node(settings, flow, clock))
    node.enqueue("in", [EnqueueItem(b"a")])
    start = clock.now_ms()
    work = node.processors["work"]

    DeterministicScheduler(node).run_once()

    assert work.errors[0].message == "ProcessException: kaboom"
    assert work.yielded_until == start + 2_000
    DeterministicScheduler(node).run_until_idle()
    assert clock.now_ms() - start == 2_000
    assert node.connections["done"].queue.size == 1


def test_trigger_can_raise_errors(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, through("SchedTestFailOnce"), clock))
    node.enqueue("in", [EnqueueItem(b"a")])
    with pytest.raises(RuntimeError, match="kaboom"):
        node.trigger("work", raise_errors=True)
    assert node.connections["incoming"].queue.size == 1
    assert node.processors["work"].errors[0].message == "RuntimeError: kaboom"


# -- threaded scheduler -----------------------------------------------------------------------


def run_threaded_until_idle(node: Node) -> None:
    """Run the node on a ThreadedScheduler until it is idle, then stop it."""
    scheduler = ThreadedScheduler(node)
    scheduler.start()
    try:
        assert wait_until(scheduler.is_idle)
    finally:
        scheduler.stop()


def wait_until(condition: Callable[[], bool], timeout: float = THREAD_TIMEOUT) -> bool:
    """Wait for worker threads to get somewhere; False if they did not in time."""
    pause = threading.Event()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        pause.wait(0.01)
    return condition()


def three_step_flow(out: Path, *, max_runs: int | None, threshold: int = 10_000) -> dict[str, Any]:
    gen: dict[str, Any] = {
        "type": "GenerateFlowFile",
        "properties": {"Batch Size": "10", "Custom Text": "threaded"},
    }
    if max_runs is not None:
        gen["schedule"] = {"max_runs": max_runs}
    return {
        "flow": {
            "name": "threaded",
            "processors": {
                "gen": gen,
                "tag": {
                    "type": "UpdateAttribute",
                    "properties": {"filename": "${uuid}.txt"},
                    "schedule": {"concurrent_tasks": 2},
                },
                "put": {
                    "type": "PutFile",
                    "properties": {"Directory": str(out)},
                    "schedule": {"concurrent_tasks": 2},
                    "auto_terminate": ["success", "failure"],
                },
            },
            "connections": [
                {
                    "from": "gen",
                    "relationships": ["success"],
                    "to": "tag",
                    "name": "generated",
                    "back_pressure": {"object_threshold": threshold},
                },
                {
                    "from": "tag",
                    "relationships": ["success"],
                    "to": "put",
                    "name": "tagged",
                    "back_pressure": {"object_threshold": threshold},
                },
            ],
        }
    }


def test_threaded_scheduler_moves_every_flowfile_exactly_once(
    settings_factory: SettingsFactory, tmp_path: Path, closing: Callable[[Any], Any]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    settings = settings_factory(scheduler={"threads": 4})
    node = closing(
        open_node(settings, three_step_flow(out, max_runs=30, threshold=40), ManualClock())
    )
    scheduler = ThreadedScheduler(node)

    scheduler.start()
    try:
        finished = wait_until(
            lambda: (
                node.processors["gen"].runs == 30
                and all(c.queue.size == 0 for c in node.connections.values())
                and scheduler.is_idle()
            )
        )
    finally:
        scheduler.stop()

    assert finished, node.status()
    files = list(out.iterdir())
    assert len(files) == 300
    assert all(f.read_bytes() == b"threaded" for f in files)
    created = [e.flowfile_uuid for e in events(node, "CREATE")]
    sent = [e.flowfile_uuid for e in events(node, "SEND")]
    assert len(created) == 300 and len(set(created)) == 300
    assert sorted(sent) == sorted(created)
    assert {f.name for f in files} == {f"{u}.txt" for u in created}
    for connection in node.connections.values():
        snapshot = connection.queue.snapshot()
        assert (snapshot.count, snapshot.in_flight) == (0, 0)
    tag_stats = node.processors["tag"].binding
    assert tag_stats is not None
    assert tag_stats.stats.flowfiles_in == 300
    assert tag_stats.stats.flowfiles_out == 300


def test_threaded_scheduler_stop_leaves_nothing_in_flight(
    settings_factory: SettingsFactory, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    settings = settings_factory(scheduler={"threads": 4})
    flow = three_step_flow(out, max_runs=None, threshold=50)
    node = open_node(settings, flow, ManualClock())
    try:
        scheduler = ThreadedScheduler(node)
        scheduler.start()
        try:
            progressed = wait_until(lambda: len(list(out.iterdir())) >= 100)
        finally:
            scheduler.stop()
        assert progressed

        queued: set[str] = set()
        for connection in node.connections.values():
            snapshot = connection.queue.snapshot()
            assert snapshot.in_flight == 0, connection.name
            records = connection.queue.listing()
            assert len(records) == snapshot.count
            queued |= {r.flowfile.uuid for r in records}
        created = {e.flowfile_uuid for e in events(node, "CREATE")}
        dropped = [e.flowfile_uuid for e in events(node, "DROP")]
        assert len(dropped) == len(set(dropped))
        assert not queued & set(dropped)
        assert created == queued | set(dropped)
        assert len(list(out.iterdir())) == len(dropped)
    finally:
        node.close()

    node = open_node(settings, flow, ManualClock())
    try:
        assert node.recovery is not None
        assert node.recovery.flowfiles + node.recovery.swapped == len(queued)
        recovered = {r.flowfile.uuid for c in node.connections.values() for r in c.queue.listing()}
        assert recovered == queued
    finally:
        node.close()


def test_threaded_scheduler_respects_max_runs_with_concurrent_tasks(
    settings_factory: SettingsFactory,
    closing: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two workers may not both take the last run a processor has left.

    The trigger is wrapped so that a worker waits (boundedly) for a second worker to arrive
    before running: if the scheduler let a second worker reserve the processor while its
    one allowed run was still starting, both run.
    """
    flow = two_task_source("SchedTestSource", max_runs=1)
    node: Node = closing(open_node(settings_factory(scheduler={"threads": 2}), flow, ManualClock()))
    src = node.processors["src"]
    original = src.trigger
    barrier = threading.Barrier(2)

    def trigger(services: SessionServices, **options: Any) -> bool:
        try:
            barrier.wait(timeout=1.0)
        except threading.BrokenBarrierError:
            pass
        return original(services, **options)

    monkeypatch.setattr(src, "trigger", trigger)
    run_threaded_until_idle(node)

    assert src.runs == 1
    assert node.connections["out"].queue.size == 1


# -- bounded waits for work that only retries ---------------------------------------------


def failing_update(penalty: str = "30 sec") -> dict[str, Any]:
    """UpdateAttribute whose expression fails at run time: each FlowFile is penalised back."""
    return through(
        "UpdateAttribute",
        properties={"year": '${filename:toDate("yyyy")}'},
        penalty_duration=penalty,
    )


def test_penalised_work_that_never_progresses_is_idle_after_the_retry_wait(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, failing_update(), clock))
    node.enqueue("in", [EnqueueItem(b"a", {"filename": "not-a-date"})])
    start = clock.now_ms()

    summary = DeterministicScheduler(node).run_until_idle(retry_wait_ms=60_000)

    assert summary.stalled and summary.idle
    assert node.connections["incoming"].queue.size == 1
    # Retried at 30 s and 60 s; the next retry would come after the wait was over.
    assert clock.now_ms() - start == 60_000
    assert node.processors["work"].runs == 3


def test_a_retry_wait_shorter_than_the_penalty_ends_without_waiting(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, failing_update(), clock))
    node.enqueue("in", [EnqueueItem(b"a", {"filename": "not-a-date"})])
    start = clock.now_ms()

    summary = DeterministicScheduler(node).run_until_idle(retry_wait_ms=0)

    assert summary.stalled
    assert clock.now_ms() == start


def test_penalised_work_that_progresses_is_waited_for(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(
        open_node(settings, through("SchedTestPenalizeOnce", penalty_duration="5 sec"), clock)
    )
    node.enqueue("in", [EnqueueItem(b"a")])

    summary = DeterministicScheduler(node).run_until_idle(retry_wait_ms=10_000)

    assert not summary.stalled
    assert len(node.connections["done"].queue.listing()) == 1


def test_timer_work_is_not_cut_short_by_the_retry_wait(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    flow = {
        "flow": {
            "name": "timer",
            "processors": {
                "src": {
                    "type": "SchedTestSource",
                    "schedule": {"period": "1 min", "max_runs": 3},
                },
                "held": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            },
            "connections": [
                {"from": "src", "relationships": ["success"], "to": "held", "name": "out"}
            ],
        }
    }
    node = closing(open_node(settings, flow, clock))

    summary = DeterministicScheduler(node).run_until_idle(retry_wait_ms=0)

    assert not summary.stalled
    assert node.connections["out"].queue.size == 3


def test_deadline_ends_the_run_between_triggers(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, failing_update("10 sec"), clock))
    node.enqueue("in", [EnqueueItem(b"a", {"filename": "not-a-date"})])
    start = clock.now_ms()

    summary = DeterministicScheduler(node).run_until_idle(deadline_ms=start + 25_000)

    assert summary.timed_out and not summary.idle
    assert clock.now_ms() == start + 25_000
    assert node.processors["work"].runs == 3


def test_threaded_scheduler_schedules_a_processor_once_before_its_concurrent_tasks(
    settings_factory: SettingsFactory, closing: Callable[[Any], Any]
) -> None:
    """Two tasks starting at once: one calls ``on_scheduled``, the other waits for it to
    end (both called it, at once, before: a second call resetting what the first set up
    while a task already ran, as MergeContent's bins)."""
    flow = two_task_source("SchedTestScheduledOnce", max_runs=3)
    node: Node = closing(open_node(settings_factory(scheduler={"threads": 2}), flow, ManualClock()))
    src = node.processors["src"]
    run_threaded_until_idle(node)

    processor = src.processor
    assert isinstance(processor, ScheduledOnce)
    assert processor.scheduled == 1
    queue = node.connections["out"].queue
    assert queue.size == 3
