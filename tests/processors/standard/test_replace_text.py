"""ReplaceText: NiFi's TestReplaceText scenarios through the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
HELLO = "Hello, World!"


def _replace(
    make_runner: RunnerFactory,
    content: str | bytes,
    attributes: dict[str, str] | None = None,
    **properties: str,
) -> str:
    runner = make_runner("ReplaceText", properties=properties)
    runner.enqueue(content, attributes or {})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    return runner.get_flowfiles_for_relationship("success")[0].text()


def _p(**kwargs: str) -> dict[str, str]:
    names = {
        "strategy": "Replacement Strategy",
        "search": "Search Value",
        "replacement": "Replacement Value",
        "mode": "Evaluation Mode",
        "lines": "Line-by-Line Evaluation Mode",
        "prepend": "Text to Prepend",
        "append": "Text to Append",
        "buffer": "Maximum Buffer Size",
    }
    return {names[k]: v for k, v in kwargs.items()}


@pytest.mark.parametrize("mode", ["Entire text", "Line-by-Line"])
def test_literal_replace_with_expression_language(make_runner: RunnerFactory, mode: str) -> None:
    attributes = {"search.value": "you, them,", "replacement.value": "us"}
    text = "Me, you, them, and the other"
    out = _replace(
        make_runner,
        text,
        attributes,
        **_p(
            strategy="Literal Replace",
            search="Me, ${search.value}",
            replacement='"Replacement"',
            mode=mode,
        ),
    )
    assert out == '"Replacement" and the other'
    out = _replace(
        make_runner,
        "Me, you, them and the other",
        attributes,
        **_p(
            strategy="Literal Replace",
            search="Me, you,",
            replacement="With ${replacement.value}",
            mode=mode,
        ),
    )
    assert out == "With us them and the other"


@pytest.mark.parametrize("mode", ["Entire text", "Line-by-Line"])
def test_iterative_regex_replace_with_group_in_expression_language(
    make_runner: RunnerFactory, mode: str
) -> None:
    out = _replace(
        make_runner,
        '{"name":"Smith","middle":"nifi","firstname":"John"}',
        **_p(search='"([a-z]+?)":"(.*?)"', replacement='"${\'$1\':toUpper()}":"$2"', mode=mode),
    )
    assert out == '{"NAME":"Smith","MIDDLE":"nifi","FIRSTNAME":"John"}'


@pytest.mark.parametrize(
    ("search", "replacement", "attributes", "expected"),
    [
        ("ell", "lle", {}, "Hlleo, World!"),
        ("(?s:^.*$)", "a\\$b", {}, "a\\$b"),
        ("(?s:^.*$)", "a$b", {}, "a$b"),
        ("(ell)", "$123", {}, "Hell23o, World!"),
        ("ell", "$0123", {}, "Hell123o, World!"),
        ("(ell)", "[${abc}]", {"abc": "$1"}, "H[$1]o, World!"),
        ("${replaceKey}", "${replaceValue}", {"replaceKey": "H.*o", "replaceValue": "Bye"}, HELLO),
        ("(ell)", "$1$2", {}, "Hell$2o, World!"),
        ("(ell)", "$d", {}, "H$do, World!"),
        ("(ell)", "\\$1", {}, "H$1o, World!"),
        ("(ell)", "", {}, "Ho, World!"),
        ("xyz", "abc", {}, HELLO),
        ("l", "L", {}, "HeLLo, WorLd!"),
        ("(H)(e)", "${'$2':toUpper()}$1", {}, "EHllo, World!"),
    ],
)
def test_regex_replace_back_references_and_escaping(
    make_runner: RunnerFactory,
    search: str,
    replacement: str,
    attributes: dict[str, str],
    expected: str,
) -> None:
    for mode in ("Entire text", "Line-by-Line"):
        out = _replace(
            make_runner, HELLO, attributes, **_p(search=search, replacement=replacement, mode=mode)
        )
        assert out == expected, mode


def test_back_reference_escape_with_expression_language(make_runner: RunnerFactory) -> None:
    properties = _p(search="(?s)(^.*$)", replacement="${'$1':toUpper()}", mode="Entire text")
    assert _replace(make_runner, "wo$rd", **properties) == "WO$RD"
    assert _replace(make_runner, "wo$1rd", **properties) == "WO$1RD"
    assert _replace(make_runner, "wo$1r$2d", **properties) == "WO$1R$2D"


def test_capturing_group_in_expression_language_line_by_line(make_runner: RunnerFactory) -> None:
    out = _replace(
        make_runner,
        "1,2,3,https://123.jpg,email@mydomain.com\n3,2,1,https://321.jpg,other@mydomain.com",
        **_p(search="(.*)/(.*?).jpg", replacement="$1/${ '$2':substring(0,1) }.png"),
    )
    assert out == "1,2,3,https://1.png,email@mydomain.com\n3,2,1,https://3.png,other@mydomain.com"


def test_default_regex_replaces_everything(make_runner: RunnerFactory) -> None:
    out = _replace(make_runner, "line-1\nline-2", **_p(replacement="default", mode="Entire text"))
    assert out == "default"
    # The default search and replacement leave the content as it is.
    assert _replace(make_runner, "line-1\r\nline-2\n") == "line-1\r\nline-2\n"


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ("All", "_hello\n_there\n_madam"),
        ("First-Line", "_hello\nthere\nmadam"),
        ("Last-Line", "hello\nthere\n_madam"),
        ("Except-First-Line", "hello\n_there\n_madam"),
        ("Except-Last-Line", "_hello\n_there\nmadam"),
    ],
)
def test_prepend_line_by_line_modes(make_runner: RunnerFactory, lines: str, expected: str) -> None:
    properties = _p(strategy="Prepend", replacement="_", mode="Line-by-Line", lines=lines)
    assert _replace(make_runner, "hello\nthere\nmadam", **properties) == expected


@pytest.mark.parametrize(
    ("content", "lines", "expected"),
    [
        ("hello\rthere\rsir", "All", "hello!\rthere!\rsir!"),
        ("hello\rthere\rsir", "First-Line", "hello!\rthere\rsir"),
        ("hello\rthere\rsir", "Except-First-Line", "hello\rthere!\rsir!"),
        ("hello\rthere\rsir", "Last-Line", "hello\rthere\rsir!"),
        ("hello\rthere\rsir", "Except-Last-Line", "hello!\rthere!\rsir"),
        ("hello\nthere\nsir", "All", "hello!\nthere!\nsir!"),
        ("hello\r\nthere\r\nsir", "All", "hello!\r\nthere!\r\nsir!"),
        ("hello\r\nthere\r\n", "All", "hello!\r\nthere!\r\n"),
    ],
)
def test_append_line_by_line_keeps_line_endings(
    make_runner: RunnerFactory, content: str, lines: str, expected: str
) -> None:
    properties = _p(strategy="Append", replacement="!", mode="Line-by-Line", lines=lines)
    assert _replace(make_runner, content, **properties) == expected


def test_prepend_and_append_entire_text(make_runner: RunnerFactory) -> None:
    assert (
        _replace(
            make_runner, HELLO, **_p(strategy="Prepend", replacement="TEST", mode="Entire text")
        )
        == "TESTHello, World!"
    )
    assert (
        _replace(
            make_runner, HELLO, **_p(strategy="Append", replacement="TEST", mode="Entire text")
        )
        == "Hello, World!TEST"
    )


def test_surround(make_runner: RunnerFactory) -> None:
    text = "Hello\nThere\nHow are you\nToday?"
    entire = _p(strategy="Surround", prepend="<pre>", append="<post>", mode="Entire text")
    assert _replace(make_runner, text, **entire) == f"<pre>{text}<post>"
    lines = _p(strategy="Surround", prepend="<pre>", append="<post>", mode="Line-by-Line")
    assert _replace(make_runner, text, **lines) == (
        "<pre>Hello<post>\n<pre>There<post>\n<pre>How are you<post>\n<pre>Today?<post>"
    )


def test_always_replace(make_runner: RunnerFactory) -> None:
    entire = _p(strategy="Always Replace", replacement="abc", mode="Entire text")
    assert _replace(make_runner, "defg\nhij", **entire) == "abc"
    lines = _p(strategy="Always Replace", replacement="abc", mode="Line-by-Line")
    assert _replace(make_runner, "defg\r\nhij\n", **lines) == "abc\r\nabc\n"


def test_dot_star_regex_is_always_replace_even_when_too_large(make_runner: RunnerFactory) -> None:
    properties = _p(search=".*", replacement="x", mode="Entire text", buffer="1 B")
    assert _replace(make_runner, HELLO, **properties) == "x"


def test_literal_replace_keeps_dollars_literal(make_runner: RunnerFactory) -> None:
    properties = _p(strategy="Literal Replace", search="H", replacement="$1\\x", mode="Entire text")
    assert _replace(make_runner, HELLO, **properties) == "$1\\xello, World!"


@pytest.mark.parametrize("mode", ["Entire text", "Line-by-Line"])
def test_substitute_variables(make_runner: RunnerFactory, mode: str) -> None:
    attributes = {"var1": "value1", "var2": "value2"}
    properties = _p(strategy="Substitute Variables", mode=mode)
    text = "Line1: ${var1}\nLine2: ${var2}\nLine3: ${missing}\nLine4: $${var1}\nLine5: ${}"
    assert _replace(make_runner, text, attributes, **properties) == (
        "Line1: value1\nLine2: value2\nLine3: ${missing}\nLine4: ${var1}\nLine5: ${}"
    )


def test_too_large_goes_to_failure_unchanged(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "ReplaceText",
        properties=_p(search="l", replacement="L", mode="Entire text", buffer="5 B"),
    )
    runner.enqueue(HELLO)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(HELLO)


def test_line_too_large_goes_to_failure(make_runner: RunnerFactory) -> None:
    """Line by line, NiFi's limit counts the characters of a line in its demarcator's
    buffer (8192 under "10 KB"), not bytes: 6,000 é (12,000 bytes) fit."""
    runner = make_runner(
        "ReplaceText", properties=_p(search="[123]", replacement="${abc}", buffer="10 KB")
    )
    runner.enqueue("short\n" + "x" * 8192 + "\nend", {"abc": "Good"})
    runner.enqueue("1 fits\n2 " + "\u00e9" * 6000, {"abc": "Good"})
    runner.run(2)
    runner.assert_transfer_count("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(
        "short\n" + "x" * 8192 + "\nend"
    )
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(
        "Good fits\nGood " + "\u00e9" * 6000
    )


def test_missing_group_without_groups_goes_to_failure(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "ReplaceText", properties=_p(search="(?s:^.*$)", replacement="$1", mode="Entire text")
    )
    runner.enqueue("testing\n123")
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_empty_content_line_by_line(make_runner: RunnerFactory) -> None:
    assert _replace(make_runner, "", **_p(strategy="Prepend", replacement="x")) == ""


def test_streaming_over_chunk_boundaries(make_runner: RunnerFactory) -> None:
    lines = [f"line {i}\r\n" for i in range(40_000)]  # over one stream chunk
    text = "".join(lines)
    out = _replace(make_runner, text, **_p(search="line (\\d+)", replacement="L$1"))
    assert out == text.replace("line ", "L")


def test_character_set(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "ReplaceText",
        properties={**_p(search="é", replacement="e"), "Character Set": "UTF-16"},
    )
    runner.enqueue("café\ncrème".encode("utf-16"))
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    assert out.text("utf-16") == "cafe\ncrème".replace("è", "è")


def test_invalid_regex_and_empty_literal_are_invalid(make_runner: RunnerFactory) -> None:
    make_runner("ReplaceText", properties=_p(search="(")).assert_not_valid()
    make_runner(
        "ReplaceText", properties=_p(strategy="Literal Replace", search="")
    ).assert_not_valid()
    make_runner("ReplaceText", properties=_p(strategy="Nope")).assert_not_valid()


def test_content_modified_event(make_runner: RunnerFactory) -> None:
    runner = make_runner("ReplaceText", properties=_p(search="ell", replacement="lle"))
    flowfile = runner.enqueue(HELLO)
    runner.run()
    events = [
        e.event_type for e in runner.get_provenance_events() if e.flowfile_uuid == flowfile.uuid
    ]
    assert events.count(ProvenanceEventType.CONTENT_MODIFIED) == 1


def test_matches_follow_javas_find(make_runner: RunnerFactory) -> None:
    """After an empty match Java searches on from the next character (``a*?b?`` on ``ab``:
    ``""``, ``b``, ``""``)."""
    runner = make_runner(
        "ReplaceText",
        properties={
            "Evaluation Mode": "Entire text",
            "Search Value": "a*?b?",
            "Replacement Value": "<$0>",
        },
    )
    runner.enqueue("ab")
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals("<>a<b><>")
