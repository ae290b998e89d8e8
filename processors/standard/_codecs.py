"""Streaming compression codecs for CompressContent: each turns chunks into chunks, so
content of any size passes through with only a chunk or two in memory."""

from __future__ import annotations

import bz2
import lzma
import zlib
from collections.abc import Callable
from typing import Any, Protocol

import brotli
import lz4.frame
import zstandard

from processors.standard._snappy import (
    FramedCompressor,
    FramedDecompressor,
    HadoopCompressor,
    SnappyError,
    XerialCompressor,
    XerialDecompressor,
)


class CodecError(Exception):
    """The content is not valid data of the format (or ends before its end)."""


class Codec(Protocol):
    def process(self, chunk: bytes) -> bytes: ...

    def finish(self) -> bytes: ...


class _Checked:
    """A codec whose own errors are the content's: they become ``CodecError``."""

    def __init__(self, inner: Codec) -> None:
        self._inner = inner

    def process(self, chunk: bytes) -> bytes:
        try:
            return self._inner.process(chunk)
        except (SnappyError, brotli.error) as exc:
            raise CodecError(str(exc)) from None

    def finish(self) -> bytes:
        try:
            return self._inner.finish()
        except (SnappyError, brotli.error) as exc:
            raise CodecError(str(exc)) from None


class _BrotliDecompressor:
    """Brotli (one stream; bytes after its end are an error, as brotli4j's)."""

    def __init__(self) -> None:
        self._engine = brotli.Decompressor()
        self._empty = True

    def process(self, chunk: bytes) -> bytes:
        if not chunk:
            return b""
        self._empty = False
        if self._engine.is_finished():
            raise CodecError("data after the end of the compressed stream")
        return bytes(self._engine.process(chunk))

    def finish(self) -> bytes:
        if self._empty:
            raise CodecError("the content is empty: there is no compressed data")
        if not self._engine.is_finished():
            raise CodecError("the compressed data ends before its end")
        return b""


class _BrotliCompressor:
    def __init__(self, quality: int) -> None:
        self._engine = brotli.Compressor(quality=quality)

    def process(self, chunk: bytes) -> bytes:
        return bytes(self._engine.process(chunk))

    def finish(self) -> bytes:
        return bytes(self._engine.finish())


class _Compressor:
    """Wraps an object with ``compress`` and ``flush``."""

    def __init__(self, engine: Any, finish: Callable[[Any], bytes] | None = None) -> None:
        self._engine = engine
        self._finish = finish

    def process(self, chunk: bytes) -> bytes:
        return bytes(self._engine.compress(chunk))

    def finish(self) -> bytes:
        if self._finish is not None:
            return self._finish(self._engine)
        return bytes(self._engine.flush())


class _Decompressor:
    """Decompresses concatenated members (a new engine for the bytes after each end).

    Empty content is not valid data of any format but zstd (``allow_empty``): NiFi's
    decompressing streams fail on it, so nothing passes as decompressed that never was.
    """

    def __init__(
        self, make: Callable[[], Any], concatenated: bool = True, allow_empty: bool = False
    ) -> None:
        self._make = make
        self._engine = make()
        self._concatenated = concatenated
        self._started = False
        self._empty = not allow_empty  # no byte seen yet, and that is an error

    def process(self, chunk: bytes) -> bytes:
        out: list[bytes] = []
        data = chunk
        try:
            while data:
                self._started = True
                self._empty = False
                out.append(bytes(self._engine.decompress(data)))
                if getattr(self._engine, "eof", False):
                    data = bytes(getattr(self._engine, "unused_data", b""))
                    if data and not self._concatenated:
                        raise CodecError("data after the end of the compressed stream")
                    self._engine = self._make()
                    self._started = False
                else:
                    data = b""
        except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError, RuntimeError) as exc:
            raise CodecError(str(exc)) from None
        except zstandard.ZstdError as exc:
            raise CodecError(str(exc)) from None
        return b"".join(out)

    def finish(self) -> bytes:
        if self._empty:
            raise CodecError("the content is empty: there is no compressed data")
        if self._started and not getattr(self._engine, "eof", True):
            raise CodecError("the compressed data ends before its end")
        return b""


