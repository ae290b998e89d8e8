"""JsonTreeReader's bulk read: many FlowFiles' JSON lines parsed in one pyarrow call.

Only JSON lines (one object per line) with an inferred schema are read together: a JSON
array is read alone (its schema is inferred by another path). Each content's records are
its non-blank lines; a content with two objects on one line, a carriage return, or a
first line that is not an object is read alone, and a parse that fails or counts
otherwise is split in halves, down to the content that is read alone. Contents whose
every line runs from ``{`` to ``}`` are counted in one numpy pass and parsed apart from
the others, which are searched for blank lines and two objects on a line.

Each FlowFile must get the schema it would infer alone. pyarrow orders the fields by first
appearance, so a FlowFile is only taken when its first line has every field, in the order
of the whole; and a field all null in a FlowFile may be absent from it, so every field
must have a value in it. Types: an integer, Boolean or string column is the same for
every FlowFile with a value in it (text that looks like a date or a time is read as
text, as alone); a double column for one with a value that is not a whole number (``5``
alone would be an integer); anything else (nested, null) is read alone.
"""

from __future__ import annotations

import decimal
import io
import re
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pajson

from processors.record._common import (
    WHOLE_NUMBERS,
    beyond_long,
    exact_integers,
    temporal_as_text,
)
from processors.record.bulk import (
    BulkGroup,
    BulkRead,
    Proof,
    Rows,
    same_inference,
    valid,
)
from processors.record.json_serialized import JSON_MIME_TYPE, line_texts
from processors.record.serialized import SerializedForms, attach

if TYPE_CHECKING:
    from processors.record.json_format import JsonTreeReader

LARGEST = 1 << 20
"""Contents larger than this are read alone (inference from the first 1 MB block)."""

_SAME_LINE = re.compile(rb"\}[ \t]*\{")
_BLANK_LINE = re.compile(rb"\n[ \t]*\n")
_NEWLINE, _OPEN, _CLOSE = ord("\n"), ord("{"), ord("}")


class _Part:
    """One content ready to be concatenated: its lines, record count (-1 until counted)
    and first fields."""

    __slots__ = ("data", "fields", "position", "rows")

    def __init__(self, position: int, data: bytes, rows: int, fields: list[str]) -> None:
        self.position = position
        self.data = data
        self.rows = rows
        self.fields = fields


def read_bulk(
    service: JsonTreeReader, contents: Sequence[bytes], attributes: Sequence[Mapping[str, str]]
) -> BulkRead:
    """The contents' records, parsed together where that gives what reading alone gives."""
    result = BulkRead()
    if service.schema_source.given:
        result.rest.extend(range(len(contents)))
        return result
    parts: list[_Part] = []
    for position, content in enumerate(contents):
        part = _prepare(position, content)
        if part is None:
            result.rest.append(position)
        else:
            parts.append(part)
    if parts:
        plain, other = _count_plain_lines(parts)
        if plain:
            _parse(service, plain, result)
        for part in other:
            _count_lines(part)
        result.rest.extend(part.position for part in other if part.rows < 0)
        other = [part for part in other if part.rows >= 0]
        if other:
            _parse(service, other, result)
    result.rest.sort()
    return result


def _prepare(position: int, content: bytes) -> _Part | None:
    """The content as lines starting with an object (its record count still unknown), or
    None if it must be read alone."""
    if not content or len(content) > LARGEST or b"\r" in content:
        return None
    data = content.lstrip()
    if not data.startswith(b"{"):
        return None
    if not data.endswith(b"\n"):
        data += b"\n"
    first = data[: data.index(b"\n")]
    try:
        decoded = msgspec.json.decode(first)
    except msgspec.DecodeError:
        return None
    if not isinstance(decoded, dict):
        return None
    return _Part(position, data, -1, list(decoded))


def _count_plain_lines(parts: list[_Part]) -> tuple[list[_Part], list[_Part]]:
    """The parts whose every line starts with ``{`` and ends with ``}`` (counted: one
    record per line), and the others.

    In valid JSON, ``}`` and ``{`` with only a newline between can only separate two
    top-level values, so each such line holds one record or more; parsed together (with
    no other part), such parts give as many records as lines only if each line is one
    record. One pass of numpy over all the parts' bytes."""
    lengths = np.array([len(p.data) for p in parts], dtype=np.int64)
    ends = np.cumsum(lengths)
    data = np.frombuffer(b"".join(p.data for p in parts), dtype=np.uint8)
    newlines = np.flatnonzero(data == _NEWLINE)
    after = np.minimum(newlines + 1, len(data) - 1)
    plain = (data[newlines - 1] == _CLOSE) & ((data[after] == _OPEN) | (newlines == len(data) - 1))
    firsts = np.searchsorted(newlines, ends - lengths)
    lasts = np.searchsorted(newlines, ends)
    odd = np.concatenate((np.zeros(1, np.int64), np.cumsum(~plain)))
    counted: list[_Part] = []
    others: list[_Part] = []
    for index, part in enumerate(parts):
        if odd[lasts[index]] == odd[firsts[index]]:
            part.rows = int(lasts[index] - firsts[index])
            counted.append(part)
        else:
            others.append(part)
    return counted, others


