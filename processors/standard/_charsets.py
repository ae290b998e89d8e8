"""Character sets as Java reads and writes them, for the text processors' Character Set.

Python agrees with Java for most names; ``UTF-16`` and ``UTF-32`` differ. Java's UTF-16
writes big-endian after a ``FE FF`` byte order mark and reads a mark if there is one,
big-endian if not; Python's writes and reads the machine's order (little-endian). Java's
UTF-32 writes big-endian without a mark and reads a mark if there is one, big-endian if
not. Both are registered as codecs of their own (``x-java-utf-16``, ``x-java-utf-32``),
so NiFi's bytes come out and text without a mark reads as in NiFi.

Java replaces what a charset cannot encode with ``?`` where Python raises: ``encode``
does as Java does.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing_extensions import Buffer


@dataclass(frozen=True, slots=True)
class _Unicode:
    big_endian: str
    little_endian: str
    big_mark: bytes
    little_mark: bytes
    write_mark: bool


_UTF16 = _Unicode("utf-16-be", "utf-16-le", b"\xfe\xff", b"\xff\xfe", True)
_UTF32 = _Unicode("utf-32-be", "utf-32-le", b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00", False)
_JAVA = {"utf_16": "x-java-utf-16", "utf16": "x-java-utf-16"}
_JAVA |= {"utf_32": "x-java-utf-32", "utf32": "x-java-utf-32"}


def _encoder(kind: _Unicode) -> type[codecs.IncrementalEncoder]:
    class Encoder(codecs.IncrementalEncoder):
        """Big-endian, after the mark (UTF-16) at the start of the first text written."""

        def __init__(self, errors: str = "strict") -> None:
            super().__init__(errors)
            self._marked = not kind.write_mark

        def encode(self, text: str, final: bool = False) -> bytes:
            data = text.encode(kind.big_endian, self.errors)
            if text and not self._marked:
                self._marked = True
                return kind.big_mark + data
            return data

        def reset(self) -> None:
            self._marked = not kind.write_mark

    return Encoder


def _decoder(kind: _Unicode) -> type[codecs.IncrementalDecoder]:
    class Decoder(codecs.IncrementalDecoder):
        """Little-endian after a little-endian mark, big-endian otherwise (a big-endian
        mark is skipped)."""

        def __init__(self, errors: str = "strict") -> None:
            super().__init__(errors)
            self._head = b""
            self._inner: codecs.IncrementalDecoder | None = None

        def decode(self, data: bytes, final: bool = False) -> str:  # type: ignore[override]
            if self._inner is not None:
                return self._inner.decode(data, final)
            head = self._head + bytes(data)
            size = len(kind.big_mark)
            if len(head) < size and not final:
                self._head = head
                return ""
            self._head = b""
            order = kind.big_endian
            if head.startswith(kind.little_mark):
                order, head = kind.little_endian, head[size:]
            elif head.startswith(kind.big_mark):
                head = head[size:]
            self._inner = codecs.getincrementaldecoder(order)(self.errors)
            return self._inner.decode(head, final)

        def reset(self) -> None:
            self._head = b""
            self._inner = None

    return Decoder


def _codec(name: str, kind: _Unicode) -> codecs.CodecInfo:
    encoder, decoder = _encoder(kind), _decoder(kind)

    def encode(text: str, errors: str = "strict") -> tuple[bytes, int]:
        return encoder(errors).encode(text, True), len(text)

    def decode(data: Buffer, errors: str = "strict") -> tuple[str, int]:
        raw = bytes(data)
        return decoder(errors).decode(raw, True), len(raw)

    return codecs.CodecInfo(
        encode, decode, name=name, incrementalencoder=encoder, incrementaldecoder=decoder
    )


_CODECS = {
    "x_java_utf_16": _codec("x-java-utf-16", _UTF16),
    "x_java_utf_32": _codec("x-java-utf-32", _UTF32),
}
codecs.register(_CODECS.get)


def java_charset(name: str) -> str:
    """The codec that reads and writes ``name`` as Java does."""
    key = name.strip().lower().replace("-", "_")
    return _JAVA.get(key, name.strip())


def encode(text: str, charset: str) -> bytes:
    """``String.getBytes(charset)``: unencodable characters become ``?``."""
    return text.encode(java_charset(charset), errors="replace")


def decode(data: bytes, charset: str) -> str:
    """``new String(data, charset)``: undecodable bytes become U+FFFD."""
    return data.decode(java_charset(charset), errors="replace")
