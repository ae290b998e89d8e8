"""ControlRate: NiFi's TestControlRate scenarios, with the manual clock."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
CRITERIA = "Rate Control Criteria"


def _runner(make_runner: RunnerFactory, **properties: str) -> TestRunner:
    return make_runner("ControlRate", properties=properties)


def test_route_to_rate_exceeded(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        **{
            "Rate Exceeded Strategy": "Route to 'rate exceeded'",
            CRITERIA: "flowfile count",
            "Maximum Rate": "10",
            "Time Duration": "1 min",
            "Grouping Attribute": "group",
        },
    )
    for i in range(100):
        runner.enqueue("", {"group": str(i)})
    for _ in range(25):
        runner.enqueue("", {"group": "50"})
    runner.run()
    runner.assert_transfer_count("success", 109)
    runner.assert_transfer_count("rate exceeded", 16)
    assert {
        f.get_attribute("group") for f in runner.get_flowfiles_for_relationship("rate exceeded")
    } == {"50"}
    routes = [
        e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.ROUTE
    ]
    assert len(routes) == 125


def test_limit_exceeded_then_other_group_passes(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        **{
            CRITERIA: "flowfile count",
            "Maximum Rate": "3",
            "Time Duration": "1 min",
            "Grouping Attribute": "group",
        },
    )
    for _ in range(5):
        runner.enqueue("test data", {"group": "1"})
    runner.enqueue("test data", {"group": "2"})
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")
    assert [f.get_attribute("group") for f in out].count("1") == 3
    assert [f.get_attribute("group") for f in out].count("2") == 1
    assert runner.queue_size == 2


def test_file_count_rate_holds_until_the_window_passes(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner, **{CRITERIA: "flowfile count", "Maximum Rate": "3", "Time Duration": "1 s"}
    )
    for i in range(4):
        runner.enqueue(f"test data {i}")
    runner.run(4, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 3)
    runner.clear_transfer_state()
    runner.run(50, stop_on_finish=False)
    runner.assert_transfer_count("success", 0)
    runner.assert_queue_not_empty()
    assert runner.yielded
    runner.advance_time(1.1)
    runner.run(5)
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.assert_queue_empty()


def test_file_count_with_grouping(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        **{
            CRITERIA: "flowfile count",
            "Maximum Rate": "2",
            "Time Duration": "1 s",
            "Grouping Attribute": "group",
        },
    )
    for group in ["one", "two"] * 3:
        runner.enqueue("", {"group": group})
    runner.run(6, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 4)
    runner.clear_transfer_state()
    runner.run(50, stop_on_finish=False)
    runner.assert_transfer_count("success", 0)
    runner.advance_time(1.1)
    runner.run(2)
    runner.assert_all_flowfiles_transferred("success", 2)
    runner.assert_queue_empty()


def test_data_size_rate(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner, **{CRITERIA: "data rate", "Maximum Rate": "20 b", "Time Duration": "1 s"}
    )
    for i in range(4):
        runner.enqueue(f"testdata {i}")
    runner.run(4, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 2)
    runner.clear_transfer_state()
    runner.run(50, stop_on_finish=False)
    runner.assert_transfer_count("success", 0)
    runner.advance_time(1.1)
    runner.run(2, stop_on_finish=False)
    runner.assert_all_flowfiles_transferred("success", 2)
    runner.assert_queue_empty()


def test_via_attribute_and_bad_attributes(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        **{
            CRITERIA: "attribute value",
            "Rate Controlled Attribute": "count",
            "Maximum Rate": "20000",
            "Time Duration": "1 s",
        },
    )
    runner.enqueue("", {"count": "15000"})
    runner.enqueue("", {"count": "2500"})
    runner.enqueue("", {"count": "2500"})
    runner.enqueue("", {"count": "1"})
    runner.enqueue("", {"count": "-5"})
    runner.enqueue("")
    runner.run(6, stop_on_finish=False)
    runner.assert_transfer_count("success", 3)
    runner.assert_transfer_count("failure", 0)  # held behind "1", in queue order
    runner.clear_transfer_state()
    runner.advance_time(1.1)
    runner.run(3)
    runner.assert_transfer_count("success", 1)
    runner.assert_transfer_count("failure", 2)


def test_overshoot_penalizes_the_throttle(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner, **{CRITERIA: "data rate", "Maximum Rate": "10 B", "Time Duration": "10 sec"}
    )
    runner.enqueue("x" * 15)  # 50% over: 5 more seconds of penalty after the window
    runner.enqueue("y")
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("success", 1)
    runner.advance_time(11)
    runner.run(1, stop_on_finish=False)  # the penalty starts now
    runner.assert_transfer_count("success", 1)
    runner.advance_time(4)
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("success", 1)
    runner.advance_time(1.5)
    runner.run(1)
    runner.assert_transfer_count("success", 2)


def test_data_or_flowfile_count(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        **{
            CRITERIA: "data rate or flowfile count",
            "Maximum Data Rate": "20 B",
            "Maximum FlowFile Rate": "5",
            "Time Duration": "1 s",
        },
    )
    for i in range(3):
        runner.enqueue(f"testdata {i}")  # 10 bytes each: limited by bytes
    runner.run(3)
    runner.assert_transfer_count("success", 2)

    runner = _runner(
        make_runner,
        **{
            CRITERIA: "data rate or flowfile count",
            "Maximum Data Rate": "1 MB",
            "Maximum FlowFile Rate": "2",
            "Time Duration": "1 s",
        },
    )
    for i in range(3):
        runner.enqueue(f"t{i}")  # limited by count
    runner.run(3)
    runner.assert_transfer_count("success", 2)


def test_validation(make_runner: RunnerFactory) -> None:
    _runner(make_runner).assert_not_valid()  # no Maximum Rate
    _runner(make_runner, **{"Maximum Rate": "20 MB"}).assert_valid()
    _runner(make_runner, **{CRITERIA: "flowfile count", "Maximum Rate": "2 MB"}).assert_not_valid()
    _runner(make_runner, **{CRITERIA: "attribute value", "Maximum Rate": "2"}).assert_not_valid()
    _runner(
        make_runner, **{CRITERIA: "data rate or flowfile count", "Maximum Data Rate": "1 MB"}
    ).assert_not_valid()
    names = [
        str(r)
        for r in _runner(make_runner).processor.get_relationships(
            {"Rate Exceeded Strategy": "Route to 'rate exceeded'"}
        )
    ]
    assert names == ["success", "failure", "rate exceeded"]
