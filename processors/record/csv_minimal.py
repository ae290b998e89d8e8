"""CSV text for Quote Mode MINIMAL, rendered by Arrow kernels in one pass.

NiFi's CSV writer (Commons CSV, ``QuoteMode.MINIMAL``) quotes a value only when it needs
it: it contains the delimiter, the quote or escape character, a carriage return or a line
feed; it begins with a character up to ``#`` (a space, a control character, ``!``, ``"``,
``#``); or it ends with a character up to a space. pyarrow's writer can only quote every
string value or none, so here each column is turned into text (the cast pyarrow's writer
uses), the values that need quotes are found over the column's bytes at once (numpy over
the UTF-8 buffer: every rule is about an ASCII character, and no byte of a multi-byte
character is ASCII), only those are quoted (inner quotes doubled), and the columns are
joined into lines. An empty string is always quoted and a null never (it is written as
the Null String), so nulls survive a round trip. Dates, times and timestamps are made
text first (epoch milliseconds, or the writer's formats: ``TemporalFormats``), as NiFi
hands them to Commons CSV as strings, so they are quoted by the rules for text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from processors.record.json_numbers import java_string
from processors.record.nested_text import is_nested, nested_text
from processors.record.temporal_text import NO_FORMATS, TemporalFormats, is_date_time

QUOTE = '"'
SMALL = 512
"""Values in a write up to which it is rendered in Python: Arrow's kernels cost more in
calls than they save on a few records (a split or a partition of a FlowFile)."""
_HEADERS_KEPT = 64
_PARENTS_KEPT = 16
_PARENT_ROWS = 1 << 16
"""The longest array cast whole for its slices."""
_TEXT_LIMIT = 1 << 30
"""Bytes of text rendered per kernel call, far below the 2 GiB a string array can hold."""


def _byte_table(characters: str) -> npt.NDArray[np.bool_]:
    table = np.zeros(256, dtype=bool)
    for character in characters:
        if ord(character) < 128:
            table[ord(character)] = True
    return table


_SCALAR_MARKS = "+-.: "
"""The characters other than letters and digits in the text of a number or a time."""
_LEADING = np.arange(256) <= ord("#")
_TRAILING = np.arange(256) <= ord(" ")


class SliceTexts:
    """The text of fixed-width columns, cast once for the whole array that small writes
    slice (SplitRecord writes ten records at a time from one parsed batch; casting ten
    values costs Arrow about what casting thousands does).

    A slice shares its parent's buffers, so the parent is rebuilt from them and cast
    once; its text is kept (a few arrays, by the addresses of the values and validity
    buffers, which the kept parent holds, so no address is reused while cached)."""

    def __init__(self, formats: TemporalFormats = NO_FORMATS) -> None:
        self._cast: dict[tuple[int, int, int, pa.DataType], tuple[pa.Array, pa.Array]] = {}
        self._formats = formats

    def of(self, column: pa.Array) -> pa.Array:
        """``column`` as text (the same values as ``_as_text`` with these formats)."""
        kind = column.type
        buffers = column.buffers()
        width = kind.bit_width if pa.types.is_primitive(kind) else 0
        if width % 8 or width == 0 or len(buffers) != 2 or buffers[1] is None:
            return _as_text(column, self._formats)
        validity, values = buffers
        length = values.size // (width // 8)
        if validity is not None:
            length = min(length, validity.size * 8)
        end = column.offset + len(column)
        if end > length or length > _PARENT_ROWS or length <= len(column):
            return _as_text(column, self._formats)
        key = (values.address, values.size, 0 if validity is None else validity.address, kind)
        cached = self._cast.get(key)
        if cached is None:
            parent = pa.Array.from_buffers(kind, length, [validity, values])
            try:
                text = _as_text(parent, self._formats)
            except pa.ArrowException:  # unused bytes past the parent's end, not values
                return _as_text(column, self._formats)
            if len(self._cast) >= _PARENTS_KEPT:
                self._cast.clear()
            cached = self._cast[key] = (parent, text)
        return cached[1].slice(column.offset, len(column))


class MinimalQuoting:
    """Which values need quotes under Quote Mode MINIMAL, for one delimiter and escape
    (and the writer's date, time and timestamp formats, for their text)."""

    def __init__(
        self, delimiter: str, escape: str | None, formats: TemporalFormats = NO_FORMATS
    ) -> None:
        specials = f"{delimiter}{QUOTE}\r\n{escape or ''}"
        self._escape = escape
        self._inside = _byte_table(specials)
        self._wide = [c for c in {delimiter, escape or ""} if c and ord(c) >= 128]
        """Non-ASCII specials, matched as substrings."""
        self.plain_scalars = not any(c.isalnum() or c in _SCALAR_MARKS for c in specials)
        """Whether numbers, Booleans and temporal values never need quotes (their text has
        no special character and never begins or ends with a space)."""
        inside = "".join(sorted(set(specials)))
        self.search = re.compile(f"\\A\\Z|\\A[\\x00-#]|[{re.escape(inside)}]|[\\x00- ]\\Z").search
        """The rules as one regular expression (for values one by one)."""
        self._headers: dict[tuple[tuple[str, ...], str, str], bytes] = {}
        self.texts = SliceTexts(formats)

    def text(self, value: str) -> str:
        """One value as written (as ``quoted`` writes it)."""
        if self.search(value) is None:
            return value
        escape = self._escape
        if escape and escape != QUOTE:
            value = value.replace(escape, escape + escape)
        return QUOTE + value.replace(QUOTE, QUOTE + QUOTE) + QUOTE

    def header(self, names: Sequence[str], delimiter: str, eol: str) -> bytes:
        """The header line for these column names (made once per schema)."""
        key = (tuple(names), delimiter, eol)
        line = self._headers.get(key)
        if line is None:
            if len(self._headers) >= _HEADERS_KEPT:
                self._headers.clear()
            text = delimiter.join(self.text(name) for name in names) + eol
            line = self._headers[key] = text.encode()
        return line

    def with_temporal_text(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        """The batch with its dates, times and timestamps as their text (strings)."""
        return with_texts(batch, is_date_time, self.texts.of)

    def needs_quotes(self, value: str) -> bool:
        """Whether NiFi's MINIMAL rules quote ``value`` (an empty one: always here)."""
        return self.search(value) is not None

    def mask(self, values: pa.Array) -> npt.NDArray[np.bool_]:
        """Per value of a string array: whether it needs quotes (nulls never)."""
        wide = pa.types.is_large_string(values.type)
        count = len(values)
        buffers = values.buffers()
        offsets = np.frombuffer(buffers[1], dtype=np.int64 if wide else np.int32)[
            values.offset : values.offset + count + 1
        ].astype(np.int64)
        data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else None
        starts, ends = offsets[:-1], offsets[1:]
        needs = starts == ends  # empty strings (and null slots, cleared below)
        if data is not None and count and ends[-1] > starts[0]:
            hits = np.flatnonzero(self._inside[data[starts[0] : ends[-1]]])
            if len(hits):
                rows = np.searchsorted(ends, hits + starts[0], side="right")
                needs[rows] = True
            filled = ~needs
            first = data[starts[filled]]
            last = data[ends[filled] - 1]
            needs[filled] = _LEADING[first] | _TRAILING[last]
        for character in self._wide:
            needs |= pc.fill_null(pc.match_substring(values, character), False).to_numpy(
                zero_copy_only=False
            )
        if values.null_count:
            needs &= values.is_valid().to_numpy(zero_copy_only=False)
        result: npt.NDArray[np.bool_] = needs
        return result

    def quoted(
        self,
        values: pa.Array,
        *,
        scalar: bool = False,
        needs: npt.NDArray[np.bool_] | None = None,
    ) -> pa.Array:
        """The values, those that need it quoted: the escape character doubled (so that
        CSVReader with the same escape reads them back), then inner quotes doubled.
        ``scalar``: the text of numbers, Booleans or temporal values; ``needs``: their
        ``mask`` when it is known already."""
        if scalar and self.plain_scalars:
            return values
        if needs is None:
            needs = self.mask(values)
        if not needs.any():
            return values  # a value with the escape character needs quotes: none here
        chosen = values.filter(pa.array(needs))
        escape = self._escape
        for mark in (escape, QUOTE) if escape and escape != QUOTE else (QUOTE,):
            if pc.any(pc.match_substring(chosen, mark)).as_py():
                chosen = pc.replace_substring(chosen, mark, mark + mark)
        chosen = pc.binary_join_element_wise(QUOTE, chosen, QUOTE, "")
        return pc.replace_with_mask(values, pa.array(needs), chosen)


def _is_text(kind: pa.DataType) -> bool:
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


def _is_scalar(kind: pa.DataType) -> bool:
    """A number, Boolean or temporal type (its text needs no quotes, see ``quoted``)."""
    return bool(
        pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
        or pa.types.is_decimal(kind)
        or pa.types.is_boolean(kind)
        or pa.types.is_temporal(kind)
        or pa.types.is_null(kind)
    )


def _as_text(column: pa.Array, formats: TemporalFormats = NO_FORMATS) -> pa.Array:
    """A column as the text NiFi writes for it: a floating-point number as Java prints it
    (``java_string``), a date, time or timestamp as ``formats`` give it, a record, list or
    map as Java prints it (``nested_text``), the others as pyarrow's CSV writer writes
    them (the same cast)."""
    if _is_text(column.type):
        return column
    if pa.types.is_floating(column.type):
        return java_string(column)
    if is_date_time(column.type):
        return formats.text(column)
    if is_nested(column.type):
        return nested_text(column)
    return pc.cast(column, pa.string())


def render(
    batch: pa.RecordBatch,
    quoting: MinimalQuoting,
    delimiter: str,
    eol: str,
    null_string: str,
) -> list[pa.Buffer]:
    """The batch's records as CSV lines (no header), in buffers to write in order.

    Raises ``pa.ArrowException`` for a type that has no text form."""
    if batch.num_rows == 0 or batch.num_columns == 0:
        return []
    batch = quoting.with_temporal_text(batch)
    if batch.num_rows * batch.num_columns <= SMALL:
        return [pa.py_buffer(_render_small(batch, quoting, delimiter, eol, null_string))]
    masks = _masks(batch, quoting)
    if not any(mask is not None and mask.any() for mask in masks):
        unquoted = _write_unquoted(batch, quoting, delimiter, eol, null_string)
        if unquoted is not None:
            return [unquoted]
    estimate = _text_estimate(batch, eol)
    step = max(1, int(batch.num_rows * min(1.0, _TEXT_LIMIT / max(estimate, 1))))
    out: list[pa.Buffer] = []
    eol_bytes = pa.py_buffer(eol.encode())
    for start in range(0, batch.num_rows, step):
        lines = _lines(batch.slice(start, step), masks, start, quoting, delimiter, null_string)
        listed = pa.ListArray.from_arrays(pa.array([0, len(lines)], pa.int32()), lines)
        text = pc.binary_join(listed, eol)
        out.append(_value_buffer(text))
        out.append(eol_bytes)
    return out


def render_rows(
    batch: pa.RecordBatch,
    quoting: MinimalQuoting,
    delimiter: str,
    eol: str,
    null_string: str,
) -> pa.Array | None:
    """Each record's line with its record separator, as ``render`` writes it (a string
    array: the lines of any run of records are one slice of its data); None when the
    text would be too large for one array."""
    if batch.num_columns == 0 or _text_estimate(batch, eol) > _TEXT_LIMIT:
        return None
    batch = quoting.with_temporal_text(batch)
    lines = _lines(batch, _masks(batch, quoting), 0, quoting, delimiter, null_string)
    return pc.binary_join_element_wise(lines, "", eol)  # the line, the separator, ""


def _masks(batch: pa.RecordBatch, quoting: MinimalQuoting) -> list[npt.NDArray[np.bool_] | None]:
    """Per column, which values need quotes (None for a column that is not text)."""
    return [quoting.mask(c) if _is_text(c.type) else None for c in batch.columns]


def _text_estimate(batch: pa.RecordBatch, eol: str) -> int:
    """The size of the batch's text, as estimated to keep one text array under
    ``_TEXT_LIMIT``."""
    return int(batch.nbytes * 4 + batch.num_rows * (len(eol) + batch.num_columns * 3))


def _lines(
    part: pa.RecordBatch,
    masks: Sequence[npt.NDArray[np.bool_] | None],
    start: int,
    quoting: MinimalQuoting,
    delimiter: str,
    null_string: str,
) -> pa.Array:
    """The lines of ``part`` (rows ``start`` on of the batch ``masks`` were found for),
    each value as text, quoted where its mask says."""
    step = part.num_rows
    texts = [
        quoting.quoted(
            _as_text(column),
            scalar=_is_scalar(column.type),
            needs=None if mask is None else mask[start : start + step],
        )
        for column, mask in zip(part.columns, masks, strict=True)
    ]
    return _join(texts, delimiter, null_string)


def _write_unquoted(
    batch: pa.RecordBatch,
    quoting: MinimalQuoting,
    delimiter: str,
    eol: str,
    null_string: str,
) -> pa.Buffer | None:
    """``render`` by pyarrow's own writer for a batch none of whose strings needs quotes
    (the caller checked: the common case, about 0.2 µs a record against 0.3 for the
    kernels); None when a column or the separators are not ones it writes the same way.

    pyarrow writes each value as the same cast gives, so with nothing to quote its
    lines are exactly ``render``'s; an empty string needs quotes (see the module doc)."""
    if len(delimiter) != 1 or not delimiter.isascii() or eol not in ("\n", "\r\n"):
        return None
    scalars_plain = quoting.plain_scalars
    for column in batch.columns:
        kind = column.type
        if _is_text(kind):
            continue  # the caller found no value to quote
        if not (scalars_plain and _is_scalar(kind)) or pa.types.is_null(kind):
            return None
    batch = with_java_numbers(batch)
    out = pa.BufferOutputStream()
    options = pacsv.WriteOptions(
        include_header=False,
        batch_size=max(1, batch.num_rows),
        delimiter=delimiter,
        eol=eol,
        null_string=null_string,
        quoting_style="none",
    )
    try:
        pacsv.write_csv(batch, out, options)
    except pa.ArrowException:
        return None  # the kernels above write it, or raise the error for it
    buffer: pa.Buffer = out.getvalue()
    return buffer


def with_java_numbers(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch with its floating-point columns as the text NiFi writes for them
    (``java_string``): for pyarrow's writer, which would write ``8`` for ``8.0``."""
    return with_texts(batch, pa.types.is_floating, java_string)


def with_texts(
    batch: pa.RecordBatch,
    chosen: Callable[[pa.DataType], bool],
    text: Callable[[pa.Array], pa.Array],
) -> pa.RecordBatch:
    """The batch with each column of a ``chosen`` type made a string column by ``text``."""
    picks = [chosen(field.type) for field in batch.schema]
    if not any(picks):
        return batch
    columns = [text(c) if pick else c for c, pick in zip(batch.columns, picks, strict=True)]
    fields = [
        field.with_type(pa.string()) if pick else field
        for field, pick in zip(batch.schema, picks, strict=True)
    ]
    return pa.RecordBatch.from_arrays(columns, schema=pa.schema(fields))


def _render_small(
    batch: pa.RecordBatch,
    quoting: MinimalQuoting,
    delimiter: str,
    eol: str,
    null_string: str,
) -> bytes:
    """``render`` for a few records: the same text (values other than strings and integers
    through the same Arrow cast), quoted and joined value by value in Python."""
    text, needs = quoting.text, quoting.search
    plain_scalars = quoting.plain_scalars
    columns: list[list[str]] = []
    for column in batch.columns:
        kind = column.type
        known = _KINDS.get(kind.id)
        if known is None:
            known = _KINDS[kind.id] = (
                _is_text(kind) or pa.types.is_integer(kind),
                _is_scalar(kind),
            )
        native, scalar = known
        values = column.to_pylist() if native else quoting.texts.of(column).to_pylist()
        if column.null_count or pa.types.is_union(kind):  # a union's nulls are its children's
            if plain_scalars and scalar:
                quoted = [null_string if v is None else str(v) for v in values]
            else:
                quoted = [null_string if v is None else text(str(v)) for v in values]
        elif plain_scalars and scalar:
            quoted = list(map(str, values))
        else:
            strings = list(map(str, values))
            quoted = list(map(text, strings)) if any(map(needs, strings)) else strings
        columns.append(quoted)
    lines = [delimiter.join(row) for row in zip(*columns, strict=True)]
    lines.append("")
    return eol.join(lines).encode()


_KINDS: dict[int, tuple[bool, bool]] = {}
"""By Arrow type id: whether a column's Python values are its text (strings, integers),
and whether it is a number, Boolean or time (``_is_scalar``)."""


def _join(texts: Sequence[pa.Array], delimiter: str, null_string: str) -> pa.Array:
    """Each row's values joined by the delimiter, a null written as the Null String."""
    if len(texts) == 1:
        return pc.fill_null(texts[0], null_string)
    return pc.binary_join_element_wise(
        *texts, delimiter, null_handling="replace", null_replacement=null_string
    )


def _value_buffer(text: pa.Array) -> pa.Buffer:
    """The one string of a length-one string array, without a copy."""
    buffers = text.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int32)[text.offset : text.offset + 2]
    data = buffers[2]
    if data is None:
        return pa.py_buffer(b"")
    return data.slice(int(offsets[0]), int(offsets[1] - offsets[0]))
