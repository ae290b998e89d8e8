"""NiFi's own extract_text tests, ported to the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.el.regex import Pattern
from flowcore.testing import TestRunner
from processors.standard.extract_text import compile_pattern

RunnerFactory = Callable[..., TestRunner]
SAMPLE_STRING = "foo\r\nbar1\r\nbar2\r\nbar3\r\nhello\r\nworld\r\n"


def test_nifi_processor(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testProcessor."""
    test_runner = make_runner("ExtractText")
    test_runner.set_property("regex.result1", "(?s)(.*)")
    test_runner.set_property("regex.result2", "(?s).*(bar1).*")
    test_runner.set_property("regex.result3", "(?s).*?(bar\\d).*")  # reluctant gets first
    test_runner.set_property(
        "regex.result4", "(?s).*?(?:bar\\d).*?(bar\\d).*?(bar3).*"
    )  # reluctant, repeated: second
    test_runner.set_property("regex.result5", "(?s).*(bar\\d).*")  # greedy gets last
    test_runner.set_property("regex.result6", "(?s)^(.*)$")
    test_runner.set_property("regex.result7", "(?s)(XXX)")
    test_runner.enqueue(SAMPLE_STRING.encode())
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("matched", 1)
    out = test_runner.get_flowfiles_for_relationship("matched")[0]
    out.assert_attribute_equals("regex.result1", SAMPLE_STRING)
    out.assert_attribute_equals("regex.result2", "bar1")
    out.assert_attribute_equals("regex.result3", "bar1")
    out.assert_attribute_equals("regex.result4", "bar2")
    out.assert_attribute_equals("regex.result4.0", SAMPLE_STRING)
    out.assert_attribute_equals("regex.result4.1", "bar2")
    out.assert_attribute_equals("regex.result4.2", "bar3")
    out.assert_attribute_not_exists("regex.result4.3")
    out.assert_attribute_equals("regex.result5", "bar3")
    out.assert_attribute_equals("regex.result6", SAMPLE_STRING)
    out.assert_attribute_equals("regex.result7", None)


