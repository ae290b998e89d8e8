"""Lines read from chunks: line endings kept, "\\r\\n" split across chunks, buffer limit."""

from __future__ import annotations

import pytest

from processors.standard._text import BufferOverflow, iter_text_lines

TEXT = "a\r\nbb\rccc\n\r\n\rdddd"
EXPECTED = ["a\r\n", "bb\r", "ccc\n", "\r\n", "\r", "dddd"]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 100])
def test_lines_across_chunk_boundaries(size: int) -> None:
    data = TEXT.encode("utf-8")
    chunks = [data[i : i + size] for i in range(0, len(data), size)]
    assert list(iter_text_lines(chunks, "utf-8")) == EXPECTED


def test_multibyte_characters_split_across_chunks() -> None:
    data = "é\nü".encode()
    chunks = [data[:1], data[1:4], data[4:]]
    assert list(iter_text_lines(chunks, "utf-8")) == ["é\n", "ü"]


def test_a_line_over_the_limit_raises() -> None:
    with pytest.raises(BufferOverflow):
        list(iter_text_lines([b"short\n", b"x" * 40, b"x" * 40, b"\n"], "utf-8", 50))
    assert list(iter_text_lines([b"short\n", b"x" * 40, b"\n"], "utf-8", 50)) == [
        "short\n",
        "x" * 40 + "\n",
    ]
