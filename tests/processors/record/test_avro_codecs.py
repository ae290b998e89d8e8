"""Avro files of every codec Avro defines are read; the writer compresses as NiFi's.

NiFi's AvroReader reads what Avro's DataFileStream reads (null, deflate, bzip2, snappy,
xz, zstandard); its AvroRecordSetWriter offers BZIP2, DEFLATE, NONE, SNAPPY and LZO, the
last written with Avro's xz codec (``CodecFactory.xzCodec``: Avro has no LZO)."""

from __future__ import annotations

import io
from typing import Any

import fastavro
import pytest

from tests.processors.record.test_avro_nifi_rules import convert

SCHEMA = {
    "type": "record",
    "name": "r",
    "fields": [{"name": "id", "type": "long"}, {"name": "name", "type": "string"}],
}
RECORDS = [{"id": n, "name": f"name-{n}"} for n in range(50)]


def avro_file(codec: str) -> bytes:
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(SCHEMA), RECORDS, codec=codec)
    return out.getvalue()


def read_back(content: bytes) -> tuple[Any, list[dict[str, Any]]]:
    reader = fastavro.reader(io.BytesIO(content))
    return reader.metadata.get("avro.codec"), list(reader)


@pytest.mark.parametrize("codec", ["null", "deflate", "bzip2", "snappy", "xz", "zstandard"])
def test_avro_files_of_every_codec_are_read(codec: str) -> None:
    relationship, out, attributes = convert(avro_file(codec), "AvroReader", "JsonRecordSetWriter")
    assert relationship == "success", attributes.get("record.error.message")
    assert out.startswith(b'[{"id":0,"name":"name-0"},')
    assert attributes["record.count"] == "50"


@pytest.mark.parametrize(
    ("compression", "codec"),
    [
        ("NONE", "null"),
        ("DEFLATE", "deflate"),
        ("BZIP2", "bzip2"),
        ("SNAPPY", "snappy"),
        ("LZO", "xz"),  # as NiFi: Avro has no LZO codec
    ],
)
def test_the_writer_compresses_with_the_codec_nifi_uses(compression: str, codec: str) -> None:
    relationship, out, attributes = convert(
        avro_file("null"), "AvroReader", "AvroRecordSetWriter", {"Compression Format": compression}
    )
    assert relationship == "success", attributes.get("record.error.message")
    assert read_back(out) == (codec, RECORDS)
