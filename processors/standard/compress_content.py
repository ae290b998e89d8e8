"""CompressContent: compresses or decompresses the content, streamed.

Follows NiFi's CompressContent: with "use mime.type attribute" the format comes from
``mime.type`` (no attribute: failure; a type that names no format: success unchanged);
compressing sets ``mime.type`` to the format's type and decompressing removes it; Update
Filename adds or (when it is there) removes the format's extension. Success reports
CONTENT_MODIFIED. Choices made here:

* Every NiFi format: gzip, deflate (zlib), bzip2, xz-lzma2, lzma, zstd (``zstandard``;
  level x 2, as NiFi), lz4-framed (``lz4``), brotli (``brotli``; the level is its quality,
  as NiFi), snappy, snappy framed and snappy-hadoop (snappy-java's streams, see
  ``_snappy``). Snappy-hadoop is written only: decompressing it is invalid, as in NiFi, and
  a ``mime.type`` naming it sends the FlowFile to failure. Snappy's streams have no end
  mark: cut between two blocks they read as a shorter stream, as snappy-java reads them.
* Concatenated gzip, bzip2, xz, zstd and lz4 members are decompressed as one, as NiFi's
  decompressing streams do. Content that is not valid data of the format, or is cut
  short, goes to failure unchanged.
* Deflate compression sets ``mime.type`` to ``application/gzip``, as NiFi does.
"""

from __future__ import annotations

from collections.abc import Callable

from flowcore.model import FlowFile
from flowcore.processor import (
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
)
from flowcore.session import ProcessSession
from processors.standard._codecs import Codec, CodecError, compressor, decompressor
from processors.standard._support import Writer

FORMAT_ATTRIBUTE = "use mime.type attribute"
MODE_COMPRESS = "compress"
MODE_DECOMPRESS = "decompress"
FORMATS = (
    FORMAT_ATTRIBUTE,
    "gzip",
    "deflate",
    "bzip2",
    "xz-lzma2",
    "lzma",
    "snappy",
    "snappy-hadoop",
    "snappy framed",
    "lz4-framed",
    "zstd",
    "brotli",
)
MIME_TO_FORMAT = {
    "application/gzip": "gzip",
    "application/x-gzip": "gzip",
    "application/deflate": "deflate",
    "application/x-deflate": "deflate",
    "application/bzip2": "bzip2",
    "application/x-bzip2": "bzip2",
    "application/x-lzma": "lzma",
    "application/x-xz": "xz-lzma2",
    "application/x-snappy": "snappy",
    "application/x-snappy-hadoop": "snappy-hadoop",
    "application/x-snappy-framed": "snappy framed",
    "application/x-lz4-framed": "lz4-framed",
    "application/zstd": "zstd",
    "application/x-brotli": "brotli",
}
FORMAT_TO_MIME = {
    "gzip": "application/gzip",
    "deflate": "application/gzip",
    "bzip2": "application/x-bzip2",
    "xz-lzma2": "application/x-xz",
    "lzma": "application/x-lzma",
    "lz4-framed": "application/x-lz4-framed",
    "zstd": "application/zstd",
    "snappy": "application/x-snappy",
    "snappy-hadoop": "application/x-snappy-hadoop",
    "snappy framed": "application/x-snappy-framed",
    "brotli": "application/x-brotli",
}
EXTENSIONS = {
    "gzip": ".gz",
    "deflate": ".zlib",
    "lzma": ".lzma",
    "xz-lzma2": ".xz",
    "bzip2": ".bz2",
    "snappy": ".snappy",
    "snappy-hadoop": ".snappy",
    "snappy framed": ".sz",
    "lz4-framed": ".lz4",
    "zstd": ".zst",
    "brotli": ".br",
}

MODE = PropertyDescriptor(
    name="Mode",
    display_name="Mode",
    description="Indicates whether the processor should compress content or decompress "
    "content. Must be either 'compress' or 'decompress'",
    default=MODE_COMPRESS,
    required=True,
    allowable_values=[MODE_COMPRESS, MODE_DECOMPRESS],
)
COMPRESSION_FORMAT = PropertyDescriptor(
    name="Compression Format",
    display_name="Compression Format",
    description="The compression format to use. Valid values are: GZIP, Deflate, ZSTD, BZIP2, "
    "XZ-LZMA2, LZMA, Brotli, Snappy, Snappy Hadoop, Snappy Framed, and LZ4-Framed",
    default=FORMAT_ATTRIBUTE,
    required=True,
    allowable_values=list(FORMATS),
)
COMPRESSION_LEVEL = PropertyDescriptor(
    name="Compression Level",
    display_name="Compression Level",
    description="The compression level to use; this is valid only when using gzip, deflate "
    "or xz-lzma2 compression. A lower value results in faster processing but less "
    "compression; a value of 0 indicates no (that is, simple archiving) for gzip or minimal "
    "for xz-lzma2 compression.",
    default="1",
    required=True,
    allowable_values=[str(level) for level in range(10)],
)
UPDATE_FILENAME = PropertyDescriptor(
    name="Update Filename",
    display_name="Update Filename",
    description="If true, will remove the filename extension when decompressing data (only "
    "if the extension indicates the appropriate compression format) and add the appropriate "
    "extension when compressing data",
    default="false",
    required=True,
    allowable_values=["true", "false"],
)

