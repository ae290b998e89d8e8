"""ReplaceText over lines with CR, LF, CRLF and mixed endings, and over bytes that are not
UTF-8: what NiFi's ReplaceText gives.

* Line-by-Line decodes the whole content (NiFi's LineDemarcator over a charset reader)
  and runs the Java regex on each line with its ending: ``^(.*)$`` takes the line's text
  and leaves its ending ("\\r\\n", "\\r" or "\\n") where it was.
* Entire text leaves content the pattern does not match untouched, byte for byte; a match
  re-encodes the decoded text (bytes invalid in the charset become U+FFFD, as in NiFi).
* Prepend, Append and Surround over the entire text copy the content's bytes as they are.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from flowcore.testing import TestRunner
from tests.processors.standard.chunked_streams import streamed_in_chunks_of

_EOL = re.compile(r"\r\n|\r|\n")

pieces = st.sampled_from(
    [
        b"a",
        b"b",
        b" ",
        b"$1",
        b"\t",
        b"\n",
        b"\r",
        b"\r\n",
        b"\xc3\xa9",
        b"\xe2\x82\xac",
        b"\xff",
        b"\xc3",
    ]
)
contents = st.lists(pieces, max_size=30).map(b"".join)


def _run(data: bytes, chunk: int = 1 << 20, **properties: str) -> tuple[str, bytes]:
    with streamed_in_chunks_of(chunk), TestRunner("ReplaceText") as runner:
        for name, value in properties.items():
            runner.set_property(name.replace("_", " "), value)
        runner.enqueue(data)
        runner.run()
        for relationship in ("success", "failure"):
            for out in runner.get_flowfiles_for_relationship(relationship):
                return relationship, out.content
    raise AssertionError("the FlowFile vanished")


def _wrap_lines(text: str) -> str:
    out, start = [], 0
    for match in _EOL.finditer(text):
        out.append(f"<{text[start : match.start()]}>{match.group()}")
        start = match.end()
    if start < len(text):
        out.append(f"<{text[start:]}>")
    return "".join(out)


@settings(max_examples=200, deadline=None)
@given(contents, st.integers(1, 9))
def test_line_by_line_regex_keeps_every_line_ending(data: bytes, chunk: int) -> None:
    relationship, out = _run(
        data,
        chunk,
        Replacement_Strategy="Regex Replace",
        Evaluation_Mode="Line-by-Line",
        Search_Value="^(.*)$",
        Replacement_Value="<$1>",
    )
    assert relationship == "success"
    assert out == _wrap_lines(data.decode("utf-8", errors="replace")).encode("utf-8")


@settings(max_examples=200, deadline=None)
@given(contents, st.integers(1, 9))
def test_line_by_line_append_goes_before_the_line_ending(data: bytes, chunk: int) -> None:
    relationship, out = _run(
        data,
        chunk,
        Replacement_Strategy="Append",
        Evaluation_Mode="Line-by-Line",
        Replacement_Value=">",
    )
    text = data.decode("utf-8", errors="replace")
    expected = _EOL.sub(lambda match: ">" + match.group(), text)
    if text and not _EOL.search(text[-1]):
        expected += ">"
    assert (relationship, out) == ("success", expected.encode("utf-8"))


@settings(max_examples=200, deadline=None)
@given(contents, st.integers(1, 9))
def test_entire_text_without_a_match_is_left_as_it_was(data: bytes, chunk: int) -> None:
    relationship, out = _run(
        data, chunk, Evaluation_Mode="Entire text", Search_Value="zz+", Replacement_Value="y"
    )
    assert (relationship, out) == ("success", data)


@settings(max_examples=200, deadline=None)
@given(contents, st.integers(1, 9))
def test_entire_text_match_reencodes_the_text(data: bytes, chunk: int) -> None:
    relationship, out = _run(
        data, chunk, Evaluation_Mode="Entire text", Search_Value="b", Replacement_Value="B"
    )
    expected = data.decode("utf-8", errors="replace").replace("b", "B").encode("utf-8")
    assert (relationship, out) == ("success", expected if b"b" in data else data)


@settings(max_examples=200, deadline=None)
@given(contents, st.sampled_from(["Prepend", "Append", "Surround"]), st.integers(1, 9))
def test_entire_text_surround_copies_the_bytes(data: bytes, strategy: str, chunk: int) -> None:
    relationship, out = _run(
        data,
        chunk,
        Replacement_Strategy=strategy,
        Evaluation_Mode="Entire text",
        Replacement_Value="é",
        Text_to_Prepend="<",
        Text_to_Append=">",
    )
    expected = {
        "Prepend": "é".encode() + data,
        "Append": data + "é".encode(),
        "Surround": b"<" + data + b">",
    }[strategy]
    assert (relationship, out) == ("success", expected)
