"""CompressContent: NiFi's TestCompressContent scenarios through the TestRunner."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib
from collections.abc import Callable

import lz4.frame
import pytest
import zstandard

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
DATA = b"Hello, World!\n" * 5000 + os.urandom(300_000)  # over one stream chunk

DECOMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.decompress,
    "deflate": zlib.decompress,
    "bzip2": bz2.decompress,
    "xz-lzma2": lambda data: lzma.decompress(data, lzma.FORMAT_XZ),
    "lzma": lambda data: lzma.decompress(data, lzma.FORMAT_ALONE),
    "zstd": lambda data: zstandard.ZstdDecompressor().decompressobj().decompress(data),
    "lz4-framed": lz4.frame.decompress,
}
COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "deflate": zlib.compress,
    "bzip2": bz2.compress,
    "xz-lzma2": lambda data: lzma.compress(data, lzma.FORMAT_XZ),
    "lzma": lambda data: lzma.compress(data, lzma.FORMAT_ALONE),
    "zstd": lambda data: zstandard.ZstdCompressor().compress(data),
    "lz4-framed": lz4.frame.compress,
}
MIME = {
    "gzip": "application/gzip",
    "deflate": "application/gzip",
    "bzip2": "application/x-bzip2",
    "xz-lzma2": "application/x-xz",
    "lzma": "application/x-lzma",
    "zstd": "application/zstd",
    "lz4-framed": "application/x-lz4-framed",
}
EXTENSION = {
    "gzip": ".gz",
    "deflate": ".zlib",
    "bzip2": ".bz2",
    "xz-lzma2": ".xz",
    "lzma": ".lzma",
    "zstd": ".zst",
    "lz4-framed": ".lz4",
}


@pytest.mark.parametrize("name", sorted(COMPRESS))
def test_compress(make_runner: RunnerFactory, name: str) -> None:
    runner = make_runner(
        "CompressContent",
        properties={"Mode": "compress", "Compression Format": name, "Update Filename": "true"},
    )
    runner.enqueue(DATA, {"filename": "data.txt"})
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    assert DECOMPRESS[name](out.content) == DATA
    out.assert_attribute_equals("mime.type", MIME[name])
    out.assert_attribute_equals("filename", "data.txt" + EXTENSION[name])
    types = [e.event_type for e in runner.get_provenance_events()]
    assert ProvenanceEventType.CONTENT_MODIFIED in types


@pytest.mark.parametrize("name", sorted(DECOMPRESS))
def test_decompress(make_runner: RunnerFactory, name: str) -> None:
    runner = make_runner(
        "CompressContent",
        properties={"Mode": "decompress", "Compression Format": name, "Update Filename": "true"},
    )
    runner.enqueue(COMPRESS[name](DATA), {"filename": "data.txt" + EXTENSION[name]})
    runner.enqueue(COMPRESS[name](DATA), {"filename": "data.other", "mime.type": "x"})
    runner.run(2)
    first, second = runner.get_flowfiles_for_relationship("success")
    assert first.content == DATA
    first.assert_attribute_equals("filename", "data.txt")
    second.assert_attribute_equals("filename", "data.other")
    second.assert_attribute_not_exists("mime.type")


@pytest.mark.parametrize("name", ["gzip", "bzip2", "xz-lzma2", "zstd", "lz4-framed"])
def test_decompress_concatenated(make_runner: RunnerFactory, name: str) -> None:
    runner = make_runner(
        "CompressContent", properties={"Mode": "decompress", "Compression Format": name}
    )
    runner.enqueue(COMPRESS[name](b"Hello, ") + COMPRESS[name](b"World!"))
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals("Hello, World!")


def test_decompress_with_mime_types(make_runner: RunnerFactory) -> None:
    runner = make_runner("CompressContent", properties={"Mode": "decompress"})
    runner.enqueue(bz2.compress(b"one"), {"mime.type": "application/x-bzip2"})
    runner.enqueue(bz2.compress(b"two"), {"mime.type": "application/bzip2"})
    runner.enqueue(lzma.compress(b"three"), {"mime.type": "application/x-xz"})
    runner.enqueue(b"plain", {"mime.type": "text/plain"})
    runner.enqueue(b"no type")
    runner.enqueue(b"snappy", {"mime.type": "application/x-snappy"})
    runner.run(6)
    assert [f.text() for f in runner.get_flowfiles_for_relationship("success")] == [
        "one",
        "two",
        "three",
        "plain",
    ]
    assert [f.text() for f in runner.get_flowfiles_for_relationship("failure")] == [
        "no type",
        "snappy",
    ]


def test_decompress_failure_keeps_content(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "CompressContent", properties={"Mode": "decompress", "Compression Format": "gzip"}
    )
    runner.enqueue(b"not gzip at all", {"filename": "x.gz"})
    runner.enqueue(gzip.compress(DATA)[:1000])  # cut short
    runner.run(2)
    runner.assert_all_flowfiles_transferred("failure", 2)
    first = runner.get_flowfiles_for_relationship("failure")[0]
    first.assert_content_equals(b"not gzip at all")
    first.assert_attribute_equals("filename", "x.gz")


def test_snappy_hadoop_is_written_only(make_runner: RunnerFactory) -> None:
    for name in ("snappy", "snappy framed", "brotli", "snappy-hadoop"):
        make_runner("CompressContent", properties={"Compression Format": name}).assert_valid()
    runner = make_runner("CompressContent", properties={"Compression Format": "snappy-hadoop"})
    runner.enqueue(b"abc" * 6000)
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0].content
    # Hadoop's block stream: uncompressed length, compressed length, raw snappy
    assert out[:4] == (18000).to_bytes(4, "big")
    assert int.from_bytes(out[4:8], "big") == len(out) - 8
    by_type = make_runner("CompressContent", properties={"Mode": "decompress"})
    by_type.enqueue(out, {"mime.type": "application/x-snappy-hadoop"})
    by_type.run()
    by_type.assert_all_flowfiles_transferred("failure", 1)
    runner = make_runner(
        "CompressContent", properties={"Compression Format": "snappy-hadoop", "Mode": "decompress"}
    )
    assert any("is not permitted" in e for e in runner.validation_errors())
