"""CSVReader and CSVRecordSetWriter on pyarrow.csv (streaming parse, vectorized write)."""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from flowcore.errors import ProcessException
from flowcore.processor import (
    AllowableValue,
    ControllerService,
    ExpressionLanguageScope,
    ProcessContext,
    PropertyDescriptor,
    ValidationResult,
    controller_service,
    validators,
)
from processors.record import _common as common
from processors.record import csv_bulk
from processors.record.api import (
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
from processors.record.csv_inference import (
    NIFI_NUMBER,
    ColumnKinds,
    Kind,
    as_booleans,
    is_boolean_text,
    java_trim,
)
from processors.record.csv_minimal import (
    MinimalQuoting,
    render,
    render_rows,
    with_java_numbers,
    with_texts,
)
from processors.record.nested_text import is_nested, nested_text
from processors.record.schema import conform
from processors.record.schema_write import (
    SCHEMA_WRITE_STRATEGY,
    attributed,
    schema_attributes,
    write_strategy_problems,
)
from processors.record.temporal import converter, java_to_strptime
from processors.record.temporal_text import is_date_time

CSV_MIME_TYPE = "text/csv"
_BLOCK = 1 << 20
_ROW = re.compile(r"Row #(\d+)")
_SEPARATORS_KEPT = 16
PENDING_ROWS = 65_536
"""Records a writer holds before writing them (``flush`` and ``finish`` write earlier)."""

VALUE_SEPARATOR = PropertyDescriptor(
    name="Value Separator",
    display_name="Value Separator",
    description="The character that is used to separate values/fields in a CSV Record. If "
    "the property has been specified via Expression Language but the expression gets "
    "evaluated to an invalid Value Separator at runtime, then it will be skipped and the "
    "default Value Separator will be used.",
    default=",",
    required=True,
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
COMMENT_MARKER = PropertyDescriptor(
    name="Comment Marker",
    display_name="Comment Marker",
    description="The character that is used to denote the start of a comment. Any line "
    "that begins with this comment will be ignored.",
    required=False,
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
QUOTE_CHAR = PropertyDescriptor(
    name="Quote Character",
    display_name="Quote Character",
    description="The character that is used to quote values so that escape characters do "
    "not have to be used. If the property has been specified via Expression Language but the "
    "expression gets evaluated to an invalid Quote Character at runtime, then it will be "
    "skipped and the default Quote Character will be used.",
    default='"',
    required=True,
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
ESCAPE_CHAR = PropertyDescriptor(
    name="Escape Character",
    display_name="Escape Character",
    description="The character that is used to escape characters that would otherwise have "
    "a specific meaning to the CSV Parser. If the property has been specified via "
    "Expression Language but the expression gets evaluated to an invalid Escape Character at "
    "runtime, then it will be skipped and the default Escape Character will be used. "
    "Setting it to an empty string means no escape character should be used.",
    default="\\",
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
FIRST_LINE_IS_HEADER = PropertyDescriptor(
    name="Skip Header Line",
    display_name="Treat First Line as Header",
    description="Specifies whether or not the first line of CSV should be considered a Header.",
    default="false",
    required=True,
    allowable_values=["true", "false"],
)
IGNORE_CSV_HEADER = PropertyDescriptor(
    name="ignore-csv-header",
    display_name="Ignore CSV Header Column Names",
    description="With a header and a given schema: if true, the header's names are ignored "
    "and columns are taken in the schema's order.",
    default="false",
    allowable_values=["true", "false"],
)
TRIM_FIELDS = PropertyDescriptor(
    name="Trim Fields",
    display_name="Trim Fields",
    description="Whether or not white space should be removed from the beginning and end of fields",
    default="true",
    required=True,
    allowable_values=["true", "false"],
)
NULL_STRING = PropertyDescriptor(
    name="Null String",
    display_name="Null String",
    description="Specifies a String that, if present as a value in the CSV, should be "
    "considered a null field instead of using the literal value. Unset: an empty unquoted "
    "field is null.",
    validators=[validators.non_empty],
)
CHARSET = PropertyDescriptor(
    name="csvutils-character-set",
    display_name="Character Set",
    description="The Character Encoding that is used to encode/decode the CSV file",
    default="UTF-8",
    required=True,
)
RECORD_SEPARATOR = PropertyDescriptor(
    name="Record Separator",
    display_name="Record Separator",
    description="Specifies the characters to use in order to separate CSV Records",
    default="\\n",
    required=True,
    validators=[validators.non_empty],
)
INCLUDE_HEADER = PropertyDescriptor(
    name="Include Header Line",
    display_name="Include Header Line",
    description="Specifies whether or not the CSV column names should be written out as the "
    "first line.",
    default="true",
    required=True,
    allowable_values=["true", "false"],
)
QUOTE_MODE = PropertyDescriptor(
    name="Quote Mode",
    display_name="Quote Mode",
    description="Specifies how fields should be quoted when they are written",
    default="MINIMAL",
    required=True,
    allowable_values=[
        AllowableValue("ALL", "Quote All Values"),
        AllowableValue("MINIMAL", "Quote Minimal"),
        AllowableValue("NON_NUMERIC", "Quote Non-Numeric Values"),
        AllowableValue("NONE", "Do Not Quote Values"),
    ],
)

HEADER_DERIVED = AllowableValue(
    "csv-header-derived",
    "Use String Fields From Header",
    "The first non-comment line of the CSV file is a header line that contains the names of "
    "the columns. The schema will be derived by using the column names in the header and "
    "assuming that all columns are of type String.",
)
READER_DATE_FORMAT = PropertyDescriptor(
    name="Date Format",
    display_name="Date Format",
    description="Specifies the format to use when reading Date fields of the given schema "
    "(Java DateTimeFormatter pattern, for example MM/dd/yyyy). If not specified, ISO 8601 "
    "text.",
)
READER_TIME_FORMAT = PropertyDescriptor(
    name="Time Format",
    display_name="Time Format",
    description="Specifies the format to use when reading Time fields of the given schema "
    "(Java DateTimeFormatter pattern, for example HH:mm:ss).",
)
READER_TIMESTAMP_FORMAT = PropertyDescriptor(
    name="Timestamp Format",
    display_name="Timestamp Format",
    description="Specifies the format to use when reading Timestamp fields of the given "
    "schema (Java DateTimeFormatter pattern, for example MM/dd/yyyy HH:mm:ss.SSS).",
)
READER_STRATEGY = common.schema_access_strategy(
    [
        common.INFER_SCHEMA,
        common.SCHEMA_NAME_PROPERTY,
        common.SCHEMA_TEXT_PROPERTY,
        HEADER_DERIVED,
    ],
    common.INFER_SCHEMA.value,
)
WRITER_STRATEGY = common.schema_access_strategy(
    [common.INHERIT_RECORD_SCHEMA, common.SCHEMA_NAME_PROPERTY, common.SCHEMA_TEXT_PROPERTY],
    common.INHERIT_RECORD_SCHEMA.value,
)


def _arrow_error(exc: Exception, source: str, records_before: int, offset: int) -> Exception:
    text = str(exc)
    match = _ROW.search(text)
    position = (
        f"row {match.group(1)}"
        if match
        else f"record {records_before} or after (byte offset {offset})"
    )
    return MalformedRecordError(source, position, text)


@controller_service("CSVReader")
class CSVReader(ControllerService):
    """Parses CSV into Arrow batches with pyarrow.csv's streaming reader."""

    type_checked_records = True
    """NiFi's CSV readers make records that convert a value set on them to the field's
    type (``MapRecord`` with ``checkTypes``): UpdateRecord's text into a text field."""

    property_descriptors = (
        READER_STRATEGY,
        *common.REGISTRY_PROPERTIES,
        common.SCHEMA_TEXT,
        FIRST_LINE_IS_HEADER,
        IGNORE_CSV_HEADER,
        VALUE_SEPARATOR,
        QUOTE_CHAR,
        ESCAPE_CHAR,
        COMMENT_MARKER,
        NULL_STRING,
        TRIM_FIELDS,
        CHARSET,
        READER_DATE_FORMAT,
        READER_TIME_FORMAT,
        READER_TIMESTAMP_FORMAT,
        common.BATCH_ROWS,
    )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        return common.schema_access_problems(context, READER_STRATEGY)

    def on_enabled(self, context: ProcessContext) -> None:
        common.validate(context, self.property_descriptors)
        self.schema_source = common.schema_source(context, READER_STRATEGY)
        self.header_derived = common.choice(context, READER_STRATEGY) == HEADER_DERIVED.value
        """Every column text, named by the header line (Use String Fields From Header)."""
        self.text_columns: dict[str, pa.DataType] = {}
        """Columns whose text looked like dates or times in an earlier bulk parse: given
        as strings from the first parse of the next (``read_inferred``)."""
        self.header = context.get_property(FIRST_LINE_IS_HEADER).as_bool()
        self.ignore_header = context.get_property(IGNORE_CSV_HEADER).as_bool()
        self._context = context
        self.separator_expression = any(
            "${" in (context.get_property(d).value or "")
            for d in (VALUE_SEPARATOR, QUOTE_CHAR, ESCAPE_CHAR, COMMENT_MARKER)
        )
        """Whether a character of the format is Expression Language (evaluated against
        each FlowFile's attributes, ``_format``)."""
        delimiter = quote = escape = marker = None
        if not self.separator_expression:
            delimiter = common.character(context, VALUE_SEPARATOR)
            marker = common.character(context, COMMENT_MARKER)
            quote = common.character(context, QUOTE_CHAR)
            escape = common.character(context, ESCAPE_CHAR)
        self.comment_marker = marker.encode(self._encoding_name(context)) if marker else None
        self.trim = context.get_property(TRIM_FIELDS).as_bool()
        null = context.get_property(NULL_STRING).value
        self.null_values = [common.unescape(null)] if null is not None else [""]
        self.encoding = context.get_property(CHARSET).as_str()
        self.batch_rows = common.rows_per_batch(context)
        date, time, timestamp = common.compiled_patterns(
            context,
            (READER_DATE_FORMAT, READER_TIME_FORMAT, READER_TIMESTAMP_FORMAT),
            java_to_strptime,
        )
        self.temporal_formats: tuple[str | None, str | None, str | None] = (date, time, timestamp)
        """The Date, Time and Timestamp Formats as strptime formats (None: unset)."""
        self.parse_options = pacsv.ParseOptions(
            delimiter=delimiter or ",",
            quote_char=quote or False,
            double_quote=True,
            escape_char=escape or False,
            newlines_in_values=True,
            ignore_empty_lines=True,
        )

    @staticmethod
    def _encoding_name(context: ProcessContext) -> str:
        return context.get_property(CHARSET).as_str() or "UTF-8"

    def _separator(self, attributes: Mapping[str, str]) -> str:
        """The Value Separator for a FlowFile: its Expression Language evaluated against the
        attributes; an empty or longer result falls back to ',' (as NiFi does)."""
        return self._flowfile_character(VALUE_SEPARATOR, attributes) or ","

    def _flowfile_character(
        self, descriptor: PropertyDescriptor, attributes: Mapping[str, str]
    ) -> str | None:
        """A format character for a FlowFile, as NiFi's CSVUtils takes it: the property's
        Expression Language evaluated against the attributes and unescaped; a result that
        is not one character gives the property's default (None without one)."""
        value = self._context.get_property(descriptor).evaluate(dict(attributes)).value
        if value is not None:
            unescaped = common.unescape(value)
            if len(unescaped) == 1:
                return unescaped
        return descriptor.default[0] if descriptor.default else None

    def _format(self, attributes: Mapping[str, str]) -> tuple[pacsv.ParseOptions, bytes | None]:
        """The parse options and comment marker for a FlowFile (with Expression Language
        in the format's characters): an empty Escape Character is none, as in NiFi."""
        escape_value = self._context.get_property(ESCAPE_CHAR).evaluate(dict(attributes)).value
        escape = None if not escape_value else self._flowfile_character(ESCAPE_CHAR, attributes)
        marker = None
        if self._context.get_property(COMMENT_MARKER).value:
            found = self._flowfile_character(COMMENT_MARKER, attributes)
            marker = found.encode(self._encoding_name(self._context)) if found else None
        options = pacsv.ParseOptions(
            delimiter=self._separator(attributes),
            quote_char=self._flowfile_character(QUOTE_CHAR, attributes) or False,
            double_quote=True,
            escape_char=escape or False,
            newlines_in_values=True,
            ignore_empty_lines=True,
        )
        return options, marker

    def _read_options(
        self,
        column_names: list[str] | None,
        skip: int,
        block: int | None = None,
        *,
        threads: bool = False,
    ) -> pacsv.ReadOptions:
        return pacsv.ReadOptions(
            use_threads=threads,
            block_size=block or _BLOCK,
            skip_rows=skip,
            column_names=column_names,
            autogenerate_column_names=column_names is None and not self.header,
            encoding="utf8" if self.encoding.upper().replace("-", "") == "UTF8" else self.encoding,
        )

    def _convert_options(
        self, types: pa.Schema | dict[str, pa.DataType] | None, include: list[str] | None
    ) -> pacsv.ConvertOptions:
        """How pyarrow converts the columns. With Trim Fields a Boolean column is parsed
        as text and converted once trimmed (``text_booleans``): pyarrow takes ``true``
        only without blanks, where NiFi's reader trims first."""
        if self.trim and types is not None:
            pairs = types.items() if isinstance(types, dict) else ((f.name, f.type) for f in types)
            types = {
                name: pa.string() if pa.types.is_boolean(data_type) else data_type
                for name, data_type in pairs
            }
        return pacsv.ConvertOptions(
            column_types=types,
            null_values=self.null_values,
            strings_can_be_null=True,
            quoted_strings_can_be_null=False,
            true_values=_TRUE_VALUES,
            false_values=_FALSE_VALUES,
            include_columns=include,
            include_missing_columns=include is not None,
        )

    def read_inferred(
        self,
        data: bytes,
        read: pacsv.ReadOptions,
        parse_options: pacsv.ParseOptions,
        text_columns: dict[str, pa.DataType] | None = None,
    ) -> pa.Table:
        """``data`` parsed with the column types inferred, dates, times and timestamps
        read as text (``common.temporal_as_text``), and so a column of numbers with a
        ``NaN`` or an infinity, an integer beyond ``long``, or a number NiFi does not parse
        (``_not_nifi_numbers``) (NiFi takes those for text, not numbers; pyarrow's double
        would lose the digits or the form): parsed again with those
        columns given as strings when a parse found any. ``text_columns`` (names known
        to hold dates or times, updated here) are given as strings from the first parse;
        the odd values of a number column are not remembered (the next data may have
        none). With Trim Fields, a text column whose values are ``true`` or ``false`` once
        trimmed is a Boolean column, as NiFi trims before it infers."""
        table = self._read_inferred(data, read, parse_options, text_columns)
        if not self.trim:
            return table
        for index, field in enumerate(table.schema):
            column = table.column(index)
            if pa.types.is_string(field.type) and is_boolean_text(column, trim=True):
                table = table.set_column(
                    index, field.with_type(pa.bool_()), as_booleans(column, trim=True)
                )
        return table

    def _read_inferred(
        self,
        data: bytes,
        read: pacsv.ReadOptions,
        parse_options: pacsv.ParseOptions,
        text_columns: dict[str, pa.DataType] | None,
    ) -> pa.Table:
        known = dict(text_columns or {})
        numbers_checked = False
        while True:
            table = pacsv.read_csv(
                io.BytesIO(data),
                read_options=read,
                parse_options=parse_options,
                convert_options=self._convert_options(known or None, None),
            )
            text = common.temporal_as_text(table.schema) or table.schema
            temporal = {
                field.name: pa.string()
                for field, was in zip(text, table.schema, strict=True)
                if not field.type.equals(was.type)
            }
            odd = {
                name: pa.string()
                for name, column in zip(table.schema.names, table.columns, strict=True)
                if _not_finite(column) or common.beyond_long(column)
            }
            if not numbers_checked:
                numbers_checked = True
                odd.update(
                    self._not_nifi_numbers(data, read, parse_options, table, {**known, **odd})
                )
            if not temporal and not odd:
                return table
            if text_columns is not None:
                text_columns.update(temporal)
            known.update(temporal)
            known.update(odd)

    def _not_nifi_numbers(
        self,
        data: bytes,
        read: pacsv.ReadOptions,
        parse_options: pacsv.ParseOptions,
        table: pa.Table,
        known: dict[str, pa.DataType],
    ) -> dict[str, pa.DataType]:
        """The number columns holding a value that NiFi's inference does not take for a
        number (Commons Lang's ``NumberUtils.isParsable``: no exponent, no plus sign, no
        trailing point, no hexadecimal), which pyarrow does: ``1e-05``, ``+5``, ``5.``,
        ``0x1F``. One pass over the bytes rules them out (the usual case); else those
        columns are read again as text and each value tested."""
        numbers = [i for i, field in enumerate(table.schema) if _is_number(field.type)]
        if not numbers or not _may_hold_other_numbers(data, parse_options, self.encoding):
            return {}
        names = table.schema.names
        texts = pacsv.read_csv(
            io.BytesIO(data),
            read_options=read,
            parse_options=parse_options,
            convert_options=self._convert_options(
                {**known, **{names[i]: pa.string() for i in numbers}}, None
            ),
        )
        odd: dict[str, pa.DataType] = {}
        for index in numbers:  # by position: a header may name two columns alike
            column = texts.column(index)
            if pc.all(pc.match_substring_regex(column, NIFI_NUMBER)).as_py() is False:
                odd[names[index]] = pa.string()
        return odd

    def read_bulk(
        self, contents: Sequence[bytes], attributes: Sequence[Mapping[str, str]]
    ) -> BulkRead:
        """Many contents parsed in one call where that reads them as alone (``csv_bulk``)."""
        return csv_bulk.read_bulk(self, contents, attributes)

    def create_reader(
        self, content: Content, attributes: Mapping[str, str], source: str
    ) -> RecordReader:
        given = self.schema_source.resolve(attributes)
        parse_options, marker = self.parse_options, self.comment_marker
        if self.separator_expression:
            parse_options, marker = self._format(attributes)
        if given is not None:
            return self._given(
                ChunkInput(_uncommented(content, marker)), given, source, parse_options
            )
        rereadable = RereadableContent(content)
        if self.header_derived:
            return self._header_strings(
                lambda: ChunkInput(_uncommented(rereadable.read(), marker)), source, parse_options
            )
        return self._inferred(
            lambda: ChunkInput(_uncommented(rereadable.read(), marker)), source, parse_options
        )

    def _header_strings(
        self,
        read_from_start: Callable[[], ChunkInput],
        source: str,
        parse_options: pacsv.ParseOptions,
    ) -> RecordReader:
        """The records with every column text, named by the header line (NiFi's Use String
        Fields From Header; the names trimmed when Trim Fields is true)."""
        stream = read_from_start()
        if _blank(stream):
            return _CSVRecordReader(None, pa.schema([]), None, source, stream, 0)
        names = self._stream_names(stream, source, parse_options)
        schema = self._named(pa.schema([(name, pa.string()) for name in names]))
        return self._given(read_from_start(), (schema, None), source, parse_options)

    def _stream_names(
        self, stream: ChunkInput, source: str, parse_options: pacsv.ParseOptions
    ) -> list[str]:
        """The column names of the header line at the start of ``stream`` (read as Arrow
        reads them: its first block)."""
        opened = self._open(
            stream,
            self._read_options(None, 0),
            self._convert_options(None, None),
            source,
            parse_options,
        )
        names: list[str] = opened.schema.names
        opened.close()
        return names

    def create_text_reader(
        self, content: Content, attributes: Mapping[str, str], source: str
    ) -> tuple[pa.Schema, RecordReader] | None:
        """The records as written: every column of the given schema read as text (trimmed
        as Trim Fields says), with that schema; None without a given schema. NiFi's
        ValidateRecord reads records without converting a value that does not fit its
        field, which then makes its record invalid instead of failing the FlowFile."""
        given = self.schema_source.resolve(attributes)
        if given is None:
            return None
        schema, text = given
        as_text = pa.schema([f.with_type(pa.string()) for f in schema], metadata=schema.metadata)
        parse_options, marker = self.parse_options, self.comment_marker
        if self.separator_expression:
            parse_options, marker = self._format(attributes)
        stream = ChunkInput(_uncommented(content, marker))
        return schema, self._given(stream, (as_text, text), source, parse_options)

    def _given(
        self,
        stream: ChunkInput,
        given: tuple[pa.Schema, str | None],
        source: str,
        parse_options: pacsv.ParseOptions,
    ) -> RecordReader:
        schema, text = given
        if _blank(stream):
            return _CSVRecordReader(None, schema, text, source, stream, 0)
        formatted = self._formatted(schema)
        read_as = schema
        if formatted:
            read_as = pa.schema(
                [f.with_type(pa.string()) if i in formatted else f for i, f in enumerate(schema)]
            )
        if self.header and not self.ignore_header:
            read = self._read_options(None, 0)
            convert = self.given_columns(read_as, stream.peek_bytes(_BLOCK), parse_options)
        else:
            read = self._read_options(schema.names, 1 if self.header else 0)
            convert = self._convert_options(read_as, None)
        reader = self._open(stream, read, convert, source, parse_options)
        return _CSVRecordReader(
            reader,
            schema,
            text,
            source,
            stream,
            self.batch_rows,
            trim=self.trim,
            temporal=formatted,
        )

    def _formatted(self, schema: pa.Schema) -> dict[int, Callable[[Any], Any]]:
        """The columns of dates, times and timestamps whose Format is set: read as text and
        converted with it (by position)."""
        date, time, timestamp = self.temporal_formats
        found: dict[int, Callable[[Any], Any]] = {}
        for index, field in enumerate(schema):
            t = field.type
            if (
                (pa.types.is_date(t) and date)
                or (pa.types.is_time(t) and time)
                or (pa.types.is_timestamp(t) and timestamp)
            ):
                convert = converter(t, date, time, timestamp)
                if convert is not None:
                    found[index] = convert
        return found

    def _inferred(
        self,
        read_from_start: Callable[[], ChunkInput],
        source: str,
        parse_options: pacsv.ParseOptions,
    ) -> RecordReader:
        """A content that fits in one block is parsed once, its types inferred from all
        of it. A larger one is read twice, as NiFi does: first every column as text, to
        type each column from all its values (``csv_inference``), then with those types."""
        stream = read_from_start()
        if _blank(stream):
            return _CSVRecordReader(None, pa.schema([]), None, source, stream, 0)
        head, whole = self._infer(stream, source, parse_options)
        if whole is not None:  # the content fitted in the first block: parsed once
            return _CSVRecordReader(
                None,
                self._named(whole.schema),
                None,
                source,
                stream,
                self.batch_rows,
                trim=self.trim,
                table=whole,
            )
        if head is None:  # the first block ends inside a value: names from the stream
            names = self._stream_names(stream, source, parse_options)
            stream = read_from_start()
        else:
            names = head.names
        schema = self._typed_from_all(stream, names, head, source, parse_options)
        stream = read_from_start()
        convert = self._convert_options({f.name: f.type for f in schema}, None)
        reader = self._open(stream, self._read_options(None, 0), convert, source, parse_options)
        return _CSVRecordReader(
            reader, self._named(schema), None, source, stream, self.batch_rows, trim=self.trim
        )

    def given_columns(
        self, schema: pa.Schema, head: bytes, parse_options: pacsv.ParseOptions
    ) -> pacsv.ConvertOptions:
        """The columns to read for a given schema from a content whose header line names
        them (``head``: its start): by the header's names, each matched to the schema's
        field of its name trimmed when Trim Fields is true (the batches read are renamed
        to the schema's names by position)."""
        names = self._header_names(head, parse_options) if self.trim else None
        if not names:
            return self._convert_options(schema, schema.names)
        raw: dict[str, str] = {}
        for name in names:
            raw.setdefault(name.strip(common.JAVA_WHITESPACE), name)
        include = [raw.get(name, name) for name in schema.names]
        types = {column: field.type for column, field in zip(include, schema, strict=True)}
        return self._convert_options(types, include)

    def _header_names(self, head: bytes, parse_options: pacsv.ParseOptions) -> list[str] | None:
        """The header line's names as written, or None when they need no trimming (or the
        line cannot be read alone)."""
        end = head.find(b"\n")
        line = head if end < 0 else head[: end + 1]
        if not line.strip():
            return None
        try:
            names = pacsv.read_csv(
                io.BytesIO(line),
                read_options=self._read_options(None, 0, len(line) + 1),
                parse_options=parse_options,
                convert_options=pacsv.ConvertOptions(strings_can_be_null=False),
            ).schema.names
        except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
            return None
        if all(name == name.strip(common.JAVA_WHITESPACE) for name in names):
            return None
        return list(names)

    def _named(self, schema: pa.Schema) -> pa.Schema:
        """The inferred schema with the header's names trimmed when Trim Fields is true."""
        return common.trimmed_names(schema) if self.trim and self.header else schema

    def _typed_from_all(
        self,
        stream: ChunkInput,
        names: list[str],
        head: pa.Schema | None,
        source: str,
        parse_options: pacsv.ParseOptions,
    ) -> pa.Schema:
        """The columns typed from every value of the content, read as text (columns the
        first block made text stay text, unread). Columns of the same name take one type,
        text when theirs differ (a type is given to a column by its name)."""
        known = {}
        if head is not None:
            known = {i: Kind.TEXT for i, field in enumerate(head) if pa.types.is_string(field.type)}
        kinds = ColumnKinds(len(names), known, trim=self.trim)
        if kinds.undecided():
            as_text = self._convert_options(dict.fromkeys(names, pa.string()), None)
            read = self._read_options(None, 0, threads=True)  # batch order does not matter
            reader = self._open(stream, read, as_text, source, parse_options)
            records = 0
            try:
                while kinds.undecided():
                    try:
                        batch = reader.read_next_batch()
                    except StopIteration:
                        break
                    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError) as exc:
                        raise _arrow_error(exc, source, records, stream.offset) from None
                    kinds.fold(batch)
                    records += batch.num_rows
            finally:
                reader.close()
        schema = kinds.schema(names)
        by_name: dict[str, set[pa.DataType]] = {}
        for field in schema:
            by_name.setdefault(field.name, set()).add(field.type)
        if all(len(types) == 1 for types in by_name.values()):
            return schema
        return pa.schema(
            [f.with_type(pa.string()) if len(by_name[f.name]) > 1 else f for f in schema]
        )

    def _open(
        self,
        stream: ChunkInput,
        read: pacsv.ReadOptions,
        convert: pacsv.ConvertOptions,
        source: str,
        parse_options: pacsv.ParseOptions,
    ) -> pacsv.CSVStreamingReader:
        try:
            return pacsv.open_csv(
                stream,
                read_options=read,
                parse_options=parse_options,
                convert_options=convert,
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError) as exc:
            raise _arrow_error(exc, source, 0, stream.offset) from None

    def _infer(
        self, stream: ChunkInput, source: str, parse_options: pacsv.ParseOptions
    ) -> tuple[pa.Schema | None, pa.Table | None]:
        """Infer from the first block; when that block is the whole content, also give its
        table (nulls-only columns become strings). None when the block cannot be parsed
        alone (it ends inside a quoted value)."""
        head = stream.peek_bytes(_BLOCK)
        complete = len(head) < _BLOCK
        if not complete:
            cut = head.rfind(b"\n")
            head = head[: cut + 1] if cut > 0 else head
        try:
            table = self.read_inferred(
                head, self._read_options(None, 0, max(len(head) + 1, 4096)), parse_options
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError) as exc:
            if complete:
                raise _arrow_error(exc, source, 0, 0) from None
            return None, None  # the cut fell inside a quoted value: let the stream infer
        if not complete:
            return table.schema, None
        schema = common.promote_nulls(table.schema)
        return schema, table if table.schema.equals(schema) else table.cast(schema)


def _every_case(word: str) -> list[str]:
    return [
        "".join(letters) for letters in itertools.product(*((c.lower(), c.upper()) for c in word))
    ]


_TRUE_VALUES = _every_case("true")
_FALSE_VALUES = _every_case("false")
"""What reads as a Boolean: ``true`` and ``false`` in any case, as NiFi's inference and
conversion (``equalsIgnoreCase``); pyarrow would also take ``1`` and ``0``."""
_OTHER_NUMBER_HINT = (
    r"(?:^|[{ends}])[ \t]*(?:\+[0-9.]|0[xX][0-9a-fA-F]"
    r"|-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+[ \t]*(?:[{ends}]|$)"
    r"|-?[0-9]+\.[ \t]*(?:[{ends}]|$))"
)
"""A value with a plus sign, an exponent, a trailing point or a hexadecimal prefix,
between the characters that may begin and end one (filled in): bytes without a match
hold none. Text such as a uuid (``4e5a...``) or a time zone offset (``12:00+02:00``)
does not match."""


def _blank(stream: ChunkInput) -> bool:
    """Whether the content is empty or blanks only (no records, no header)."""
    return not stream.peek_bytes(1).strip() and not stream.peek_bytes(_BLOCK).strip()


def _is_number(data_type: pa.DataType) -> bool:
    return bool(pa.types.is_floating(data_type) or pa.types.is_integer(data_type))


def _may_hold_other_numbers(data: bytes, parse_options: pacsv.ParseOptions, encoding: str) -> bool:
    """Whether ``data`` may hold a number NiFi does not parse (one pass of Arrow's regular
    expression over the bytes, without the GIL); always for an encoding that is not
    ASCII's superset or a separator beyond ASCII."""
    if encoding.upper().replace("-", "") not in ("UTF8", "USASCII", "ISO88591", "WINDOWS1252"):
        return True
    ends = [parse_options.delimiter, "\r", "\n"]
    if parse_options.quote_char:
        ends.append(parse_options.quote_char)
    if any(ord(end) > 0x7F for end in ends):
        return True
    pattern = _OTHER_NUMBER_HINT.format(ends="".join(f"\\x{ord(end):02x}" for end in ends))
    offsets = pa.py_buffer(np.array([0, len(data)], dtype=np.int64))
    whole = pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), 1, [None, offsets, pa.py_buffer(data)]
    )
    return bool(pc.any(pc.match_substring_regex(whole, pattern)).as_py())


def _not_finite(column: pa.ChunkedArray) -> bool:
    """Whether a floating-point column holds a NaN or an infinity."""
    if not pa.types.is_floating(column.type):
        return False
    return not pc.all(pc.is_finite(column).fill_null(True)).as_py()


def _uncommented(content: Content, marker: bytes | None) -> Content:
    return content if marker is None else _without_comments(content, marker)


def _without_comments(content: Content, marker: bytes) -> Iterator[bytes]:
    """The content without the lines that begin with the comment marker (streamed; a line
    split across chunks is joined first)."""
    chunks = (bytes(content),) if isinstance(content, bytes | bytearray | memoryview) else content
    pending = b""
    for chunk in chunks:
        data = pending + bytes(chunk)
        cut = data.rfind(b"\n")
        if cut < 0:
            pending = data
            continue
        pending = data[cut + 1 :]
        lines = data[: cut + 1].splitlines(keepends=True)
        kept = [line for line in lines if not line.startswith(marker)]
        if kept:
            yield b"".join(kept)
    if pending and not pending.startswith(marker):
        yield pending


class _CSVRecordReader:
    def __init__(
        self,
        reader: pacsv.CSVStreamingReader | None,
        schema: pa.Schema,
        schema_text: str | None,
        source: str,
        stream: ChunkInput,
        batch_rows: int,
        *,
        trim: bool = False,
        table: pa.Table | None = None,
        temporal: Mapping[int, Callable[[Any], Any]] | None = None,
    ) -> None:
        self._temporal = dict(temporal or {})
        """Columns read as text and converted here with their Date, Time or Timestamp
        Format (by position)."""
        self._reader = reader
        self._table = table
        self._schema = schema
        self._text = schema_text
        self._source = source
        self._stream = stream
        self._rows = batch_rows
        self._trim = [
            i
            for i, f in enumerate(schema)
            if trim
            and (
                pa.types.is_string(f.type)
                or pa.types.is_large_string(f.type)
                or i in self._temporal
            )
        ]
        self._booleans = [i for i, f in enumerate(schema) if trim and pa.types.is_boolean(f.type)]
        """Boolean columns parsed as text (Trim Fields), converted once trimmed."""
        self._renamed = trim
        """The schema's names may be the header's trimmed: Arrow's batches carry the
        header's own, renamed here by position."""

    @property
    def schema(self) -> pa.Schema:
        return self._schema

    @property
    def schema_text(self) -> str | None:
        return self._text

    def batches(self) -> Iterator[pa.RecordBatch]:
        if self._reader is None and self._table is None:
            return
        yield from bounded(self._read(), self._rows)

    def _next(self, table_batches: Iterator[pa.RecordBatch] | None) -> pa.RecordBatch:
        if table_batches is not None:
            return next(table_batches)
        assert self._reader is not None
        return self._reader.read_next_batch()

    def _read(self) -> Iterator[pa.RecordBatch]:
        records = 0
        table_batches = None
        if self._table is not None:
            table_batches = iter(self._table.to_batches())
            self._table = None
        while True:
            try:
                batch = self._next(table_batches)
            except StopIteration:
                return
            except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError) as exc:
                raise _arrow_error(exc, self._source, records, self._stream.offset) from None
            if self._trim or self._booleans:
                batch = self._trimmed(batch, records)
            if self._temporal:
                batch = self._converted(batch, records)
            records += batch.num_rows
            if (
                self._renamed
                and batch.num_columns == len(self._schema)
                and batch.schema.names != self._schema.names
            ):
                batch = batch.rename_columns(self._schema.names)
            if not batch.schema.equals(self._schema):
                batch = conform(batch, self._schema)
            yield batch

    def _converted(self, batch: pa.RecordBatch, records: int) -> pa.RecordBatch:
        """The batch with its formatted dates, times and timestamps (read as text)
        converted; a value that does not match its format is a malformed record."""
        columns = list(batch.columns)
        fields = list(batch.schema)
        for index, convert in self._temporal.items():
            target = self._schema.field(index)
            values = []
            for row, value in enumerate(columns[index].to_pylist()):
                try:
                    values.append(None if value is None else convert(value))
                except (ValueError, TypeError, ArithmeticError) as exc:
                    position = f"record {records + row}"
                    detail = f"field '{target.name}': {exc}"
                    raise MalformedRecordError(self._source, position, detail) from None
            columns[index] = pa.array(values, target.type)
            fields[index] = fields[index].with_type(target.type)
        return pa.RecordBatch.from_arrays(columns, schema=pa.schema(fields, batch.schema.metadata))

    def _trimmed(self, batch: pa.RecordBatch, records: int) -> pa.RecordBatch:
        """The batch with its texts trimmed and its Boolean columns, parsed as text,
        converted (Trim Fields)."""
        try:
            return text_booleans(batch, self._trim, self._booleans)
        except ValueError as exc:
            position = f"record {records} or after (byte offset {self._stream.offset})"
            raise MalformedRecordError(self._source, position, str(exc)) from None

    def close(self) -> None:
        self._table = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None


def text_booleans(
    batch: pa.RecordBatch, texts: Sequence[int], booleans: Sequence[int]
) -> pa.RecordBatch:
    """``batch`` with the text columns ``texts`` trimmed as Commons CSV trims a field
    (``String.trim``) and the columns ``booleans`` (parsed as text) converted to
    Booleans once trimmed; ValueError, with NiFi's message, for a value that is not a
    Boolean."""
    columns = list(batch.columns)
    fields = list(batch.schema)
    for i in texts:
        columns[i] = java_trim(columns[i])
    for i in booleans:
        if pa.types.is_string(columns[i].type):
            columns[i] = as_booleans(columns[i], trim=True)
            fields[i] = fields[i].with_type(pa.bool_())
    return pa.RecordBatch.from_arrays(columns, schema=pa.schema(fields, batch.schema.metadata))


@controller_service("CSVRecordSetWriter")
class CSVRecordSetWriter(ControllerService):
    """Writes Arrow batches as CSV with pyarrow.csv.write_csv."""

    property_descriptors = (
        WRITER_STRATEGY,
        *common.REGISTRY_PROPERTIES,
        common.SCHEMA_TEXT,
        SCHEMA_WRITE_STRATEGY,
        common.WRITER_DATE_FORMAT,
        common.WRITER_TIME_FORMAT,
        common.WRITER_TIMESTAMP_FORMAT,
        INCLUDE_HEADER,
        VALUE_SEPARATOR,
        RECORD_SEPARATOR,
        QUOTE_CHAR,
        ESCAPE_CHAR,
        QUOTE_MODE,
        NULL_STRING,
    )

    mime_type = CSV_MIME_TYPE

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
        self.include_header = context.get_property(INCLUDE_HEADER).as_bool()
        self._context = context
        self.separator_expression = "${" in context.get_property(VALUE_SEPARATOR).as_str()
        self.delimiter = (
            "," if self.separator_expression else common.character(context, VALUE_SEPARATOR) or ","
        )
        self.eol = common.unescape(context.get_property(RECORD_SEPARATOR).as_str())
        self.quote_expression = "${" in (context.get_property(QUOTE_CHAR).value or "")
        self.quote = '"' if self.quote_expression else common.character(context, QUOTE_CHAR) or '"'
        self.escape = common.character(context, ESCAPE_CHAR)
        self.quote_mode = common.choice(context, QUOTE_MODE)
        null = context.get_property(NULL_STRING).value
        self.null_string = common.unescape(null) if null is not None else ""
        self.formats = common.temporal_formats(context)
        """Date, Time and Timestamp Format: a date, time or timestamp is written as its
        epoch milliseconds, or formatted (in UTC), as text (NiFi hands it to Commons CSV
        as a String, so the Quote Mode treats it as text)."""
        self._quoting: dict[str, MinimalQuoting] = {}

    def minimal_quoting(self, delimiter: str) -> MinimalQuoting | None:
        """Quote Mode MINIMAL's rules for a Value Separator (kept per separator), or None
        under another Quote Mode."""
        if self.quote_mode != "MINIMAL":
            return None
        quoting = self._quoting.get(delimiter)
        if quoting is None:
            if len(self._quoting) >= _SEPARATORS_KEPT:
                self._quoting.clear()
            quoting = self._quoting[delimiter] = MinimalQuoting(
                delimiter, self.escape, self.formats
            )
        return quoting

    def writer_schema(self, read_schema: pa.Schema, attributes: Mapping[str, str]) -> pa.Schema:
        given = self.schema_source.resolve(attributes)
        return given[0] if given is not None else read_schema

    def render_bulk(self, schema: pa.Schema, records: pa.RecordBatch) -> RenderedRecords | None:
        """The records' lines rendered in one pass (Quote Mode MINIMAL, a fixed Value
        Separator), or None: each FlowFile is then written alone and fails alone."""
        quoting = self.minimal_quoting(self.delimiter)
        if (
            quoting is None
            or self.separator_expression
            or self.quote_expression
            or self.quote != '"'
            or not len(schema)
        ):
            return None
        try:
            rows = render_rows(
                conform(records, schema), quoting, self.delimiter, self.eol, self.null_string
            )
        except Exception:  # whatever fails here fails again, per FlowFile, with its reason
            return None
        if rows is None:
            return None
        header = quoting.header(schema.names, self.delimiter, self.eol)
        return _RenderedCsv(self, schema, rows, header if self.include_header else b"")

    def output_attributes(self, schema: pa.Schema, attributes: Mapping[str, str]) -> dict[str, str]:
        """The attributes the Schema Write Strategy adds to an output."""
        return schema_attributes(
            self.write_strategy, schema, self.schema_source.resolve(attributes)
        )

    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter:
        delimiter, quote = self.delimiter, self.quote
        if self.separator_expression:
            delimiter = self._flowfile_character(VALUE_SEPARATOR, attributes) or ","
        if self.quote_expression:
            quote = self._flowfile_character(QUOTE_CHAR, attributes) or '"'
        extra = self.output_attributes(schema, attributes)
        return attributed(_CSVWriter(self, schema, sink, delimiter, quote), extra)

    def _flowfile_character(
        self, descriptor: PropertyDescriptor, attributes: Mapping[str, str]
    ) -> str | None:
        """The property's Expression Language evaluated against the attributes and
        unescaped, if one character (else None: its default is used, as NiFi does)."""
        value = self._context.get_property(descriptor).evaluate(dict(attributes)).value
        unescaped = common.unescape(value) if value is not None else ""
        return unescaped if len(unescaped) == 1 else None


class _RenderedCsv:
    """Lines rendered by ``CSVRecordSetWriter.render_bulk``; a run of them, after the
    header line, is an output."""

    def __init__(
        self, service: CSVRecordSetWriter, schema: pa.Schema, rows: pa.Array, header: bytes
    ) -> None:
        self._service = service
        self._schema = schema
        self._rows = rows
        self._offsets, self._data = row_bounds(rows)
        self._header = header

    def write(
        self, start: int, length: int, sink: BinarySink, attributes: Mapping[str, str]
    ) -> WriteResult:
        offsets, data = self._offsets, self._data
        self._put(data[int(offsets[start]) : int(offsets[start + length])], sink)
        extra = self._service.output_attributes(self._schema, attributes)
        return WriteResult(length, CSV_MIME_TYPE, extra)

    def reordered(self, rows: pa.Array) -> _RenderedCsv:
        return _RenderedCsv(self._service, self._schema, self._rows.take(rows), self._header)

    def _put(self, lines: memoryview, sink: BinarySink) -> None:
        """An output: the header line (if any), then ``lines``."""
        if self._header:
            sink.write(self._header)
        if lines:
            sink.write(lines)


class _CSVWriter(common.CountingWriter):
    MIME_TYPE = CSV_MIME_TYPE

    def __init__(
        self,
        service: CSVRecordSetWriter,
        schema: pa.Schema,
        sink: BinarySink,
        delimiter: str,
        quote: str = '"',
    ) -> None:
        self._service = service
        self._delimiter = delimiter
        self._quote = quote
        self._own_quote = quote != '"'
        """pyarrow quotes with '"' only: another Quote Character is written here
        (``_emit_quoted``)."""
        self._schema = schema
        self._sink = CountingSink(sink)
        self._records = 0
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0
        self._header_written = not service.include_header
        self._minimal = None if self._own_quote else service.minimal_quoting(delimiter)
        self._header_style = "none"
        self._escape_columns: list[int] = []
        if self._minimal is None and not self._own_quote:
            specials = (self._delimiter, '"', "\n", "\r")
            plain = all(not any(c in name for c in specials) for name in schema.names)
            # The header names are text: ALL and NON_NUMERIC quote them (NiFi's
            # testNumbersNotQuoted), NONE only where a name needs it.
            quoted = service.quote_mode in ("ALL", "NON_NUMERIC")
            self._header_style = "none" if plain and not quoted else "needed"
            self._escape_columns = [
                i
                for i, f in enumerate(schema)
                if service.escape is not None
                and (
                    pa.types.is_string(f.type)
                    or pa.types.is_large_string(f.type)
                    or is_date_time(f.type)  # written as their text (``_nifi_text``)
                    or is_nested(f.type)
                )
            ]

    def _nifi_text(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        """For pyarrow's writer: the columns NiFi prints as Java does made their text, as
        strings (dates, times and timestamps, records, lists and maps) and, except under
        NON_NUMERIC (which would then quote them), floating-point numbers."""
        batch = with_texts(batch, is_date_time, self._service.formats.text)
        batch = with_texts(batch, is_nested, nested_text)
        if self._service.quote_mode != "NON_NUMERIC":
            batch = with_java_numbers(batch)
        return batch

    def _options(self, header: bool, style: str) -> pacsv.WriteOptions:
        return pacsv.WriteOptions(
            include_header=header,
            batch_size=8192,
            delimiter=self._delimiter,
            eol=self._service.eol,
            null_string=self._service.null_string,
            quoting_style=style,
            quoting_header=self._header_style,
        )

    def _emit(self, records: pa.RecordBatch | pa.Table, header: bool) -> None:
        if self._own_quote:
            self._emit_quoted(records, header)
            return
        if self._minimal is not None:
            self._emit_minimal(records, header)
            return
        style = {"NON_NUMERIC": "needed", "ALL": "all_valid", "NONE": "none"}[
            self._service.quote_mode
        ]
        out = pa.BufferOutputStream()
        try:
            pacsv.write_csv(records, out, self._options(header, style))
        except pa.ArrowException as exc:
            raise ProcessException(f"cannot write CSV: {exc}") from None
        self._sink.write(memoryview(out.getvalue()))

    def _emit_quoted(self, records: pa.RecordBatch | pa.Table, header: bool) -> None:
        """The records written value by value with the FlowFile's Quote Character, by the
        Quote Mode's rules (Commons CSV doubles the quote inside a quoted value)."""
        service, quote, delimiter = self._service, self._quote, self._delimiter
        mode = service.quote_mode
        specials = (delimiter, quote, "\n", "\r", *((service.escape,) if service.escape else ()))

        def text(value: str, numeric: bool) -> str:
            if mode == "NONE":
                if service.escape is None:
                    return value
                for char in (service.escape, delimiter, quote):
                    value = value.replace(char, service.escape + char)
                return value
            needed = (
                mode == "ALL"
                or (mode == "NON_NUMERIC" and not numeric)
                or any(c in value for c in specials)
                or (value[:1] != "" and value[0] <= "#")
                or (value[-1:] != "" and value[-1] <= " ")
            )
            return quote + value.replace(quote, quote + quote) + quote if needed else value

        lines: list[str] = []
        if header:
            lines.append(delimiter.join(text(name, False) for name in self._schema.names))
        columns = []
        for column in records.columns:
            numeric = pa.types.is_integer(column.type) or pa.types.is_floating(column.type)
            numeric = numeric or pa.types.is_decimal(column.type)
            try:
                values = column.cast(pa.string()).to_pylist()
            except pa.ArrowException as exc:
                raise ProcessException(f"cannot write CSV: {exc}") from None
            columns.append([service.null_string if v is None else text(v, numeric) for v in values])
        lines.extend(delimiter.join(row) for row in zip(*columns, strict=True))
        if lines:
            self._sink.write(memoryview((service.eol.join(lines) + service.eol).encode()))

    def _emit_minimal(self, records: pa.RecordBatch | pa.Table, header: bool) -> None:
        """Quote Mode MINIMAL: only the values that need quotes are quoted (``csv_minimal``),
        in one pass; the header names by the same rules."""
        quoting = self._minimal
        assert quoting is not None
        if isinstance(records, pa.Table):
            batches = records.combine_chunks().to_batches()
        else:
            batches = [records]
        service = self._service
        try:
            parts = [
                buffer
                for batch in batches
                for buffer in render(
                    batch, quoting, self._delimiter, service.eol, service.null_string
                )
            ]
        except pa.ArrowException as exc:
            raise ProcessException(f"cannot write CSV: {exc}") from None
        if header:
            self._sink.write(quoting.header(self._schema.names, self._delimiter, service.eol))
        for buffer in parts:
            self._sink.write(memoryview(buffer))

    def write_batch(self, batch: pa.RecordBatch) -> None:
        batch = conform(batch, self._schema)
        if batch.num_rows == 0:
            return
        self._pending.append(batch)
        self._pending_rows += batch.num_rows
        self._records += batch.num_rows
        if self._pending_rows >= PENDING_ROWS:
            self.flush()

    def _escaped(self, records: pa.Table) -> pa.Table:
        """The Escape Character doubled in string values."""
        escape = self._service.escape
        assert escape is not None
        columns = list(records.columns)
        for i in self._escape_columns:
            column = columns[i]
            if pc.any(pc.match_substring(column, escape)).as_py():
                columns[i] = pc.replace_substring(column, escape, escape + escape)
        return pa.Table.from_arrays(columns, schema=records.schema)

    def flush(self) -> None:
        """Write the batches held so far in one pyarrow call (one call per many small
        batches is what makes merging small FlowFiles fast)."""
        if not self._pending:
            return
        pending, self._pending, self._pending_rows = self._pending, [], 0
        if self._minimal is not None and len(pending) == 1:
            self._emit(pending[0], not self._header_written)
            self._header_written = True
            return
        if self._minimal is None:  # (MINIMAL's ``render`` makes their text itself)
            pending = [self._nifi_text(batch) for batch in pending]
        records = pa.Table.from_batches(pending)
        if self._escape_columns:  # (none with MINIMAL: it doubles the escape as it quotes)
            records = self._escaped(records)
        self._emit(records, not self._header_written)
        self._header_written = True

    def finish(self) -> WriteResult:
        self.flush()
        if not self._header_written and len(self._schema):
            self._emit(pa.RecordBatch.from_pylist([], schema=self._schema), True)
            self._header_written = True
        return WriteResult(self._records, CSV_MIME_TYPE)

    def abort(self) -> None:
        self._pending, self._pending_rows = [], 0
        self._header_written = True
