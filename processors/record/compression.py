"""A record writer's output compressed as it is written (JsonRecordSetWriter's Compression
Format, as NiFi's: gzip, bzip2, xz-lzma2, snappy, snappy framed, zstd)."""

from __future__ import annotations

import bz2
import lzma
import struct
import zlib
from typing import Protocol

import cramjam
import pyarrow as pa
import zstandard

from processors.record.api import BinarySink, RecordSetWriter, WriteResult

NONE = "none"
GZIP = "gzip"
BZIP2 = "bzip2"
XZ_LZMA2 = "xz-lzma2"
SNAPPY = "snappy"
SNAPPY_FRAMED = "snappy framed"
ZSTD = "zstd"
FORMATS = (NONE, GZIP, BZIP2, XZ_LZMA2, SNAPPY, SNAPPY_FRAMED, ZSTD)

_SNAPPY_MAGIC = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
"""The header of xerial's SnappyOutputStream (NiFi's "snappy"): magic, version 1,
compatible version 1; then blocks of a big-endian length and a raw snappy block."""
_SNAPPY_BLOCK = 32 * 1024
"""xerial's default block size: the uncompressed bytes per block."""
_ZSTD_LEVEL = 3
"""zstd-jni's default level, which NiFi's ZstdCompressorOutputStream uses."""


class _Compressor(Protocol):
    def compress(self, data: bytes, /) -> bytes: ...

    def flush(self) -> bytes: ...


class _XerialSnappy:
    """xerial's SnappyOutputStream format, in blocks of 32 KiB."""

    def __init__(self) -> None:
        self._pending = bytearray()
        self._started = False

    def _header(self) -> bytes:
        if self._started:
            return b""
        self._started = True
        return _SNAPPY_MAGIC

    def _blocks(self, final: bool) -> bytes:
        out = [self._header()]
        while len(self._pending) >= _SNAPPY_BLOCK or (final and self._pending):
            block = bytes(self._pending[:_SNAPPY_BLOCK])
            del self._pending[:_SNAPPY_BLOCK]
            compressed = bytes(cramjam.snappy.compress_raw(block))
            out.append(struct.pack(">i", len(compressed)) + compressed)
        return b"".join(out)

    def compress(self, data: bytes, /) -> bytes:
        self._pending += data
        return self._blocks(final=False)

    def flush(self) -> bytes:
        return self._blocks(final=True)


class _FramedSnappy:
    def __init__(self) -> None:
        self._compressor = cramjam.snappy.Compressor()

    def compress(self, data: bytes, /) -> bytes:
        self._compressor.compress(data)
        return b""

    def flush(self) -> bytes:
        return bytes(self._compressor.finish())


class _Zstd:
    def __init__(self) -> None:
        self._compressor = zstandard.ZstdCompressor(level=_ZSTD_LEVEL).compressobj()

    def compress(self, data: bytes, /) -> bytes:
        return self._compressor.compress(data)

    def flush(self) -> bytes:
        return self._compressor.flush()


def _compressor(compression: str, level: int) -> _Compressor:
    if compression == GZIP:
        return zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    if compression == BZIP2:
        return bz2.BZ2Compressor(9)
    if compression == XZ_LZMA2:
        return lzma.LZMACompressor(format=lzma.FORMAT_XZ)
    if compression == SNAPPY:
        return _XerialSnappy()
    if compression == SNAPPY_FRAMED:
        return _FramedSnappy()
    if compression == ZSTD:
        return _Zstd()
    msg = f"unknown Compression Format '{compression}'"
    raise ValueError(msg)


class CompressingSink:
    """A ``BinarySink`` that compresses what it is given into ``sink``; ``close`` ends the
    compressed stream."""

    def __init__(self, sink: BinarySink, compression: str, level: int) -> None:
        self._sink = sink
        self._compressor = _compressor(compression, level)
        self.count = 0
        """Compressed bytes written so far."""

    def _put(self, data: bytes) -> None:
        if data:
            self._sink.write(data)
            self.count += len(data)

    def write(self, data: bytes | bytearray | memoryview, /) -> int:
        self._put(self._compressor.compress(bytes(data)))
        return len(data)

    def close(self) -> None:
        self._put(self._compressor.flush())


class CompressedWriter:
    """A record writer whose output goes through a ``CompressingSink``: finishing it ends
    the compressed stream; its bytes written are the compressed bytes."""

    def __init__(self, inner: RecordSetWriter, sink: CompressingSink) -> None:
        self._inner = inner
        self._sink = sink

    @property
    def schema(self) -> pa.Schema:
        return self._inner.schema

    @property
    def mime_type(self) -> str:
        return self._inner.mime_type

    @property
    def record_count(self) -> int:
        return self._inner.record_count

    @property
    def bytes_written(self) -> int:
        return self._sink.count

    def write_batch(self, batch: pa.RecordBatch) -> None:
        self._inner.write_batch(batch)

    def flush(self) -> None:
        self._inner.flush()

    def finish(self) -> WriteResult:
        result = self._inner.finish()
        self._sink.close()
        return result

    def abort(self) -> None:
        self._inner.abort()
