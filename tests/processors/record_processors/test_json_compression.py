"""JsonRecordSetWriter's Compression Format: each format's stream decompresses to the JSON
the writer writes uncompressed (NiFi's formats and streams)."""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections.abc import Callable

import cramjam
import pytest
import zstandard

from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
CSV = "name,age\nJohn,35\nJane,34\n"
JSON = '[{"name":"John","age":35},{"name":"Jane","age":34}]'


def _zstd(data: bytes) -> bytes:
    return zstandard.ZstdDecompressor().stream_reader(data).read()


@pytest.mark.parametrize(
    ("compression", "decompress"),
    [
        ("gzip", gzip.decompress),
        ("bzip2", bz2.decompress),
        ("xz-lzma2", lzma.decompress),
        ("snappy framed", lambda data: bytes(cramjam.snappy.decompress(data))),
        ("zstd", _zstd),
    ],
)
def test_compressed_json(
    make_runner: RunnerFactory, compression: str, decompress: Callable[[bytes], bytes]
) -> None:
    runner = make_runner(
        "ConvertRecord",
        writer_type="JsonRecordSetWriter",
        writer={"Compression Format": compression},
    )
    runner.enqueue(CSV)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert out.content != JSON.encode()
    assert decompress(out.content).decode() == JSON
    out.assert_attribute_equals("mime.type", "application/json")


def test_gzip_level_zero_stores(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "ConvertRecord",
        writer_type="JsonRecordSetWriter",
        writer={"Compression Format": "gzip", "Compression Level": "0"},
    )
    runner.enqueue(CSV)
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert JSON.encode() in out.content  # level 0 stores the bytes as they are
    assert gzip.decompress(out.content).decode() == JSON
