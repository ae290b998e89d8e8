"""EnforceOrder through the TestRunner on a manual clock: one test per rule of Part B."""

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
    parse_java_int,
)

RELATIONSHIPS = ("success", "wait", "overtook", "skipped", "failure")


@pytest.fixture
def runner() -> Iterator[TestRunner]:
    with TestRunner("EnforceOrder") as r:
        r.set_property("Group Identifier", "${fragment.identifier}")
        r.set_property("Order Attribute", "index")
        yield r


def put(runner: TestRunner, group: str | None, index: str | int | None, **extra: str) -> None:
    attributes = dict(extra)
    if group is not None:
        attributes["fragment.identifier"] = group
    if index is not None:
        attributes["index"] = str(index)
    runner.enqueue(f"{group}.{index}", attributes)


def content(flowfiles: list[MockFlowFile]) -> list[str]:
    return [f.content.decode() for f in flowfiles]


def out(runner: TestRunner, relationship: str) -> list[MockFlowFile]:
    return runner.get_flowfiles_for_relationship(relationship)


def counts(runner: TestRunner) -> dict[str, int]:
    return {rel: len(out(runner, rel)) for rel in RELATIONSHIPS}


def requeue_wait(runner: TestRunner) -> None:
    """Loop ``wait`` back into the processor (content and attributes)."""
    waiting = out(runner, "wait")
    runner.clear_transfer_state()
    for flowfile in waiting:
        attributes = {k: v for k, v in flowfile.attributes.items() if k != "uuid"}
        runner.enqueue(flowfile.content, attributes)


# -- configuration ---------------------------------------------------------------------------


def test_properties_defaults_and_relationships() -> None:
    with TestRunner("EnforceOrder") as r:
        assert r.validation_errors() == [
            "'Order Attribute' is invalid because Order Attribute is required"
        ]
        r.set_property("Order Attribute", "index")
        r.assert_valid()
        descriptors = {d.display_name: d for d in r.processor.property_descriptors}
        assert list(descriptors) == [
            "Group Identifier",
            "Order Attribute",
            "Initial Order",
            "Maximum Order",
            "Batch Count",
            "Wait Timeout",
            "Inactive Timeout",
        ]
        assert descriptors["Group Identifier"].default == "${filename}"
        assert descriptors["Initial Order"].default == "0"
        assert descriptors["Maximum Order"].default is None
        assert descriptors["Batch Count"].default == "1000"
        assert descriptors["Wait Timeout"].default == "10 min"
        assert descriptors["Inactive Timeout"].default == "30 min"
        assert [rel.name for rel in r.processor.relationships] == list(RELATIONSHIPS)
        assert r.processor.scheduling.trigger_serially


@pytest.mark.parametrize(
    ("wait", "inactive", "valid"),
    [("10 min", "10 min", False), ("10 min", "9 min", False), ("10 min", "601 sec", True)],
)
def test_inactive_timeout_must_be_longer_than_wait(wait: str, inactive: str, valid: bool) -> None:
    with TestRunner("EnforceOrder") as r:
        r.set_property("Order Attribute", "index")
        r.set_property("Wait Timeout", wait)
        r.set_property("Inactive Timeout", inactive)
        if valid:
            r.assert_valid()
        else:
            assert r.validation_errors() == [
                f"'Inactive Timeout' validated against '{inactive}' is invalid because "
                "Inactive Timeout should be longer than Wait Timeout"
            ]


def test_literal_property_validation(runner: TestRunner) -> None:
    runner.set_property("Initial Order", "-1")
    runner.set_property("Maximum Order", "0")
    runner.set_property("Batch Count", "0")
    errors = runner.validation_errors()
    assert any(e.startswith("'Initial Order' validated against '-1' is invalid") for e in errors)
    assert any(e.startswith("'Maximum Order' validated against '0' is invalid") for e in errors)
    assert any(e.startswith("'Batch Count' validated against '0' is invalid") for e in errors)
    # With Expression Language the literal checks are skipped.
    runner.set_property("Initial Order", "${initial}")
    runner.set_property("Maximum Order", "${max}")
    runner.set_property("Batch Count", "5")
    runner.assert_valid()


