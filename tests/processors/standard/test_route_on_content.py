"""RouteOnContent: NiFi's TestRouteOnContent scenarios and more through the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
HELLO = "Hello, World!"
CONTAINS = "content must contain match"


def test_cloning(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "RouteOnContent",
        properties={"Match Requirement": CONTAINS, "hello": "Hello", "world": "World"},
    )
    original = runner.enqueue(HELLO)
    runner.run()
    runner.assert_transfer_count("hello", 1)
    runner.assert_transfer_count("world", 1)
    runner.assert_transfer_count("unmatched", 0)
    [hello] = runner.get_flowfiles_for_relationship("hello")
    assert hello.uuid == original.uuid
    hello.assert_attribute_equals("RouteOnContent.Route", "hello")
    runner.get_flowfiles_for_relationship("world")[0].assert_attribute_equals(
        "RouteOnContent.Route", "world"
    )
    routes = [
        e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.ROUTE
    ]
    assert len(routes) == 2


def test_substitute_attributes_quoted(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "RouteOnContent", properties={"Match Requirement": CONTAINS, "attr": "Hel${highLow}"}
    )
    runner.enqueue(HELLO, {"highLow": "lo"})
    runner.enqueue(HELLO, {"highLow": ".*"})  # quoted: a literal ".*", no match
    runner.run(2)
    runner.assert_transfer_count("attr", 1)
    runner.assert_transfer_count("unmatched", 1)


def test_buffer_size_and_exact_match(make_runner: RunnerFactory) -> None:
    runner = make_runner("RouteOnContent", properties={"Content Buffer Size": "3 B", "rel": "Hel"})
    runner.enqueue(HELLO)
    runner.run()
    runner.assert_all_flowfiles_transferred("rel", 1)

    runner = make_runner("RouteOnContent", properties={"rel": "Hel"})
    runner.enqueue(HELLO)
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("unmatched")
    out.assert_attribute_equals("RouteOnContent.Route", "unmatched")


def test_relationships_and_validation(make_runner: RunnerFactory) -> None:
    runner = make_runner("RouteOnContent", properties={"bad": "("})
    runner.assert_not_valid()
    runner = make_runner("RouteOnContent", properties={"unmatched": "x"})
    runner.assert_not_valid()
