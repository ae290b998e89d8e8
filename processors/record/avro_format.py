"""AvroReader and AvroRecordSetWriter on fastavro (Avro container files, embedded schema).

fastavro decodes and encodes one record at a time as Python dicts: this is the one format
whose hot path makes Python objects per record (there is no Arrow-native Avro codec in
pyarrow). Rows are gathered into Arrow batches of bounded size.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import IO, Any, cast

import fastavro
import fastavro.write
import pyarrow as pa

from flowcore.errors import ConfigurationError
from flowcore.processor import (
    AllowableValue,
    ControllerService,
    ProcessContext,
    PropertyDescriptor,
    controller_service,
)
from processors.record import _common as common
from processors.record.api import (
    BinarySink,
    ChunkInput,
    Content,
    CountingSink,
    MalformedRecordError,
    RecordReader,
    RecordSetWriter,
    WriteResult,
)
from processors.record.schema import arrow_to_avro, avro_to_arrow, conform

AVRO_MIME_TYPE = "application/avro-binary"
_MAGIC = b"Obj\x01"

READER_STRATEGY = common.schema_access_strategy(
    [common.EMBEDDED_AVRO_SCHEMA, common.SCHEMA_TEXT_PROPERTY], common.EMBEDDED_AVRO_SCHEMA.value
)
WRITER_STRATEGY = common.schema_access_strategy(
    [common.INHERIT_RECORD_SCHEMA, common.SCHEMA_TEXT_PROPERTY],
    common.INHERIT_RECORD_SCHEMA.value,
)
COMPRESSION = PropertyDescriptor(
    name="compression-format",
    display_name="Compression Format",
    description="Compression type to use when writing Avro files.",
    default="NONE",
    required=True,
    allowable_values=[AllowableValue(v) for v in ("NONE", "DEFLATE", "BZIP2")],
)
_CODECS = {"NONE": "null", "DEFLATE": "deflate", "BZIP2": "bzip2"}
_READ_ERRORS = (ValueError, EOFError, TypeError, KeyError, IndexError, OSError, StopIteration)


@controller_service("AvroReader")
class AvroReader(ControllerService):
    """Reads Avro container files; with Schema Text, also bare datums one after another."""

    property_descriptors = (READER_STRATEGY, common.SCHEMA_TEXT, common.BATCH_ROWS)

    def on_enabled(self, context: ProcessContext) -> None:
        common.validate(context, self.property_descriptors)
        self.schema_source = common.schema_source(context, READER_STRATEGY)
        self.batch_rows = common.rows_per_batch(context)

    def create_reader(
        self, content: Content, attributes: Mapping[str, str], source: str
    ) -> RecordReader:
        given = self.schema_source.resolve(attributes)
        stream = ChunkInput(content)
        container = stream.peek_bytes(4) == _MAGIC
        reader_schema = json.loads(given[1]) if given else None
        if not container:
            if reader_schema is None:
                raise MalformedRecordError(
                    source, "byte offset 0", "not an Avro container file (no 'Obj' magic)"
                )
            parsed = fastavro.parse_schema(reader_schema)
            return _AvroRecordReader(
                _bare_datums(stream, parsed),
                given[0] if given else pa.schema([]),
                given[1] if given else None,
                source,
                self.batch_rows,
            )
        try:
            avro = fastavro.reader(cast(IO[bytes], stream), reader_schema=reader_schema)
        except _READ_ERRORS as exc:
            raise MalformedRecordError(source, "header", f"{type(exc).__name__}: {exc}") from None
        if given is not None:
            schema, text = given
        else:
            text = json.dumps(avro.writer_schema, separators=(",", ":"))
            try:
                schema = avro_to_arrow(cast(dict[str, Any], avro.writer_schema))
            except ConfigurationError as exc:
                raise MalformedRecordError(source, "header", str(exc)) from None
        return _AvroRecordReader(iter(avro), schema, text, source, self.batch_rows)


def _bare_datums(stream: ChunkInput, schema: Any) -> Iterator[Any]:
    while stream.peek_bytes(1):
        yield fastavro.schemaless_reader(cast(IO[bytes], stream), schema, None)


class _AvroRecordReader:
    def __init__(
        self,
        records: Iterator[Any],
        schema: pa.Schema,
        text: str | None,
        source: str,
        batch_rows: int,
    ) -> None:
        self._records = records
        self._schema = schema
        self._text = text
        self._source = source
        self._rows = batch_rows

    @property
    def schema(self) -> pa.Schema:
        return self._schema

    @property
    def schema_text(self) -> str | None:
        return self._text

    def batches(self) -> Iterator[pa.RecordBatch]:
        index = 0
        pending: list[Any] = []
        while True:
            try:
                record = next(self._records)
            except StopIteration:
                break
            except _READ_ERRORS as exc:
                detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                raise MalformedRecordError(self._source, f"record {index}", detail) from None
            pending.append(record)
            index += 1
            if len(pending) >= self._rows:
                yield self._batch(pending, index)
                pending = []
        if pending:
            yield self._batch(pending, index)

    def _batch(self, rows: list[Any], end: int) -> pa.RecordBatch:
        try:
            return pa.RecordBatch.from_pylist(rows, schema=self._schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as exc:
            position = f"records {end - len(rows)} to {end - 1}"
            raise MalformedRecordError(self._source, position, str(exc)) from None

    def close(self) -> None:
        self._records = iter(())


@controller_service("AvroRecordSetWriter")
class AvroRecordSetWriter(ControllerService):
    """Writes an Avro container file with the schema embedded."""

    property_descriptors = (WRITER_STRATEGY, common.SCHEMA_TEXT, COMPRESSION)

    mime_type = AVRO_MIME_TYPE

    def on_enabled(self, context: ProcessContext) -> None:
        common.validate(context, self.property_descriptors)
        self.schema_source = common.schema_source(context, WRITER_STRATEGY)
        self.codec = _CODECS[common.choice(context, COMPRESSION)]

    def writer_schema(self, read_schema: pa.Schema, attributes: Mapping[str, str]) -> pa.Schema:
        given = self.schema_source.resolve(attributes)
        return given[0] if given is not None else read_schema

    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter:
        given = self.schema_source.resolve(attributes)
        avro = json.loads(given[1]) if given is not None else arrow_to_avro(schema)
        return _AvroWriter(schema, avro, sink, self.codec)


class _AvroWriter(common.CountingWriter):
    MIME_TYPE = AVRO_MIME_TYPE

    def __init__(self, schema: pa.Schema, avro: Any, sink: BinarySink, codec: str) -> None:
        self._schema = schema
        self._sink = CountingSink(sink)
        self._writer = fastavro.write.Writer(
            cast(IO[bytes], self._sink), fastavro.parse_schema(avro), codec=codec
        )
        self._records = 0
        self._done = False

    def write_batch(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        write = self._writer.write
        for record in conform(batch, self._schema).to_pylist():
            write(record)
        self._records += batch.num_rows

    def flush(self) -> None:
        self._writer.flush()

    def finish(self) -> WriteResult:
        if not self._done:
            self._writer.flush()
            self._done = True
        return WriteResult(self._records, AVRO_MIME_TYPE)

    def abort(self) -> None:
        self._done = True
