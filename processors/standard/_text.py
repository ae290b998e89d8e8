"""Text helpers shared by the content processors: lines decoded from a stream of chunks,
NiFi's buffer limits, and attribute views that decorate values for Expression Language."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from processors.standard._charsets import java_charset

_EOL_CHARS = "\r\n"
_EOL = re.compile(r"\r\n|\r|\n")
_OUT_CHUNK = 64 * 1024
_DEMARCATOR_BUFFER = 8192
_DEMARCATOR_STEP = 1_048_576


class BufferOverflow(Exception):
    """A line (or the whole content) is larger than the Maximum Buffer Size."""


def line_capacity(max_size: int) -> int:
    """How many chars NiFi's LineDemarcator can hold for one line under a Maximum Buffer
    Size: its buffer starts at 8192 chars and grows (doubling, by 1 MB at most) only while
    the grown size stays within the maximum, so a smaller maximum still allows 8192."""
    capacity = _DEMARCATOR_BUFFER
    while capacity < _DEMARCATOR_STEP and capacity * 2 <= max_size:
        capacity *= 2
    if capacity >= _DEMARCATOR_STEP:  # from 1 MB on it grows by 1 MB at a time
        capacity += (max_size - capacity) // _DEMARCATOR_STEP * _DEMARCATOR_STEP
    return capacity


def _java_length(text: str) -> int:
    """The length of ``text`` in Java chars (UTF-16 code units)."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def iter_text_lines(
    chunks: Iterable[bytes], charset: str, max_line: int | None = None
) -> Iterator[str]:
    """Decoded lines, each with its line ending ("\\n", "\\r\\n" or "\\r"), as NiFi's
    LineDemarcator gives them. Only the current line is held; a line the demarcator's
    buffer cannot hold under a Maximum Buffer Size of ``max_line`` bytes (see
    ``line_capacity``; it counts chars, and a line not ended by "\\n" needs one char more,
    the one read after it) raises ``BufferOverflow``."""
    codec = java_charset(charset)
    decoder = codecs.getincrementaldecoder(codec)(errors="replace")
    pending = ""
    capacity = None if max_line is None else line_capacity(max_line)

    def check(line: str, complete: bool = False) -> None:
        if capacity is not None and 2 * len(line) >= capacity:
            length = _java_length(line)
            if length + (0 if complete and line.endswith("\n") else 1) > capacity:
                raise BufferOverflow(
                    f"a line of {length} chars is larger than the Maximum Buffer Size "
                    f"({max_line} bytes) allows"
                )

    def split(text: str, final: bool) -> Iterator[str]:
        nonlocal pending
        text = pending + text
        start = 0
        size = len(text)
        for match in _EOL.finditer(text):
            end = match.end()
            if end == size and not final and match.group() == "\r":
                break  # "\r" last: maybe half of "\r\n"
            yield text[start:end]
            start = end
        pending = text[start:]
        check(pending)
        if final and pending:
            yield pending
            pending = ""

    for chunk in chunks:
        text = decoder.decode(chunk)
        if "\n" not in text and "\r" not in text:
            pending += text
            check(pending)
            continue
        for line in split(text, False):
            check(line, complete=True)
            yield line
    for line in split(decoder.decode(b"", final=True), True):
        check(line, complete=True)
        yield line


def line_ending(line: str) -> tuple[str, str]:
    """``(text, ending)`` of a line."""
    stripped = line.rstrip(_EOL_CHARS)
    return stripped, line[len(stripped) :]


class TextSink:
    """Encodes text written to it and hands it to ``write`` in chunks of about 64 KB.

    One encoder for the whole text, as Java's writer: a byte order mark (UTF-16) comes
    once, at the start, not at each chunk; what the charset cannot encode becomes ``?``.
    """

    __slots__ = ("_encoder", "_parts", "_size", "_write")

    def __init__(self, write: Callable[[bytes], None], charset: str) -> None:
        self._write = write
        self._encoder = codecs.getincrementalencoder(java_charset(charset))(errors="replace")
        self._parts: list[str] = []
        self._size = 0

    def __call__(self, text: str) -> None:
        self._parts.append(text)
        self._size += len(text)
        if self._size >= _OUT_CHUNK:
            self.flush()

    def flush(self) -> None:
        if self._parts:
            self._write(self._encoder.encode("".join(self._parts)))
            self._parts.clear()
            self._size = 0


class DecoratedValues(Mapping[str, str]):
    """A view of ``base`` whose values pass through ``decorate`` (NiFi's
    AttributeValueDecorator); ``extra`` names are looked up first."""

    __slots__ = ("_base", "_decorate", "_extra")

    def __init__(
        self,
        base: Mapping[str, str],
        decorate: Callable[[str], str],
        extra: Mapping[str, str] | None = None,
    ) -> None:
        self._base = base
        self._decorate = decorate
        self._extra = extra or {}

    def __getitem__(self, name: str) -> str:
        if name in self._extra:
            return self._decorate(self._extra[name])
        return self._decorate(self._base[name])

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        try:
            return self[name]
        except KeyError:
            return default

    def __contains__(self, name: object) -> bool:
        return name in self._extra or name in self._base

    def __iter__(self) -> Iterator[str]:
        yield from self._extra
        yield from (name for name in self._base if name not in self._extra)

    def __len__(self) -> int:
        return len(set(self._extra) | set(self._base))


def java_quote(text: str) -> str:
    """``Pattern.quote``: the text as a literal in a Java regular expression."""
    return "\\Q" + text.replace("\\E", "\\E\\\\E\\Q") + "\\E"


def read_prefix(chunks: Iterable[bytes], limit: int) -> bytes:
    """The first ``limit`` bytes of the chunks; the rest is never read."""
    parts: list[bytes] = []
    size = 0
    for chunk in chunks:
        if size + len(chunk) >= limit:
            parts.append(chunk[: limit - size])
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)
