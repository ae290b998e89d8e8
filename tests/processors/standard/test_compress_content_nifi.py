"""NiFi's own compress_content tests, ported to the TestRunner."""

from __future__ import annotations

import lzma
from collections.abc import Callable

from flowcore.testing import MockFlowFile, TestRunner
from tests.processors.standard.nifi_resources import resource

RunnerFactory = Callable[..., TestRunner]
SAMPLE_TEXT_FILE = "CompressedData/SampleFile.txt"
SAMPLE_GZ_FILE = "CompressedData/SampleFile.txt.gz"


def _enqueue(runner: TestRunner, path: str, attributes: dict[str, str] | None = None) -> None:
    """nifi-mock's ``enqueue(Path)``: the file's bytes, named by its file name."""
    runner.enqueue(resource(path), {"filename": path.rsplit("/", 1)[-1], **(attributes or {})})


def _runner(make_runner: RunnerFactory, mode: str, compression_format: str) -> TestRunner:
    runner = make_runner("CompressContent")
    runner.set_property("Mode", mode)
    runner.set_property("Compression Format", compression_format)
    return runner


def _success(runner: TestRunner) -> MockFlowFile:
    runner.assert_all_flowfiles_transferred("success", 1)
    return runner.get_flowfiles_for_relationship("success")[0]


def _assert_compressed(
    make_runner: RunnerFactory, compression_format: str, mime_type: str, filename: str
) -> None:
    runner = _runner(make_runner, "compress", compression_format)
    runner.set_property("Update Filename", "true")
    _enqueue(runner, SAMPLE_TEXT_FILE)
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_attribute_equals("mime.type", mime_type)
    flow_file.assert_attribute_equals("filename", filename)


def _assert_decompressed(make_runner: RunnerFactory, compression_format: str, path: str) -> None:
    runner = _runner(make_runner, "decompress", compression_format)
    runner.set_property("Update Filename", "true")
    _enqueue(runner, path)
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_content_equals(resource(SAMPLE_TEXT_FILE))
    flow_file.assert_attribute_equals("filename", "SampleFile.txt")


def test_nifi_snappy_compress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testSnappyCompress."""
    _assert_compressed(make_runner, "snappy", "application/x-snappy", "SampleFile.txt.snappy")


def test_nifi_snappy_decompress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testSnappyDecompress."""
    _assert_decompressed(make_runner, "snappy", "CompressedData/SampleFile.txt.snappy")


def test_nifi_snappy_hadoop_compress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testSnappyHadoopCompress."""
    _assert_compressed(
        make_runner, "snappy-hadoop", "application/x-snappy-hadoop", "SampleFile.txt.snappy"
    )


def test_nifi_snappy_hadoop_decompress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testSnappyHadoopDecompress."""
    runner = _runner(make_runner, "decompress", "snappy-hadoop")
    runner.set_property("Update Filename", "true")
    runner.assert_not_valid()


def test_nifi_snappy_framed_compress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testSnappyFramedCompress."""
    _assert_compressed(
        make_runner, "snappy framed", "application/x-snappy-framed", "SampleFile.txt.sz"
    )


def test_nifi_snappy_framed_decompress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testSnappyFramedDecompress."""
    _assert_decompressed(make_runner, "snappy framed", "CompressedData/SampleFile.txt.sz")


