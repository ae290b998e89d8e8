"""JsonTreeReader and JsonRecordSetWriter.

Reading: JSON lines (one object after another) stream through pyarrow.json; a JSON array
is decoded with msgspec and converted batch by batch. Writing: the records are rendered
as JSON text with Arrow compute kernels (``json_render``), so no Python object is made per
field; ``render_bulk`` renders many FlowFiles' records at once, each output cut from it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pajson

from flowcore.errors import ProcessException
from flowcore.processor import (
    AllowableValue,
    ControllerService,
    ProcessContext,
    PropertyDescriptor,
    ValidationResult,
    controller_service,
)
from processors.record import _common as common
from processors.record import compression, json_bulk
from processors.record.api import (
    RETYPED_METADATA,
    BinarySink,
    ChunkInput,
    Content,
    CountingSink,
    MalformedRecordError,
    RecordReader,
    RecordSetWriter,
    RereadableContent,
    WriteResult,
    bounded,
)
from processors.record.bulk import BulkRead
from processors.record.bulk_write import RenderedRecords, row_bounds
from processors.record.json_numbers import NotWritableError
from processors.record.json_render import (
    AUTO,
    EPOCH_MILLISECONDS,
    EPOCH_SECONDS,
    FORMATTED_STRING,
    JsonOptions,
    json_string,
    member_name,
    render_rows,
)
from processors.record.json_serialized import JSON_MIME_TYPE, line_texts, with_serialized_forms
from processors.record.schema import conform
from processors.record.schema_write import (
    AVRO_SCHEMA_ATTRIBUTE,
    SCHEMA_WRITE_STRATEGY,
    schema_attributes,
    write_strategy_problems,
)
from processors.record.serialized import SerializedForms, attach, combined
from processors.record.temporal import (
    arrow_reads_json,
    coercer,
    converter,
    java_to_strptime,
)


class _Number(str):
    """A JSON number's text as written (pretty printing keeps it)."""


_EXACT_NUMBERS = msgspec.json.Decoder(float_hook=_Number)
"""Decodes JSON keeping each number's exact text (pretty printing)."""
_LINES = msgspec.json.Decoder()
_BLOCK = 1 << 20
PENDING_ROWS = 65_536
"""Records the JSON writer holds before rendering them (``flush`` and ``finish`` write
earlier)."""
_ROW = re.compile(r"in row (\d+)")
_BYTE = re.compile(r"byte (\d+)")

