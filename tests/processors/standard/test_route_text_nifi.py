"""NiFi's own route_text tests, ported to the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.testing import TestRunner
from tests.processors.standard.nifi_resources import resource

RunnerFactory = Callable[..., TestRunner]


def count_lines(text: str) -> int:
    """Lines counted by the first kind of line separator found, as NiFi's test counts."""
    if not text:
        return 0
    for separator in ("\r\n", "\n", "\r"):
        if separator in text:
            return text.count(separator)
    return 1


def test_nifi_relationships(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testRelationships."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Starts With")
    runner.set_property("Routing Strategy", "Route to 'matched' if lines matches any condition")
    runner.set_property("simple", "start")
    runner.run()
    relationship_set = set(runner._node.relationship_names())
    expected_relationships = {"matched", "unmatched", "original"}
    assert len(relationship_set) == len(expected_relationships)
    assert relationship_set == expected_relationships

    runner.set_property("Routing Strategy", "Route to each matching Property Name")
    relationship_set = set(runner._node.relationship_names())
    expected_relationships = {"simple", "unmatched", "original"}
    assert len(relationship_set) == len(expected_relationships)
    assert relationship_set == expected_relationships

    runner.run()


def test_nifi_separation_strategy_not_known(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSeparationStrategyNotKnown."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Starts With")
    runner.assert_not_valid()


def test_nifi_not_text(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testNotText."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Starts With")
    runner.set_property("simple", "start")
    relationship_set = set(runner._node.relationship_names())
    expected_relationships = {"simple", "unmatched", "original"}
    assert len(relationship_set) == len(expected_relationships)
    assert relationship_set == expected_relationships

    binary = bytes([0xFF, 0xD8, 0xFF, 0xE0])
    runner.enqueue(binary)
    runner.run()
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_original = runner.get_flowfiles_for_relationship("original")[0]
    out_original.assert_content_equals(binary)


def test_nifi_invalid_regex(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testInvalidRegex."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Matches Regular Expression")
    runner.set_property("simple", "[")
    runner.enqueue(b"start middle end\nnot match")
    with pytest.raises(AssertionError):
        runner.run()


