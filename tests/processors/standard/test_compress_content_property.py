"""CompressContent round trips: whatever the bytes, compressing and decompressing again
gives them back exactly, with ``mime.type`` and ``filename`` as NiFi sets them, and
nothing passes as decompressed that was not compressed data.

The content is streamed in chunks of a few bytes, so members, frames and headers straddle
chunk borders.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner
from tests.processors.standard.chunked_streams import streamed_in_chunks_of

FORMATS = {  # format -> (mime.type NiFi sets when compressing, extension)
    "gzip": ("application/gzip", ".gz"),
    "deflate": ("application/gzip", ".zlib"),  # NiFi's own choice
    "bzip2": ("application/x-bzip2", ".bz2"),
    "xz-lzma2": ("application/x-xz", ".xz"),
    "lzma": ("application/x-lzma", ".lzma"),
    "zstd": ("application/zstd", ".zst"),
    "lz4-framed": ("application/x-lz4-framed", ".lz4"),
    "snappy": ("application/x-snappy", ".snappy"),
    "snappy framed": ("application/x-snappy-framed", ".sz"),
    "brotli": ("application/x-brotli", ".br"),
}

NO_END_MARK = {"snappy", "snappy framed"}

contents = st.one_of(
    st.binary(max_size=600),
    st.text(alphabet="ab\r\n é€", max_size=300).map(lambda text: text.encode("utf-8")),
    st.builds(
        lambda byte, count: byte * count, st.binary(min_size=1, max_size=2), st.integers(0, 5000)
    ),
)


def _run(
    data: bytes, attributes: dict[str, str], **properties: str
) -> tuple[str, bytes, dict[str, str]]:
    with TestRunner("CompressContent") as runner:
        for name, value in properties.items():
            runner.set_property(name.replace("_", " "), value)
        runner.enqueue(data, attributes)
        runner.run()
        events = [event.event_type for event in runner.get_provenance_events()]
        for relationship in ("success", "failure"):
            for out in runner.get_flowfiles_for_relationship(relationship):
                modified = (
                    [ProvenanceEventType.CONTENT_MODIFIED] if relationship == "success" else []
                )
                assert events == modified
                return relationship, out.content, dict(out.attributes)
    raise AssertionError("the FlowFile vanished")


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(sorted(FORMATS)),
    contents,
    st.sampled_from(["0", "1", "6", "9"]),
    st.integers(1, 64),
)
def test_compress_then_decompress_gives_the_bytes_back(
    format_name: str, data: bytes, level: str, chunk: int
) -> None:
    mime, extension = FORMATS[format_name]
    with streamed_in_chunks_of(chunk):
        relationship, packed, attributes = _run(
            data,
            {"filename": "data.txt", "mime.type": "text/plain"},
            Mode="compress",
            Compression_Format=format_name,
            Compression_Level=level,
            Update_Filename="true",
        )
        assert relationship == "success"
        assert attributes["mime.type"] == mime
        assert attributes["filename"] == "data.txt" + extension
        relationship, unpacked, attributes = _run(
            packed,
            attributes,
            Mode="decompress",
            Compression_Format=format_name,
            Update_Filename="true",
        )
    assert relationship == "success"
    assert unpacked == data
    assert "mime.type" not in attributes
    assert attributes["filename"] == "data.txt"


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(FORMATS)), contents, st.integers(1, 64))
def test_decompress_by_mime_type(format_name: str, data: bytes, chunk: int) -> None:
    """ "use mime.type attribute" reads back what compressing wrote; deflate's mime.type is
    NiFi's application/gzip, so deflate data is taken for gzip and fails, as in NiFi."""
    with streamed_in_chunks_of(chunk):
        _, packed, attributes = _run(data, {}, Mode="compress", Compression_Format=format_name)
        relationship, unpacked, after = _run(packed, attributes, Mode="decompress")
    if format_name == "deflate":
        assert (relationship, unpacked, after["mime.type"]) == (
            "failure",
            packed,
            "application/gzip",
        )
    else:
        assert (relationship, unpacked) == ("success", data)


@pytest.mark.parametrize("format_name", sorted(FORMATS))
def test_empty_content_is_no_compressed_data(format_name: str) -> None:
    """NiFi's decompressing streams fail on empty content (zstd's reads it as no frames):
    an empty FlowFile must not pass as decompressed, its mime.type dropped."""
    relationship, content, attributes = _run(
        b"",
        {"mime.type": FORMATS[format_name][0]},
        Mode="decompress",
        Compression_Format=format_name,
    )
    if format_name == "zstd":
        assert (relationship, content) == ("success", b"")
    else:
        assert (relationship, content) == ("failure", b"")
        assert attributes["mime.type"] == FORMATS[format_name][0]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(FORMATS)), st.binary(min_size=1, max_size=300), st.data())
def test_damaged_data_goes_to_failure_unchanged(
    format_name: str, data: bytes, draw: st.DataObject
) -> None:
    """Compressed data cut short goes to failure with its content as it was (snappy's
    streams have no end mark: cut between two blocks they are a shorter stream, whose
    content is the data's beginning, as snappy-java reads them)."""
    _, packed, attributes = _run(data, {}, Mode="compress", Compression_Format=format_name)
    cut = draw.draw(st.integers(1, len(packed) - 1))
    relationship, content, _ = _run(
        packed[:cut], attributes, Mode="decompress", Compression_Format=format_name
    )
    if format_name in NO_END_MARK and relationship == "success":
        assert data.startswith(content)
        return
    assert (relationship, content) == ("failure", packed[:cut])
