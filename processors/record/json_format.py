"""JsonTreeReader and JsonRecordSetWriter.

Reading: JSON lines (one object after another) stream through pyarrow.json; a JSON array
is decoded with msgspec and converted batch by batch. Writing: each column is rendered
as JSON text with Arrow compute kernels and the columns are joined row-wise, so no Python
object is made per field (nested and binary columns fall back to msgspec per value).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Mapping
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pajson

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
    bounded,
)
from processors.record.schema import conform

JSON_MIME_TYPE = "application/json"
_BLOCK = 1 << 20
_ROW = re.compile(r"in row (\d+)")
_BYTE = re.compile(r"byte (\d+)")

READER_STRATEGY = common.schema_access_strategy(
    [common.INFER_SCHEMA, common.SCHEMA_TEXT_PROPERTY], common.INFER_SCHEMA.value
)
WRITER_STRATEGY = common.schema_access_strategy(
    [common.INHERIT_RECORD_SCHEMA, common.SCHEMA_TEXT_PROPERTY],
    common.INHERIT_RECORD_SCHEMA.value,
)
OUTPUT_ARRAY = AllowableValue("output-array", "Array", "Output records as a JSON array")
OUTPUT_ONELINE = AllowableValue(
    "output-oneline", "One Line Per Object", "Output one JSON object per line (JSON lines)"
)
OUTPUT_GROUPING = PropertyDescriptor(
    name="output-grouping",
    display_name="Output Grouping",
    description="Specifies how the writer should output the JSON records",
    default=OUTPUT_ARRAY.value,
    required=True,
    allowable_values=[OUTPUT_ARRAY, OUTPUT_ONELINE],
)
NEVER_SUPPRESS = AllowableValue("never-suppress", "Never Suppress", "Fields with null are written")
ALWAYS_SUPPRESS = AllowableValue(
    "always-suppress", "Always Suppress", "Fields with null are not written"
)
SUPPRESS_NULLS = PropertyDescriptor(
    name="suppress-nulls",
    display_name="Suppress Null Values",
    description="Specifies how the writer should handle a null field",
    default=NEVER_SUPPRESS.value,
    required=True,
    allowable_values=[NEVER_SUPPRESS, ALWAYS_SUPPRESS],
)


def _error(exc: Exception, source: str, records_before: int, offset: int) -> MalformedRecordError:
    text = str(exc)
    match = _ROW.search(text)
    if match:
        # pyarrow counts rows from 0 within the block being parsed.
        position = f"record {records_before + int(match.group(1))} (0-based, approximate)"
    else:
        position = f"record {records_before} or after (byte offset {offset})"
    return MalformedRecordError(source, position, text)


@controller_service("JsonTreeReader")
class JsonTreeReader(ControllerService):
    """Reads a JSON array of objects, or JSON lines (objects one after another)."""

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
        head = stream.peek_bytes(4096).lstrip() or stream.peek_bytes(_BLOCK).lstrip()
        if not head:
            schema = given[0] if given else pa.schema([])
            return _ListReader([], schema, given[1] if given else None, self.batch_rows)
        if head.startswith(b"["):
            return self._array(stream, given, source)
        return self._lines(stream, given, source)

    def _array(
        self, stream: ChunkInput, given: tuple[pa.Schema, str] | None, source: str
    ) -> RecordReader:
        data = stream.readall()
        try:
            rows = msgspec.json.decode(data)
        except msgspec.DecodeError as exc:
            match = _BYTE.search(str(exc))
            position = f"byte offset {match.group(1)}" if match else "unknown position"
            raise MalformedRecordError(source, position, str(exc)) from None
        for index, row in enumerate(rows):
            if not isinstance(row, dict):
                raise MalformedRecordError(
                    source, f"record {index}", "a JSON array element is not an object"
                )
        if given is not None:
            return _ListReader(rows, given[0], given[1], self.batch_rows, source)
        try:
            schema = (
                common.promote_nulls(pa.Table.from_pylist(rows).schema) if rows else pa.schema([])
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise MalformedRecordError(source, "schema inference", str(exc)) from None
        return _ListReader(rows, schema, None, self.batch_rows, source)

    def _lines(
        self, stream: ChunkInput, given: tuple[pa.Schema, str] | None, source: str
    ) -> RecordReader:
        if given is not None:
            schema, text = given
            options = pajson.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="ignore"
            )
        else:
            text = None
            head = stream.peek_bytes(_BLOCK)
            complete = len(head) < _BLOCK
            if not complete:
                head = head[: head.rfind(b"\n") + 1]
            try:
                inferred = pajson.read_json(io.BytesIO(head + b"\n")).schema
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                raise _error(exc, source, 0, 0) from None
            schema = common.promote_nulls(inferred)
            options = pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error")
        lines = ChunkInput(_chain(stream, b"\n"))
        try:
            reader = pajson.open_json(
                lines,
                read_options=pajson.ReadOptions(use_threads=False, block_size=_BLOCK),
                parse_options=options,
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise _error(exc, source, 0, 0) from None
        return _LinesReader(reader, schema, text, source, lines, self.batch_rows)


def _chain(stream: ChunkInput, tail: bytes) -> Iterator[bytes]:
    while chunk := stream.read(_BLOCK):
        yield chunk
    yield tail


class _ListReader:
    def __init__(
        self,
        rows: list[dict[str, Any]],
        schema: pa.Schema,
        text: str | None,
        batch_rows: int,
        source: str = "",
    ) -> None:
        self._rows = rows
        self._schema = schema
        self._text = text
        self._size = batch_rows
        self._source = source

    @property
    def schema(self) -> pa.Schema:
        return self._schema

    @property
    def schema_text(self) -> str | None:
        return self._text

    def batches(self) -> Iterator[pa.RecordBatch]:
        rows, self._rows = self._rows, []
        for start in range(0, len(rows), self._size):
            try:
                yield pa.RecordBatch.from_pylist(rows[start : start + self._size], self._schema)
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as exc:
                position = f"records {start} to {min(len(rows), start + self._size) - 1}"
                raise MalformedRecordError(self._source, position, str(exc)) from None

    def close(self) -> None:
        self._rows = []


class _LinesReader:
    def __init__(
        self,
        reader: pajson.JSONStreamingReader,
        schema: pa.Schema,
        text: str | None,
        source: str,
        stream: ChunkInput,
        batch_rows: int,
    ) -> None:
        self._reader: pajson.JSONStreamingReader | None = reader
        self._schema = schema
        self._text = text
        self._source = source
        self._stream = stream
        self._rows = batch_rows

    @property
    def schema(self) -> pa.Schema:
        return self._schema

    @property
    def schema_text(self) -> str | None:
        return self._text

    def batches(self) -> Iterator[pa.RecordBatch]:
        yield from bounded(self._read(), self._rows)

    def _read(self) -> Iterator[pa.RecordBatch]:
        records = 0
        while self._reader is not None:
            try:
                batch = self._reader.read_next_batch()
            except StopIteration:
                return
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                raise _error(exc, self._source, records, self._stream.offset) from None
            records += batch.num_rows
            yield batch if batch.schema.equals(self._schema) else conform(batch, self._schema)

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None


@controller_service("JsonRecordSetWriter")
class JsonRecordSetWriter(ControllerService):
    """Writes records as a JSON array or as one JSON object per line."""

    property_descriptors = (WRITER_STRATEGY, common.SCHEMA_TEXT, OUTPUT_GROUPING, SUPPRESS_NULLS)

    mime_type = JSON_MIME_TYPE

    def on_enabled(self, context: ProcessContext) -> None:
        common.validate(context, self.property_descriptors)
        self.schema_source = common.schema_source(context, WRITER_STRATEGY)
        self.one_line = common.choice(context, OUTPUT_GROUPING) == OUTPUT_ONELINE.value
        self.suppress_nulls = common.choice(context, SUPPRESS_NULLS) == ALWAYS_SUPPRESS.value

    def writer_schema(self, read_schema: pa.Schema, attributes: Mapping[str, str]) -> pa.Schema:
        given = self.schema_source.resolve(attributes)
        return given[0] if given is not None else read_schema

    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter:
        return _JsonWriter(schema, sink, self.one_line, self.suppress_nulls)


_CONTROL = [chr(c) for c in range(32)]
_CONTROL_ESCAPES = {
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


def _quote_strings(column: pa.Array) -> pa.Array:
    """JSON string literals for a string column (nulls stay null)."""
    if pc.any(pc.match_substring(column, "\\")).as_py():
        column = pc.replace_substring(column, "\\", "\\\\")
    if pc.any(pc.match_substring(column, '"')).as_py():
        column = pc.replace_substring(column, '"', '\\"')
    if pc.any(pc.match_substring_regex(column, "[\\x00-\\x1f]")).as_py():
        for char in _CONTROL:
            escape = _CONTROL_ESCAPES.get(char, f"\\u{ord(char):04x}")
            column = pc.replace_substring(column, char, escape)
    return pc.binary_join_element_wise('"', column, '"', "")


def _json_values(column: pa.Array) -> pa.Array:
    """JSON text for each value of a column; null where the value is null."""
    t = column.type
    types = pa.types
    if types.is_dictionary(t):
        return _json_values(column.dictionary_decode())
    if types.is_null(t):
        return pa.nulls(len(column), pa.string())
    if types.is_string(t) or types.is_large_string(t) or types.is_string_view(t):
        return _quote_strings(column.cast(pa.string()))
    if types.is_boolean(t) or types.is_integer(t) or types.is_decimal(t):
        return column.cast(pa.string())
    if types.is_floating(t):
        finite = pc.is_finite(column)
        text = pc.if_else(finite, column.cast(pa.string()), pa.scalar(None, pa.string()))
        integral = pc.match_substring_regex(text, "^-?[0-9]+$")
        return pc.if_else(integral, pc.binary_join_element_wise(text, ".0", ""), text)
    if types.is_temporal(t) and not types.is_duration(t) and not types.is_interval(t):
        return _quote_strings(column.cast(pa.string()))
    # Nested, binary and the rest: one value at a time (msgspec; bytes become base64).
    encoder = msgspec.json.Encoder()
    return pa.array(
        [None if v is None else encoder.encode(v).decode() for v in column.to_pylist()],
        pa.string(),
    )


class _JsonWriter(common.CountingWriter):
    MIME_TYPE = JSON_MIME_TYPE

    def __init__(
        self, schema: pa.Schema, sink: BinarySink, one_line: bool, suppress_nulls: bool
    ) -> None:
        self._schema = schema
        self._sink = CountingSink(sink)
        self._one_line = one_line
        self._suppress = suppress_nulls
        self._records = 0
        self._keys = [msgspec.json.encode(name).decode() + ":" for name in schema.names]
        self._started = False
        self._finished = False

    def write_batch(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        batch = conform(batch, self._schema)
        fragments: list[pa.Array] = []
        for key, column in zip(self._keys, batch.columns, strict=True):
            values = _json_values(column)
            if not self._suppress:
                values = values.fill_null("null")
            fragments.append(pc.binary_join_element_wise(key, values, ""))
        if fragments:
            body = pc.binary_join_element_wise(*fragments, ",", null_handling="skip")
            body = body.fill_null("")
        else:
            body = pa.array([""] * batch.num_rows, pa.string())
        if self._one_line:
            rows = pc.binary_join_element_wise("{", body, "}\n", "")
        else:
            rows = pc.binary_join_element_wise(",{", body, "}", "")
        buffers = rows.buffers()
        offsets = pa.Array.from_buffers(
            pa.int32(), len(rows) + 1, [None, buffers[1]], offset=rows.offset
        )
        start, end = offsets[0].as_py(), offsets[-1].as_py()
        data = memoryview(buffers[2])[start:end]
        if not self._one_line and not self._started:
            self._sink.write(b"[")
            data = data[1:]
        self._started = True
        self._sink.write(data)
        self._records += batch.num_rows

    def flush(self) -> None:
        """Nothing is buffered."""

    def finish(self) -> WriteResult:
        if not self._finished and not self._one_line:
            self._sink.write(b"]" if self._started else b"[]")
        self._finished = True
        return WriteResult(self._records, JSON_MIME_TYPE)

    def abort(self) -> None:
        self._finished = True