READER_STRATEGY = common.schema_access_strategy(
    [common.INFER_SCHEMA, common.SCHEMA_NAME_PROPERTY, common.SCHEMA_TEXT_PROPERTY],
    common.INFER_SCHEMA.value,
)
WRITER_STRATEGY = common.schema_access_strategy(
    [common.INHERIT_RECORD_SCHEMA, common.SCHEMA_NAME_PROPERTY, common.SCHEMA_TEXT_PROPERTY],
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
DATE_FORMAT = PropertyDescriptor(
    name="Date Format",
    display_name="Date Format",
    description="Specifies the format to use when reading/writing Date fields. If not "
    "specified, Date fields will be assumed to be number of milliseconds since epoch "
    "(Midnight, Jan 1, 1970 GMT) or ISO 8601 text. If specified, the value must match the "
    "Java java.time.format.DateTimeFormatter format (for example, MM/dd/yyyy).",
)
TIME_FORMAT = PropertyDescriptor(
    name="Time Format",
    display_name="Time Format",
    description="Specifies the format to use when reading/writing Time fields (Java "
    "DateTimeFormatter pattern, for example HH:mm:ss).",
)
TIMESTAMP_FORMAT = PropertyDescriptor(
    name="Timestamp Format",
    display_name="Timestamp Format",
    description="Specifies the format to use when reading/writing Timestamp fields (Java "
    "DateTimeFormatter pattern, for example MM/dd/yyyy HH:mm:ss.SSS).",
)
PRETTY_PRINT_JSON = PropertyDescriptor(
    name="Pretty Print JSON",
    display_name="Pretty Print JSON",
    description="Specifies whether or not the JSON should be pretty printed",
    default="false",
    required=True,
    allowable_values=["true", "false"],
)
ALLOW_SCIENTIFIC_NOTATION = PropertyDescriptor(
    name="Allow Scientific Notation",
    display_name="Allow Scientific Notation",
    description="Specifies whether or not scientific notation should be used when writing numbers",
    default="false",
    required=True,
    allowable_values=["true", "false"],
)
TIMESTAMP_AUTO = AllowableValue(
    AUTO,
    "Automatic",
    "Uses the configured Timestamp Format when present, otherwise writes epoch milliseconds",
)
TIMESTAMP_FORMATTED = AllowableValue(
    FORMATTED_STRING,
    "Formatted String",
    "Writes timestamps as strings using the configured Timestamp Format",
)
TIMESTAMP_EPOCH_MILLIS = AllowableValue(
    EPOCH_MILLISECONDS,
    "Epoch Milliseconds",
    "Writes timestamps as integer JSON numbers containing milliseconds since the Unix epoch",
)
TIMESTAMP_EPOCH_SECONDS = AllowableValue(
    EPOCH_SECONDS,
    "Epoch Seconds",
    "Writes timestamps as decimal JSON numbers containing seconds since the Unix epoch with "
    "millisecond precision",
)
TIMESTAMP_REPRESENTATION = PropertyDescriptor(
    name="Timestamp Representation",
    display_name="Timestamp Representation",
    description="Specifies how Timestamp logical fields are represented in JSON. Date and "
    "Time logical fields are not affected.",
    default=AUTO,
    required=True,
    allowable_values=[
        TIMESTAMP_AUTO,
        TIMESTAMP_FORMATTED,
        TIMESTAMP_EPOCH_MILLIS,
        TIMESTAMP_EPOCH_SECONDS,
    ],
)
NEVER_SUPPRESS = AllowableValue("never-suppress", "Never Suppress", "Fields with null are written")
ALWAYS_SUPPRESS = AllowableValue(
    "always-suppress", "Always Suppress", "Fields with null are not written"
)
SUPPRESS_MISSING = AllowableValue(
    "suppress-missing",
    "Suppress Missing Values",
    "When a field has a value of null, it will be written out. However, if a field is "
    "defined in the schema and not present in the record, the field will not be written "
    "out.",
)
"""A record read from JSON keeps its own fields (its serialized form is written); any
other record has every field of its schema present, so its nulls are written."""
HANDLING_ENABLED = AllowableValue(
    "ENABLED",
    "Enabled",
    "The writer may emit the input reader's original JSON bytes verbatim when it can do "
    "so safely, as a throughput optimization. Timestamp Format, Date Format, Time Format, "
    "and Suppress Null Values may not be applied to those records.",
)
HANDLING_DISABLED = AllowableValue(
    "DISABLED",
    "Disabled",
    "The writer re-serializes every record from typed field values, so Timestamp Format, "
    "Date Format, Time Format, and Suppress Null Values are honored uniformly.",
)
SERIALIZED_JSON_INPUT_HANDLING = PropertyDescriptor(
    name="Serialized JSON Input Handling",
    display_name="Serialized JSON Input Handling",
    description="When enabled, the writer may emit the input reader's original JSON bytes "
    "verbatim when it can do so safely, as a throughput optimization. In that case, the "
    "Timestamp Format, Date Format, Time Format, and Suppress Null Values properties may "
    "not be applied to those records. When disabled, the writer re-serializes every "
    "record so that these properties are honored uniformly.",
    default=HANDLING_ENABLED.value,
    required=True,
    allowable_values=[HANDLING_ENABLED, HANDLING_DISABLED],
)
COMPRESSION_FORMAT = PropertyDescriptor(
    name="Compression Format",
    display_name="Compression Format",
    description="The compression format to use. Valid values are: GZIP, BZIP2, ZSTD, "
    "XZ-LZMA2, LZMA, Snappy, and Snappy Framed",
    default=compression.NONE,
    required=True,
    allowable_values=list(compression.FORMATS),
)
COMPRESSION_LEVEL = PropertyDescriptor(
    name="Compression Level",
    display_name="Compression Level",
    description="The compression level to use; this is valid only when using GZIP "
    "compression. A lower value results in faster processing but less compression; a value "
    "of 0 indicates no compression but simply archiving",
    default="1",
    required=True,
    allowable_values=[str(level) for level in range(10)],
)
SUPPRESS_NULLS = PropertyDescriptor(
    name="suppress-nulls",
    display_name="Suppress Null Values",
    description="Specifies how the writer should handle a null field",
    default=NEVER_SUPPRESS.value,
    required=True,
    allowable_values=[NEVER_SUPPRESS, ALWAYS_SUPPRESS, SUPPRESS_MISSING],
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

    property_descriptors = (
        READER_STRATEGY,
        *common.REGISTRY_PROPERTIES,
        common.SCHEMA_TEXT,
        DATE_FORMAT,
        TIME_FORMAT,
        TIMESTAMP_FORMAT,
        common.BATCH_ROWS,
    )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        return common.schema_access_problems(context, READER_STRATEGY)

    def on_enabled(self, context: ProcessContext) -> None:
        common.validate(context, self.property_descriptors)
        self.schema_source = common.schema_source(context, READER_STRATEGY)
        self.batch_rows = common.rows_per_batch(context)
        self.bulk_schema: pa.Schema | None = None
        """The types of the last bulk parse, given to the next one first (``json_bulk``)."""
        patterns = common.compiled_patterns(
            context, (DATE_FORMAT, TIME_FORMAT, TIMESTAMP_FORMAT), java_to_strptime
        )
        self.formats: dict[str, str | None] = dict(
            zip(("date", "time", "timestamp"), patterns, strict=True)
        )

    def _converted(
        self, rows: list[dict[str, Any]], schema: pa.Schema, source: str, first_record: int = 0
    ) -> list[dict[str, Any]]:
        """Rows with text and numbers made into the schema's decimals, dates, times and
        timestamps (top-level fields), with the Date/Time/Timestamp Formats, and a value
        of another kind coerced into a text, number or Boolean field as NiFi coerces it
        (``temporal.coercer``)."""
        formats = (self.formats["date"], self.formats["time"], self.formats["timestamp"])
        converters = {
            f.name: c
            for f in schema
            if (c := converter(f.type, *formats) or coercer(f.type) or _nested(f.type, formats))
            is not None
        }
        for index, row in enumerate(rows):
            for name, convert in converters.items():
                value = row.get(name)
                if value is None:
                    continue
                try:
                    row[name] = convert(value)
                except (ValueError, TypeError, ArithmeticError) as exc:
                    raise MalformedRecordError(
                        source, f"record {first_record + index}", f"field '{name}': {exc}"
                    ) from None
        return rows

    def read_bulk(
        self, contents: Sequence[bytes], attributes: Sequence[Mapping[str, str]]
    ) -> BulkRead:
        """Many JSON-lines contents parsed in one call where that reads them as alone
        (``json_bulk``)."""
        return json_bulk.read_bulk(self, contents, attributes)

    def create_reader(
        self, content: Content, attributes: Mapping[str, str], source: str
    ) -> RecordReader:
        given = self.schema_source.resolve(attributes)
        rereadable = RereadableContent(content) if given is None else None
        stream = ChunkInput(content if rereadable is None else rereadable.read())
        head = stream.peek_bytes(4096).lstrip() or stream.peek_bytes(_BLOCK).lstrip()
        if not head:
            schema = given[0] if given else pa.schema([])
            return _ListReader([], schema, given[1] if given else None, self.batch_rows)
        if head.startswith(b"["):
            reader = self._array(stream, given, source)
        elif given is not None and not arrow_reads_json(given[0], self.formats["timestamp"]):
            return self._decoded_lines(stream, given, source)
        elif rereadable is not None:
            reader = self._inferred_lines(stream, lambda: ChunkInput(rereadable.read()), source)
        else:
            return self._lines(stream, given, source)
        if given is None and any(self.formats.values()):
            return self._temporal_inferred(reader, source)
        return reader

    def create_text_reader(
        self, content: Content, attributes: Mapping[str, str], source: str
    ) -> tuple[pa.Schema, RecordReader] | None:
        """The records as written for the given schema: each top-level field that is not
        a record, array or map read as text (a number or Boolean as its JSON text), with
        that schema; None without a given schema. NiFi's ValidateRecord reads records
        without converting a value that does not fit its field, which then makes its
        record invalid instead of failing the FlowFile."""
        given = self.schema_source.resolve(attributes)
        if given is None:
            return None
        schema, text = given
        data = ChunkInput(content).readall()
        if data.lstrip().startswith(b"["):
            try:
                rows = msgspec.json.decode(data)
            except msgspec.DecodeError as exc:
                raise MalformedRecordError(source, "unknown position", str(exc)) from None
            if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                raise MalformedRecordError(source, "unknown position", "not an array of objects")
        else:
            rows = _decoded_lines(data, source) if data.strip() else []
        nested = (pa.types.is_struct, pa.types.is_list, pa.types.is_large_list, pa.types.is_map)
        texts = [f.name for f in schema if not any(kind(f.type) for kind in nested)]
        coercers = {f.name: _deep_coercer(f.type) for f in schema if f.name not in texts}
        retyped: list[list[str]] = []
        for row in rows:
            found = []
            for field in schema:
                value = row.get(field.name)
                if value is None:
                    continue
                if field.name in coercers:
                    try:
                        row[field.name], changed = coercers[field.name](value)
                    except (ValueError, TypeError, ArithmeticError) as exc:
                        detail = f"field '{field.name}': {exc}"
                        raise MalformedRecordError(source, "unknown position", detail) from None
                else:
                    changed = not _same_kind(value, field.type)
                    if not isinstance(value, str):
                        row[field.name] = _ENCODER.encode(value).decode()
                if changed:
                    found.append(field.name)
            retyped.append(found)
        as_text = pa.schema(
            [f.with_type(pa.string()) if f.name in texts else f for f in schema],
            metadata=schema.metadata,
        )
        return schema, _TextReader(rows, as_text, text, self.batch_rows, source, retyped)

    def _temporal_inferred(self, reader: RecordReader, source: str) -> RecordReader:
        """The inferred records with each top-level text field whose every value matches
        the Date, Time or Timestamp Format (tried in that order, those set) made a date, a
        time or a timestamp, as NiFi's inference does with a format set; the records are
        read into memory to look at every value, as NiFi reads the content twice."""
        try:
            rows = [row for batch in reader.batches() for row in batch.to_pylist()]
        finally:
            reader.close()
        schema = reader.schema
        kinds = (
            (self.formats["date"], pa.date32()),
            (self.formats["time"], pa.time32("ms")),
            (self.formats["timestamp"], pa.timestamp("ms", tz="UTC")),
        )
        fields = list(schema)
        changed = False
        for index, field in enumerate(schema):
            if not (pa.types.is_string(field.type) or pa.types.is_large_string(field.type)):
                continue
            values = [row.get(field.name) for row in rows]
            present = [value for value in values if value is not None]
            if not present:
                continue
            for pattern, kind in kinds:
                if pattern is None:
                    continue
                convert = converter(kind, *self.formats.values())
                assert convert is not None
                try:
                    converted = [None if v is None else convert(v) for v in values]
                except (ValueError, TypeError, ArithmeticError):
                    continue
                for row, value in zip(rows, converted, strict=True):
                    row[field.name] = value
                fields[index] = field.with_type(kind)
                changed = True
                break
        if changed:
            schema = pa.schema(fields, metadata=schema.metadata)
        return _ListReader(rows, schema, None, self.batch_rows, source)

    def _inferred_lines(
        self, stream: ChunkInput, read_from_start: Callable[[], ChunkInput], source: str
    ) -> RecordReader:
        """JSON lines with the schema inferred from all of them, as NiFi infers it. A
        content over one block is read twice: first block by block, each block's schema
        merged into the whole's (``_whole_schema``), then streamed with the result."""
        head = stream.peek_bytes(_BLOCK)
        if len(head) < _BLOCK:
            return self._lines(stream, None, source)
        try:
            schema = _whole_schema(stream)
        except _MixedKinds:
            return self._mixed_lines(read_from_start(), source)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise _error(exc, source, 0, 0) from None
        return self._lines(read_from_start(), (schema, None), source, inferred=True)

    def _decoded_lines(
        self, stream: ChunkInput, given: tuple[pa.Schema, str], source: str
    ) -> RecordReader:
        """JSON lines decoded row by row, for a schema with fields Arrow's JSON reader
        cannot fill (dates, times, formatted timestamps)."""
        return self._decoded(stream.readall(), given, source)

    def _decoded(
        self, data: bytes, given: tuple[pa.Schema, str], source: str, first_record: int = 0
    ) -> RecordReader:
        """JSON lines decoded row by row and converted to the given schema (``_converted``:
        also where a value is of another kind than its field, which Arrow refuses).
        ``first_record``: the number of the first line's record in the content."""
        rows = _decoded_lines(data, source)
        forms = _encoded(rows)
        rows = self._converted(rows, given[0], source, first_record)
        return _ListReader(rows, given[0], given[1], self.batch_rows, source, forms)

    def _mixed_lines(self, stream: ChunkInput, source: str) -> RecordReader:
        """JSON lines with a field of more than one kind of value (NiFi infers a CHOICE):
        decoded record by record, the schema as ``_mixed_schema`` makes it."""
        rows = _decoded_lines(stream.readall(), source)
        forms = _encoded(rows)
        schema, rows = _mixed_schema(rows)
        return _ListReader(rows, schema, None, self.batch_rows, source, forms)

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
        forms = _encoded(rows)
        if given is not None:
            rows = self._converted(rows, given[0], source)
            return _ListReader(rows, given[0], given[1], self.batch_rows, source, forms)
        try:
            if _booleans_among_others(rows):
                raise pa.ArrowTypeError(source)
            schema = common.promote_nulls(common.schema_of_rows(rows))
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            schema, rows = _mixed_schema(rows)
        return _ListReader(rows, schema, None, self.batch_rows, source, forms)

    def _lines(
        self,
        stream: ChunkInput,
        given: tuple[pa.Schema, str | None] | None,
        source: str,
        *,
        inferred: bool = False,
    ) -> RecordReader:
        """JSON lines streamed through Arrow: with the given schema, with one
        ``inferred`` from the whole content, or inferred here from the first block."""
        if inferred and given is not None:
            schema, text = given
            options = pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error")
        elif given is not None:
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
                sample = pajson.read_json(io.BytesIO(head + b"\n"))
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                if "changed from" not in str(exc):
                    raise _error(exc, source, 0, 0) from None
                return self._mixed_lines(stream, source)
            # NiFi infers text for dates and times here, and reads big integers exactly
            schema = common.promote_nulls(common.exact_integers(sample) or sample.schema)
            schema = common.temporal_as_text(schema) or schema
            options = pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error")
        recorded = _RecordedLines(_chain(stream, b"\n"))
        lines = ChunkInput(recorded)
        # With a given schema, a value of another kind than its field fails Arrow's parse:
        # then the content from the first record not yet read on is decoded row by row
        # and coerced, as NiFi coerces it (``_decoded``).
        fallback = (
            None
            if given is None or inferred
            else partial(self._decoded, given=(given[0], text or ""), source=source)
        )
        try:
            reader = pajson.open_json(
                lines,
                read_options=pajson.ReadOptions(use_threads=False, block_size=_BLOCK),
                parse_options=options,
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            if fallback is not None:
                return fallback(recorded.everything())
            raise _error(exc, source, 0, 0) from None
        return _LinesReader(
            reader, schema, text, source, lines, self.batch_rows, recorded, fallback
        )


_PIECE = 8 << 20
"""Bytes of JSON lines inferred at once in the first read of a large content."""


class _MixedKinds(Exception):
    """A field holds values of more than one kind (NiFi infers a CHOICE)."""


def _whole_schema(stream: ChunkInput) -> pa.Schema:
    """The schema of all the JSON lines in ``stream``, as a content read whole is typed:
    each piece's schema merged into the whole's (new fields join, nulls take the other's
    type, integers with doubles are doubles), dates and times as text, and a top-level
    double field whose values are all whole, one beyond ``long``, exact
    (``common.exact_integers`` over the whole content); ``_MixedKinds`` when a field
    holds values of two kinds."""
    schema: pa.Schema | None = None
    numbers: dict[str, _Numbers] = {}
    for piece in _pieces(stream):
        try:
            table = pajson.read_json(io.BytesIO(piece))
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            if "changed from" in str(exc):
                raise _MixedKinds from None
            raise
        for name, column in zip(table.schema.names, table.columns, strict=True):
            numbers.setdefault(name, _Numbers()).add(column)
        found = common.temporal_as_text(table.schema) or table.schema
        try:
            schema = (
                found
                if schema is None
                else pa.unify_schemas([schema, found], promote_options="permissive")
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            raise _MixedKinds from None
    if schema is None:
        return pa.schema([])
    exact = [
        field.with_type(common.WHOLE_NUMBERS)
        if pa.types.is_float64(field.type) and numbers[field.name].beyond_long_and_whole()
        else field
        for field in schema
    ]
    return common.promote_nulls(pa.schema(exact, metadata=schema.metadata))


class _Numbers:
    """Whether a top-level field's numbers so far are all whole, and their largest
    magnitude as doubles."""

    def __init__(self) -> None:
        self.whole = True
        self.largest = 0.0

    def add(self, column: pa.ChunkedArray) -> None:
        kind = column.type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            return
        if column.null_count == len(column):
            return
        doubles = pc.cast(column, pa.float64(), safe=False)
        self.largest = max(self.largest, float(pc.max(pc.abs(doubles)).as_py()))
        if pa.types.is_floating(kind):
            whole = pc.all(pc.equal(doubles, pc.floor(doubles)).fill_null(True)).as_py()
            self.whole = self.whole and bool(whole)

    def beyond_long_and_whole(self) -> bool:
        return self.whole and common.BEYOND_LONG <= self.largest < 1e38


def _pieces(stream: ChunkInput) -> Iterator[bytes]:
    """The content in pieces of whole lines (about ``_PIECE`` bytes each)."""
    pending = b""
    while chunk := stream.read(_PIECE):
        data = pending + chunk
        cut = data.rfind(b"\n") + 1
        if cut:
            yield data[:cut]
        pending = data[cut:]
    if pending.strip():
        yield pending + b"\n"


def _chain(stream: ChunkInput, tail: bytes) -> Iterator[bytes]:
    while chunk := stream.read(_BLOCK):
        yield chunk
    yield tail


def _booleans_among_others(values: list[Any]) -> bool:
    """Whether Booleans share the values, or the elements of lists or a field of objects
    among them, with values of another kind (Arrow would make ``true`` the number 1)."""
    kinds: set[type] = set()
    elements: list[Any] = []
    objects: list[dict[str, Any]] = []
    for value in values:
        if value is None:
            continue
        kinds.add(type(value))
        if isinstance(value, list):
            elements.extend(value)
        elif isinstance(value, dict):
            objects.append(value)
    if bool in kinds and len(kinds) > 1:
        return True
    if elements and _booleans_among_others(elements):
        return True
    keys = {key for value in objects for key in value}
    return any(_booleans_among_others([value.get(key) for value in objects]) for key in keys)


def _mixed_schema(rows: list[dict[str, Any]]) -> tuple[pa.Schema, list[dict[str, Any]]]:
    """The schema of records where a field holds values of more than one kind (a number
    and a text, an object and a number...), and the records to fit it.

    NiFi infers a CHOICE of the kinds and keeps each value as it is; Arrow has no such
    type, so such a field is text: a text as it is, any other value as its JSON text
    (``5``, ``true``, ``{"a":1}``), which is what NiFi's writers print for it as text
    (CSV) while a JSON writer writes the record's own text (its serialized form). The
    other fields are inferred as always (first appearance order)."""
    names: dict[str, None] = {}
    for row in rows:
        for name in row:
            names.setdefault(name)
    fields: list[pa.Field] = []
    mixed: list[str] = []
    for name in names:
        values = [row.get(name) for row in rows]
        try:
            if _booleans_among_others(values):
                raise pa.ArrowTypeError(name)
            kind = pa.array(values).type
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            kind = pa.string()
            mixed.append(name)
        fields.append(pa.field(name, pa.string() if pa.types.is_null(kind) else kind))
    if mixed:
        encode = msgspec.json.encode
        for row in rows:
            for name in mixed:
                value = row.get(name)
                if value is not None and not isinstance(value, str):
                    row[name] = encode(value).decode()
    return pa.schema(fields), rows


def _nested(
    data_type: pa.DataType, formats: tuple[str | None, str | None, str | None]
) -> Callable[[Any], Any] | None:
    """How to convert the decimals, dates, times and timestamps inside a record, array or
    map value (NiFi's reader converts them at any depth), or None when it holds none."""
    t = pa.types
    if t.is_struct(data_type):
        fields = {}
        for i in range(data_type.num_fields):
            field = data_type.field(i)
            convert = converter(field.type, *formats) or _nested(field.type, formats)
            if convert is not None:
                fields[field.name] = convert
        if not fields:
            return None

        def record(value: Any) -> Any:
            if not isinstance(value, dict):
                return value
            return {
                k: (fields[k](v) if k in fields and v is not None else v) for k, v in value.items()
            }

        return record
    if t.is_list(data_type) or t.is_large_list(data_type) or t.is_map(data_type):
        inner = data_type.item_type if t.is_map(data_type) else data_type.value_type
        item = converter(inner, *formats) or _nested(inner, formats)
        if item is None:
            return None
        if t.is_map(data_type):
            return lambda value: (
                {k: None if v is None else item(v) for k, v in value.items()}
                if isinstance(value, dict)
                else value
            )
        return lambda value: (
            [None if v is None else item(v) for v in value] if isinstance(value, list) else value
        )
    return None


def _decoded_lines(data: bytes, source: str) -> list[dict[str, Any]]:
    """JSON lines decoded, each one an object, or a ``MalformedRecordError``."""
    try:
        rows = _LINES.decode_lines(data)
    except msgspec.DecodeError as exc:
        raise MalformedRecordError(source, "unknown position", str(exc)) from None
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise MalformedRecordError(source, f"record {index}", "a line is not an object")
    return rows


_ENCODER = msgspec.json.Encoder()


def _encoded(rows: list[dict[str, Any]]) -> pa.Array | None:
    """Each decoded record's JSON text (its serialized form), before any conversion: all
    encoded in one call, one line each (an encoded text holds no newline), then cut."""
    found = line_texts(_ENCODER.encode_lines(rows), one_per_line=True)
    return None if found is None else found.texts


class _RecordedLines:
    """The chunks of a JSON-lines content on their way to the parser, kept until the
    lines of the records parsed from them are taken (``take``): each record's line is
    its serialized form. Once the lines do not line up with the records (a line that is
    not one object), no later record gets one."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._held = b""
        self._lost = False
        self._taken = False

    def everything(self) -> bytes:
        """The whole content (the chunks read so far and the rest), while no line has
        been taken."""
        if self._taken or self._lost:
            msg = "the content's first lines are no longer held"
            raise RuntimeError(msg)
        return self._held + b"".join(self._chunks)

    def rest(self) -> bytes | None:
        """The content from the line of the first record not taken on (the chunks read so
        far and the rest), or None when the lines no longer line up with the records."""
        if self._lost:
            return None
        return self._held + b"".join(self._chunks)

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._chunks:
            if not self._lost:
                self._held += chunk
            yield chunk

    def take(self, count: int) -> pa.Array | None:
        """The lines of the next ``count`` records, or None if they are not known."""
        if self._lost:
            return None
        self._taken = True
        found = line_texts(self._held, count)
        if found is None:
            self._lost, self._held = True, b""
            return None
        self._held = self._held[found.used :]
        return found.texts


class _ListReader:
    def __init__(
        self,
        rows: list[dict[str, Any]],
        schema: pa.Schema,
        text: str | None,
        batch_rows: int,
        source: str = "",
        forms: pa.Array | None = None,
    ) -> None:
        self._rows = rows
        self._schema = schema
        self._text = text
        self._size = batch_rows
        self._source = source
        self._forms = forms

    @property
    def schema(self) -> pa.Schema:
        return self._schema

    @property
    def schema_text(self) -> str | None:
        return self._text

    def batches(self) -> Iterator[pa.RecordBatch]:
        rows, self._rows = self._rows, []
        forms, self._forms = self._forms, None
        for start in range(0, len(rows), self._size):
            try:
                batch = common.batch_of_rows(rows[start : start + self._size], self._schema)
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as exc:
                position = f"records {start} to {min(len(rows), start + self._size) - 1}"
                raise MalformedRecordError(self._source, position, str(exc)) from None
            if forms is not None:
                attach(batch, SerializedForms(JSON_MIME_TYPE, forms.slice(start, self._size)))
            yield batch

    def close(self) -> None:
        self._rows = []
        self._forms = None


class _TextReader(_ListReader):
    """``_ListReader`` whose batches name, in their metadata, the values written as
    another kind than their field's (``RETYPED_METADATA``)."""

    def __init__(
        self,
        rows: list[dict[str, Any]],
        schema: pa.Schema,
        text: str | None,
        batch_rows: int,
        source: str,
        retyped: list[list[str]],
    ) -> None:
        super().__init__(rows, schema, text, batch_rows, source)
        self._retyped = retyped

    def batches(self) -> Iterator[pa.RecordBatch]:
        start = 0
        for batch in super().batches():
            fields: dict[str, list[int]] = {}
            for row, names in enumerate(self._retyped[start : start + batch.num_rows]):
                for name in names:
                    fields.setdefault(name, []).append(row)
            start += batch.num_rows
            metadata = dict(batch.schema.metadata or {})
            metadata[RETYPED_METADATA] = msgspec.json.encode(fields)
            yield batch.replace_schema_metadata(metadata)


def _same_kind(value: Any, data_type: pa.DataType) -> bool:
    """Whether a decoded JSON value is of the kind of ``data_type`` (NiFi's strict type
    check): text for text, an integer for an integer, a number for a float, a Boolean
    for a Boolean; other types are not checked here."""
    t = pa.types
    if t.is_string(data_type) or t.is_large_string(data_type):
        return isinstance(value, str)
    if t.is_boolean(data_type):
        return isinstance(value, bool)
    if t.is_integer(data_type):
        return isinstance(value, int) and not isinstance(value, bool)
    if t.is_floating(data_type):
        return isinstance(value, int | float) and not isinstance(value, bool)
    return True


def _deep_coercer(data_type: pa.DataType) -> Callable[[Any], tuple[Any, bool]]:
    """How a decoded value becomes ``data_type`` at any depth, as NiFi's reader coerces
    it, and whether a value in it was of another kind than its type."""
    t = pa.types
    if t.is_struct(data_type):
        fields = {
            data_type.field(i).name: _deep_coercer(data_type.field(i).type)
            for i in range(data_type.num_fields)
        }

        def record(value: Any) -> tuple[Any, bool]:
            if not isinstance(value, dict):
                return value, True
            changed = False
            out = {}
            for key, item in value.items():
                if key in fields and item is not None:
                    item, differs = fields[key](item)
                    changed = changed or differs
                out[key] = item
            return out, changed

        return record
    if t.is_list(data_type) or t.is_large_list(data_type) or t.is_map(data_type):
        is_map = t.is_map(data_type)
        inner = _deep_coercer(data_type.item_type if is_map else data_type.value_type)

        def items(value: Any) -> tuple[Any, bool]:
            changed = False
            if is_map and isinstance(value, dict):
                out_map = {}
                for key, item in value.items():
                    if item is not None:
                        item, differs = inner(item)
                        changed = changed or differs
                    out_map[key] = item
                return out_map, changed
            if not is_map and isinstance(value, list):
                out_list = []
                for item in value:
                    if item is not None:
                        item, differs = inner(item)
                        changed = changed or differs
                    out_list.append(item)
                return out_list, changed
            return value, True

        return items
    coerce = coercer(data_type)

    def scalar(value: Any) -> tuple[Any, bool]:
        if _same_kind(value, data_type) or coerce is None:
            return value, False
        return coerce(value), True

    return scalar


class _LinesReader:
    def __init__(
        self,
        reader: pajson.JSONStreamingReader,
        schema: pa.Schema,
        text: str | None,
        source: str,
        stream: ChunkInput,
        batch_rows: int,
        lines: _RecordedLines,
        fallback: Callable[..., RecordReader] | None = None,
    ) -> None:
        self._reader: pajson.JSONStreamingReader | None = reader
        self._lines = lines
        self._fallback = fallback
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
                rest = self._lines.rest() if self._fallback is not None else None
                if self._fallback is not None and rest is not None:
                    self.close()
                    yield from self._fallback(rest, first_record=records).batches()
                    return
                raise _error(exc, self._source, records, self._stream.offset) from None
            records += batch.num_rows
            batch = batch if batch.schema.equals(self._schema) else conform(batch, self._schema)
            texts = self._lines.take(batch.num_rows)
            if texts is not None:
                attach(batch, SerializedForms(JSON_MIME_TYPE, texts))
            yield batch

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None


@controller_service("JsonRecordSetWriter")
class JsonRecordSetWriter(ControllerService):
    """Writes records as a JSON array or as one JSON object per line."""

    property_descriptors = (
        WRITER_STRATEGY,
        *common.REGISTRY_PROPERTIES,
        common.SCHEMA_TEXT,
        SCHEMA_WRITE_STRATEGY,
        DATE_FORMAT,
        TIME_FORMAT,
        TIMESTAMP_FORMAT,
        PRETTY_PRINT_JSON,
        SUPPRESS_NULLS,
        ALLOW_SCIENTIFIC_NOTATION,
        OUTPUT_GROUPING,
        COMPRESSION_FORMAT,
        COMPRESSION_LEVEL,
        TIMESTAMP_REPRESENTATION,
        SERIALIZED_JSON_INPUT_HANDLING,
    )

    mime_type = JSON_MIME_TYPE

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        problems = common.schema_access_problems(context, WRITER_STRATEGY)
        problems += write_strategy_problems(context, SCHEMA_WRITE_STRATEGY)
        pretty = context.get_property(PRETTY_PRINT_JSON).as_str() == "true"
        grouping = context.get_property(OUTPUT_GROUPING).as_str()
        if pretty and grouping in (OUTPUT_ONELINE.value, OUTPUT_ONELINE.display_name):
            problems.append(
                ValidationResult(
                    "Pretty Print",
                    False,
                    None,
                    "Pretty Print JSON must be false when 'Output Grouping' is set to "
                    "'One Line Per Object'",
                )
            )
        representation = context.get_property(TIMESTAMP_REPRESENTATION).as_str()
        if (
            representation
            in (
                TIMESTAMP_FORMATTED.value,
                TIMESTAMP_FORMATTED.display_name,
            )
            and not context.get_property(TIMESTAMP_FORMAT).value
        ):
            problems.append(
                ValidationResult(
                    TIMESTAMP_REPRESENTATION.label,
                    False,
                    TIMESTAMP_FORMATTED.display_name,
                    "Timestamp Format must be configured when Timestamp Representation is "
                    "set to Formatted String",
                )
            )
        return problems

    def on_enabled(self, context: ProcessContext) -> None:
        common.validate(context, self.property_descriptors)
        common.refuse(self.custom_validate(context))
        self.schema_source = common.schema_source(context, WRITER_STRATEGY)
        self.one_line = common.choice(context, OUTPUT_GROUPING) == OUTPUT_ONELINE.value
        self.suppress_nulls = common.choice(context, SUPPRESS_NULLS) == ALWAYS_SUPPRESS.value
        self.pretty = context.get_property(PRETTY_PRINT_JSON).as_str() == "true"
        self.write_strategy = common.choice(context, SCHEMA_WRITE_STRATEGY)
        self.compression = context.get_property(COMPRESSION_FORMAT).as_str().lower()
        self.compression_level = int(context.get_property(COMPRESSION_LEVEL).as_str())
        representation = common.choice(context, TIMESTAMP_REPRESENTATION)
        self.options = JsonOptions(
            scientific=context.get_property(ALLOW_SCIENTIFIC_NOTATION).as_str() == "true",
            formats=common.temporal_formats(context, DATE_FORMAT, TIME_FORMAT, TIMESTAMP_FORMAT),
            timestamp_representation=representation,
            # NiFi writes a record from its serialized form only when enabled and with the
            # Automatic Timestamp Representation (WriteJsonResult.isUseSerializeForm).
            serialized_forms=(
                common.choice(context, SERIALIZED_JSON_INPUT_HANDLING) == HANDLING_ENABLED.value
                and representation == AUTO
            ),
        )

    def writer_schema(self, read_schema: pa.Schema, attributes: Mapping[str, str]) -> pa.Schema:
        given = self.schema_source.resolve(attributes)
        return given[0] if given is not None else read_schema

    def output_attributes(self, schema: pa.Schema, attributes: Mapping[str, str]) -> dict[str, str]:
        """The attributes the Schema Write Strategy adds to an output."""
        given = (
            self.schema_source.resolve(attributes)
            if self.write_strategy == AVRO_SCHEMA_ATTRIBUTE.value
            else None
        )
        return schema_attributes(self.write_strategy, schema, given)

    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter:
        extra = self.output_attributes(schema, attributes)
        compressing = None
        if self.compression != compression.NONE:
            compressing = compression.CompressingSink(
                sink, self.compression, self.compression_level
            )
            sink = compressing
        writer: RecordSetWriter
        if self.pretty and not self.one_line:
            writer = _PrettyJsonWriter(schema, sink, self.suppress_nulls, self.options, extra)
        else:
            writer = _JsonWriter(
                schema, sink, self.one_line, self.suppress_nulls, self.options, extra
            )
        return writer if compressing is None else compression.CompressedWriter(writer, compressing)

    def render_bulk(self, schema: pa.Schema, records: pa.RecordBatch) -> RenderedRecords | None:
        """The records' rows rendered in one pass (not pretty printed), or None when they
        cannot be: each FlowFile is then written alone and fails alone."""
        if (self.pretty and not self.one_line) or self.compression != compression.NONE:
            return None
        try:
            batch = conform(records, schema)
            rows = record_texts(
                batch,
                schema,
                [member_name(name) for name in schema.names],
                self.one_line,
                self.suppress_nulls,
                self.options,
                combined([batch], JSON_MIME_TYPE) if self.options.serialized_forms else None,
            )
        except Exception:  # whatever fails here fails again, per FlowFile, with its reason
            return None
        return _RenderedJson(self, schema, rows)


def record_texts(
    batch: pa.RecordBatch,
    schema: pa.Schema,
    keys: Sequence[str],
    one_line: bool,
    suppress_nulls: bool,
    options: JsonOptions,
    forms: pa.Array | None,
) -> pa.Array:
    """Each record's text as written: ``{...}`` and a newline (one line per object) or
    ``,{...}`` (in an array); a record with a serialized form (``forms``) written from it,
    as NiFi does when the batch's schema is the writer's (``json_serialized``)."""
    prefix, suffix = ("{", "}\n") if one_line else (",{", "}")
    batch = conform(batch, schema)
    if forms is None or not batch.schema.equals(schema):
        return render_rows(batch, keys, prefix, suffix, suppress_nulls, options)
    bodies = with_serialized_forms(
        render_rows(batch, keys, "{", "}", suppress_nulls, options),
        forms,
        schema,
        options.scientific,
    )
    return pc.binary_join_element_wise(prefix[:-1], bodies, suffix[1:], "")


class _RenderedJson:
    """Rows rendered by ``JsonRecordSetWriter.render_bulk``; a run of them is an output."""

    def __init__(self, service: JsonRecordSetWriter, schema: pa.Schema, rows: pa.Array) -> None:
        self._service = service
        self._schema = schema
        self._offsets, self._data = row_bounds(rows)

    def write(
        self, start: int, length: int, sink: BinarySink, attributes: Mapping[str, str]
    ) -> WriteResult:
        first, last = int(self._offsets[start]), int(self._offsets[start + length])
        if self._service.one_line:
            if last > first:
                sink.write(self._data[first:last])
        elif length:
            sink.write(b"".join((b"[", self._data[first + 1 : last], b"]")))  # no leading ","
        else:
            sink.write(b"[]")
        extra = self._service.output_attributes(self._schema, attributes)
        return WriteResult(length, JSON_MIME_TYPE, extra)


class _JsonWriter(common.CountingWriter):
    MIME_TYPE = JSON_MIME_TYPE

    def __init__(
        self,
        schema: pa.Schema,
        sink: BinarySink,
        one_line: bool,
        suppress_nulls: bool,
        options: JsonOptions,
        attributes: Mapping[str, str] | None = None,
    ) -> None:
        self._attributes = dict(attributes or {})
        self._options = options
        self._schema = schema
        self._sink = CountingSink(sink)
        self._one_line = one_line
        self._suppress = suppress_nulls
        self._records = 0
        self._keys = [member_name(name) for name in schema.names]
        self._started = False
        self._finished = False
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0

    def write_batch(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        self._pending.append(conform(batch, self._schema))
        self._pending_rows += batch.num_rows
        self._records += batch.num_rows
        if self._pending_rows >= PENDING_ROWS:
            self.flush()

    def flush(self) -> None:
        """Render the batches held so far with one pass of the kernels per column."""
        if not self._pending:
            return
        pending, self._pending, self._pending_rows = self._pending, [], 0
        forms = combined(pending, JSON_MIME_TYPE) if self._options.serialized_forms else None
        if len(pending) == 1:
            batch = pending[0]
        else:
            batch = pa.Table.from_batches(pending, schema=self._schema).combine_chunks()
            batch = batch.to_batches()[0]
        self._write_rows(batch, forms)

    def _write_rows(self, batch: pa.RecordBatch, forms: pa.Array | None) -> None:
        try:
            rows = record_texts(
                batch,
                self._schema,
                self._keys,
                self._one_line,
                self._suppress,
                self._options,
                forms,
            )
        except NotWritableError as exc:
            raise ProcessException(f"cannot write JSON: {exc}") from None
        offsets, data = row_bounds(rows)
        text = data[int(offsets[0]) : int(offsets[-1])]
        if not self._one_line and not self._started:
            self._sink.write(b"[")
            text = text[1:]
        self._started = True
        self._sink.write(text)

    def _render(self, batch: pa.RecordBatch, prefix: str, suffix: str) -> pa.Array:
        """The records field by field (no serialized form: pretty printing)."""
        try:
            return render_rows(
                conform(batch, self._schema),
                self._keys,
                prefix,
                suffix,
                self._suppress,
                self._options,
            )
        except NotWritableError as exc:
            raise ProcessException(f"cannot write JSON: {exc}") from None

    def finish(self) -> WriteResult:
        self.flush()
        if not self._finished and not self._one_line:
            self._sink.write(b"]" if self._started else b"[]")
        self._finished = True
        return WriteResult(self._records, JSON_MIME_TYPE, self._attributes)

    def abort(self) -> None:
        self._pending, self._pending_rows = [], 0
        self._finished = True


class _PrettyJsonWriter(_JsonWriter):
    """A JSON array laid out as NiFi's (Jackson's default pretty printer) lays it out:
    ``[ {`` then one ``"name" : value`` per line, two spaces per level, ``}, {`` between
    records and ``} ]`` at the end. Each record is rendered compactly first, then laid out
    (numbers keep their text)."""

    def __init__(
        self,
        schema: pa.Schema,
        sink: BinarySink,
        suppress_nulls: bool,
        options: JsonOptions,
        attributes: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(schema, sink, False, suppress_nulls, options, attributes)

    def write_batch(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows == 0:
            return
        objects = self._render(batch, "{", "}").to_pylist()
        parts: list[str] = []
        for text in objects:
            value = _EXACT_NUMBERS.decode(text.encode())
            parts.append(("[ " if not self._started else ", ") + _pretty(value, 0))
            self._started = True
        self._sink.write("".join(parts).encode())
        self._records += batch.num_rows

    def finish(self) -> WriteResult:
        if not self._finished:
            self._sink.write(b" ]" if self._started else b"[ ]")
        self._finished = True
        return WriteResult(self._records, JSON_MIME_TYPE, self._attributes)


def _pretty(value: Any, level: int) -> str:
    """Jackson's DefaultPrettyPrinter layout of a decoded JSON value."""
    if isinstance(value, dict):
        if not value:
            return "{ }"
        inner = "  " * (level + 1)
        members = [f"{inner}{json_string(k)} : {_pretty(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(members) + "\n" + "  " * level + "}"
    if isinstance(value, list):
        if not value:
            return "[ ]"
        return "[ " + ", ".join(_pretty(v, level) for v in value) + " ]"
    if isinstance(value, str) and not isinstance(value, _Number):
        return json_string(value)
    return str(value) if isinstance(value, _Number) else msgspec.json.encode(value).decode()
