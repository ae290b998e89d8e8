"""A size-limited batch get takes FlowFiles in queue order while under the byte limit;
``get_each`` takes what ``get`` called in a loop takes."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import EnqueueItem, Node
from flowcore.engine.scheduler import DeterministicScheduler
from flowcore.flow import parse_flow
from flowcore.model.flowfile import FlowFile
from flowcore.processor import ProcessContext, Processor, Relationship, processor
from flowcore.queue.queue import FlowFileQueue
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


@processor("GetEachTestTaker")
class TakeEach(Processor):
    """Takes up to 4 FlowFiles or 5 bytes per trigger with ``get_each``, or with ``get``
    called in a loop (``by_get``), and passes them on."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    by_get = False
    taken: ClassVar[list[list[str]]] = []

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        if self.by_get:
            flowfiles: list[FlowFile] = []
            size = 0
            while len(flowfiles) < 4 and size < 5:
                flowfile = session.get()
                if flowfile is None:
                    break
                flowfiles.append(flowfile)
                size += flowfile.size
        else:
            flowfiles = session.get_each(4, 5)
        TakeEach.taken.append([session.read(f).decode() for f in flowfiles])
        for flowfile in flowfiles:
            session.transfer(flowfile, "success")


def _taken_from(tmp_path: Path, ports: list[str], by_get: bool) -> list[list[str]]:
    flow = {
        "flow": {
            "name": "get-each",
            "input_ports": ports,
            "processors": {
                "take": {"type": "GetEachTestTaker", "auto_terminate": ["success"]},
            },
            "connections": [{"from": port, "to": "take", "name": f"from-{port}"} for port in ports],
        }
    }
    settings = EngineSettings.model_validate({"data_dir": tmp_path / f"{len(ports)}-{by_get}"})
    node = Node.from_flow(settings, parse_flow(flow), ManualClock())
    try:
        contents = ["a", "bb", "", "c", "dddddd", "e", "f", "g", "hh", "i"]
        for n, content in enumerate(contents):
            node.enqueue(ports[n % len(ports)], [EnqueueItem(content.encode(), {})])
        TakeEach.by_get = by_get
        TakeEach.taken = []
        DeterministicScheduler(node).run_until_idle()
        return [batch for batch in TakeEach.taken if batch]
    finally:
        node.close()


def test_get_each_takes_what_get_in_a_loop_takes(tmp_path: Path) -> None:
    one = _taken_from(tmp_path, ["in"], by_get=False)
    assert one == [["a", "bb", "", "c"], ["dddddd"], ["e", "f", "g", "hh"], ["i"]]
    assert one == _taken_from(tmp_path, ["in"], by_get=True)
    several = _taken_from(tmp_path, ["x", "y", "z"], by_get=False)
    assert several == _taken_from(tmp_path, ["x", "y", "z"], by_get=True)
    assert several[0] == ["a", "bb", "", "c"]  # x, y, z, then x again


def test_get_each_polls_a_single_connection_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    polls: list[int] = []
    real = FlowFileQueue.poll_batch

    def counting(queue: FlowFileQueue, limit: int, *args: Any) -> Any:
        polls.append(limit)
        return real(queue, limit, *args)

    monkeypatch.setattr(FlowFileQueue, "poll_batch", counting)
    _taken_from(tmp_path, ["in"], by_get=False)
    assert polls[:4] == [4, 4, 4, 4]  # one poll per trigger, not one per FlowFile
