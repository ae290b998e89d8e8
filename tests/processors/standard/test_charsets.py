"""Character sets as Java reads and writes them (each expectation checked against a JDK 17),
and the text processors using them: a UTF-16 text comes out with one byte order mark and
Java's byte order, whatever its size, and an unencodable character becomes "?"."""

from __future__ import annotations

import codecs

import pytest

from flowcore.testing import TestRunner
from processors.standard._charsets import decode, encode, java_charset


@pytest.mark.parametrize(
    ("text", "charset", "data"),
    [
        ("ab", "UTF-16", b"\xfe\xff\x00a\x00b"),
        ("", "UTF-16", b""),
        ("ab", "UTF-32", b"\x00\x00\x00a\x00\x00\x00b"),
        ("é€", "US-ASCII", b"??"),
        ("é€", "ISO-8859-1", b"\xe9?"),
        ("é", "UTF-8", b"\xc3\xa9"),
    ],
)
def test_encode_as_get_bytes(text: str, charset: str, data: bytes) -> None:
    assert encode(text, charset) == data


@pytest.mark.parametrize(
    ("data", "utf16", "utf32"),
    [
        (b"\x00a\x00b", "ab", "\ufffd"),  # no mark: big-endian
        (b"\xff\xfea\x00", "a", "\ufffd"),
        (b"\xfe\xff\x00a\xfe\xff", "a\ufeff", "\ufffd\ufffd"),  # a later mark is a character
        (b"\x00\x00\x00a", "\x00a", "a"),
        (b"\xff\xfe\x00\x00a\x00\x00\x00", "\x00a\x00", "a"),
    ],
)
def test_decode_as_new_string(data: bytes, utf16: str, utf32: str) -> None:
    assert decode(data, "UTF-16") == utf16
    assert decode(data, "utf-32") == utf32


def test_incremental_decoding_byte_by_byte() -> None:
    decoder = codecs.getincrementaldecoder(java_charset("UTF-16"))("replace")
    text = "".join(decoder.decode(bytes([byte])) for byte in b"\xff\xfea\x00b\x00")
    assert text + decoder.decode(b"", True) == "ab"


def test_utf16_lines_keep_one_byte_order_mark() -> None:
    """Line-by-Line writes in chunks of about 64 KB: Python's UTF-16 encoder put a mark
    before each (a U+FEFF in the middle of the text), and in little-endian order."""
    text = "".join(f"line {number:05d}\n" for number in range(8000))
    with TestRunner("ReplaceText") as runner:
        runner.set_property("Character Set", "UTF-16")
        runner.set_property("Replacement Strategy", "Prepend")
        runner.set_property("Replacement Value", ">")
        runner.enqueue(text.encode("utf-16-le"))  # no mark: read as big-endian by Java
        runner.enqueue(b"\xff\xfe" + text.encode("utf-16-le"))  # a little-endian mark
        runner.run(2)
        first, second = (f.content for f in runner.get_flowfiles_for_relationship("success"))
    expected = "".join(">" + line for line in text.splitlines(keepends=True))
    assert second == b"\xfe\xff" + expected.encode("utf-16-be")
    assert first[:2] == b"\xfe\xff" and first.count(b"\xfe\xff") == 1


def test_unencodable_characters_become_question_marks() -> None:
    """US-ASCII cannot hold the U+FFFD its decoder gives for "é": Java writes "?" for each;
    the FlowFile went to failure."""
    with TestRunner("ReplaceText") as runner:
        runner.set_property("Character Set", "US-ASCII")
        runner.set_property("Evaluation Mode", "Entire text")
        runner.set_property("Search Value", "a")
        runner.set_property("Replacement Value", "€")
        runner.enqueue("aé\n".encode())
        runner.run()
        runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(b"???\n")


def test_generate_flowfile_custom_text_in_utf16() -> None:
    with TestRunner("GenerateFlowFile") as runner:
        runner.set_property("Custom Text", "ab")
        runner.set_property("Character Set", "UTF-16")
        runner.run()
        runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(
            b"\xfe\xff\x00a\x00b"
        )
