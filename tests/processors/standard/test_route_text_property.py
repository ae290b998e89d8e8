"""RouteText over CR, LF, CRLF and mixed line endings, blanks and non-UTF-8 bytes: every
line reaches each relationship NiFi's rules send it to, with its ending, in order, and
the original goes to original untouched.

NiFi's rules: the line is matched trimmed (``String.trim``: every char up to U+0020 off
both ends) or, without trimming, cut at its first "\\r" or "\\n" after the first
character; the output holds the line as read (decoded and encoded again).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from flowcore.testing import TestRunner
from tests.processors.standard.chunked_streams import streamed_in_chunks_of

_EOL = re.compile(r"\r\n|\r|\n")
_JAVA_TRIM = "".join(chr(code) for code in range(33))

pieces = st.sampled_from(
    [b"a", b"b", b"ab", b" ", b"\t", b"\n", b"\r", b"\r\n", b"\xc3\xa9", b"\xff", b"\x00"]
)
contents = st.lists(pieces, max_size=30).map(b"".join)


def _lines(text: str) -> list[str]:
    lines, start = [], 0
    for match in _EOL.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def _matched_text(line: str, trim: bool) -> str:
    if trim:
        return line.strip(_JAVA_TRIM)
    cuts = [i for i in (line.find("\r"), line.find("\n")) if i > 0]
    return line[: min(cuts)] if cuts else line


@settings(max_examples=200, deadline=None)
@given(
    contents,
    st.booleans(),
    st.sampled_from(["Starts With", "Ends With", "Contains", "Equals"]),
    st.integers(1, 9),
)
def test_every_line_goes_where_nifi_sends_it(
    data: bytes, trim: bool, strategy: str, chunk: int
) -> None:
    values = {"first": "a", "second": "b"}
    tests = {
        "Starts With": str.startswith,
        "Ends With": str.endswith,
        "Contains": str.__contains__,
        "Equals": str.__eq__,
    }
    expected: dict[str, str] = {}
    for line in _lines(data.decode("utf-8", errors="replace")):
        seen = _matched_text(line, trim)
        routes = [name for name, value in values.items() if tests[strategy](seen, value)]
        for route in routes or ["unmatched"]:
            expected[route] = expected.get(route, "") + line
    with streamed_in_chunks_of(chunk), TestRunner("RouteText") as runner:
        runner.set_property("Matching Strategy", strategy)
        runner.set_property("Ignore Leading/Trailing Whitespace", str(trim).lower())
        for name, value in values.items():
            runner.set_property(name, value)
        runner.enqueue(data)
        runner.run()
        (original,) = runner.get_flowfiles_for_relationship("original")
        assert original.content == data
        got = {}
        for route in ("first", "second", "unmatched"):
            outs = runner.get_flowfiles_for_relationship(route)
            assert len(outs) <= 1
            for out in outs:
                out.assert_attribute_equals("RouteText.Route", route)
                got[route] = out.content.decode("utf-8")
    assert got == expected