class _Zlib:
    """zlib/gzip decompression, which reports its end through ``eof``."""

    def __init__(self, wbits: int) -> None:
        self._engine = zlib.decompressobj(wbits)

    @property
    def eof(self) -> bool:
        return self._engine.eof

    @property
    def unused_data(self) -> bytes:
        return self._engine.unused_data

    def decompress(self, data: bytes) -> bytes:
        return self._engine.decompress(data)


class _Lz4:
    def __init__(self) -> None:
        self._engine = lz4.frame.LZ4FrameDecompressor()

    @property
    def eof(self) -> bool:
        return bool(self._engine.eof)

    @property
    def unused_data(self) -> bytes:
        return bytes(self._engine.unused_data or b"")

    def decompress(self, data: bytes) -> bytes:
        return bytes(self._engine.decompress(data))


def _lz4_compressor() -> Codec:
    engine = lz4.frame.LZ4FrameCompressor()
    header = engine.begin()
    first = [True]

    class _Lz4Compressor:
        def process(self, chunk: bytes) -> bytes:
            prefix = header if first[0] else b""
            first[0] = False
            return prefix + bytes(engine.compress(chunk))

        def finish(self) -> bytes:
            prefix = header if first[0] else b""
            first[0] = False
            return prefix + bytes(engine.flush())

    return _Lz4Compressor()


def compressor(format_name: str, level: int) -> Codec:
    if format_name == "gzip":
        return _Compressor(zlib.compressobj(level, zlib.DEFLATED, 31))
    if format_name == "deflate":
        return _Compressor(zlib.compressobj(level))
    if format_name == "bzip2":
        return _Compressor(bz2.BZ2Compressor(9))
    if format_name == "xz-lzma2":
        return _Compressor(lzma.LZMACompressor(lzma.FORMAT_XZ, preset=level))
    if format_name == "lzma":
        return _Compressor(lzma.LZMACompressor(lzma.FORMAT_ALONE))
    if format_name == "zstd":
        return _Compressor(
            zstandard.ZstdCompressor(level=level * 2).compressobj(),
            lambda engine: bytes(engine.flush()),
        )
    if format_name == "lz4-framed":
        return _lz4_compressor()
    if format_name == "snappy":
        return XerialCompressor()
    if format_name == "snappy framed":
        return FramedCompressor()
    if format_name == "snappy-hadoop":
        return HadoopCompressor()
    if format_name == "brotli":
        return _BrotliCompressor(level)
    raise CodecError(f"the {format_name} format is not supported")


def decompressor(format_name: str) -> Codec:
    if format_name == "gzip":
        return _Decompressor(lambda: _Zlib(31))
    if format_name == "deflate":
        return _Decompressor(lambda: _Zlib(15), concatenated=False)
    if format_name == "bzip2":
        return _Decompressor(bz2.BZ2Decompressor)
    if format_name == "xz-lzma2":
        return _Decompressor(lambda: lzma.LZMADecompressor(lzma.FORMAT_XZ))
    if format_name == "lzma":
        return _Decompressor(lambda: lzma.LZMADecompressor(lzma.FORMAT_ALONE), False)
    if format_name == "zstd":
        return _Decompressor(lambda: zstandard.ZstdDecompressor().decompressobj(), allow_empty=True)
    if format_name == "lz4-framed":
        return _Decompressor(_Lz4)
    if format_name == "snappy":
        return _Checked(XerialDecompressor())
    if format_name == "snappy framed":
        return _Checked(FramedDecompressor())
    if format_name == "brotli":
        return _Checked(_BrotliDecompressor())
    raise CodecError(f"the {format_name} format is not supported")
