"""Lines read from chunks: line endings kept, "\\r\\n" split across chunks, buffer limit."""

from __future__ import annotations

import pytest

from processors.standard._text import BufferOverflow, iter_text_lines, line_capacity

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
    """NiFi's LineDemarcator holds 8192 chars under any smaller limit; a line needs one
    char more unless it ends with "\\n" (the char read after it)."""
    full = "x" * 8191
    assert list(iter_text_lines([b"short\n", full.encode(), b"\n"], "utf-8", 50)) == [
        "short\n",
        full + "\n",
    ]
    assert list(iter_text_lines([b"a\n", full.encode()], "utf-8", 50)) == ["a\n", full]
    for tail in (b"x\n", b"x", b"\ry", b"\r\n"):
        with pytest.raises(BufferOverflow):
            list(iter_text_lines([b"short\n", full.encode(), tail], "utf-8", 50))
    with pytest.raises(BufferOverflow):  # chars, counted in Java's UTF-16 units
        list(iter_text_lines([("x" * 8190 + "\U0001f600\n").encode()], "utf-8", 50))


@pytest.mark.parametrize(
    ("limit", "capacity"),
    [(1, 8192), (16_383, 8192), (16_384, 16_384), (2_097_152, 2_097_152), (3_000_000, 2_097_152)],
)
def test_line_capacity_grows_as_the_demarcator_buffer(limit: int, capacity: int) -> None:
    assert line_capacity(limit) == capacity


@pytest.mark.parametrize(
    ("max_buffer", "capacity"),
    [(1, 8192), (10_240, 8192), (16_383, 8192), (16_384, 16_384), (3 * 2**20, 3 * 2**20)],
)
def test_line_capacity_is_nifi_demarcator_buffer(max_buffer: int, capacity: int) -> None:
    """NiFi's LineDemarcator starts with 8192 characters and doubles (at most +1 MiB)
    while the new size stays within the Maximum Buffer Size."""
    assert line_capacity(max_buffer) == capacity


@pytest.mark.parametrize(
    ("text", "fits"),
    [
        ("x" * 8191 + "\n", True),
        ("x" * 8192 + "\n", False),
        ("x" * 8190 + "\r\n", True),
        ("x" * 8190 + "\r", True),  # a lone "\r" needs the character after it
        ("x" * 8191 + "\r", False),
        ("x" * 8191, True),  # the last line needs one more unit too
        ("x" * 8192, False),
        ("\u00e9" * 8191 + "\n", True),  # 16,383 bytes: the limit counts characters
        ("\U0001f600" * 4096 + "\n", False),  # an emoji is two UTF-16 units
    ],
)
def test_the_limit_counts_utf16_units_of_a_line(text: str, fits: bool) -> None:
    data = ("short\n" + text).encode("utf-8")
    chunks = [data[i : i + 1000] for i in range(0, len(data), 1000)]
    if fits:
        assert list(iter_text_lines(chunks, "utf-8", 10_240))[1] == text
    else:
        with pytest.raises(BufferOverflow):
            list(iter_text_lines(chunks, "utf-8", 10_240))
