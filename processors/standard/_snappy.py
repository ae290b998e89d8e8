"""Snappy streams as NiFi's CompressContent writes and reads them (xerial snappy-java):
``snappy`` (SnappyOutputStream's blocks), ``snappy framed`` (the framing format) and
``snappy-hadoop`` (Hadoop's block stream, written only). Each works chunk by chunk, with at
most one block in memory; the raw block codec is cramjam's."""

from __future__ import annotations

import struct

import cramjam

XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = XERIAL_MAGIC + struct.pack(">ii", 1, 1)
"""SnappyOutputStream's header: magic, version 1, compatible version 1."""
_XERIAL_BLOCK = 32 * 1024
"""SnappyOutputStream's default block size (uncompressed bytes per block)."""
_HADOOP_BLOCK = 32 * 1024
"""SnappyHadoopCompatibleOutputStream's block size, as snappy-java's default."""
_FRAMED_STREAM_ID = b"\xff\x06\x00\x00sNaPpY"
"""The framing format's stream identifier chunk."""


class SnappyError(Exception):
    """The data is not a valid snappy stream of the format (or ends before its end)."""


def _raw_decompress(block: bytes) -> bytes:
    try:
        return bytes(cramjam.snappy.decompress_raw(block))
    except Exception as exc:  # cramjam reports bad data with a bare error type
        raise SnappyError(f"a snappy block is damaged ({exc})") from None


class XerialCompressor:
    """SnappyOutputStream: the header, then blocks of a big-endian length and raw snappy."""

    def __init__(self, block_size: int = _XERIAL_BLOCK) -> None:
        self._block_size = block_size
        self._pending = bytearray()
        self._started = False

    def _blocks(self, final: bool) -> bytes:
        out: list[bytes] = []
        if not self._started:
            self._started = True
            out.append(_XERIAL_HEADER)
        while len(self._pending) >= self._block_size or (final and self._pending):
            block = bytes(self._pending[: self._block_size])
            del self._pending[: self._block_size]
            compressed = bytes(cramjam.snappy.compress_raw(block))
            out.append(struct.pack(">i", len(compressed)) + compressed)
        return b"".join(out)

    def process(self, chunk: bytes) -> bytes:
        self._pending += chunk
        return self._blocks(final=False)

    def finish(self) -> bytes:
        return self._blocks(final=True)


class XerialDecompressor:
    """SnappyInputStream: the header (again before each concatenated stream), then blocks."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._seen = False

    def process(self, chunk: bytes) -> bytes:
        self._buffer += chunk
        out: list[bytes] = []
        while True:
            if self._buffer.startswith(XERIAL_MAGIC) or (
                not self._seen and len(self._buffer) < len(_XERIAL_HEADER)
            ):
                if len(self._buffer) < len(_XERIAL_HEADER):
                    break
                del self._buffer[: len(_XERIAL_HEADER)]
                self._seen = True
                continue
            if not self._seen:
                raise SnappyError("the content does not start with snappy's stream header")
            if len(self._buffer) < 4:
                break
            (length,) = struct.unpack(">i", self._buffer[:4])
            if length < 0:
                raise SnappyError("a snappy block has a negative length")
            if len(self._buffer) < 4 + length:
                break
            out.append(_raw_decompress(bytes(self._buffer[4 : 4 + length])))
            del self._buffer[: 4 + length]
        return b"".join(out)

    def finish(self) -> bytes:
        if not self._seen:
            raise SnappyError("the content is empty: there is no snappy stream")
        if self._buffer:
            raise SnappyError("the snappy data ends before its end")
        return b""


class FramedCompressor:
    """The framing format (SnappyFramedOutputStream), written as it goes."""

    def __init__(self) -> None:
        self._engine = cramjam.snappy.Compressor()
        self._written = False

    def _out(self, data: bytes) -> bytes:
        self._written = self._written or bool(data)
        return data

    def process(self, chunk: bytes) -> bytes:
        self._engine.compress(chunk)
        return self._out(bytes(self._engine.flush()))

    def finish(self) -> bytes:
        tail = self._out(bytes(self._engine.finish()))
        # the stream identifier starts every stream, an empty one too (as snappy-java's)
        return tail if self._written else _FRAMED_STREAM_ID


class FramedDecompressor:
    """The framing format (SnappyFramedInputStream): chunk by chunk, each checked against
    its CRC-32C (decoded as a one-chunk stream)."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._seen = False

    def process(self, chunk: bytes) -> bytes:
        self._buffer += chunk
        out: list[bytes] = []
        while len(self._buffer) >= 4:
            kind = self._buffer[0]
            length = int.from_bytes(self._buffer[1:4], "little")
            if len(self._buffer) < 4 + length:
                break
            frame = bytes(self._buffer[: 4 + length])
            del self._buffer[: 4 + length]
            if kind == 0xFF:
                if frame != _FRAMED_STREAM_ID:
                    raise SnappyError("the snappy framed stream identifier is damaged")
                self._seen = True
            elif not self._seen:
                raise SnappyError("the content does not start with a snappy framed stream")
            elif kind in (0x00, 0x01):
                try:
                    out.append(bytes(cramjam.snappy.decompress(_FRAMED_STREAM_ID + frame)))
                except Exception as exc:  # cramjam reports bad data with a bare error type
                    raise SnappyError(f"a snappy frame is damaged ({exc})") from None
            elif 0x02 <= kind <= 0x7F:
                raise SnappyError(f"unknown unskippable snappy frame type {kind:#x}")
            # 0x80..0xfe: skippable and padding frames carry nothing
        return b"".join(out)

    def finish(self) -> bytes:
        if not self._seen:
            raise SnappyError("the content is empty: there is no snappy framed stream")
        if self._buffer:
            raise SnappyError("the snappy framed data ends before its end")
        return b""


class HadoopCompressor:
    """Hadoop's BlockCompressorStream with the snappy codec (SnappyHadoopCompatible-
    OutputStream): each block is its big-endian uncompressed length, then one big-endian
    compressed length and the raw snappy bytes."""

    def __init__(self, block_size: int = _HADOOP_BLOCK) -> None:
        self._block_size = block_size
        self._pending = bytearray()

    def _blocks(self, final: bool) -> bytes:
        out: list[bytes] = []
        while len(self._pending) >= self._block_size or (final and self._pending):
            block = bytes(self._pending[: self._block_size])
            del self._pending[: self._block_size]
            compressed = bytes(cramjam.snappy.compress_raw(block))
            out.append(struct.pack(">ii", len(block), len(compressed)) + compressed)
        return b"".join(out)

    def process(self, chunk: bytes) -> bytes:
        self._pending += chunk
        return self._blocks(final=False)

    def finish(self) -> bytes:
        return self._blocks(final=True)
