"""ExtractText: NiFi's TestExtractText scenarios through the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.model import ProvenanceEventType
from flowcore.testing import MockFlowFile, TestRunner

RunnerFactory = Callable[..., TestRunner]
SAMPLE = "foo\r\nbar1\r\nbar2\r\nbar3\r\nhello\r\nworld\r\n"


def _extract(
    make_runner: RunnerFactory, content: str, relationship: str = "matched", **properties: str
) -> MockFlowFile:
    runner = make_runner("ExtractText", properties=properties)
    runner.enqueue(content)
    runner.run()
    runner.assert_all_flowfiles_transferred(relationship, 1)
    return runner.get_flowfiles_for_relationship(relationship)[0]


def test_groups_into_attributes(make_runner: RunnerFactory) -> None:
    out = _extract(
        make_runner,
        SAMPLE,
        **{
            "regex.result1": "(?s)(.*)",
            "regex.result2": "(?s).*(bar1).*",
            "regex.result3": "(?s).*?(bar\\d).*",
            "regex.result4": "(?s).*?(?:bar\\d).*?(bar\\d).*?(bar3).*",
            "regex.result5": "(?s).*(bar\\d).*",
            "regex.result6": "(?s)^(.*)$",
            "regex.result7": "(?s)(XXX)",
        },
    )
    out.assert_attribute_equals("regex.result1", SAMPLE)
    out.assert_attribute_equals("regex.result2", "bar1")
    out.assert_attribute_equals("regex.result3", "bar1")
    out.assert_attribute_equals("regex.result4", "bar2")
    out.assert_attribute_equals("regex.result4.0", SAMPLE)
    out.assert_attribute_equals("regex.result4.1", "bar2")
    out.assert_attribute_equals("regex.result4.2", "bar3")
    out.assert_attribute_not_exists("regex.result4.3")
    out.assert_attribute_equals("regex.result5", "bar3")
    out.assert_attribute_equals("regex.result6", SAMPLE)
    out.assert_attribute_not_exists("regex.result7")


def test_unmatched_optional_group_sets_nothing(make_runner: RunnerFactory) -> None:
    out = _extract(make_runner, "abc", **{"regex.result": "(a)(x)?(c)?"})
    out.assert_attribute_equals("regex.result", "a")
    out.assert_attribute_equals("regex.result.1", "a")
    out.assert_attribute_not_exists("regex.result.2")


def test_flags(make_runner: RunnerFactory) -> None:
    unix = SAMPLE.replace("\r\n", "\n")
    out = _extract(
        make_runner,
        unix,
        **{
            "Enable DOTALL Mode": "true",
            "Enable Multiline Mode": "true",
            "Enable Case-insensitive Matching": "true",
            "regex.result1": "(.*)",
            "regex.result2": "^(BAR\\d)$",
            "regex.result3": "^(world)$",
        },
    )
    out.assert_attribute_equals("regex.result1", unix)
    out.assert_attribute_equals("regex.result2", "bar1")
    out.assert_attribute_equals("regex.result3", "world")
    # Without multiline, ^ and $ are the whole text's ends.
    out = _extract(make_runner, SAMPLE, "unmatched", **{"regex.result": "^(bar\\d)$"})
    literal = _extract(
        make_runner,
        "a.b (x)",
        **{"Enable Literal Parsing of the Pattern": "true", "lit": "(x)"},
    )
    literal.assert_attribute_equals("lit.0", "(x)")
    comments = _extract(
        make_runner,
        "abc",
        **{"Permit Whitespace and Comments in Pattern": "true", "c": "(b) # the b"},
    )
    comments.assert_attribute_equals("c", "b")


def test_crlf_lines_and_unix_lines_mode(make_runner: RunnerFactory) -> None:
    """Java's line terminators: multiline ``$`` matches before "\r\n" and ``.`` stops at
    "\r"; with Unix Lines Mode only "\n" ends a line (NiFi's TestExtractText runs its
    flag test on CRLF text)."""
    out = _extract(
        make_runner,
        SAMPLE,
        **{
            "Enable Multiline Mode": "true",
            "Enable Case-insensitive Matching": "true",
            "regex.result2": "^(BAR\\d)$",
            "regex.result3": "^(w.*)",
        },
    )
    out.assert_attribute_equals("regex.result2", "bar1")
    out.assert_attribute_equals("regex.result3", "world")
    unix = _extract(
        make_runner,
        SAMPLE,
        **{
            "Enable Multiline Mode": "true",
            "Enable Unix Lines Mode": "true",
            "regex.result2": "^(bar\\d)$",
            "regex.result3": "^(w.*)",
        },
    )
    assert unix.get_attribute("regex.result2") is None  # "\r" stands before "\n"
    unix.assert_attribute_equals("regex.result3", "world\r")


def test_no_match_goes_to_unmatched(make_runner: RunnerFactory) -> None:
    out = _extract(make_runner, SAMPLE, "unmatched", **{"regex.result": "(?s)(XXX)"})
    out.assert_attribute_not_exists("regex.result")


def test_match_outside_buffer(make_runner: RunnerFactory) -> None:
    out = _extract(
        make_runner,
        SAMPLE,
        **{"Maximum Buffer Size": "3 B", "regex.result1": "(foo)", "regex.result2": "(world)"},
    )
    out.assert_attribute_equals("regex.result1", "foo")
    out.assert_attribute_not_exists("regex.result2")


def test_capture_group_zero(make_runner: RunnerFactory) -> None:
    out = _extract(make_runner, SAMPLE, **{"regex.result": "(?s)(.*)"})
    out.assert_attribute_equals("regex.result.0", SAMPLE)
    out = _extract(
        make_runner, SAMPLE, **{"Include Capture Group 0": "false", "regex.result": "(?s)(.*)"}
    )
    out.assert_attribute_not_exists("regex.result.0")
    out.assert_attribute_equals("regex.result", SAMPLE)
    out = _extract(make_runner, SAMPLE, **{"regex.result": "(?s).*"})
    out.assert_attribute_not_exists("regex.result")
    out.assert_attribute_equals("regex.result.0", SAMPLE)


def test_no_groups_not_allowed_without_group_zero(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "ExtractText", properties={"Include Capture Group 0": "false", "regex.result": "(?s).*"}
    )
    runner.assert_not_valid()
    make_runner("ExtractText", properties={"bad": "("}).assert_not_valid()


def test_repeating_capture_groups(make_runner: RunnerFactory) -> None:
    out = _extract(
        make_runner,
        "This is my text",
        **{"Enable Repeating Capture Group": "true", "regex.result": "(?s)(\\w+)"},
    )
    expected = {"": "This", ".0": "This", ".1": "This", ".2": "is", ".3": "my", ".4": "text"}
    for suffix, value in expected.items():
        out.assert_attribute_equals("regex.result" + suffix, value)
    out = _extract(
        make_runner,
        "a=1,b=10,c=100",
        **{"Enable Repeating Capture Group": "true", "regex.result": "(\\w+)=(\\d+)"},
    )
    expected = {
        "": "a",
        ".0": "a=1",
        ".1": "a",
        ".2": "1",
        ".3": "b",
        ".4": "10",
        ".5": "c",
        ".6": "100",
    }
    for suffix, value in expected.items():
        out.assert_attribute_equals("regex.result" + suffix, value)
    out.assert_attribute_not_exists("regex.result.7")


def test_named_groups(make_runner: RunnerFactory) -> None:
    out = _extract(
        make_runner,
        "a=1,b=10",
        **{
            "Enable Named Groups": "true",
            "Enable Repeating Capture Group": "true",
            "kv": "(?<key>\\w+)=(?<value>\\d+)",
        },
    )
    out.assert_attribute_equals("kv", "a=1")
    out.assert_attribute_equals("kv.key", "a")
    out.assert_attribute_equals("kv.value", "1")
    out.assert_attribute_equals("kv.key.1", "b")
    out.assert_attribute_equals("kv.value.1", "10")
    runner = make_runner(
        "ExtractText",
        properties={"Enable Named Groups": "true", "kv": "(?<key>\\w+)=(\\d+)"},
    )
    runner.assert_not_valid()


def test_maximum_capture_group_length_and_character_set(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "ExtractText",
        properties={
            "Maximum Capture Group Length": "3",
            "Character Set": "ISO-8859-1",
            "word": "(\\w+)",
        },
    )
    runner.enqueue("éabcdef".encode("latin-1"))
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("matched")
    out.assert_attribute_equals("word", "éab")
    modified = [
        e
        for e in runner.get_provenance_events()
        if e.event_type == ProvenanceEventType.ATTRIBUTES_MODIFIED
    ]
    assert len(modified) == 1