def test_java_int_parsing() -> None:
    assert parse_java_int("+7") == 7
    assert parse_java_int("-2147483648") == -(2**31)
    for bad in (" 1", "1.0", "", "2147483648", "1_0", "+"):
        with pytest.raises(ValueError, match="For input string"):
            parse_java_int(bad)
    with pytest.raises(ValueError, match=r"^Cannot parse null string"):
        parse_java_int(None)


# -- routing -----------------------------------------------------------------------------------


def test_sort_across_groups_in_java_string_order(runner: TestRunner) -> None:
    for group, index in [("b", 1), ("a", 2), ("b", 0), ("a", 0), ("a", 1), ("B", 0)]:
        put(runner, group, index)
    runner.run()
    # "B" < "a" < "b" in Java String order; inside a group by order.
    assert content(out(runner, "success")) == ["B.0", "a.0", "a.1", "a.2", "b.0", "b.1"]
    assert all(f.attributes[ATTR_RESULT] == "success" for f in out(runner, "success"))
    now = str(runner.clock.now_ms())
    assert all(f.attributes[ATTR_STARTED_AT] == now for f in out(runner, "success"))
    assert runner.state["a.target"] == "3"
    assert runner.state["b.target"] == "2"
    assert runner.state["B.target"] == "1"
    assert runner.state["a.updatedAt"] == now


def test_groups_sort_by_utf16_code_units(runner: TestRunner) -> None:
    # U+FF21 (a BMP char above the surrogates) sorts after U+1F600 in Java.
    for group in ["\uff21", "\U0001f600", "10", "9"]:
        put(runner, group, 0)
    runner.run()
    assert content(out(runner, "success")) == ["10.0", "9.0", "\U0001f600.0", "\uff21.0"]


def test_duplicates_keep_queue_order_and_skip(runner: TestRunner) -> None:
    put(runner, "a", 1, tag="first")
    put(runner, "a", 0)
    put(runner, "a", 1, tag="second")
    runner.run()
    success = out(runner, "success")
    assert [f.attributes.get("tag") for f in success] == [None, "first"]
    skipped = out(runner, "skipped")
    assert [f.attributes["tag"] for f in skipped] == ["second"]
    assert skipped[0].attributes[ATTR_EXPECTED_ORDER] == "2"
    assert skipped[0].attributes[ATTR_DETAIL] == (
        "Skipped, FlowFile order was 1 but current target is 2"
    )
    assert skipped[0].attributes[ATTR_RESULT] == "skipped"


def test_missing_group_id_fails_without_started_at(runner: TestRunner) -> None:
    put(runner, None, 0)
    put(runner, "  ", 0)
    put(runner, None, 0, **{ATTR_STARTED_AT: "123"})
    runner.run()
    failed = out(runner, "failure")
    assert len(failed) == 3
    for flowfile in failed:
        assert flowfile.attributes[ATTR_DETAIL] == "Failed to get Group Identifier."
        assert flowfile.attributes[ATTR_RESULT] == "failure"
    assert ATTR_STARTED_AT not in failed[0].attributes
    assert failed[2].attributes[ATTR_STARTED_AT] == "123"  # an existing value is kept
    assert runner.state == {}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("non-integer", 'For input string: "non-integer"'),
        ("1.5", 'For input string: "1.5"'),
        (" 1", 'For input string: " 1"'),
        ("2147483648", 'For input string: "2147483648"'),
        (None, "Cannot parse null string"),
    ],
)
def test_illegal_order_values(runner: TestRunner, value: str | None, message: str) -> None:
    put(runner, "a", value)
    put(runner, "a", "+0")
    runner.run()
    failed = out(runner, "failure")
    assert len(failed) == 1
    assert (
        failed[0]
        .attributes[ATTR_DETAIL]
        .startswith(
            f"Failed to parse order attribute due to java.lang.NumberFormatException: {message}"
        )
    )
    assert content(out(runner, "success")) == ["a.+0"]


