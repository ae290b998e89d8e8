"""CSVReader's bulk read: many FlowFiles' CSV contents parsed in one pyarrow call.

The contents are concatenated (with a header line, every content's header must be the
same bytes; it is kept once) and parsed in one call. What each FlowFile contributes is
known without a parser: its data lines, counted outside quoted values, so a content
whose quotes do not balance, that uses the escape character or carriage returns, or that
has no record is left to be read alone. If the call fails (a malformed record
somewhere), the contents are split in halves and each half parsed again, so one bad
FlowFile costs a few calls and ends up alone.

With an inferred schema, every FlowFile must get the schema it would infer alone
(MergeRecord bins by it). pyarrow infers a column's type as the first of null, int64,
bool, double, date, time, timestamp[s], timestamp[ns], string that accepts all its
values, and the reader reads the dates, times and timestamps as strings
(``CSVReader.read_inferred``); a FlowFile's own type can only be earlier in that chain
than the type inferred over all contents. For each column this module checks, per
FlowFile and vectorized, a sufficient condition for its type to be the same (for example
a double column: one of its values is not a whole number; a string column: one value
that is not a number; any column: not all null, which alone would be a string). A
FlowFile that fails a check is left to be read alone.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from processors.record import _common as common
from processors.record.bulk import (
    BulkGroup,
    BulkRead,
    Proof,
    Rows,
    same_inference,
    valid,
)
from processors.record.csv_inference import as_booleans, java_trim
from processors.record.schema import conform

if TYPE_CHECKING:
    from processors.record.csv_format import CSVReader

LARGEST = 1 << 20
"""Contents larger than this are read alone (the streaming reader infers from its first
1 MB block only, which a bulk parse could not reproduce)."""

_NUMBER = r"^\s*-?([0-9]+(\.[0-9]+)?|\.[0-9]+)\s*$"
_NOT_TEXT = r"(?i)^\s*[+-]?(true|false|nan|inf|infinity)\s*$"
"""A string value proves a string column when it is not a number as NiFi parses one (an
exponent, a plus sign, a trailing point or a hexadecimal prefix make text:
``CSVReader._not_nifi_numbers``) nor a Boolean, NaN or infinity: alone, its column would
be text too (dates, times and timestamps are read as text with an inferred schema)."""
_NUMBER_RE = re.compile(_NUMBER, re.ASCII)
_NOT_TEXT_RE = re.compile(_NOT_TEXT, re.ASCII)
_THREADS_FROM = 64 * 1024
"""Bytes from which the one block is parsed on pyarrow's threads: its columns are
converted at once, without the GIL (on the second core, about a quarter off the parse);
a smaller buffer costs more to hand over than that saves. The types are inferred from
the one block either way."""
_PYTHON_PROOF = 4096
"""Values up to which the text test runs in Python (compiling Arrow's regular expression
costs more than testing a few hundred values)."""


class _Part:
    """One content ready to be concatenated: its header line, data lines, record count."""

    __slots__ = ("data", "header", "position", "rows")

    def __init__(self, position: int, header: bytes, data: bytes | memoryview, rows: int) -> None:
        self.position = position
        self.header = header
        self.data = data
        self.rows = rows


def read_bulk(
    service: CSVReader, contents: Sequence[bytes], attributes: Sequence[Mapping[str, str]]
) -> BulkRead:
    """The contents' records, parsed together where that gives what reading alone gives."""
    result = BulkRead()
    if not _eligible(service, attributes):
        result.rest.extend(range(len(contents)))
        return result
    given = service.schema_source.resolve(attributes[0]) if attributes else None
    by_header: dict[bytes, list[tuple[int, bytes | memoryview]]] = {}
    quote = (service.parse_options.quote_char or "").encode()
    header_line = service.header
    for position, content in enumerate(contents):
        if not content or len(content) > LARGEST:
            result.rest.append(position)
            continue
        header = b""
        data: bytes | memoryview = content
        if header_line:
            cut = content.find(b"\n")
            if cut <= 0:
                result.rest.append(position)
                continue
            header = content[: cut + 1]
            if quote and quote in header:
                result.rest.append(position)
                continue
            data = memoryview(content)[cut + 1 :]
        by_header.setdefault(header, []).append((position, data))
    for header, items in by_header.items():
        parts, buffer = _split(service, header, items, contents, result)
        if parts:
            _parse(service, parts, given, result, buffer)
    result.rest.sort()
    return result


