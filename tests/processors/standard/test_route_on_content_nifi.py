"""NiFi's own route_on_content tests, ported to the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.testing import TestRunner
from tests.processors.standard.nifi_resources import resource

RunnerFactory = Callable[..., TestRunner]
HELLO = resource("hello.txt")
MATCH_SUBSEQUENCE = "content must contain match"
MATCH_ALL = "content must match exactly"


def test_nifi_cloning(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteOnContent.testCloning."""
    runner = make_runner("RouteOnContent")
    runner.set_property("Match Requirement", MATCH_SUBSEQUENCE)
    runner.set_property("hello", "Hello")
    runner.set_property("world", "World")
    runner.enqueue(HELLO, {"filename": "hello.txt"})
    runner.run()
    runner.assert_transfer_count("hello", 1)
    runner.assert_transfer_count("world", 1)
    runner.assert_transfer_count("unmatched", 0)


def test_nifi_substitute_attributes(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteOnContent.testSubstituteAttributes."""
    runner = make_runner("RouteOnContent")
    runner.set_property("Match Requirement", MATCH_SUBSEQUENCE)
    runner.set_property("attr", "Hel${highLow}")
    runner.enqueue(HELLO, {"filename": "hello.txt", "highLow": "lo"})
    runner.run()
    runner.assert_all_flowfiles_transferred("attr", 1)


def test_nifi_buffer_size(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteOnContent.testBufferSize."""
    runner = make_runner("RouteOnContent")
    runner.set_property("Match Requirement", MATCH_ALL)
    runner.set_property("Content Buffer Size", "3 B")
    runner.set_property("rel", "Hel")
    runner.enqueue(HELLO, {"filename": "hello.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("rel", 1)