def test_failures_come_first_in_queue_order(runner: TestRunner) -> None:
    put(runner, "a", 0)
    put(runner, "a", "x")
    put(runner, None, 0)
    runner.run()
    assert content(out(runner, "failure")) == ["a.x", "None.0"]


def test_initial_order_literal(runner: TestRunner) -> None:
    runner.set_property("Initial Order", "2")
    for index in (3, 2, 1):
        put(runner, "a", index)
    runner.run()
    assert content(out(runner, "success")) == ["a.2", "a.3"]
    assert content(out(runner, "skipped")) == ["a.1"]
    assert runner.state["a.target"] == "4"


def test_initial_order_el_fails_then_succeeds(runner: TestRunner) -> None:
    runner.set_property("Initial Order", "${initial}")
    put(runner, "a", 1)  # no "initial" attribute: evaluates to ""
    put(runner, "a", 1, initial="x")
    put(runner, "a", 2, initial="1")  # the first valid one initialises the group
    put(runner, "a", 1, initial="0")  # evaluated only while the group has no target
    runner.run()
    failed = out(runner, "failure")
    assert [f.attributes[ATTR_DETAIL] for f in failed] == [
        "Failed to get Initial Order for Group [a] due to java.lang.NumberFormatException: "
        'For input string: ""',
        "Failed to get Initial Order for Group [a] due to java.lang.NumberFormatException: "
        'For input string: "x"',
    ]
    assert content(out(runner, "success")) == ["a.1", "a.2"]
    assert runner.state["a.target"] == "3"


def test_initial_order_el_may_be_negative(runner: TestRunner) -> None:
    runner.set_property("Initial Order", "${initial}")
    put(runner, "a", -1, initial="-1")
    runner.run()
    assert content(out(runner, "success")) == ["a.-1"]
    assert runner.state["a.target"] == "0"


def test_maximum_order(runner: TestRunner) -> None:
    runner.set_property("Maximum Order", "2")
    for index in (3, 2, 0, 1, 2):
        put(runner, "a", index)
    runner.run()
    assert [f.attributes[ATTR_DETAIL] for f in out(runner, "failure")] == [
        "Order (3) is greater than the Maximum Order (2) for Group [a]"
    ]
    # The target stays at the maximum, so a duplicate of the max order also succeeds.
    assert content(out(runner, "success")) == ["a.0", "a.1", "a.2", "a.2"]
    assert runner.state["a.target"] == "2"
    assert runner.state["a.max"] == "2"


def test_failed_max_order_has_already_initialised_the_target(runner: TestRunner) -> None:
    runner.set_property("Maximum Order", "1")
    put(runner, "a", 5)
    runner.run()
    runner.assert_transfer_count("failure", 1)
    assert runner.state == {
        "a.target": "0",
        "a.updatedAt": str(runner.clock.now_ms()),
        "a.max": "1",
    }


def test_maximum_order_el_stores_empty_and_non_numeric(runner: TestRunner) -> None:
    runner.set_property("Maximum Order", "${max}")
    put(runner, "a", 0)  # no "max": the empty result is stored
    put(runner, "a", 1, max="5")  # not evaluated again: fails too
    put(runner, "b", 0, max="X")
    put(runner, "b", 1, max="5")
    put(runner, "c", 0, max="1")
    runner.run()
    details = [f.attributes[ATTR_DETAIL] for f in out(runner, "failure")]
    assert details == [
        "Maximum Order was specified but result was empty.",
        "Maximum Order was specified but result was empty.",
        "Failed to get Maximum Order for group [b] due to java.lang.NumberFormatException: "
        'For input string: "X"',
        "Failed to get Maximum Order for group [b] due to java.lang.NumberFormatException: "
        'For input string: "X"',
    ]
    assert runner.state["a.max"] == ""
    assert runner.state["b.max"] == "X"
    assert content(out(runner, "success")) == ["c.0"]