def _split(
    service: CSVReader,
    header: bytes,
    items: list[tuple[int, bytes | memoryview]],
    contents: Sequence[bytes],
    result: BulkRead,
) -> tuple[list[_Part], bytes | None]:
    """The contents that share ``header`` as parts with their record counts, and the
    buffer to parse (header line, then every part's data lines).

    The records are counted for all the contents at once: the line feeds outside quoted
    values (a line feed after an even number of quotes in the buffer, as every content's
    quotes balance), less the empty lines, per content. Contents with a carriage return
    or the escape character go through ``_prepare`` one by one."""
    for index, (position, data) in enumerate(items):
        if not data or data[-1] != 10:  # the last line without its line feed
            items[index] = (position, b"".join((data, b"\n")))
    buffer = b"".join([header, *(data for _, data in items)])
    lengths = np.fromiter((len(data) for _, data in items), dtype=np.int64, count=len(items))
    options = service.parse_options
    escape = (options.escape_char or "").encode()
    quote = (options.quote_char or "").encode()
    if b"\r" in buffer or (escape and escape in buffer) or len(quote) > 1:
        prepared: list[_Part] = []
        for position, _ in items:
            part = _prepare(service, position, contents[position])
            if part is None:
                result.rest.append(position)
            else:
                prepared.append(part)
        return prepared, None
    body = np.frombuffer(buffer, dtype=np.uint8)[len(header) :]
    quotes = np.flatnonzero(body == quote[0]) if quote and quote in buffer else None
    if quotes is not None:
        open_ended = np.diff(np.searchsorted(quotes, np.cumsum(lengths)), prepend=0) % 2 == 1
        if open_ended.any():  # a quoted value left open: read alone; count the others
            result.rest.extend(p for (p, _), odd in zip(items, open_ended, strict=True) if odd)
            kept = [item for item, odd in zip(items, open_ended, strict=True) if not odd]
            return _split(service, header, kept, contents, result) if kept else ([], None)
    rows = _count_rows_of(body, lengths, quotes)
    parts = [
        _Part(position, header, data, int(count))
        for (position, data), count in zip(items, rows, strict=True)
    ]
    if rows.all():
        return parts, buffer
    result.rest.extend(part.position for part in parts if not part.rows)
    return [part for part in parts if part.rows], None


def _count_rows_of(body: npt.NDArray[np.uint8], lengths: Rows, quotes: Rows | None) -> Rows:
    """Per part (``lengths`` bytes each, each ending with a line feed, the quotes of each
    balanced; ``quotes``: where the quote characters are): its non-empty lines outside
    quoted values."""
    feeds = np.flatnonzero(body == 10)
    if quotes is not None:
        feeds = feeds[(np.searchsorted(quotes, feeds) & 1) == 0]
    line_starts = np.empty_like(feeds)
    line_starts[:1] = 0
    line_starts[1:] = feeds[:-1] + 1
    ends = feeds[feeds != line_starts]
    below = np.searchsorted(ends, np.cumsum(lengths))
    counts: Rows = np.diff(below, prepend=0)
    return counts


def _eligible(service: CSVReader, attributes: Sequence[Mapping[str, str]]) -> bool:
    """Settings under which one parse gives what per-FlowFile parses give."""
    if service.comment_marker is not None or service.separator_expression:
        return False
    if service.header_derived:
        return False  # every column text, named by each content's own header line
    if service.encoding.upper().replace("-", "") != "UTF8":
        return False
    return not service.schema_source.varies  # else the schema may differ per FlowFile


def _prepare(service: CSVReader, position: int, content: bytes) -> _Part | None:
    """The content split into header and data with its record count, or None if it must be
    read alone."""
    if not content or len(content) > LARGEST or b"\r" in content:
        return None
    options = service.parse_options
    escape = options.escape_char
    if escape and escape.encode() in content:
        return None
    header = b""
    data = content
    if service.header:
        cut = content.find(b"\n")
        if cut <= 0:
            return None
        header, data = content[: cut + 1], content[cut + 1 :]
        quote = options.quote_char
        if quote and quote.encode() in header:
            return None
    if not data.endswith(b"\n"):
        data += b"\n"
    rows = _count_rows(data, options.quote_char or None)
    if rows is None or rows == 0:
        return None
    return _Part(position, header, data, rows)


def _count_rows(data: bytes, quote: str | None) -> int | None:
    """Non-empty lines outside quoted values; None if the quotes do not balance.

    The quotes are split once (in C) rather than walked pair by pair: when no quoted value
    holds a line break, the lines are the records as they stand."""
    outside = data
    mark = quote.encode() if quote else b""
    if mark and mark in data:
        segments = data.split(mark)
        if len(segments) % 2 == 0:
            return None
        if b"\n" in b"".join(segments[1::2]):
            outside = b"Q".join(segments[0::2])  # a quoted value never leaves a line empty
    if outside.startswith(b"\n") or b"\n\n" in outside:
        return sum(1 for line in outside.split(b"\n") if line)
    return outside.count(b"\n")


