"""AvroReader and AvroRecordSetWriter on fastavro (Avro container files, embedded schema).

fastavro decodes and encodes one record at a time as Python dicts: this is the one format
whose hot path makes Python objects per record (there is no Arrow-native Avro codec in
pyarrow). Rows are gathered into Arrow batches of bounded size.
"""

from __future__ import annotations

import io
import json
import lzma
import zlib
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
    ValidationResult,
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
    RecordWriteError,
    SchemaError,
    WriteResult,
)
from processors.record.avro_union import (
    build_array,
    choice_of,
    converted,
    has_union,
    java_class,
    rows_of,
)
from processors.record.avro_write import aliases, as_written, by_alias, defaults, written_schema
from processors.record.schema import (
    AVRO_SCHEMA_METADATA,
    avro_to_arrow,
    conform,
    union_branches,
    writer_avro_schema,
)
from processors.record.schema_write import (
    STRATEGIES,
    attributed,
    schema_attributes,
    schema_write_strategy,
    write_strategy_problems,
)

AVRO_MIME_TYPE = "application/avro-binary"
_MAGIC = b"Obj\x01"

READER_STRATEGY = common.schema_access_strategy(
    [common.EMBEDDED_AVRO_SCHEMA, common.SCHEMA_NAME_PROPERTY, common.SCHEMA_TEXT_PROPERTY],
    common.EMBEDDED_AVRO_SCHEMA.value,
)
WRITER_STRATEGY = common.schema_access_strategy(
    [common.INHERIT_RECORD_SCHEMA, common.SCHEMA_NAME_PROPERTY, common.SCHEMA_TEXT_PROPERTY],
    common.INHERIT_RECORD_SCHEMA.value,
)
COMPRESSION = PropertyDescriptor(
    name="compression-format",
    display_name="Compression Format",
    description="Compression type to use when writing Avro files.",
    default="NONE",
    required=True,
    allowable_values=[AllowableValue(v) for v in ("BZIP2", "DEFLATE", "NONE", "SNAPPY", "LZO")],
)
AVRO_EMBEDDED = AllowableValue(
    "avro-embedded",
    "Embed Avro Schema",
    "The FlowFile will have the Avro schema embedded into the content, as is typical with Avro",
)
WRITE_STRATEGY = schema_write_strategy([AVRO_EMBEDDED, *STRATEGIES], AVRO_EMBEDDED.value)
"""NiFi's AvroRecordSetWriter: the schema embedded (a container file) by default; with any
other value the records are bare datums one after another, the schema told (or not) by
attributes."""
_CODECS = {"NONE": "null", "DEFLATE": "deflate", "BZIP2": "bzip2", "SNAPPY": "snappy", "LZO": "xz"}
"""fastavro's codec per Compression Format. NiFi writes ``LZO`` with Avro's xz codec (Avro
has no LZO), and so does flowcore. Reading takes every codec Avro defines: null,
deflate, bzip2, snappy (cramjam), xz, zstandard (backports.zstd)."""
_READ_ERRORS = (
    ValueError,
    EOFError,
    TypeError,
    KeyError,
    IndexError,
    OSError,
    StopIteration,
    OverflowError,
    zlib.error,  # a damaged deflate block
    lzma.LZMAError,  # a damaged xz block
)


@controller_service("AvroReader")
class AvroReader(ControllerService):
    """Reads Avro container files; with Schema Text, also bare datums one after another."""

    property_descriptors = (
        READER_STRATEGY,
        *common.REGISTRY_PROPERTIES,
        common.SCHEMA_TEXT,
        common.BATCH_ROWS,
    )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        return common.schema_access_problems(context, READER_STRATEGY)

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
            if given is None:
                raise MalformedRecordError(
                    source, "byte offset 0", "not an Avro container file (no 'Obj' magic)"
                )
            raw = fastavro.parse_schema(_raw_values(reader_schema))
            return _AvroRecordReader(
                _bare_datums(stream, raw),
                _with_avro_text(given[0], given[1]),
                given[1],
                source,
                self.batch_rows,
            )
        try:
            blocks = fastavro.block_reader(cast(IO[bytes], stream))
            raw_writer = fastavro.parse_schema(_raw_values(blocks.writer_schema))
            raw_reader = None
            if reader_schema is not None:
                raw_reader = fastavro.parse_schema(_raw_values(reader_schema))
        except (*_READ_ERRORS, fastavro.schema.SchemaParseException) as exc:
            raise MalformedRecordError(source, "header", f"{type(exc).__name__}: {exc}") from None
        if given is not None:
            schema, text = given
        else:
            text = json.dumps(blocks.writer_schema, separators=(",", ":"))
            try:
                schema = avro_to_arrow(cast(dict[str, Any], blocks.writer_schema))
            except ConfigurationError as exc:
                raise MalformedRecordError(source, "header", str(exc)) from None
        records = _block_records(blocks, raw_writer, raw_reader)
        return _AvroRecordReader(
            records, _with_avro_text(schema, text), text, source, self.batch_rows
        )