def test_stored_empty_max_fails_until_cleanup(runner: TestRunner) -> None:
    runner.set_property("Maximum Order", "${max}")
    runner.set_property("Wait Timeout", "1 min")
    runner.set_property("Inactive Timeout", "2 min")
    now = runner.clock.now_ms()
    runner.set_state({"a.target": "0", "a.updatedAt": str(now), "a.max": ""})
    put(runner, "a", 0, max="3")
    runner.run()
    runner.assert_transfer_count("failure", 1)
    runner.clear_transfer_state()
    runner.advance_time(121)
    put(runner, "a", 0, max="3")
    runner.run()
    # Clean-up runs after routing: this one still fails, then the group is removed.
    runner.assert_transfer_count("failure", 1)
    assert runner.state == {}
    runner.clear_transfer_state()
    put(runner, "a", 0, max="3")
    runner.run()
    assert content(out(runner, "success")) == ["a.0"]
    assert runner.state["a.max"] == "3"


def test_wait_then_overtook_then_skipped(runner: TestRunner) -> None:
    runner.set_property("Wait Timeout", "10 sec")
    runner.set_property("Inactive Timeout", "1 min")
    start = runner.clock.now_ms()
    put(runner, "a", 2)
    put(runner, "a", 3)
    runner.run()
    waiting = out(runner, "wait")
    assert content(waiting) == ["a.2", "a.3"]
    assert all(f.attributes[ATTR_EXPECTED_ORDER] == "0" for f in waiting)
    assert all(f.attributes[ATTR_STARTED_AT] == str(start) for f in waiting)
    assert all(ATTR_DETAIL not in f.attributes for f in waiting)
    # Exactly at the timeout they still wait (strictly greater is needed).
    runner.advance_time(10)
    requeue_wait(runner)
    runner.run()
    assert content(out(runner, "wait")) == ["a.2", "a.3"]
    assert all(f.attributes[ATTR_STARTED_AT] == str(start) for f in out(runner, "wait"))
    assert runner.state["a.updatedAt"] == str(start)  # waiting does not refresh it
    runner.advance_time(0.001)
    requeue_wait(runner)
    runner.run()
    overtook = out(runner, "overtook")
    assert content(overtook) == ["a.2"]
    assert overtook[0].attributes[ATTR_EXPECTED_ORDER] == "0"
    assert overtook[0].attributes[ATTR_RESULT] == "overtook"
    assert content(out(runner, "success")) == ["a.3"]
    assert runner.state["a.target"] == "4"
    assert runner.state["a.updatedAt"] == str(runner.clock.now_ms())
    runner.clear_transfer_state()
    put(runner, "a", 1)  # arrived too late
    runner.run()
    skipped = out(runner, "skipped")
    assert skipped[0].attributes[ATTR_DETAIL] == (
        "Skipped, FlowFile order was 1 but current target is 4"
    )


def test_overtaking_max_sets_target_to_max(runner: TestRunner) -> None:
    runner.set_property("Maximum Order", "5")
    runner.set_property("Wait Timeout", "1 sec")
    runner.set_property("Inactive Timeout", "1 min")
    put(runner, "a", 5)
    runner.run()
    runner.advance_time(2)
    requeue_wait(runner)
    put(runner, "a", 5)
    runner.run()
    assert content(out(runner, "overtook")) == ["a.5"]
    assert content(out(runner, "success")) == ["a.5"]  # the duplicate of max succeeds
    assert runner.state["a.target"] == "5"


