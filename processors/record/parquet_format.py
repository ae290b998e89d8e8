"""ParquetReader and ParquetRecordSetWriter on pyarrow.parquet.

Parquet needs random access (its footer is at the end), so the reader spools the content
to a temporary file (in memory up to 64 MiB, on disk beyond) and reads it row group by row
group in bounded batches. The writer buffers up to one row group and writes it when full
or when finished; ``bytes_written`` counts what reached the sink (as NiFi's, it lags by the
row group being buffered).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from typing import IO

import pyarrow as pa
import pyarrow.parquet as pq

from flowcore.processor import (
    AllowableValue,
    ControllerService,
    ProcessContext,
    PropertyDescriptor,
    ValidationResult,
    controller_service,
    validators,
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
    RecordWriteError,
    SchemaError,
    WriteResult,
)
from processors.record.schema import AVRO_SCHEMA_METADATA, conform, with_avro_names
from processors.record.schema_write import (
    SCHEMA_WRITE_STRATEGY,
    attributed,
    schema_attributes,
    write_strategy_problems,
)

PARQUET_MIME_TYPE = "application/parquet"
_SPOOL = 64 << 20

WRITER_STRATEGY = common.schema_access_strategy(
    [common.INHERIT_RECORD_SCHEMA, common.SCHEMA_NAME_PROPERTY, common.SCHEMA_TEXT_PROPERTY],
    common.INHERIT_RECORD_SCHEMA.value,
)
COMPRESSION = PropertyDescriptor(
    name="compression-type",
    display_name="Compression Type",
    description="The type of compression for the file being written.",
    default="UNCOMPRESSED",
    required=True,
    allowable_values=[
        AllowableValue(v) for v in ("UNCOMPRESSED", "SNAPPY", "GZIP", "BROTLI", "LZ4", "ZSTD")
    ],
)
ROW_GROUP_ROWS = PropertyDescriptor(
    name="Row Group Records",
    display_name="Row Group Records",
    description="(flowcore) The number of records buffered before a row group is written.",
    default="131072",
    validators=[validators.positive_integer],
)


@controller_service("ParquetReader")
class ParquetReader(ControllerService):
    """Reads Parquet content (schema from the file)."""

    property_descriptors = (common.BATCH_ROWS,)

    def on_enabled(self, context: ProcessContext) -> None:
        common.validate(context, self.property_descriptors)
        self.batch_rows = common.rows_per_batch(context)

    def create_reader(
        self, content: Content, attributes: Mapping[str, str], source: str
    ) -> RecordReader:
        spool = tempfile.SpooledTemporaryFile(max_size=_SPOOL)  # noqa: SIM115 (closed by reader)
        stream = ChunkInput(content)
        size = 0
        while chunk := stream.read(1 << 20):
            spool.write(chunk)
            size += len(chunk)
        spool.seek(0)
        try:
            parquet = pq.ParquetFile(spool)
        except (pa.ArrowException, OSError, ValueError) as exc:
            spool.close()
            raise MalformedRecordError(
                source, f"footer (content of {size} bytes)", str(exc)
            ) from None
        return _ParquetRecordReader(parquet, spool, source, self.batch_rows)


class _ParquetRecordReader:
    def __init__(
        self, parquet: pq.ParquetFile, spool: IO[bytes], source: str, batch_rows: int
    ) -> None:
        self._file = parquet
        self._spool = spool
        self._source = source
        self._rows = batch_rows

    @property
    def schema(self) -> pa.Schema:
        schema: pa.Schema = self._file.schema_arrow
        return schema.remove_metadata()

    @property
    def schema_text(self) -> str | None:
        return None

    def batches(self) -> Iterator[pa.RecordBatch]:
        schema = self.schema
        records = 0
        iterator = self._file.iter_batches(batch_size=self._rows)
        while True:
            try:
                batch = next(iterator)
            except StopIteration:
                return
            except (pa.ArrowException, OSError, ValueError) as exc:
                position = f"record {records} or after"
                raise MalformedRecordError(self._source, position, str(exc)) from None
            records += batch.num_rows
            if batch.num_rows:
                yield batch if batch.schema.equals(schema) else conform(batch, schema)

    def close(self) -> None:
        self._file.close()
        self._spool.close()


@controller_service("ParquetRecordSetWriter")
class ParquetRecordSetWriter(ControllerService):
    """Writes records as one Parquet file."""

    property_descriptors = (
        WRITER_STRATEGY,
        *common.REGISTRY_PROPERTIES,
        common.SCHEMA_TEXT,
        SCHEMA_WRITE_STRATEGY,
        COMPRESSION,
        ROW_GROUP_ROWS,
    )

    mime_type = PARQUET_MIME_TYPE

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        return [
            *common.schema_access_problems(context, WRITER_STRATEGY),
            *write_strategy_problems(context, SCHEMA_WRITE_STRATEGY),
        ]

    def on_enabled(self, context: ProcessContext) -> None:
        common.validate(context, self.property_descriptors)
        common.refuse(write_strategy_problems(context, SCHEMA_WRITE_STRATEGY))
        self.schema_source = common.schema_source(context, WRITER_STRATEGY)
        self.write_strategy = common.choice(context, SCHEMA_WRITE_STRATEGY)
        compression = common.choice(context, COMPRESSION)
        self.compression = "NONE" if compression == "UNCOMPRESSED" else compression
        self.row_group_rows = context.get_property(ROW_GROUP_ROWS).as_int() or 131072

    def writer_schema(self, read_schema: pa.Schema, attributes: Mapping[str, str]) -> pa.Schema:
        given = self.schema_source.resolve(attributes)
        return given[0] if given is not None else read_schema

    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter:
        given = self.schema_source.resolve(attributes)
        extra = schema_attributes(self.write_strategy, schema, given)
        return attributed(_ParquetWriter(self, schema, sink), extra)


class _ParquetWriter(common.CountingWriter):
    MIME_TYPE = PARQUET_MIME_TYPE

    def __init__(
        self, service: ParquetRecordSetWriter, schema: pa.Schema, sink: BinarySink
    ) -> None:
        self._schema = schema
        try:
            # NiFi writes Parquet through the records' Avro schema: the names Avro takes.
            self._named = with_avro_names(schema)
            if AVRO_SCHEMA_METADATA in (self._named.metadata or {}):
                # The Avro schema an AvroReader read with is not the file's business.
                metadata = dict(self._named.metadata)
                del metadata[AVRO_SCHEMA_METADATA]
                self._named = self._named.with_metadata(metadata)
        except SchemaError as exc:
            raise RecordWriteError(f"no Avro schema for the records: {exc}") from None
        self._sink = CountingSink(sink)
        self._writer = pq.ParquetWriter(
            pa.PythonFile(self._sink, mode="w"), self._named, compression=service.compression
        )
        self._row_group = service.row_group_rows
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0
        self._records = 0
        self._closed = False

    def write_batch(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        conformed = conform(batch, self._schema)
        if self._named is not self._schema:
            columns = [c.view(f.type) for c, f in zip(conformed.columns, self._named, strict=True)]
            conformed = pa.RecordBatch.from_arrays(columns, schema=self._named)
        self._pending.append(conformed)
        self._pending_rows += batch.num_rows
        self._records += batch.num_rows
        if self._pending_rows >= self._row_group:
            self._write_pending()

    def _write_pending(self) -> None:
        if self._pending:
            table = pa.Table.from_batches(self._pending, schema=self._named)
            self._writer.write_table(table, row_group_size=max(self._pending_rows, 1))
            self._pending = []
            self._pending_rows = 0

    def flush(self) -> None:
        """Row groups are written when full (a flush would make tiny row groups)."""

    def finish(self) -> WriteResult:
        if not self._closed:
            self._write_pending()
            self._writer.close()
            self._closed = True
        return WriteResult(self._records, PARQUET_MIME_TYPE)

    def abort(self) -> None:
        self._pending = []
        if not self._closed:
            self._closed = True
            try:
                self._writer.close()
            except (pa.ArrowException, OSError):
                pass