def _with_avro_text(schema: pa.Schema, text: str) -> pa.Schema:
    """The schema carrying the Avro schema it was read with, which the Avro writer
    inherits (as NiFi's record schema keeps its Avro text)."""
    return schema.with_metadata({AVRO_SCHEMA_METADATA: text.encode()})


_UNION_RECORDS_NAMED: dict[str, Any] = {
    "return_record_name": True,
    "return_record_name_override": True,
}
"""A record of a union of several records decodes as (its name, its fields), which tells
its branch (``avro_union``); any other record as its fields."""


def _bare_datums(stream: ChunkInput, schema: Any) -> Iterator[Any]:
    while stream.peek_bytes(1):
        yield fastavro.schemaless_reader(
            cast(IO[bytes], stream), schema, None, **_UNION_RECORDS_NAMED
        )


def _block_records(blocks: Any, writer: Any, reader: Any) -> Iterator[Any]:
    """The records of a container file's blocks, decoded with the schemas given."""
    for block in blocks:
        data = block.bytes_
        for _ in range(block.num_records):
            yield fastavro.schemaless_reader(data, writer, reader, **_UNION_RECORDS_NAMED)


_RAW_LOGICAL_TYPES = frozenset(
    {
        "date",
        "time-millis",
        "time-micros",
        "timestamp-millis",
        "timestamp-micros",
        "local-timestamp-millis",
        "local-timestamp-micros",
        "uuid",
    }
)


def _raw_values(avro: Any) -> Any:
    """The schema without its date, time, timestamp and uuid logical types, to decode
    (or encode) their raw numbers and text: Arrow takes those as they are, where
    fastavro's Python dates and times would refuse a year beyond 1..9999 and turn a
    time-millis of -5 into 995 (NiFi reads the numbers as they are)."""
    if isinstance(avro, list):
        return [_raw_values(branch) for branch in avro]
    if not isinstance(avro, dict):
        return avro
    out = {}
    for key, value in avro.items():
        if key == "logicalType" and value in _RAW_LOGICAL_TYPES:
            continue
        if key in ("type", "items", "values"):
            value = _raw_values(value)
        elif key == "fields" and isinstance(value, list):
            value = [_raw_values(f) for f in value]
        out[key] = value
    return out


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
        self._unions = any(has_union(f.type) for f in schema)

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
            if self._unions:
                columns = [
                    build_array([row.get(f.name) for row in rows], f.type) for f in self._schema
                ]
                return pa.RecordBatch.from_arrays(columns, schema=self._schema)
            return common.batch_of_rows(rows, self._schema)  # {} records too
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, ValueError) as exc:
            position = f"records {end - len(rows)} to {end - 1}"
            raise MalformedRecordError(self._source, position, str(exc)) from None

    def close(self) -> None:
        self._records = iter(())


@controller_service("AvroRecordSetWriter")
class AvroRecordSetWriter(ControllerService):
    """Writes an Avro container file with the schema embedded."""

    property_descriptors = (
        WRITER_STRATEGY,
        *common.REGISTRY_PROPERTIES,
        common.SCHEMA_TEXT,
        WRITE_STRATEGY,
        COMPRESSION,
    )

    mime_type = AVRO_MIME_TYPE

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        problems = [
            *common.schema_access_problems(context, WRITER_STRATEGY),
            *write_strategy_problems(context, WRITE_STRATEGY),
        ]
        strategy = context.get_property(WRITE_STRATEGY).as_str()
        compression = context.get_property(COMPRESSION).as_str()
        if strategy not in (
            AVRO_EMBEDDED.value,
            AVRO_EMBEDDED.display_name,
        ) and compression not in (
            "NONE",
            None,
        ):
            problems.append(
                ValidationResult(
                    COMPRESSION.label,
                    False,
                    compression,
                    "Avro compression codecs are stored in the header of the Avro file and "
                    "therefore requires the header to be embedded into the content.",
                )
            )
        return problems

    def on_enabled(self, context: ProcessContext) -> None:
        common.validate(context, self.property_descriptors)
        common.refuse(self.custom_validate(context))
        self.schema_source = common.schema_source(context, WRITER_STRATEGY)
        self.codec = _CODECS[common.choice(context, COMPRESSION)]
        self.write_strategy = common.choice(context, WRITE_STRATEGY)

    def writer_schema(self, read_schema: pa.Schema, attributes: Mapping[str, str]) -> pa.Schema:
        given = self.schema_source.resolve(attributes)
        return given[0] if given is not None else read_schema

    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter:
        given = self.schema_source.resolve(attributes)
        try:
            avro = json.loads(given[1]) if given is not None else writer_avro_schema(schema)
            parsed = fastavro.parse_schema(avro)
        except (SchemaError, fastavro.schema.SchemaParseException) as exc:
            raise RecordWriteError(f"no Avro schema for the records: {exc}") from None
        if self.write_strategy == AVRO_EMBEDDED.value:
            return _AvroWriter(schema, avro, parsed, sink, self.codec)
        extra = schema_attributes(self.write_strategy, schema, given)
        return attributed(_AvroWriter(schema, avro, parsed, sink, None), extra)


