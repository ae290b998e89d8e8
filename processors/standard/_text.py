"""Text helpers shared by the content processors: lines decoded from a stream of chunks,
NiFi's buffer limits, and attribute views that decorate values for Expression Language."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from flowcore.el.utf16 import java_length
from processors.standard._charsets import java_charset

_EOL_CHARS = "\r\n"
_EOL = re.compile(r"\r\n|\r|\n")
_OUT_CHUNK = 64 * 1024


class BufferOverflow(Exception):
    """A line (or the whole content) is larger than the Maximum Buffer Size."""


_INITIAL_BUFFER = 8192
_MAX_GROWTH = 1_048_576


def line_capacity(max_buffer: int) -> int:
    """The longest line, in UTF-16 code units, that NiFi's LineDemarcator holds under a
    Maximum Buffer Size of ``max_buffer``: its character buffer starts at 8192 and grows
    by doubling (at most 1 MiB at a time) while the new size stays within the maximum,
    so a maximum under 8192 still holds 8192 characters."""
    capacity = _INITIAL_BUFFER
    while True:
        grown = min(capacity * 2, capacity + _MAX_GROWTH)
        if grown > max_buffer:
            return capacity
        capacity = grown


def iter_text_lines(
    chunks: Iterable[bytes], charset: str, max_buffer: int | None = None
) -> Iterator[str]:
    """Decoded lines, each with its line ending ("\\n", "\\r\\n" or "\\r"), as NiFi's
    LineDemarcator gives them. Only the current line is held; a line that does not fit
    the demarcator's character buffer under ``max_buffer`` (``line_capacity``; counted in
    UTF-16 code units, not bytes) raises ``BufferOverflow``. A line ending with a lone
    "\\r", or the last line without an ending, needs one unit more: the demarcator reads
    one character past it."""
    codec = java_charset(charset)
    decoder = codecs.getincrementaldecoder(codec)(errors="replace")
    pending = ""
    capacity = line_capacity(max_buffer) if max_buffer is not None else None

    def check(line: str, lookahead: bool = True) -> None:
        if capacity is None or (len(line) + 1) * 2 <= capacity:
            return
        needed = java_length(line) + (1 if lookahead or not line.endswith("\n") else 0)
        if needed > capacity:
            raise BufferOverflow(
                f"a line of {java_length(line)} characters is larger than the Maximum Buffer "
                f"Size allows ({capacity} characters)"
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
            line = text[start:end]
            check(line, lookahead=False)
            yield line
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
        yield from split(text, False)
    yield from split(decoder.decode(b"", final=True), True)


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
