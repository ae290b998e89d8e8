"""RouteOnAttribute: relationships from properties, strategies, clones, ROUTE events."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.processor import Relationship
from flowcore.testing import TestRunner
from processors.standard.route_on_attribute import RouteOnAttribute

RunnerFactory = Callable[..., TestRunner]
ROUTE = "RouteOnAttribute.Route"


def _names(relationships: list[Relationship]) -> list[str]:
    return [str(r) for r in relationships]


def test_relationships_follow_the_strategy() -> None:
    processor = RouteOnAttribute()
    assert _names(processor.get_relationships({})) == ["unmatched"]
    assert _names(processor.get_relationships({"big": "${x:gt(1)}", "small": "true"})) == [
        "unmatched",
        "big",
        "small",
    ]
    assert _names(
        processor.get_relationships(
            {"Routing Strategy": "Route to 'matched' if any matches", "big": "x"}
        )
    ) == ["matched", "unmatched"]


def test_route_to_property_name(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "RouteOnAttribute", properties={"large": "${size:gt(100)}", "small": "${size:le(100)}"}
    )
    runner.assert_valid()
    big = runner.enqueue("", {"size": "500"})
    small = runner.enqueue("", {"size": "5"})
    other = runner.enqueue("", {})
    runner.run()

    [large_out] = runner.get_flowfiles_for_relationship("large")
    [small_out] = runner.get_flowfiles_for_relationship("small")
    [unmatched] = runner.get_flowfiles_for_relationship("unmatched")
    assert (large_out.uuid, small_out.uuid, unmatched.uuid) == (big.uuid, small.uuid, other.uuid)
    large_out.assert_attribute_equals(ROUTE, "large")
    small_out.assert_attribute_equals(ROUTE, "small")
    unmatched.assert_attribute_equals(ROUTE, "unmatched")

    routes = {
        (e.flowfile_uuid, e.relationship)
        for e in runner.get_provenance_events()
        if e.event_type == ProvenanceEventType.ROUTE
    }
    assert routes == {(big.uuid, "large"), (small.uuid, "small"), (other.uuid, "unmatched")}


def test_matching_several_properties_clones(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "RouteOnAttribute",
        properties={
            "a": "${x:contains('a')}",
            "b": "${x:contains('b')}",
            "c": "${x:contains('c')}",
        },
    )
    original = runner.enqueue("payload", {"x": "ab"})
    runner.run()
    [to_a] = runner.get_flowfiles_for_relationship("a")
    [to_b] = runner.get_flowfiles_for_relationship("b")
    runner.assert_transfer_count("c", 0)
    runner.assert_transfer_count("unmatched", 0)
    assert to_a.uuid == original.uuid  # the original goes to the first match
    assert to_b.uuid != original.uuid
    to_b.assert_content_equals("payload")
    assert to_b.flowfile.claim == original.flowfile.claim
    to_a.assert_attribute_equals(ROUTE, "a")
    to_b.assert_attribute_equals(ROUTE, "b")

    events = runner.get_provenance_events()
    clones = [e for e in events if e.event_type == ProvenanceEventType.CLONE]
    assert len(clones) == 1
    assert clones[0].parent_uuids == [original.uuid]
    assert clones[0].child_uuids == [to_b.uuid]
    routes = {
        (e.flowfile_uuid, e.relationship)
        for e in events
        if e.event_type == ProvenanceEventType.ROUTE
    }
    assert routes == {(to_a.uuid, "a"), (to_b.uuid, "b")}


def test_route_to_matched_if_all_match(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "RouteOnAttribute",
        properties={
            "Routing Strategy": "Route to 'matched' if all match",
            "red": "${color:equals('red')}",
            "big": "${size:gt(10)}",
        },
    )
    both = runner.enqueue("", {"color": "red", "size": "20"})
    one = runner.enqueue("", {"color": "red", "size": "2"})
    runner.run()
    [matched] = runner.get_flowfiles_for_relationship("matched")
    [unmatched] = runner.get_flowfiles_for_relationship("unmatched")
    assert (matched.uuid, unmatched.uuid) == (both.uuid, one.uuid)
    matched.assert_attribute_equals(ROUTE, "matched")
    unmatched.assert_attribute_equals(ROUTE, "unmatched")


def test_route_to_matched_if_any_matches(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "RouteOnAttribute",
        properties={
            "Routing Strategy": "Route to 'matched' if any matches",
            "red": "${color:equals('red')}",
            "big": "${size:gt(10)}",
        },
    )
    runner.enqueue("", {"color": "blue", "size": "20"})
    runner.enqueue("", {"color": "blue", "size": "2"})
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)


@pytest.mark.parametrize(
    ("strategy", "routed"),
    [
        ("Route to 'match' if all match", "unmatched"),
        ("Route to 'match' if any matches", "matched"),
        ("Route to 'matched' if all match", "unmatched"),
        ("Route to 'matched' if any matches", "matched"),
    ],
)
def test_nifi_stored_strategy_values(
    make_runner: RunnerFactory, strategy: str, routed: str
) -> None:
    """A NiFi flow stores the allowable value ('match'); the display name ('matched')
    is accepted too."""
    properties = {
        "Routing Strategy": strategy,
        "red": "${color:equals('red')}",
        "big": "${literal(false)}",
    }
    runner = make_runner("RouteOnAttribute", properties=properties)
    runner.assert_valid()
    assert _names(RouteOnAttribute().get_relationships(properties)) == ["matched", "unmatched"]
    runner.enqueue("", {"color": "red"})
    runner.run()
    runner.assert_all_flowfiles_transferred(routed, 1)


def test_literal_boolean_results(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "RouteOnAttribute",
        properties={"always": "${literal(true)}", "never": "${literal('yes'):equals('no')}"},
    )
    runner.enqueue("")
    runner.run()
    runner.assert_transfer_count("always", 1)
    runner.assert_transfer_count("never", 0)


def test_failing_expression_returns_only_that_flowfile(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "RouteOnAttribute",
        properties={"short": "${word:startsWith('abc'):or(${word:fromRadix(10):gt(0)})}"},
    )
    runner.enqueue("", {"word": "abcdef"})
    runner.enqueue("", {"word": "ab"})
    runner.run()
    runner.assert_transfer_count("short", 1)
    assert runner.queue_size == 1


def test_validation(make_runner: RunnerFactory) -> None:
    runner = make_runner("RouteOnAttribute", properties={"Routing Strategy": "Route somewhere"})
    assert runner.validation_errors() == [
        "'Routing Strategy' validated against 'Route somewhere' is invalid because Given value "
        "not found in allowed set 'Route to Property name, Route to 'match' if all match, "
        "Route to 'match' if any matches'"
    ]

    runner = make_runner("RouteOnAttribute", properties={"bad": "${x:nope()}"})
    assert runner.validation_errors() == [
        "'bad' validated against '${x:nope()}' is invalid because Unknown Expression Language "
        "function 'nope' at position 4"
    ]

    runner = make_runner("RouteOnAttribute", properties={"unmatched": "${literal(true)}"})
    assert runner.validation_errors() == [
        "'unmatched' validated against '${literal(true)}' is invalid because 'unmatched' is the "
        "name of a "
        "relationship the processor already has; choose another property name"
    ]


@pytest.mark.parametrize(
    ("rule", "reason"),
    [
        (
            "${filename:equals('a')",
            "No Expressions found: the '${' at position 0 is never closed",
        ),
        ("TRUE", "No Expressions found"),
        (
            "${literal('yes')}",
            "Expected Attribute Query to return type BOOLEAN but query returns type STRING",
        ),
        ("${a:isEmpty()}${b:isEmpty()}", "Found multiple Expressions but expected only 1"),
        (" ${a:isEmpty()}", "Found characters outside of Expression"),
    ],
)
def test_rule_must_be_one_boolean_expression(
    make_runner: RunnerFactory, rule: str, reason: str
) -> None:
    runner = make_runner("RouteOnAttribute", properties={"rule": rule})
    assert runner.validation_errors() == [
        f"'rule' validated against '{rule}' is invalid because {reason}"
    ]
