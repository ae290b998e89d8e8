"""NiFi's TestEnforceOrder scenarios, through the TestRunner on a manual clock.

Each test follows one scenario of NiFi's own test class (same inputs, same expected
routing, attributes and state); where NiFi sleeps to let a timeout pass, the clock is
advanced instead. ``wait`` goes to a capture queue here, and waiting FlowFiles are fed
back by hand as NiFi's test does.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import processors.ordering  # noqa: F401  (registers the types)
from flowcore.testing import TestRunner
from flowcore.testing.mock_flowfile import MockFlowFile
from processors.ordering.enforce_order import (
    ATTR_DETAIL,
    ATTR_EXPECTED_ORDER,
    ATTR_RESULT,
    ATTR_STARTED_AT,
)


@pytest.fixture
def runner() -> Iterator[TestRunner]:
    with TestRunner("EnforceOrder") as r:
        r.set_property("Group Identifier", "${group}")
        r.set_property("Order Attribute", "index")
        yield r


def add(runner: TestRunner, group: str, index: int, **extra: str) -> None:
    runner.enqueue(f"{group}.{index}", {"group": group, "index": str(index), **extra})


def texts(flowfiles: list[MockFlowFile]) -> list[str]:
    return [f.content.decode() for f in flowfiles]


def got(runner: TestRunner, relationship: str) -> list[MockFlowFile]:
    return runner.get_flowfiles_for_relationship(relationship)


def feed_back(runner: TestRunner, flowfiles: list[MockFlowFile]) -> None:
    for flowfile in flowfiles:
        attributes = {k: v for k, v in flowfile.attributes.items() if k != "uuid"}
        runner.enqueue(flowfile.content, attributes)


def test_property_validation() -> None:
    with TestRunner("EnforceOrder") as r:
        r.assert_not_valid()  # Order Attribute has no default
        r.set_property("Order Attribute", "index")
        r.assert_valid()
        r.set_property("Wait Timeout", "30 sec")
        for inactive, valid in (("29 sec", False), ("30 sec", False), ("31 sec", True)):
            r.set_property("Inactive Timeout", inactive)
            assert r.is_valid() is valid, inactive


def test_sort(runner: TestRunner) -> None:
    add(runner, "b", 0)
    add(runner, "a", 1)
    add(runner, "a", 0)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 3)
    assert texts(got(runner, "success")) == ["a.0", "a.1", "b.0"]


def test_duplicated_order(runner: TestRunner) -> None:
    runner.set_property("Initial Order", "1")
    for group, index in (("b", 1), ("a", 2), ("a", 1), ("a", 2), ("a", 3)):
        add(runner, group, index)
    runner.run()
    assert texts(got(runner, "success")) == ["a.1", "a.2", "a.3", "b.1"]
    skipped = got(runner, "skipped")
    assert texts(skipped) == ["a.2"]
    assert skipped[0].attributes[ATTR_EXPECTED_ORDER] == "3"


def test_no_group_identifier(runner: TestRunner) -> None:
    runner.set_property("Initial Order", "1")
    add(runner, "b", 1)
    add(runner, "a", 2)
    runner.enqueue("no group id", {"index": "1"})
    add(runner, "a", 1)
    runner.run()
    assert texts(got(runner, "success")) == ["a.1", "a.2", "b.1"]
    failed = got(runner, "failure")
    assert texts(failed) == ["no group id"]
    assert ATTR_DETAIL in failed[0].attributes


def test_illegal_order_value(runner: TestRunner) -> None:
    runner.set_property("Initial Order", "1")
    add(runner, "b", 1)
    add(runner, "a", 2)
    runner.enqueue("illegal order", {"group": "a", "index": "non-integer"})
    add(runner, "a", 1)
    runner.run()
    assert texts(got(runner, "success")) == ["a.1", "a.2", "b.1"]
    failed = got(runner, "failure")
    assert texts(failed) == ["illegal order"]
    assert ATTR_DETAIL in failed[0].attributes


def test_initial_order_value(runner: TestRunner) -> None:
    runner.set_property("Initial Order", "${index.start}")
    runner.set_property("Maximum Order", "${index.max}")
    runner.assert_valid()
    runner.enqueue("b.0", {"group": "b", "index": "0", "index.start": "0", "index.max": "99"})
    for index in (100, 101):
        runner.enqueue(
            f"a.{index}",
            {"group": "a", "index": str(index), "index.start": "100", "index.max": "103"},
        )
    runner.enqueue("illegal initial order", {"group": "c", "index": "1", "index.start": "x"})
    runner.enqueue("without initial order", {"group": "d", "index": "1"})
    add(runner, "b", 1)  # b's target is already known from b.0
    runner.run()
    assert texts(got(runner, "success")) == ["a.100", "a.101", "b.0", "b.1"]
    failed = got(runner, "failure")
    assert texts(failed) == ["illegal initial order", "without initial order"]
    assert all(ATTR_DETAIL in f.attributes for f in failed)
    state = runner.state
    assert (state["a.target"], state["a.max"]) == ("102", "103")
    assert (state["b.target"], state["b.max"]) == ("2", "99")


def test_max_order(runner: TestRunner) -> None:
    runner.set_property("Group Identifier", "${fragment.identifier}")
    runner.set_property("Initial Order", "1")
    runner.set_property("Maximum Order", "${fragment.count}")
    runner.enqueue("b.1", {"index": "1", "fragment.identifier": "b", "fragment.count": "3"})
    runner.enqueue("a.2", {"index": "2", "fragment.identifier": "a", "fragment.count": "2"})
    runner.enqueue("without max order", {"index": "1", "fragment.identifier": "c"})
    runner.enqueue(
        "illegal max order", {"index": "1", "fragment.identifier": "d", "fragment.count": "X"}
    )
    runner.enqueue("a.1", {"index": "1", "fragment.identifier": "a", "fragment.count": "2"})
    runner.enqueue("a.3", {"index": "3", "fragment.identifier": "a", "fragment.count": "2"})
    runner.run()
    assert texts(got(runner, "success")) == ["a.1", "a.2", "b.1"]
    assert texts(got(runner, "failure")) == ["without max order", "illegal max order", "a.3"]
    assert (runner.state["a.target"], runner.state["a.max"]) == ("2", "2")


def test_wait_overtake_skip(runner: TestRunner) -> None:
    runner.set_property("Initial Order", "1")
    runner.set_property("Maximum Order", "10")
    for group, index in (("b", 1), ("a", 2), ("a", 1), ("a", 5), ("b", 3), ("c", 9), ("d", 10)):
        add(runner, group, index)
    runner.run()
    assert texts(got(runner, "success")) == ["a.1", "a.2", "b.1"]
    waiting = got(runner, "wait")
    assert texts(waiting) == ["a.5", "b.3", "c.9", "d.10"]
    assert all(ATTR_STARTED_AT in f.attributes for f in waiting)
    state = runner.state
    assert [state[f"{g}.target"] for g in "abcd"] == ["3", "2", "1", "1"]
    assert all(f"{g}.updatedAt" in state for g in "abcd")

    # Round the loop again: they all wait.
    runner.clear_transfer_state()
    feed_back(runner, waiting)
    runner.run()
    runner.assert_all_flowfiles_transferred("wait", 4)
    waiting = got(runner, "wait")

    # A shorter Wait Timeout, and time passes: they overtake.
    runner.clear_transfer_state()
    runner.set_property("Wait Timeout", "10 ms")
    runner.advance_time(0.02)
    feed_back(runner, waiting)
    add(runner, "b", 2)  # arrived in time
    add(runner, "a", 6)  # a.3 and a.4 have not arrived
    runner.run()
    assert texts(got(runner, "success")) == ["a.6", "b.2", "b.3"]
    overtook = got(runner, "overtook")
    assert texts(overtook) == ["a.5", "c.9", "d.10"]
    assert [f.attributes[ATTR_EXPECTED_ORDER] for f in overtook] == ["3", "1", "1"]
    state = runner.state
    # c.9 overtook: 9 + 1; d.10 is the maximum: the target stays at it.
    assert [state[f"{g}.target"] for g in "abcd"] == ["7", "4", "10", "10"]

    # a.3 and a.4 arrive too late.
    runner.clear_transfer_state()
    add(runner, "a", 3)
    add(runner, "a", 4)
    runner.run()
    runner.assert_all_flowfiles_transferred("skipped", 2)
    skipped = got(runner, "skipped")
    assert texts(skipped) == ["a.3", "a.4"]
    assert all(ATTR_DETAIL in f.attributes for f in skipped)


def test_clean_inactive_groups(runner: TestRunner) -> None:
    runner.set_property("Initial Order", "1")
    for group, index in (("b", 1), ("a", 2), ("c", 1), ("a", 1)):
        add(runner, group, index)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 4)

    runner.clear_transfer_state()
    runner.set_property("Wait Timeout", "5 ms")
    runner.set_property("Inactive Timeout", "10 ms")
    runner.advance_time(0.015)
    add(runner, "a", 3)  # no b
    add(runner, "c", 2)
    runner.run()
    state = runner.state
    assert (state["a.target"], state["c.target"]) == ("4", "3")
    assert "a.updatedAt" in state and "c.updatedAt" in state
    assert "b.target" not in state and "b.updatedAt" not in state

    # b comes back: a brand new group, so b.2 waits for b.1 (and would overtake later).
    runner.clear_transfer_state()
    add(runner, "b", 2)
    runner.run()
    assert runner.state["b.target"] == "1"
    assert "b.updatedAt" in runner.state
    runner.assert_all_flowfiles_transferred("wait", 1)
    assert texts(got(runner, "wait")) == ["b.2"]


def test_clear_old_attributes(runner: TestRunner) -> None:
    runner.set_property("Initial Order", "1")
    add(runner, "a", 2)
    add(runner, "b", 1)
    runner.run()
    runner.assert_transfer_count("wait", 1)
    a2 = got(runner, "wait")[0]
    assert a2.attributes[ATTR_RESULT] == "wait"
    assert ATTR_STARTED_AT in a2.attributes
    assert ATTR_DETAIL not in a2.attributes
    assert a2.attributes[ATTR_EXPECTED_ORDER] == "1"
    runner.assert_transfer_count("success", 1)
    b1 = got(runner, "success")[0]
    assert b1.attributes[ATTR_RESULT] == "success"
    assert ATTR_STARTED_AT in b1.attributes
    assert ATTR_DETAIL not in b1.attributes and ATTR_EXPECTED_ORDER not in b1.attributes

    runner.clear_transfer_state()
    add(runner, "a", 1)
    feed_back(runner, [a2])
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 2)
    a1, a2 = got(runner, "success")
    assert texts([a1, a2]) == ["a.1", "a.2"]
    for flowfile in (a1, a2):
        assert flowfile.attributes[ATTR_RESULT] == "success"
        assert ATTR_STARTED_AT in flowfile.attributes
        assert ATTR_DETAIL not in flowfile.attributes
        assert ATTR_EXPECTED_ORDER not in flowfile.attributes  # cleared
