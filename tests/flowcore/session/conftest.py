"""Fixtures for session tests: a processor whose trigger is a test-supplied function."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest

from flowcore.processor import ProcessContext, Processor, Relationship
from flowcore.session import ProcessSession
from flowcore.testing import TestRunner

Trigger = Callable[[ProcessContext, ProcessSession], None]


class Scripted(Processor):
    """Runs the function it is given; relationships success, failure and other."""

    type_name = "Scripted"
    relationships: ClassVar[list[Relationship]] = [
        Relationship("success"),
        Relationship("failure"),
        Relationship("other"),
    ]

    def __init__(self, trigger: Trigger) -> None:
        super().__init__()
        self._trigger = trigger

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        self._trigger(context, session)


@pytest.fixture
def runner_factory(tmp_path: Any) -> Iterator[Callable[..., TestRunner]]:
    runners: list[TestRunner] = []

    def build(trigger: Trigger, **settings: Any) -> TestRunner:
        from flowcore.settings import EngineSettings

        config = EngineSettings.model_validate(
            {"data_dir": tmp_path / f"r{len(runners)}", **settings}
        )
        # Session semantics are tested on the durable repositories: full maps, full
        # disks and damaged files are theirs.
        runner = TestRunner(Scripted(trigger), settings=config, repositories="durable")
        runners.append(runner)
        return runner

    yield build
    for runner in runners:
        runner.close()