def _parse(
    service: CSVReader,
    parts: list[_Part],
    given: tuple[pa.Schema, str] | None,
    result: BulkRead,
    buffer: bytes | None = None,
) -> None:
    """Parse the parts together (``buffer``: their header and data, if already joined);
    on failure, each half alone (down to one part)."""
    table = _try_parse(service, parts, given, buffer)
    if table is None:
        if len(parts) == 1:
            result.rest.append(parts[0].position)
            return
        middle = len(parts) // 2
        _parse(service, parts[:middle], given, result)
        _parse(service, parts[middle:], given, result)
        return
    lengths: Rows = np.array([p.rows for p in parts], dtype=np.int64)
    starts: Rows = np.concatenate((np.zeros(1, np.int64), np.cumsum(lengths)[:-1]))
    if given is not None:
        schema, text = given
        same = np.ones(len(parts), dtype=bool)
    else:
        schema, text = common.promote_nulls(table.schema), None
        if service.trim and service.header:
            schema = common.trimmed_names(schema)
        same = same_inference(table, starts, lengths, _proof)
    group = BulkGroup(schema, text, _finish(table, schema, service.trim))
    others: list[_Part] = []
    for index, part in enumerate(parts):
        if same[index]:
            group.slices[part.position] = (int(starts[index]), part.rows)
        else:
            others.append(part)
    if group.slices:
        result.groups.append(group)
    # Parts whose types the others changed (a NaN or an exponent in one of them makes a
    # column text) are parsed together again without those others.
    if others and group.slices:
        _parse(service, others, given, result)
    else:
        result.rest.extend(part.position for part in others)


def _try_parse(
    service: CSVReader,
    parts: list[_Part],
    given: tuple[pa.Schema, str] | None,
    buffer: bytes | None = None,
) -> pa.Table | None:
    """The parts' records in one table, or None if pyarrow fails or counts otherwise."""
    if buffer is None:
        buffer = b"".join([parts[0].header, *(p.data for p in parts)])
    expected = sum(p.rows for p in parts)
    block = len(buffer) + 1
    threads = len(buffer) >= _THREADS_FROM
    if given is not None:
        schema = given[0]
        if service.header and not service.ignore_header:
            read = service._read_options(None, 0, block, threads=threads)
            convert = service.given_columns(schema, parts[0].header, service.parse_options)
        else:
            read = service._read_options(
                schema.names, 1 if service.header else 0, block, threads=threads
            )
            convert = service._convert_options(schema, None)
    else:
        read = service._read_options(None, 0, block, threads=threads)
        try:
            table = service.read_inferred(buffer, read, service.parse_options, service.text_columns)
        except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
            return None
        return table if table.num_rows == expected else None
    try:
        table = pacsv.read_csv(
            io.BytesIO(buffer),
            read_options=read,
            parse_options=service.parse_options,
            convert_options=convert,
        )
        if service.trim:  # Boolean columns were parsed as text: converted once trimmed
            for field in schema:
                if pa.types.is_boolean(field.type) and field.name in table.schema.names:
                    where = table.schema.get_field_index(field.name)
                    column = as_booleans(table.column(where), trim=True)
                    table = table.set_column(where, field.with_type(pa.bool_()), column)
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError, ValueError):
        return None
    return table if table.num_rows == expected else None


def _finish(table: pa.Table, schema: pa.Schema, trim: bool) -> pa.RecordBatch:
    """What the one-by-one reader does to each batch: trim strings, conform to the schema;
    as one record batch."""
    batch = table.combine_chunks().to_batches()[0]
    if trim:
        columns = [
            java_trim(column) if pa.types.is_string(column.type) else column
            for column in batch.columns
        ]
        batch = pa.RecordBatch.from_arrays(columns, schema=batch.schema)
        if batch.num_columns == len(schema) and batch.schema.names != schema.names:
            batch = batch.rename_columns(schema.names)  # the header's names, trimmed
    return conform(batch, schema)


def _proves_text(values: pa.ChunkedArray | pa.Array) -> Any:
    """Whether each value is text that no other type accepts. A few values (the samples)
    are tested in Python, each distinct value once; many by Arrow's regular expressions.
    (Python's ASCII ``\\s`` also matches a vertical tab, where RE2's does not: either way
    a number is a number to pyarrow only without one.)"""
    if len(values) > _PYTHON_PROOF:
        return pc.invert(
            pc.or_(
                pc.match_substring_regex(values, _NUMBER),
                pc.match_substring_regex(values, _NOT_TEXT),
            )
        )
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    encoded = values.dictionary_encode()
    distinct = encoded.dictionary.to_pylist()
    if not distinct:
        return pa.array(np.zeros(len(values), dtype=bool))
    verdicts = np.array(
        [_NUMBER_RE.search(v) is None and _NOT_TEXT_RE.search(v) is None for v in distinct]
    )
    proven = verdicts[pc.fill_null(encoded.indices, 0).to_numpy(zero_copy_only=False)]
    if values.null_count:
        proven &= values.is_valid().to_numpy(zero_copy_only=False)
    return pa.array(proven)


def _proof(kind: pa.DataType) -> Proof | None:
    """A per-value test whose truth for one value of a part proves that the part alone
    infers ``kind`` (given that it is not all null); None when there is no such test."""
    if pa.types.is_string(kind):
        return _proves_text
    if pa.types.is_int64(kind):
        return valid  # nothing earlier in the chain accepts these values
    if pa.types.is_float64(kind):
        # Not a whole number, or too large for int64 even after rounding: a double.
        return lambda values: pc.or_(
            pc.not_equal(values, pc.floor(values)),
            pc.invert(pc.less(pc.abs(values), 1.9e19)),
        )
    return None  # bool ("1" or "true"?) and the rest: read alone
