"""Java regexes see Java's line terminators: ``.``, ``^``, ``$`` and ``\\Z`` on CR, CRLF and
the Unicode separators, under the flags in force where they stand.

Every expected span list below is what ``java.util.regex.Matcher.find`` gives (checked
against a JDK 17).
"""

from __future__ import annotations

import pytest

from flowcore.el import evaluate
from flowcore.el.regex import java_finditer, java_regex

CASES = [
    # "." matches no line terminator but "\n": not "\r", U+0085, U+2028, U+2029
    ("b.", "b\rx", []),
    ("b.", "b\u0085x", []),
    ("b.", "b\x0bx", [(0, 2)]),  # VT is not a line terminator
    ("(?s)b.", "b\rx", [(0, 2)]),
    ("(?d)b.", "b\rx", [(0, 2)]),  # UNIX_LINES: only "\n" ends a line
    ("(?d)b.", "b\nx", []),
    # "$": at the end, or before a final "\r\n", "\r" or "\n"; never between "\r" and "\n"
    ("c$", "abc\r\n", [(2, 3)]),
    ("c$", "abc\r", [(2, 3)]),
    ("$", "a\r\n", [(1, 1), (3, 3)]),
    ("(?d)c$", "abc\r\n", []),
    ("^(.*)$", "abc\r\n", [(0, 3)]),
    (r"c\Z", "abc\r\n", [(2, 3)]),
    (r"c\z", "abc\r\n", []),
    # multiline: "$" before every terminator, "^" after every one but not at the end
    ("(?m)$", "a\r\nb", [(1, 1), (4, 4)]),
    ("(?m)^", "a\r\nb", [(0, 0), (3, 3)]),
    ("(?m)^", "a\nb\n", [(0, 0), (2, 2)]),
    ("(?m)^", "", []),
    ("(?m)^", "a\u0085\nb", [(0, 0), (2, 2), (3, 3)]),
    ("(?m)^.", "a\rb\r\nc", [(0, 1), (2, 3), (5, 6)]),
    # flags hold from where they stand to the end of their group
    ("((?s).).", "\n\n\r", []),
    ("(?-s:.)(?s).", "a\n", [(0, 2)]),
    ("a(?s:.)b.", "a\nb\r", []),
    # inside a class the characters are literals
    ("[.^$]", "x.^$", [(1, 2), (2, 3), (3, 4)]),
]


@pytest.mark.parametrize(("pattern", "text", "spans"), CASES)
def test_line_terminators_as_java_sees_them(
    pattern: str, text: str, spans: list[tuple[int, int]]
) -> None:
    assert [m.span() for m in java_regex(pattern).finditer(text)] == spans


def test_replace_all_keeps_a_crlf_line_ending() -> None:
    # Java: "abc\r\n".replaceAll("^(.*)$", "[$1]") is "[abc]\r\n"
    assert evaluate("${text:replaceAll('^(.*)$', '[$1]')}", {"text": "abc\r\n"}) == ("[abc]\r\n")


def test_after_an_empty_match_the_search_moves_one_character_on() -> None:
    """Java's ``find``: Python's own iteration would take ``ab`` at 0 after the empty match
    there; Java gives ``""`` at 0, ``b`` at 1 and ``""`` at 2."""
    pattern = java_regex("a*?b?")
    assert [m.span() for m in java_finditer(pattern, "ab")] == [(0, 0), (1, 2), (2, 2)]
    assert evaluate("${t:replaceAll('a*?b?', '<$0>')}", {"t": "ab"}) == "<>a<b><>"
    assert evaluate("${t:replaceFirst('a*?b?', '[$0]')}", {"t": "ab"}) == "[]ab"
