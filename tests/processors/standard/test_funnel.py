"""Funnel: every FlowFile to success, unchanged, in batches, without provenance."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.processor.registry import processor_types
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


def test_passes_everything_through(make_runner: RunnerFactory) -> None:
    runner = make_runner("Funnel")
    sent = [runner.enqueue(f"content {i}", {"i": str(i)}) for i in range(3)]
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")
    assert [m.uuid for m in out] == [m.uuid for m in sent]
    assert [m.content for m in out] == [m.content for m in sent]
    assert [m.attributes for m in out] == [m.attributes for m in sent]
    assert runner.get_provenance_events() == []


def test_moves_batches_of_a_thousand(make_runner: RunnerFactory) -> None:
    runner = make_runner("Funnel")
    for _ in range(1500):
        runner.enqueue("")
    runner.run()
    runner.assert_transfer_count("success", 1000)
    runner.run()
    runner.assert_transfer_count("success", 1500)
    runner.assert_queue_empty()


def test_every_standard_processor_is_registered() -> None:
    assert {
        "Funnel",
        "GenerateFlowFile",
        "GetFile",
        "LogAttribute",
        "PutFile",
        "RouteOnAttribute",
        "SplitText",
        "UpdateAttribute",
    } <= set(processor_types())
