"""NiFi's own route_on_attribute tests, ported to the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


def test_nifi_invalid_on_misconfigured_property(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteOnAttribute.testInvalidOnMisconfiguredProperty."""
    runner = make_runner("RouteOnAttribute")
    runner.set_property("RouteA", "${a:equals('b')")  # Missing closing brace
    assert any("RouteA" in error for error in runner.validation_errors())


def test_nifi_invalid_on_non_boolean_property(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteOnAttribute.testInvalidOnNonBooleanProperty."""
    runner = make_runner("RouteOnAttribute")
    runner.set_property("RouteA", "${a:length()")  # Should be boolean
    assert any("RouteA" in error for error in runner.validation_errors())
    runner.set_property("RouteA", "${a:length()}")  # complete, but not a boolean
    assert any("RouteA" in error for error in runner.validation_errors())


def test_nifi_simple_equals(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteOnAttribute.testSimpleEquals."""
    runner = make_runner("RouteOnAttribute")
    runner.set_property("RouteA", "${a:equals('b')}")
    attributes: dict[str, str] = {}
    attributes["a"] = "b"
    runner.enqueue(b"", attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred("RouteA", 1)
    flow_files = runner.get_flowfiles_for_relationship("RouteA")
    flow_files[0].assert_attribute_equals("a", "b")
    flow_files[0].assert_attribute_equals("RouteOnAttribute.Route", "RouteA")


def test_nifi_match_all(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteOnAttribute.testMatchAll."""
    runner = make_runner("RouteOnAttribute")
    runner.set_property("Routing Strategy", "Route to 'match' if all match")
    runner.set_property("RouteA", "${a:equals('b')}")
    runner.set_property("RouteB", "${b:equals('a')}")
    attributes: dict[str, str] = {}
    attributes["a"] = "b"
    attributes["b"] = "a"
    runner.enqueue(b"", attributes)
    attributes["b"] = "b"
    runner.enqueue(b"", attributes)
    attributes["a"] = "a"
    attributes["b"] = "b"
    runner.enqueue(b"", attributes)
    runner.enqueue(b"")
    runner.run(4)
    match = runner.get_flowfiles_for_relationship("matched")
    no_match = runner.get_flowfiles_for_relationship("unmatched")
    assert len(match) == 1
    assert len(no_match) == 3
    for ff in no_match:
        ff.assert_attribute_equals("RouteOnAttribute.Route", "unmatched")
    matched_attrs = match[0].attributes
    assert matched_attrs.get("a") == "b"
    assert matched_attrs.get("b") == "a"
    assert matched_attrs.get("RouteOnAttribute.Route") == "matched"


def test_nifi_match_any(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteOnAttribute.testMatchAny."""
    runner = make_runner("RouteOnAttribute")
    runner.set_thread_count(4)
    runner.set_property("Routing Strategy", "Route to 'match' if any matches")
    runner.set_property("RouteA", "${a:equals('b')}")
    runner.set_property("RouteB", "${b:equals('a')}")
    attributes: dict[str, str] = {}
    attributes["a"] = "b"
    attributes["b"] = "a"
    runner.enqueue(b"", attributes)
    attributes["b"] = "b"
    runner.enqueue(b"", attributes)
    attributes["a"] = "a"
    attributes["b"] = "b"
    runner.enqueue(b"", attributes)
    runner.enqueue(b"")
    runner.run(4)
    match = runner.get_flowfiles_for_relationship("matched")
    no_match = runner.get_flowfiles_for_relationship("unmatched")
    assert len(match) == 2
    assert len(no_match) == 2
    # Get attributes for both matching FlowFiles
    attrs1 = match[0].attributes
    attrs2 = match[1].attributes
    # Both matches should map a -> b
    assert attrs1.get("a") == "b"
    assert attrs1.get("a") == "b"
    # One of the FlowFiles should map  b -> a, the other b -> b, but we
    # can't know which order they'll come out in (4 threads): either way is acceptable.
    if attrs1.get("b") == "a":
        assert attrs2.get("b") == "b"
    else:
        assert attrs1.get("b") == "b"
        assert attrs2.get("b") == "a"
    runner.clear_transfer_state()