class _AvroWriter(common.CountingWriter):
    MIME_TYPE = AVRO_MIME_TYPE

    def __init__(
        self, schema: pa.Schema, avro: Any, parsed: Any, sink: BinarySink, codec: str | None
    ) -> None:
        """``codec`` None: bare datums, no container (the schema not embedded)."""
        self._schema = schema
        self._sink = CountingSink(sink)
        self._writer: fastavro.write.Writer | _BareDatums = (
            fastavro.write.Writer(cast(IO[bytes], self._sink), parsed, codec=codec)
            if codec is not None
            else _BareDatums(self._sink, parsed)
        )
        self._written = written_schema(schema, avro)
        self._aliases = [a for a in aliases(avro) if a[0] in schema.names]
        self._defaults = defaults(avro)
        self._unions = {
            name: branches
            for name, branches in union_branches(avro).items()
            if name in schema.names
        }
        """The fields whose Avro type is a union of several types: each value is put to
        the branch NiFi chooses (``avro_union``), told to fastavro as (branch, value)."""
        self._records = 0
        self._done = False

    def write_batch(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        write = self._writer.write
        if self._aliases:
            batch = batch.rename_columns(by_alias(batch.schema.names, self._aliases))
        chosen: dict[str, list[Any]] = {}
        if self._unions:
            batch, chosen = self._union_values(batch)
        batch = conform(batch, self._schema)
        index = self._records
        if self._written is not None:
            try:
                batch = as_written(batch, self._written)
            except pa.ArrowException as exc:
                last = index + batch.num_rows - 1
                msg = f"records {index} to {last} cannot be written as Avro: {exc}"
                raise RecordWriteError(msg) from None
        try:
            fills = self._defaults
            for row, record in enumerate(batch.to_pylist(maps_as_pydicts="strict")):
                for name, values in chosen.items():
                    record[name] = values[row]
                for name, default in fills:
                    if record.get(name) is None:
                        record[name] = default
                write(record)
                index += 1
        except (ValueError, TypeError, KeyError, OverflowError, pa.ArrowException) as exc:
            detail = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            msg = f"record {index} cannot be written as Avro: {detail}"
            raise RecordWriteError(msg) from None
        self._records += batch.num_rows

    def _union_values(self, batch: pa.RecordBatch) -> tuple[pa.RecordBatch, dict[str, list[Any]]]:
        """The batch without its columns written to unions of several types, and their
        values as fastavro takes them: each (the branch NiFi chooses, the value converted
        to it), as NiFi's ``AvroTypeUtil.convertUnionFieldValue``; a value no branch
        takes fails the records with NiFi's message."""
        chosen: dict[str, list[Any]] = {}
        names = batch.schema.names
        for name, branches in self._unions.items():
            if name not in names:
                continue
            column = batch.column(name)
            kinds = [kind for _, kind, _ in branches]
            symbols = [enum for _, _, enum in branches]
            values = (
                rows_of(column)
                if pa.types.is_union(column.type)
                else [(v, column.type) for v in column.to_pylist(maps_as_pydicts="strict")]
            )
            out: list[Any] = []
            for row, (value, kind) in enumerate(values):
                if value is None:
                    out.append(None)
                    continue
                branch = choice_of(value, kind, kinds, symbols)
                if branch is None:
                    shown = value if not isinstance(value, float) else converted(value, pa.string())
                    msg = (
                        f"record {self._records + row} cannot be written as Avro: Cannot "
                        f"convert value {shown} of type {java_class(kind)} because no "
                        f"compatible types exist in the UNION for field {name}"
                    )
                    raise RecordWriteError(msg)
                branch_name, branch_kind, _ = branches[branch]
                out.append((branch_name, converted(value, branch_kind)))
            chosen[name] = out
        kept = [n for n in names if n not in chosen]
        return batch.select(kept), chosen

    def flush(self) -> None:
        self._writer.flush()

    def finish(self) -> WriteResult:
        if not self._done:
            self._writer.flush()
            self._done = True
        return WriteResult(self._records, AVRO_MIME_TYPE)

    def abort(self) -> None:
        self._done = True


class _BareDatums:
    """Records as bare Avro datums one after another, no header, as NiFi's Avro writer
    writes them when the schema is not embedded (``WriteAvroResultWithExternalSchema``);
    an AvroReader given the schema reads them back."""

    _FLUSH_AT = 1 << 16

    def __init__(self, sink: CountingSink, parsed: Any) -> None:
        self._sink = sink
        self._parsed = parsed
        self._buffer = io.BytesIO()

    def write(self, record: Any) -> None:
        fastavro.schemaless_writer(self._buffer, self._parsed, record)
        if self._buffer.tell() >= self._FLUSH_AT:
            self.flush()

    def flush(self) -> None:
        data = self._buffer.getvalue()
        if data:
            self._sink.write(data)
            self._buffer = io.BytesIO()