def _count_lines(part: _Part) -> None:
    """Count the records of a part that is not plain lines: its non-blank lines; the
    count stays -1 (read alone) when two objects may share a line."""
    data = part.data
    if _SAME_LINE.search(data):
        return
    if _BLANK_LINE.search(data):
        part.rows = sum(1 for line in data.split(b"\n") if line.strip())
    else:
        part.rows = data.count(b"\n")


def _parse(service: JsonTreeReader, parts: list[_Part], result: BulkRead) -> None:
    """Parse the parts together; on failure, each half alone (down to one part)."""
    parsed = _try_parse(service, parts)
    if parsed is None:
        if len(parts) == 1:
            result.rest.append(parts[0].position)
            return
        middle = len(parts) // 2
        _parse(service, parts[:middle], result)
        _parse(service, parts[middle:], result)
        return
    table, buffer = parsed
    lengths: Rows = np.array([p.rows for p in parts], dtype=np.int64)
    starts: Rows = np.concatenate((np.zeros(1, np.int64), np.cumsum(lengths)[:-1]))
    same = same_inference(table, starts, lengths, _proof, nulls_alike=False)
    names = table.schema.names
    batch = table.combine_chunks().to_batches()[0]
    attach(batch, SerializedForms(JSON_MIME_TYPE, partial(_lines_of, buffer)))
    group = BulkGroup(table.schema, None, batch)
    for index, part in enumerate(parts):
        if same[index] and part.fields == names:
            group.slices[part.position] = (int(starts[index]), part.rows)
        else:
            result.rest.append(part.position)
    if group.slices:
        result.groups.append(group)


def _lines_of(buffer: bytes) -> pa.Array | None:
    """Each record's line: its serialized form (the parse counted one record a line)."""
    found = line_texts(buffer, one_per_line=True)
    return None if found is None else found.texts


def _try_parse(service: JsonTreeReader, parts: list[_Part]) -> tuple[pa.Table, bytes] | None:
    """The parts' records in one table, and the bytes parsed; None if pyarrow fails or
    counts otherwise. Dates and times stay text, as reading alone (and NiFi) has them:
    a parse that infers one is done again with the types given, and the types of the
    last parse are given to the next one first (``_with_types``)."""
    buffer = b"".join(p.data for p in parts)
    read = pajson.ReadOptions(use_threads=False, block_size=len(buffer) + 1)
    table = _with_types(buffer, read, service.bulk_schema, parts[0].fields)
    try:
        if table is None:
            table = pajson.read_json(io.BytesIO(buffer), read_options=read)
            exact = exact_integers(table)
            text = temporal_as_text(exact or table.schema) or exact
            if text is not None:
                table = pajson.read_json(
                    io.BytesIO(buffer),
                    read_options=read,
                    parse_options=pajson.ParseOptions(explicit_schema=text),
                )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    service.bulk_schema = table.schema
    return (table, buffer) if table.num_rows == sum(p.rows for p in parts) else None


def _with_types(
    buffer: bytes, read: pajson.ReadOptions, schema: pa.Schema | None, first: list[str]
) -> pa.Table | None:
    """The buffer parsed with ``schema``'s types given (other fields inferred), or None
    when that is not what inferring would give in every way the proofs do not check:
    the fields in the order of the first line (which inference follows), none all null
    (inference would leave it out), no date or time inferred. A value of another kind
    than its given type fails the parse (pyarrow does not convert), so each value is of
    its column's kind, as the proofs assume."""
    if schema is None:
        return None
    try:
        table = pajson.read_json(
            io.BytesIO(buffer),
            read_options=read,
            parse_options=pajson.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="infer"
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if table.schema.names != first or temporal_as_text(table.schema) is not None:
        return None
    if any(beyond_long(column) for column in table.columns):
        return None
    if any(column.null_count == len(column) for column in table.columns):
        return None
    return table


def _proof(kind: pa.DataType) -> Proof | None:
    """A per-value test whose truth for one value of a part proves that the part alone
    infers ``kind``."""
    if pa.types.is_int64(kind) or pa.types.is_boolean(kind) or pa.types.is_string(kind):
        return valid  # a JSON text is a string, dates and times too (read as text)
    if pa.types.is_float64(kind):
        return lambda values: pc.not_equal(values, pc.floor(values))
    if kind.equals(WHOLE_NUMBERS):  # alone: a value beyond long makes it so too
        return _beyond_long
    return None


_LONG_ENDS = (
    pa.scalar(decimal.Decimal(2**63), WHOLE_NUMBERS),
    pa.scalar(decimal.Decimal(-(2**63) - 1), WHOLE_NUMBERS),
)


def _beyond_long(values: pa.ChunkedArray | pa.Array) -> Any:
    """Whether each whole number is one no ``long`` holds."""
    upper, lower = _LONG_ENDS
    return pc.or_(pc.greater_equal(values, upper), pc.less_equal(values, lower))