def test_nifi_bzip2_decompress_concatenated(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testBzip2DecompressConcatenated."""
    runner = _runner(make_runner, "decompress", "bzip2")
    runner.set_property("Update Filename", "false")
    _enqueue(runner, "CompressedData/SampleFileConcat.txt.bz2")
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_content_equals(resource("CompressedData/SampleFileConcat.txt"))
    flow_file.assert_attribute_equals("filename", "SampleFileConcat.txt.bz2")  # not updated


def test_nifi_bzip2_decompress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testBzip2Decompress."""
    runner = _runner(make_runner, "decompress", "bzip2")
    runner.set_property("Update Filename", "true")
    _enqueue(runner, "CompressedData/SampleFile.txt.bz2")
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_content_equals(resource(SAMPLE_TEXT_FILE))
    flow_file.assert_attribute_equals("filename", "SampleFile.txt")

    runner.clear_transfer_state()
    _enqueue(runner, "CompressedData/SampleFile1.txt.bz2")
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_content_equals(resource(SAMPLE_TEXT_FILE))
    flow_file.assert_attribute_equals("filename", "SampleFile1.txt")


def test_nifi_proper_mime_type_from_bzip2(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testProperMimeTypeFromBzip2."""
    runner = _runner(make_runner, "compress", "bzip2")
    runner.set_property("Update Filename", "false")
    _enqueue(runner, SAMPLE_TEXT_FILE)
    runner.run()
    _success(runner).assert_attribute_equals("mime.type", "application/x-bzip2")


def test_nifi_bzip2_decompress_with_both_mime_types(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testBzip2DecompressWithBothMimeTypes."""
    runner = _runner(make_runner, "decompress", "use mime.type attribute")
    runner.set_property("Update Filename", "true")
    # application/x-bzip2
    _enqueue(runner, "CompressedData/SampleFile.txt.bz2", {"mime.type": "application/x-bzip2"})
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_content_equals(resource(SAMPLE_TEXT_FILE))
    flow_file.assert_attribute_equals("filename", "SampleFile.txt")

    # and application/bzip2, the name NiFi used before
    runner.clear_transfer_state()
    _enqueue(runner, "CompressedData/SampleFile1.txt.bz2", {"mime.type": "application/bzip2"})
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_content_equals(resource(SAMPLE_TEXT_FILE))
    flow_file.assert_attribute_equals("filename", "SampleFile1.txt")


def test_nifi_gzip_decompress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testGzipDecompress."""
    runner = _runner(make_runner, "decompress", "gzip")
    runner.set_property("Update Filename", "true")
    runner.assert_valid()
    _enqueue(runner, SAMPLE_GZ_FILE)
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_content_equals(resource(SAMPLE_TEXT_FILE))
    flow_file.assert_attribute_equals("filename", "SampleFile.txt")

    runner.clear_transfer_state()
    _enqueue(runner, "CompressedData/SampleFile1.txt.gz")
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_content_equals(resource(SAMPLE_TEXT_FILE))
    flow_file.assert_attribute_equals("filename", "SampleFile1.txt")

    runner.clear_transfer_state()
    runner.set_property("Compression Format", "use mime.type attribute")
    _enqueue(runner, SAMPLE_GZ_FILE, {"mime.type": "application/x-gzip"})
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_content_equals(resource(SAMPLE_TEXT_FILE))
    flow_file.assert_attribute_equals("filename", "SampleFile.txt")


def test_nifi_deflate_decompress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testDeflateDecompress."""
    runner = _runner(make_runner, "decompress", "deflate")
    runner.set_property("Update Filename", "true")
    runner.assert_valid()
    _enqueue(runner, "CompressedData/SampleFile.txt.zlib")
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_content_equals(resource(SAMPLE_TEXT_FILE))
    flow_file.assert_attribute_equals("filename", "SampleFile.txt")


def test_nifi_deflate_compress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testDeflateCompress."""
    runner = _runner(make_runner, "compress", "deflate")
    runner.set_property("Compression Level", "6")
    runner.set_property("Update Filename", "true")
    runner.assert_valid()
    _enqueue(runner, SAMPLE_TEXT_FILE)
    runner.run()
    flow_file = _success(runner)
    flow_file.assert_content_equals(resource("CompressedData/SampleFile.txt.zlib"))
    flow_file.assert_attribute_equals("filename", "SampleFile.txt.zlib")


def test_nifi_filename_updated_on_compress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testFilenameUpdatedOnCompress."""
    runner = _runner(make_runner, "compress", "gzip")
    runner.set_property("Update Filename", "true")
    runner.assert_valid()
    _enqueue(runner, SAMPLE_TEXT_FILE)
    runner.run()
    _success(runner).assert_attribute_equals("filename", "SampleFile.txt.gz")


def test_nifi_decompress_failure(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testDecompressFailure."""
    runner = _runner(make_runner, "decompress", "gzip")
    data = bytes(range(1, 11))
    runner.enqueue(data)
    runner.set_property("Update Filename", "true")
    runner.assert_valid()
    runner.run()
    runner.assert_queue_empty()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(data)


def test_nifi_lz4_framed_compress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testLz4FramedCompress."""
    _assert_compressed(make_runner, "lz4-framed", "application/x-lz4-framed", "SampleFile.txt.lz4")


def test_nifi_lz4_framed_decompress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testLz4FramedDecompress."""
    _assert_decompressed(make_runner, "lz4-framed", "CompressedData/SampleFile.txt.lz4")


def test_nifi_zstd_compress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testZstdCompress."""
    _assert_compressed(make_runner, "zstd", "application/zstd", "SampleFile.txt.zst")


def test_nifi_zstd_decompress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testZstdDecompress."""
    _assert_decompressed(make_runner, "zstd", "CompressedData/SampleFile.txt.zst")


def test_nifi_brotli_compress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testBrotliCompress."""
    _assert_compressed(make_runner, "brotli", "application/x-brotli", "SampleFile.txt.br")


def test_nifi_brotli_decompress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testBrotliDecompress."""
    _assert_decompressed(make_runner, "brotli", "CompressedData/SampleFile.txt.br")


def test_nifi_xzlzma2_decompress_with_mime_type(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testXzlzma2DecompressWithMimeType."""
    content = "Content for compression"
    compressed = lzma.compress(content.encode("utf-8"), format=lzma.FORMAT_XZ)
    runner = _runner(make_runner, "decompress", "use mime.type attribute")
    runner.enqueue(compressed, {"mime.type": "application/x-xz"})
    runner.run()
    _success(runner).assert_content_equals(content)


def test_nifi_xzlzma2_compress(make_runner: RunnerFactory) -> None:
    """NiFi: TestCompressContent.testXzlzma2Compress."""
    _assert_compressed(make_runner, "xz-lzma2", "application/x-xz", "SampleFile.txt.xz")