def test_nifi_with_unmatched_optional_capturing_group(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testWithUnmatchedOptionalCapturingGroup."""
    test_runner = make_runner("ExtractText")
    test_runner.set_property("regex", "abc(def)?(g)")
    test_runner.enqueue("abcg")
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("matched", 1)
    out = test_runner.get_flowfiles_for_relationship("matched")[0]
    out.assert_attribute_not_exists("regex.1")
    out.assert_attribute_equals("regex.2", "g")
    test_runner.clear_transfer_state()
    test_runner.enqueue("abcdefg")
    test_runner.run()
    out2 = test_runner.get_flowfiles_for_relationship("matched")[0]
    out2.assert_attribute_equals("regex.1", "def")
    out2.assert_attribute_equals("regex.2", "g")


def test_nifi_processor_with_dotall(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testProcessorWithDotall."""
    test_runner = make_runner("ExtractText")
    test_runner.set_property("Enable DOTALL Mode", "true")
    test_runner.set_property("regex.result1", "(.*)")
    test_runner.set_property("regex.result2", ".*(bar1).*")
    test_runner.set_property("regex.result3", ".*?(bar\\d).*")  # reluctant gets first
    test_runner.set_property(
        "regex.result4", ".*?(?:bar\\d).*?(bar\\d).*"
    )  # reluctant, repeated: second
    test_runner.set_property("regex.result5", ".*(bar\\d).*")  # greedy gets last
    test_runner.set_property("regex.result6", "^(.*)$")
    test_runner.set_property("regex.result7", "^(XXX)$")
    test_runner.enqueue(SAMPLE_STRING.encode())
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("matched", 1)
    out = test_runner.get_flowfiles_for_relationship("matched")[0]
    out.assert_attribute_equals("regex.result1", SAMPLE_STRING)
    out.assert_attribute_equals("regex.result2", "bar1")
    out.assert_attribute_equals("regex.result3", "bar1")
    out.assert_attribute_equals("regex.result4", "bar2")
    out.assert_attribute_equals("regex.result5", "bar3")
    out.assert_attribute_equals("regex.result6", SAMPLE_STRING)
    out.assert_attribute_equals("regex.result7", None)


def test_nifi_processor_with_multiline(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testProcessorWithMultiline."""
    test_runner = make_runner("ExtractText")
    test_runner.set_property("Enable Multiline Mode", "true")
    test_runner.set_property("regex.result1", "(.*)")
    test_runner.set_property("regex.result2", "(bar1)")
    test_runner.set_property("regex.result3", ".*?(bar\\d).*")
    test_runner.set_property("regex.result4", ".*?(?:bar\\d).*?(bar\\d).*")
    test_runner.set_property("regex.result4b", "bar\\d\\r\\n(bar\\d)")
    test_runner.set_property("regex.result5", ".*(bar\\d).*")
    test_runner.set_property("regex.result5b", "(?:bar\\d\\r?\\n)*(bar\\d)")
    test_runner.set_property("regex.result6", "^(.*)$")
    test_runner.set_property("regex.result7", "^(XXX)$")
    test_runner.enqueue(SAMPLE_STRING.encode())
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("matched", 1)
    out = test_runner.get_flowfiles_for_relationship("matched")[0]
    out.assert_attribute_equals("regex.result1", "foo")  # matches everything on the first line
    out.assert_attribute_equals("regex.result2", "bar1")
    out.assert_attribute_equals("regex.result3", "bar1")
    out.assert_attribute_equals("regex.result4", None)  # no line has two bars
    out.assert_attribute_equals("regex.result4b", "bar2")  # included newlines in regex
    out.assert_attribute_equals("regex.result5", "bar1")  # first: no line has two bars
    out.assert_attribute_equals("regex.result5b", "bar3")  # included newlines in regex
    out.assert_attribute_equals("regex.result6", "foo")  # matches all of first line
    out.assert_attribute_equals("regex.result7", None)  # no match


def test_nifi_processor_with_multiline_and_dotall(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testProcessorWithMultilineAndDotall."""
    test_runner = make_runner("ExtractText")
    test_runner.set_property("Enable Multiline Mode", "true")
    test_runner.set_property("Enable DOTALL Mode", "true")
    test_runner.set_property("regex.result1", "(.*)")
    test_runner.set_property("regex.result2", "(bar1)")
    test_runner.set_property("regex.result3", ".*?(bar\\d).*")
    test_runner.set_property("regex.result4", ".*?(?:bar\\d).*?(bar\\d).*")
    test_runner.set_property("regex.result4b", "bar\\d\\r\\n(bar\\d)")
    test_runner.set_property("regex.result5", ".*(bar\\d).*")
    test_runner.set_property("regex.result5b", "(?:bar\\d\\r?\\n)*(bar\\d)")
    test_runner.set_property("regex.result6", "^(.*)$")
    test_runner.set_property("regex.result7", "^(XXX)$")
    test_runner.enqueue(SAMPLE_STRING.encode())
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("matched", 1)
    out = test_runner.get_flowfiles_for_relationship("matched")[0]
    out.assert_attribute_equals("regex.result1", SAMPLE_STRING)
    out.assert_attribute_equals("regex.result2", "bar1")
    out.assert_attribute_equals("regex.result3", "bar1")
    out.assert_attribute_equals("regex.result4", "bar2")
    out.assert_attribute_equals("regex.result4b", "bar2")
    out.assert_attribute_equals("regex.result5", "bar3")
    out.assert_attribute_equals("regex.result5b", "bar3")
    out.assert_attribute_equals("regex.result6", SAMPLE_STRING)
    out.assert_attribute_equals("regex.result7", None)


def test_nifi_processor_with_no_matches(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testProcessorWithNoMatches."""
    test_runner = make_runner("ExtractText")
    test_runner.set_property("Enable Multiline Mode", "true")
    test_runner.set_property("Enable DOTALL Mode", "true")
    test_runner.set_property("regex.result2", "(bar1)")
    test_runner.set_property("regex.result3", ".*?(bar\\d).*")
    test_runner.set_property("regex.result4", ".*?(?:bar\\d).*?(bar\\d).*")
    test_runner.set_property("regex.result4b", "bar\\d\\r\\n(bar\\d)")
    test_runner.set_property("regex.result5", ".*(bar\\d).*")
    test_runner.set_property("regex.result5b", "(?:bar\\d\\r?\\n)*(bar\\d)")
    test_runner.set_property("regex.result7", "^(XXX)$")
    test_runner.enqueue(b"YYY")
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("unmatched", 1)
    out = test_runner.get_flowfiles_for_relationship("unmatched")[0]
    out.assert_attribute_equals("regex.result1", None)
    out.assert_attribute_equals("regex.result2", None)
    out.assert_attribute_equals("regex.result3", None)
    out.assert_attribute_equals("regex.result4", None)
    out.assert_attribute_equals("regex.result4b", None)
    out.assert_attribute_equals("regex.result5", None)
    out.assert_attribute_equals("regex.result5b", None)
    out.assert_attribute_equals("regex.result6", None)
    out.assert_attribute_equals("regex.result7", None)


def test_nifi_no_flow_file(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testNoFlowFile."""
    test_runner = make_runner("ExtractText")
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("matched", 0)


def test_nifi_match_outside_buffer(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testMatchOutsideBuffer."""
    test_runner = make_runner("ExtractText")
    test_runner.set_property("Maximum Buffer Size", "3 B")  # only read the first 3 chars ("foo")

    test_runner.set_property("regex.result1", "(foo)")
    test_runner.set_property("regex.result2", "(world)")
    test_runner.enqueue(SAMPLE_STRING.encode())
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("matched", 1)
    out = test_runner.get_flowfiles_for_relationship("matched")[0]
    out.assert_attribute_equals("regex.result1", "foo")
    out.assert_attribute_equals("regex.result2", None)  # None because outsk


def test_nifi_get_compile_flags(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testGetCompileFlags."""

    # NiFi compares Pattern flag bits; here each flag's effect on a compiled pattern
    def compiled(pattern: str, **flags: str) -> Pattern:
        runner = make_runner("ExtractText", properties=flags)
        return compile_pattern(runner._node.context(), pattern)

    assert compiled("a.b").fullmatch("a\nb") is None
    assert compiled("a.b").fullmatch("a\rb") is None
    assert compiled("a.b", **{"Enable Unix Lines Mode": "true"}).fullmatch("a\rb")
    assert compiled("abc", **{"Enable Case-insensitive Matching": "true"}).fullmatch("ABC")
    assert compiled("abc").fullmatch("ABC") is None
    comments = {"Permit Whitespace and Comments in Pattern": "true"}
    assert compiled("a b  # c", **comments).fullmatch("ab")
    assert compiled("^b", **{"Enable Multiline Mode": "true"}).search("a\nb")
    assert compiled("^b").search("a\nb") is None
    literal = {"Enable Literal Parsing of the Pattern": "true"}
    assert compiled("a.b", **literal).fullmatch("a.b")
    assert compiled("a.b", **literal).fullmatch("axb") is None
    assert compiled("a.b", **{"Enable DOTALL Mode": "true"}).fullmatch("a\nb")
    unicode_case = {"Enable Unicode-aware Case Folding": "true"}
    assert compiled("é", **unicode_case, **{"Enable Case-insensitive Matching": "true"}).fullmatch(
        "É"
    )
    assert compiled("é", **{"Enable Canonical Equivalence": "true"}).fullmatch("é")
    classes = {"Enable Unicode Predefined Character Classes": "true"}
    assert compiled("\\w", **classes).fullmatch("é")
    both = {"Enable DOTALL Mode": "true", "Enable Multiline Mode": "true"}
    assert compiled("^b.c", **both).search("a\nb\nc")


def test_nifi_get_relation_ships(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testGetRelationShips."""
    test_runner = make_runner("ExtractText")
    test_runner.enqueue(b"foo")
    test_runner.run()
    relationships = test_runner._node.relationship_names()
    assert "matched" in relationships
    assert "unmatched" in relationships
    assert len(relationships) == 2


def test_nifi_include_zero_capture_group_property(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testIncludeZeroCaptureGroupProperty."""
    test_runner = make_runner("ExtractText")
    attribute_key = "regex.result"
    test_runner.set_property(attribute_key, "(?s)(.*)")
    test_runner.enqueue(SAMPLE_STRING.encode())
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("matched", 1)
    out = test_runner.get_flowfiles_for_relationship("matched")[0]
    # Ensure the zero capture group is in the resultant attributes
    out.assert_attribute_exists(attribute_key + ".0")
    out.assert_attribute_equals(attribute_key, SAMPLE_STRING)


def test_nifi_find_all(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testFindAll."""
    test_runner = make_runner("ExtractText")
    test_runner.set_property("Enable Repeating Capture Group", "true")
    attribute_key = "regex.result"
    test_runner.set_property(attribute_key, "(?s)(\\w+)")
    test_runner.enqueue(b"This is my text")
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("matched", 1)
    out = test_runner.get_flowfiles_for_relationship("matched")[0]
    # Ensure the zero capture group is in the resultant attributes
    out.assert_attribute_exists(attribute_key + ".0")
    out.assert_attribute_exists(attribute_key + ".1")
    out.assert_attribute_exists(attribute_key + ".2")
    out.assert_attribute_exists(attribute_key + ".3")
    out.assert_attribute_exists(attribute_key + ".4")
    out.assert_attribute_equals(attribute_key, "This")
    out.assert_attribute_equals(attribute_key + ".0", "This")
    out.assert_attribute_equals(attribute_key + ".1", "This")
    out.assert_attribute_equals(attribute_key + ".2", "is")
    out.assert_attribute_equals(attribute_key + ".3", "my")
    out.assert_attribute_equals(attribute_key + ".4", "text")


def test_nifi_find_all_pair(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testFindAllPair."""
    test_runner = make_runner("ExtractText")
    test_runner.set_property("Enable Repeating Capture Group", "true")
    attribute_key = "regex.result"
    test_runner.set_property(attribute_key, "(\\w+)=(\\d+)")
    test_runner.enqueue(b"a=1,b=10,c=100")
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("matched", 1)
    out = test_runner.get_flowfiles_for_relationship("matched")[0]
    # Ensure the zero capture group is in the resultant attributes
    out.assert_attribute_exists(attribute_key + ".0")
    out.assert_attribute_exists(attribute_key + ".1")
    out.assert_attribute_exists(attribute_key + ".2")
    out.assert_attribute_exists(attribute_key + ".3")
    out.assert_attribute_exists(attribute_key + ".4")
    out.assert_attribute_exists(attribute_key + ".5")
    out.assert_attribute_exists(attribute_key + ".6")
    out.assert_attribute_not_exists(attribute_key + ".7")  # Ensure there's no more attributes
    out.assert_attribute_equals(attribute_key, "a")
    out.assert_attribute_equals(attribute_key + ".0", "a=1")
    out.assert_attribute_equals(attribute_key + ".1", "a")
    out.assert_attribute_equals(attribute_key + ".2", "1")
    out.assert_attribute_equals(attribute_key + ".3", "b")
    out.assert_attribute_equals(attribute_key + ".4", "10")
    out.assert_attribute_equals(attribute_key + ".5", "c")
    out.assert_attribute_equals(attribute_key + ".6", "100")


def test_nifi_ignore_zero_capture_group_property(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testIgnoreZeroCaptureGroupProperty."""
    test_runner = make_runner("ExtractText")
    test_runner.set_property("Include Capture Group 0", "false")
    attribute_key = "regex.result"
    test_runner.set_property(attribute_key, "(?s)(.*)")
    test_runner.enqueue(SAMPLE_STRING.encode())
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("matched", 1)
    out = test_runner.get_flowfiles_for_relationship("matched")[0]
    # Ensure the zero capture group is not in the resultant attributes
    out.assert_attribute_not_exists(attribute_key + ".0")
    out.assert_attribute_equals(attribute_key, SAMPLE_STRING)


def test_nifi_should_allow_no_capture_groups(make_runner: RunnerFactory) -> None:
    """NiFi: TestExtractText.testShouldAllowNoCaptureGroups."""
    # Arrange
    test_runner = make_runner("ExtractText")
    attribute_key = "regex.result"
    test_runner.set_property(attribute_key, "(?s).*")
    # Act
    test_runner.enqueue(SAMPLE_STRING.encode())
    test_runner.run()
    # Assert
    test_runner.assert_all_flowfiles_transferred("matched", 1)
    out = test_runner.get_flowfiles_for_relationship("matched")[0]
    # There is no global capture group, so only "key.0" exists
    out.assert_attribute_not_exists(attribute_key)
    out.assert_attribute_equals(attribute_key + ".0", SAMPLE_STRING)


def test_nifi_should_not_allow_no_capture_groups_if_zero_disabled(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestExtractText.testShouldNotAllowNoCaptureGroupsIfZeroDisabled."""
    # Arrange
    test_runner = make_runner("ExtractText")
    test_runner.set_property("Include Capture Group 0", "false")
    attribute_key = "regex.result"
    test_runner.set_property(attribute_key, "(?s).*")
    # Act
    test_runner.enqueue(SAMPLE_STRING.encode())
    # Validation should fail because nothing will match
    with pytest.raises(AssertionError):
        test_runner.run()