def test_inactive_group_cleanup(runner: TestRunner) -> None:
    runner.set_property("Wait Timeout", "1 min")
    runner.set_property("Inactive Timeout", "2 min")
    put(runner, "a", 0)
    put(runner, "b", 5)
    runner.run()
    assert set(runner.state) == {"a.target", "a.updatedAt", "b.target", "b.updatedAt"}
    # A trigger with no input touches nothing.
    runner.advance_time(500)
    runner.run()
    assert set(runner.state) == {"a.target", "a.updatedAt", "b.target", "b.updatedAt"}
    # Exactly at the timeout the group survives; one ms later it is removed.
    runner.clear_transfer_state()
    runner.set_state({**runner.state, "a.updatedAt": str(runner.clock.now_ms() - 120_000)})
    put(runner, "c", 0)
    runner.run()
    assert "a.target" in runner.state
    assert "b.target" not in runner.state  # b's updatedAt was 500 s ago
    runner.advance_time(0.001)
    put(runner, "c", 1)
    runner.run()
    assert set(runner.state) == {"c.target", "c.updatedAt"}
    # A cleaned-up group is brand new: initial order again.
    runner.clear_transfer_state()
    put(runner, "a", 0)
    runner.run()
    assert content(out(runner, "success")) == ["a.0"]


def test_cleaned_up_group_in_same_trigger_survives_when_active(runner: TestRunner) -> None:
    runner.set_property("Wait Timeout", "1 min")
    runner.set_property("Inactive Timeout", "2 min")
    put(runner, "a", 0)
    runner.run()
    runner.advance_time(121)
    put(runner, "a", 1)  # advances the target: updatedAt = now, survives
    put(runner, "b", 3)
    runner.run()
    assert runner.state["a.target"] == "2"
    runner.advance_time(121)
    put(runner, "a", 5)  # wait only: does not refresh updatedAt, group removed
    runner.run()
    assert content(out(runner, "wait"))[-1] == "a.5"
    assert "a.target" not in runner.state


def test_attributes_cleared_on_later_passes(runner: TestRunner) -> None:
    runner.set_property("Maximum Order", "${max}")
    put(runner, "a", 1, max="9", **{ATTR_DETAIL: "stale detail"})
    runner.run()
    waiting = out(runner, "wait")[0]
    assert ATTR_DETAIL not in waiting.attributes
    assert waiting.attributes[ATTR_EXPECTED_ORDER] == "0"
    requeue_wait(runner)
    put(runner, "a", 0)
    runner.run()
    success = out(runner, "success")
    assert content(success) == ["a.0", "a.1"]
    assert ATTR_EXPECTED_ORDER not in success[1].attributes
    assert ATTR_DETAIL not in success[1].attributes
    assert success[1].attributes[ATTR_RESULT] == "success"
    # failure removes expectedOrder and sets detail
    runner.clear_transfer_state()
    put(runner, "a", 10, **{ATTR_EXPECTED_ORDER: "3"})
    runner.run()
    failed = out(runner, "failure")[0]
    assert ATTR_EXPECTED_ORDER not in failed.attributes
    assert failed.attributes[ATTR_RESULT] == "failure"


def test_batch_count_limits_a_trigger(runner: TestRunner) -> None:
    runner.set_property("Batch Count", "2")
    put(runner, "a", 1)
    put(runner, "a", 2)
    put(runner, "a", 0)
    runner.run()
    assert counts(runner) == {"success": 0, "wait": 2, "overtook": 0, "skipped": 0, "failure": 0}
    assert runner.queue_size == 1


def test_non_numeric_started_at_rolls_back(runner: TestRunner) -> None:
    put(runner, "a", 1, **{ATTR_STARTED_AT: "yesterday"})
    with pytest.raises(ValueError, match="yesterday"):
        runner.run()
    assert runner.queue_size == 1
    assert runner.state == {}


def test_no_input_no_state_change(runner: TestRunner) -> None:
    runner.set_state({"a.target": "3", "a.updatedAt": "0"})
    runner.run()
    assert runner.state == {"a.target": "3", "a.updatedAt": "0"}


def test_no_provenance_events_but_transfers(runner: TestRunner) -> None:
    put(runner, "a", 0)
    runner.run()
    types = {e.event_type for e in runner.get_provenance_events()}
    assert types <= {"ATTRIBUTES_MODIFIED"}
