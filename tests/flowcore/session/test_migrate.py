"""Migrating FlowFiles between sessions of one component keeps the order given."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from flowcore.processor import (
    ProcessContext,
    Relationship,
    SessionFactory,
    SessionFactoryProcessor,
)
from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner
from flowcore.testing.runner import INPUT


class HoldTwo(SessionFactoryProcessor):
    """Takes five FlowFiles, hands the 4th and 2nd (in that order) to a holding session."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]

    def on_trigger_with_factory(self, context: ProcessContext, factory: SessionFactory) -> None:
        session = factory.create_session()
        holding = factory.create_session()
        taken = session.get_batch(5)
        session.migrate(holding, [taken[3], taken[1]])
        session.rollback()
        holding.rollback()  # goes back in front, in the order it was handed over


def test_migrated_flowfiles_roll_back_in_the_order_given(tmp_path: Path) -> None:
    runner = TestRunner(HoldTwo(), settings=EngineSettings(data_dir=tmp_path))
    try:
        for index in range(5):
            runner.enqueue(f"f{index}")
        runner.run()
        queue = runner.node.connections[INPUT].queue
        order = [
            runner.node.content.read(r.flowfile.claim, r.flowfile.claim_offset, r.flowfile.size)
            for r in queue.listing()
            if r.flowfile.claim is not None
        ]
        assert order == [b"f3", b"f1", b"f0", b"f2", b"f4"]
    finally:
        runner.close()
