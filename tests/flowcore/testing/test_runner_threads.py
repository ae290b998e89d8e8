"""TestRunner.set_thread_count: ``run`` triggers the processor on several threads at once,
as nifi-mock's setThreadCount does, and raises a trigger's failure once all have ended."""

from __future__ import annotations

import threading
from typing import ClassVar

import pytest

from flowcore.errors import ProcessException
from flowcore.processor import ProcessContext, Processor, Relationship, Scheduling
from flowcore.session import ProcessSession
from flowcore.testing import TestRunner


class MeetTwice(Processor):
    """Each trigger waits at a two-party barrier: only two triggers at once pass it."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    scheduling = Scheduling(input_required=False)

    def __init__(self) -> None:
        super().__init__()
        self.barrier = threading.Barrier(2, timeout=30)
        self.threads: set[str] = set()

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        self.barrier.wait()
        self.threads.add(threading.current_thread().name)
        session.transfer(session.create(), "success")


class FailOnSecond(Processor):
    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    scheduling = Scheduling(input_required=False)

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.lock = threading.Lock()

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        with self.lock:
            self.calls += 1
            call = self.calls
        if call == 2:
            raise ProcessException("the second trigger fails")
        session.transfer(session.create(), "success")


def test_iterations_run_on_several_threads_at_once() -> None:
    processor = MeetTwice()
    with TestRunner(processor) as runner:
        runner.set_thread_count(2)
        runner.run(4)
        runner.assert_transfer_count("success", 4)
    assert len(processor.threads) == 2


def test_a_failed_trigger_is_raised_after_the_others_have_run() -> None:
    processor = FailOnSecond()
    with TestRunner(processor) as runner:
        runner.set_thread_count(3)
        with pytest.raises(ProcessException, match="second trigger"):
            runner.run(6)
        assert processor.calls == 6
        runner.assert_transfer_count("success", 5)


def test_the_thread_count_is_at_least_one() -> None:
    with TestRunner(MeetTwice()) as runner, pytest.raises(ValueError, match="at least 1"):
        runner.set_thread_count(0)


def test_a_processor_triggered_serially_refuses_more_threads() -> None:
    with TestRunner("ControlRate") as runner:
        runner.set_thread_count(1)
        with pytest.raises(AssertionError, match="triggered serially"):
            runner.set_thread_count(2)