SUCCESS = Relationship(
    "success",
    "FlowFiles will be transferred to the success relationship after successfully being "
    "compressed or decompressed",
)
FAILURE = Relationship(
    "failure",
    "FlowFiles will be transferred to the failure relationship if they fail to compress/decompress",
)


@processor("CompressContent")
class CompressContent(Processor):
    description = (
        "Compresses or decompresses the contents of FlowFiles using a user-specified "
        "compression algorithm and updates the mime.type attribute as appropriate."
    )
    tags = (
        "content",
        "compress",
        "decompress",
        "gzip",
        "bzip2",
        "lzma",
        "xz-lzma2",
        "snappy",
        "snappy-hadoop",
        "snappy framed",
        "lz4-framed",
        "deflate",
        "zstd",
        "brotli",
    )
    property_descriptors = (MODE, COMPRESSION_FORMAT, COMPRESSION_LEVEL, UPDATE_FILENAME)
    relationships = (SUCCESS, FAILURE)

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        chosen = context.get_property(COMPRESSION_FORMAT).as_str()
        mode = context.get_property(MODE).as_str()
        if chosen == "snappy-hadoop" and mode == MODE_DECOMPRESS:
            return [
                ValidationResult(
                    COMPRESSION_FORMAT.label,
                    False,
                    chosen,
                    "<Compression Format> set to <snappy-hadoop> and <MODE> set to "
                    "<decompress> is not permitted. Data that is compressed with Snappy "
                    "Hadoop can not be decompressed using this processor.",
                )
            ]
        return []

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        mode = context.get_property(MODE).as_str()
        chosen = context.get_property(COMPRESSION_FORMAT).as_str()
        if chosen == FORMAT_ATTRIBUTE:
            mime_type = flowfile.attributes.get("mime.type")
            if mime_type is None:
                self.logger.error(
                    "No mime.type attribute exists for %s; routing to failure", flowfile.uuid
                )
                session.transfer(flowfile, FAILURE)
                return
            found = MIME_TO_FORMAT.get(mime_type)
            if found is None:
                self.logger.info(
                    "Mime Type of %s is '%s', which does not indicate a supported Compression "
                    "Format; routing to success without decompressing",
                    flowfile.uuid,
                    mime_type,
                )
                session.transfer(flowfile, SUCCESS)
                return
            chosen = found
        level = context.get_property(COMPRESSION_LEVEL).as_int() or 0
        start = context.now_ms()
        try:
            codec = compressor(chosen, level) if mode == MODE_COMPRESS else decompressor(chosen)
            flowfile = session.write(flowfile, _pipe(session, flowfile, codec))
        except CodecError as exc:
            self.logger.error(
                "Unable to %s %s using %s compression format due to %s; routing to failure",
                mode,
                flowfile.uuid,
                chosen,
                exc,
            )
            session.transfer(flowfile, FAILURE)
            return
        flowfile = self._update_attributes(context, session, flowfile, mode, chosen)
        session.provenance.modify_content(flowfile, duration_ms=context.now_ms() - start)
        session.transfer(flowfile, SUCCESS)

    @staticmethod
    def _update_attributes(
        context: ProcessContext,
        session: ProcessSession,
        flowfile: FlowFile,
        mode: str,
        chosen: str,
    ) -> FlowFile:
        rename = context.get_property(UPDATE_FILENAME).as_bool()
        extension = EXTENSIONS.get(chosen, "")
        filename = flowfile.attributes.get("filename", "")
        if mode == MODE_DECOMPRESS:
            flowfile = session.remove_attribute(flowfile, "mime.type")
            if rename and filename.lower().endswith(extension):
                flowfile = session.put_attribute(
                    flowfile, "filename", filename[: len(filename) - len(extension)]
                )
            return flowfile
        flowfile = session.put_attribute(flowfile, "mime.type", FORMAT_TO_MIME[chosen])
        if rename:
            flowfile = session.put_attribute(flowfile, "filename", filename + extension)
        return flowfile


def _pipe(session: ProcessSession, flowfile: FlowFile, codec: Codec) -> Callable[[Writer], None]:
    def write(writer: Writer) -> None:
        for chunk in session.stream(flowfile):
            out = codec.process(chunk)
            if out:
                writer.write(out)
        tail = codec.finish()
        if tail:
            writer.write(tail)

    return write