def test_nifi_simple_default_starts(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleDefaultStarts."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Starts With")
    runner.set_property("simple", "start")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("simple", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("simple")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_case_sensitive_starts_match(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleCaseSensitiveStartsMatch."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Starts With")
    runner.set_property("Ignore Case", "false")
    runner.set_property("simple", "start")
    runner.enqueue(b"STart middle end\nstart middle end")
    runner.run()
    runner.assert_transfer_count("simple", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("simple")[0]
    out_matched.assert_content_equals(b"start middle end")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"STart middle end\n")


def test_nifi_simple_case_insensitive_starts_match(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleCaseInsensitiveStartsMatch."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Starts With")
    runner.set_property("Ignore Case", "true")
    runner.set_property("simple", "start")
    runner.enqueue(b"start middle end\nSTart middle end")
    runner.run()
    runner.assert_transfer_count("simple", 1)
    runner.assert_transfer_count("unmatched", 0)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("simple")[0]
    out_matched.assert_content_equals(b"start middle end\nSTart middle end")


def test_nifi_simple_default_end(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleDefaultEnd."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Ends With")
    runner.set_property("simple", "end")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("simple", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("simple")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_route_line_to_multiple_relationships(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testRouteLineToMultipleRelationships."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Contains")
    runner.set_property("t", "t")
    runner.set_property("e", "e")
    runner.set_property("z", "z")
    original_text = "start middle end\nnot match"
    runner.enqueue(original_text.encode())
    runner.run()
    runner.assert_transfer_count("t", 1)
    runner.assert_transfer_count("e", 1)
    runner.assert_transfer_count("z", 0)
    runner.assert_transfer_count("unmatched", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("t")[0].assert_content_equals(original_text)
    runner.get_flowfiles_for_relationship("e")[0].assert_content_equals("start middle end\n")
    assert not runner.get_flowfiles_for_relationship("z")
    runner.get_flowfiles_for_relationship("original")[0].assert_content_equals(original_text)


def test_nifi_group_same_relationship(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testGroupSameRelationship."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Contains")
    runner.set_property("Grouping Regular Expression", "(.*?),.*")
    runner.set_property("o", "o")
    original_text = "1,hello\n2,world\n1,good-bye"
    runner.enqueue(original_text.encode())
    runner.run()
    runner.assert_transfer_count("o", 2)
    runner.assert_transfer_count("unmatched", 0)
    runner.assert_transfer_count("original", 1)
    list = runner.get_flowfiles_for_relationship("o")
    found1 = False
    found2 = False
    for mff in list:
        if mff.get_attribute("RouteText.Group") == "1":
            mff.assert_content_equals("1,hello\n1,good-bye")
            found1 = True
        else:
            mff.assert_attribute_equals("RouteText.Group", "2")
            mff.assert_content_equals("2,world\n")
            found2 = True

    assert found1
    assert found2


def test_nifi_multiple_groups_same_relationship(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testMultipleGroupsSameRelationship."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Contains")
    runner.set_property("Grouping Regular Expression", "(.*?),(.*?),.*")
    runner.set_property("o", "o")
    original_text = "1,5,hello\n2,5,world\n1,8,good-bye\n1,5,overt"
    runner.enqueue(original_text.encode())
    runner.run()
    runner.assert_transfer_count("o", 3)
    runner.assert_transfer_count("unmatched", 0)
    runner.assert_transfer_count("original", 1)
    list = runner.get_flowfiles_for_relationship("o")
    found1 = False
    found2 = False
    found3 = False
    for mff in list:
        if mff.get_attribute("RouteText.Group") == "1, 5":
            mff.assert_content_equals("1,5,hello\n1,5,overt")
            found1 = True
        elif mff.get_attribute("RouteText.Group") == "2, 5":
            mff.assert_content_equals("2,5,world\n")
            found2 = True
        else:
            mff.assert_attribute_equals("RouteText.Group", "1, 8")
            mff.assert_content_equals("1,8,good-bye\n")
            found3 = True

    assert found1
    assert found2
    assert found3


def test_nifi_group_different_relationships(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testGroupDifferentRelationships."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Contains")
    runner.set_property("Grouping Regular Expression", "(.*?),.*")
    runner.set_property("l", "l")
    original_text = "1,hello\n2,world\n1,good-bye\n3,ciao"
    runner.enqueue(original_text.encode())
    runner.run()
    runner.assert_transfer_count("l", 2)
    runner.assert_transfer_count("unmatched", 2)
    runner.assert_transfer_count("original", 1)
    l_flow_files = runner.get_flowfiles_for_relationship("l")
    found1 = False
    found2 = False
    for mff in l_flow_files:
        if mff.get_attribute("RouteText.Group") == "1":
            mff.assert_content_equals("1,hello\n")
            found1 = True
        else:
            mff.assert_attribute_equals("RouteText.Group", "2")
            mff.assert_content_equals("2,world\n")
            found2 = True

    assert found1
    assert found2
    unmatched_flow_files = runner.get_flowfiles_for_relationship("unmatched")
    found1 = False
    found3 = False
    for mff in unmatched_flow_files:
        if mff.get_attribute("RouteText.Group") == "1":
            mff.assert_content_equals("1,good-bye\n")
            found1 = True
        else:
            mff.assert_attribute_equals("RouteText.Group", "3")
            mff.assert_content_equals("3,ciao")
            found3 = True

    assert found1
    assert found3


def test_nifi_simple_default_contains(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleDefaultContains."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Contains")
    runner.set_property("simple", "middle")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("simple", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("simple")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_contains_ignore_case(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleContainsIgnoreCase."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Contains")
    runner.set_property("Ignore Case", "true")
    runner.set_property("simple", "miDDlE")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("simple", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("simple")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_default_equals(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleDefaultEquals."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Equals")
    runner.set_property("simple", "start middle end")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("simple", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("simple")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_default_match_regular_expression(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleDefaultMatchRegularExpression."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Matches Regular Expression")
    runner.set_property("simple", ".*(mid).*")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("simple", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("simple")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_default_contain_regular_expression(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleDefaultContainRegularExpression."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Contains Regular Expression")
    runner.set_property("simple", "(m.d)")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("simple", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("simple")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_any_starts(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleAnyStarts."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Starts With")
    runner.set_property("Routing Strategy", "Route to 'matched' if lines matches any condition")
    runner.set_property("simple", "start")
    runner.set_property("no", "no match")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("matched")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_any_ends(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleAnyEnds."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Ends With")
    runner.set_property("Routing Strategy", "Route to 'matched' if lines matches any condition")
    runner.set_property("simple", "end")
    runner.set_property("no", "no match")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("matched")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_any_equals(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleAnyEquals."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Equals")
    runner.set_property("Routing Strategy", "Route to 'matched' if lines matches any condition")
    runner.set_property("simple", "start middle end")
    runner.set_property("no", "no match")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("matched")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_any_match_regular_expression(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleAnyMatchRegularExpression."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Matches Regular Expression")
    runner.set_property("Routing Strategy", "Route to 'matched' if lines matches any condition")
    runner.set_property("simple", ".*(m.d).*")
    runner.set_property("no", "no match")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("matched")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_any_contain_regular_expression(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleAnyContainRegularExpression."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Contains Regular Expression")
    runner.set_property("Routing Strategy", "Route to 'matched' if lines matches any condition")
    runner.set_property("simple", "(m.d)")
    runner.set_property("no", "no match")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("matched")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_all_starts(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleAllStarts."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Starts With")
    runner.set_property("Routing Strategy", "Route to 'matched' if line matches all conditions")
    runner.set_property("simple", "start middle")
    runner.set_property("second", "star")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("matched")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_all_ends(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleAllEnds."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Ends With")
    runner.set_property("Routing Strategy", "Route to 'matched' if line matches all conditions")
    runner.set_property("simple", "middle end")
    runner.set_property("second", "nd")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("matched")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_all_equals(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleAllEquals."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Equals")
    runner.set_property("Routing Strategy", "Route to 'matched' if line matches all conditions")
    runner.set_property("simple", "start middle end")
    runner.set_property("second", "start middle end")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("matched")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_all_match_regular_expression(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleAllMatchRegularExpression."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Matches Regular Expression")
    runner.set_property("Routing Strategy", "Route to 'matched' if line matches all conditions")
    runner.set_property("simple", ".*(m.d).*")
    runner.set_property("second", ".*(t.*m).*")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("matched")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_simple_all_contain_regular_expression(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSimpleAllContainRegularExpression."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Contains Regular Expression")
    runner.set_property("Routing Strategy", "Route to 'matched' if line matches all conditions")
    runner.set_property("simple", "(m.d)")
    runner.set_property("second", "(t.*m)")
    runner.enqueue(b"start middle end\nnot match")
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("matched")[0]
    out_matched.assert_content_equals(b"start middle end\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_route_on_properties_starts_windows_new_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testRouteOnPropertiesStartsWindowsNewLine."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Starts With")
    runner.set_property("simple", "start")
    runner.enqueue(b"start middle end\r\nnot match")
    runner.run()
    runner.assert_transfer_count("simple", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("simple")[0]
    out_matched.assert_content_equals(b"start middle end\r\n")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_route_on_properties_starts_just_carriage_return(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testRouteOnPropertiesStartsJustCarriageReturn."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Starts With")
    runner.set_property("simple", "start")
    runner.enqueue(b"start middle end\rnot match")
    runner.run()
    runner.assert_transfer_count("simple", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    out_matched = runner.get_flowfiles_for_relationship("simple")[0]
    out_matched.assert_content_equals(b"start middle end\r")
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched.assert_content_equals(b"not match")


def test_nifi_satisfies_expression(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testSatisfiesExpression."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Satisfies Expression")
    runner.set_property("empty", "${incomplete expression")
    runner.assert_not_valid()
    runner.set_property("empty", "${line:isEmpty()}")
    runner.set_property("third-line", "${lineNo:equals(3)}")
    runner.set_property("second-field-you", "${line:getDelimitedField(2):trim():equals('you')}")
    runner.enqueue("hello\n\ngood-bye, you\n    \t\t\n")
    runner.run()
    runner.assert_transfer_count("empty", 1)
    runner.assert_transfer_count("third-line", 1)
    runner.assert_transfer_count("second-field-you", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("empty")[0].assert_content_equals("\n    \t\t\n")
    runner.get_flowfiles_for_relationship("third-line")[0].assert_content_equals("good-bye, you\n")
    runner.get_flowfiles_for_relationship("second-field-you")[0].assert_content_equals(
        "good-bye, you\n"
    )


def test_nifi_json(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testJson."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Starts With")
    runner.set_property("Routing Strategy", "Route to each matching Property Name")
    runner.set_property("greeting", '"greeting"')
    runner.set_property("address", '"address"')
    runner.enqueue(resource("TestJson/json-sample.json"))
    runner.run()
    runner.assert_transfer_count("greeting", 1)
    runner.assert_transfer_count("address", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    # Verify text is trimmed
    out_greeting = runner.get_flowfiles_for_relationship("greeting")[0]
    out_greeting_string = out_greeting.content.decode()
    assert count_lines(out_greeting_string) == 7
    out_address = runner.get_flowfiles_for_relationship("address")[0]
    out_address_string = out_address.content.decode()
    assert count_lines(out_address_string) == 7
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched_string = out_unmatched.content.decode()
    assert count_lines(out_unmatched_string) == 400
    out_original = runner.get_flowfiles_for_relationship("original")[0]
    out_original.assert_content_equals(resource("TestJson/json-sample.json"))


def test_nifi_xml(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testXml."""
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Contains")
    runner.set_property("Routing Strategy", "Route to each matching Property Name")
    runner.set_property("NodeType", 'name="NodeType"')
    runner.set_property("element", "<xs:element")
    runner.set_property("name", "name=")
    runner.enqueue(resource("TestXml/XmlBundle.xsd"))
    runner.run()
    runner.assert_transfer_count("NodeType", 1)
    runner.assert_transfer_count("element", 1)
    runner.assert_transfer_count("name", 1)
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("original", 1)
    # Verify text is trimmed
    out_node = runner.get_flowfiles_for_relationship("NodeType")[0]
    out_node_string = out_node.content.decode()
    assert count_lines(out_node_string) == 1
    out_element = runner.get_flowfiles_for_relationship("element")[0]
    out_element_string = out_element.content.decode()
    assert count_lines(out_element_string) == 4
    out_name = runner.get_flowfiles_for_relationship("name")[0]
    out_name_string = out_name.content.decode()
    assert count_lines(out_name_string) == 7
    out_unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    out_unmatched_string = out_unmatched.content.decode()
    assert count_lines(out_unmatched_string) == 26
    out_original = runner.get_flowfiles_for_relationship("original")[0]
    out_original.assert_content_equals(resource("TestXml/XmlBundle.xsd"))


def test_nifi_pattern_cache(make_runner: RunnerFactory) -> None:
    """NiFi: TestRouteText.testPatternCache."""
    # NiFi also checks its pattern cache's size, an internal detail; the routing is checked
    runner = make_runner("RouteText")
    runner.set_property("Matching Strategy", "Matches Regular Expression")
    simple_relationship = "simple"
    runner.set_property(simple_relationship, ".*(${someValue}).*")
    iterations = 2
    runner.enqueue("some text", {"someValue": "a value"})
    runner.enqueue("some other text", {"someValue": "a value"})
    runner.run(iterations)
    for i in range(0, iterations):
        i_string = str(i)
        runner.enqueue("some text with " + i_string + "in it", {"someValue": i_string})
        runner.run()

    runner.assert_transfer_count(simple_relationship, iterations)
    runner.assert_transfer_count("matched", 0)
    runner.assert_transfer_count("unmatched", iterations)
    runner.assert_transfer_count("original", iterations * 2)
    runner.set_property("Ignore Case", "true")
    runner.assert_valid()
