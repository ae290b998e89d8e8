"""A size-limited batch get takes FlowFiles in queue order while under the byte limit."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from flowcore.processor import ProcessContext, Processor, Relationship
from flowcore.session import ProcessSession
from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner


class TakeWithin(Processor):
    """Gets up to 10 FlowFiles or 5 bytes per trigger and passes them on."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        batch = session.get_batch(10, max_bytes=5)
        self.batches.append([session.read(f).decode() for f in batch])
        for flowfile in batch:
            session.transfer(flowfile, "success")


def test_get_batch_stops_once_the_bytes_reach_the_limit(tmp_path: Path) -> None:
    processor = TakeWithin()
    runner = TestRunner(processor, settings=EngineSettings(data_dir=tmp_path))
    try:
        for content in ["abcdef", "a", "bc", "de", "f", "", "g"]:
            runner.enqueue(content)
        runner.run(4)
        assert processor.batches == [["abcdef"], ["a", "bc", "de"], ["f", "", "g"], []]
    finally:
        runner.close()
