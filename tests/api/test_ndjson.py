"""NDJSON batches: the fast (bytes, msgspec) reading and the per-line one agree."""

from __future__ import annotations

import pytest

from api.inputs import BadInput
from api.ndjson import parse_ndjson


def contents(body: bytes) -> list[bytes]:
    return [item.content for item in parse_ndjson(body)]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"content":"a"}\n\n  \n{"content":"b"}\n', [b"a", b"b"]),
        (b'{"content":"a"}\r\n{"content":"b"}', [b"a", b"b"]),  # CRLF
        (b'{"content":"a"}\r{"content":"b"}', [b"a", b"b"]),  # a lone CR ends a line too
        (b'{"content":"a"}\x0b{"content":"b"}', [b"a", b"b"]),  # so does a vertical tab
        (b'{"content":"\xc3\xa9"}\n{"content_base64":"YWI="}', ["é".encode(), b"ab"]),
        (b'{"attributes":{"k":"1","k":"2"}}', [b""]),
    ],
)
def test_lines_are_read_as_str_splitlines_reads_them(body: bytes, expected: list[bytes]) -> None:
    assert contents(body) == expected


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b'{"content":\n"a"}', 400, "line 1: not valid JSON"),  # one object over two lines
        (b'{"content":"a"}{"content":"b"}', 400, "line 1: not valid JSON"),  # two on one line
        (b'{"content":"a"}\n{"x":1}', 422, "line 2: unknown field(s) x"),
        (b'{"content":"a"}\n{"attributes":{"uuid":"u"}}', 422, "line 2: attributes: the 'uuid'"),
        (b'{"content":"a","content_base64":"YQ=="}', 422, "not both"),
        (b'{"content_base64":"!!"}', 422, "line 1: 'content_base64' is not valid base64"),
        (b'{"content":null}', 422, "line 1: 'content' must be a string"),
        (b"\n \n", 400, "the batch is empty"),
        (b'{"content":"\xff"}', 400, "not valid UTF-8"),
        (b'{"content":"\\ud800"}', 422, "line 1: 'content' is not valid Unicode"),
        (b'{"attributes":{"a":"\\udfff"}}', 422, "line 1: attributes: attribute 'a' is not valid"),
    ],
)
def test_a_bad_line_is_named_and_refuses_the_batch(body: bytes, status: int, words: str) -> None:
    with pytest.raises(BadInput) as caught:
        parse_ndjson(body)
    assert caught.value.status == status
    assert words in caught.value.detail
