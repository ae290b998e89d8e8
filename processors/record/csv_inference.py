"""The type of each CSV column over the whole content, as NiFi's inference gives it.

NiFi's CSVReader, when it infers, reads the whole content once to infer the schema and
again to read the records. A content larger than one block is read here the same way:
a first pass streams every column as text and ``ColumnKinds`` folds each batch into
each column's kind; the second pass parses with the types that result, so a value deep
in the content (a fraction in a column of integers, a word in a column of numbers, the
first value of a column empty until then) types its column as it would in a small
content, where pyarrow's inference sees every value at once.

The kinds, per value (NiFi's ``SchemaInferenceUtil`` with the choices of
docs/records.md): a whole number within ``long`` is an integer; a number NiFi parses
(``NumberUtils.isParsable``: no exponent, sign other than a leading minus, trailing point
or hexadecimal prefix) with a fraction is a double; ``true`` or ``false`` in any case is
a Boolean (with Trim Fields, once trimmed); a null (the Null String, or an unquoted empty
value) says nothing; anything else is text. Per column: integers with doubles are
doubles, unless one is as large as 2^63 (text, its digits kept, as a small content's
column); any other mix is text; a column with no value at all is text.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from processors.record._common import BEYOND_LONG, JAVA_WHITESPACE

INTEGER = r"^\s*-?[0-9]+\s*$"
NIFI_NUMBER = r"^\s*-?([0-9]+(\.[0-9]+)?|\.[0-9]+)\s*$"
"""A value NiFi's CSV inference takes for a number (``NumberUtils.isParsable``; the
blanks are pyarrow's, which reads a number with them)."""
_BOOLEANS = pa.array(["true", "false"])
_HEAD = 64
"""Values a Boolean check looks at before the whole column."""


class Kind(enum.Enum):
    """What a column's values are, as far as they have been read."""

    NOTHING = "nothing"
    INTEGER = "integer"
    DOUBLE = "double"
    BOOLEAN = "boolean"
    TEXT = "text"

    def widened(self, other: Kind) -> Kind:
        """The kind of a column holding values of both kinds."""
        if self is other or other is Kind.NOTHING:
            return self
        if self is Kind.NOTHING:
            return other
        if {self, other} == {Kind.INTEGER, Kind.DOUBLE}:
            return Kind.DOUBLE
        return Kind.TEXT

    def arrow_type(self) -> pa.DataType:
        return _ARROW_TYPES[self]


_ARROW_TYPES = {
    Kind.NOTHING: pa.string(),
    Kind.INTEGER: pa.int64(),
    Kind.DOUBLE: pa.float64(),
    Kind.BOOLEAN: pa.bool_(),
    Kind.TEXT: pa.string(),
}


@dataclass(frozen=True, slots=True)
class Seen:
    """What a batch's values of one column are: their kind and, for numbers, the largest
    magnitude among them as a double."""

    kind: Kind
    largest: float = 0.0


def java_trim(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """The texts trimmed as Trim Fields trims them (Commons CSV: ``String.trim``); the
    same array when no value begins or ends with such a character (the usual case, found
    over the bytes without a copy)."""
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    if not any(map(_has_blank_ends, chunks)):
        return values
    return pc.utf8_trim(values, characters=JAVA_WHITESPACE)


def _has_blank_ends(values: pa.Array) -> bool:
    """Whether a value of a string array begins or ends with a character up to a space
    (one byte of UTF-8 each; no byte of a longer character is that low)."""
    count = len(values)
    if count == 0:
        return False
    offsets_buffer, data_buffer = values.buffers()[1:3]
    if data_buffer is None:
        return False
    wide = pa.types.is_large_string(values.type)
    offsets: npt.NDArray[np.int64] = np.frombuffer(
        offsets_buffer, dtype=np.int64 if wide else np.int32
    )[values.offset : values.offset + count + 1].astype(np.int64)
    starts, ends = offsets[:-1], offsets[1:]
    filled = ends > starts
    data = np.frombuffer(data_buffer, dtype=np.uint8)
    return bool(
        (data[starts[filled]] <= ord(" ")).any() or (data[ends[filled] - 1] <= ord(" ")).any()
    )


def is_boolean_text(values: pa.Array | pa.ChunkedArray, *, trim: bool) -> bool:
    """Whether every value present is ``true`` or ``false`` in any case (trimmed first
    when ``trim``), and there is one: NiFi's inference takes such a column for a
    Boolean. The first values are looked at alone first: a text column fails there."""
    head = values.slice(0, _HEAD)
    head = head.drop_null() if head.null_count else head
    if trim:
        head = java_trim(head)
    if len(head) and not _all(pc.is_in(pc.utf8_lower(head), _BOOLEANS)):
        return False
    present = values.drop_null() if values.null_count else values
    if len(present) == 0:
        return False
    if trim:
        present = java_trim(present)
    return _all(pc.is_in(pc.utf8_lower(present), _BOOLEANS))


def as_booleans(values: pa.Array | pa.ChunkedArray, *, trim: bool) -> pa.Array | pa.ChunkedArray:
    """Texts read into a Boolean field as NiFi reads them (``DataTypeUtils.toBoolean``:
    ``true`` or ``false`` in any case, after trimming when ``trim``); ValueError with
    NiFi's message for any other value."""
    if trim:
        values = java_trim(values)
    lower = pc.utf8_lower(values)
    known = pc.is_in(lower, _BOOLEANS)
    if not _all(pc.or_(known, pc.is_null(values))):
        bad = pc.filter(values, pc.invert(pc.fill_null(known, True)))[0].as_py()
        msg = f"Cannot convert value [{bad}] of type class java.lang.String to Boolean"
        raise ValueError(msg)
    return pc.equal(lower, "true")


def kind_of(values: pa.Array, *, trim: bool = False) -> Seen:
    """The kind of a batch's values of one column, read as text (a Boolean's blanks
    trimmed first when ``trim``, as Trim Fields does before NiFi infers).

    Values made of digits, minus signs and points only (the usual numbers) are proved by
    Arrow's casts after one look at their bytes; the others by regular expressions."""
    present = values.drop_null() if values.null_count else values
    if len(present) == 0:
        return Seen(Kind.NOTHING)
    marks = _marks(present)
    if marks is not None and not marks & _OTHER:
        seen = _plain_number(present, point=bool(marks & _POINT))
        if seen is not None:
            return seen
    if is_boolean_text(present, trim=trim):
        return Seen(Kind.BOOLEAN)
    if _all(pc.match_substring_regex(present, INTEGER)):
        try:
            numbers = pc.cast(pc.utf8_trim_whitespace(present), pa.int64())
        except pa.ArrowInvalid:
            return Seen(Kind.TEXT)  # beyond long: NiFi would lose digits, text keeps them
        return Seen(Kind.INTEGER, _largest(numbers))
    if _all(pc.match_substring_regex(present, NIFI_NUMBER)):
        return Seen(Kind.DOUBLE, _largest(pc.cast(pc.utf8_trim_whitespace(present), pa.float64())))
    return Seen(Kind.TEXT)


_DIGIT, _MINUS, _POINT, _OTHER = 1, 2, 4, 8
_MARKS = np.full(256, _OTHER, dtype=np.uint8)
_MARKS[ord("0") : ord("9") + 1] = _DIGIT
_MARKS[ord("-")] = _MINUS
_MARKS[ord(".")] = _POINT


def _marks(values: pa.Array) -> int | None:
    """The kinds of bytes in the values (``_DIGIT`` | ...), None for an empty value."""
    offsets, data = _offsets_and_data(values)
    starts, ends = offsets[:-1], offsets[1:]
    if data is None or bool((starts == ends).any()):
        return None
    return int(np.bitwise_or.reduce(_MARKS[data[starts[0] : ends[-1]]]))


def _offsets_and_data(
    values: pa.Array,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8] | None]:
    buffers = values.buffers()
    width = np.int64 if pa.types.is_large_string(values.type) else np.int32
    offsets = np.frombuffer(buffers[1], dtype=width)[
        values.offset : values.offset + len(values) + 1
    ]
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else None
    return offsets.astype(np.int64), data


def _plain_number(values: pa.Array, *, point: bool) -> Seen | None:
    """The kind of values of digits, minus signs and points, when Arrow's cast reads them
    all as NiFi does (an integer within ``long``, a decimal not ending in a point); None
    when it does not (``1-2``, ``5.``, beyond ``long``): the regular expressions decide."""
    try:
        if not point:
            return Seen(Kind.INTEGER, _largest(pc.cast(values, pa.int64())))
        offsets, data = _offsets_and_data(values)
        assert data is not None
        if bool((data[offsets[1:] - 1] == ord(".")).any()):
            return None
        return Seen(Kind.DOUBLE, _largest(pc.cast(values, pa.float64())))
    except pa.ArrowInvalid:
        return None


def _largest(numbers: pa.Array) -> float:
    largest = pc.max(pc.abs(numbers)).as_py()
    return float(largest or 0)


def _all(matches: pa.Array) -> bool:
    return bool(pc.all(matches).as_py())


class ColumnKinds:
    """Each column's kind over the batches folded in so far (by position: a header may
    name two columns alike). ``known`` kinds (text already) are not read again; ``trim``:
    the reader's Trim Fields."""

    def __init__(
        self, width: int, known: dict[int, Kind] | None = None, *, trim: bool = False
    ) -> None:
        self._trim = trim
        self._kinds = [Kind.NOTHING] * width
        self._largest = [0.0] * width
        """Per column, the largest magnitude of its numbers read as doubles."""
        for position, kind in (known or {}).items():
            self._kinds[position] = kind

    def fold(self, batch: pa.RecordBatch) -> None:
        for position, kind in enumerate(self._kinds):
            if kind is Kind.TEXT:
                continue
            seen = kind_of(batch.column(position), trim=self._trim)
            self._largest[position] = max(self._largest[position], seen.largest)
            self._kinds[position] = kind.widened(seen.kind)

    def undecided(self) -> bool:
        """Whether any column could still be other than text."""
        return any(kind is not Kind.TEXT for kind in self._kinds)

    def schema(self, names: list[str]) -> pa.Schema:
        """The columns with their types (a column with no value is text)."""
        return pa.schema(
            [
                pa.field(name, self._final(kind, largest).arrow_type())
                for name, kind, largest in zip(names, self._kinds, self._largest, strict=True)
            ]
        )

    @staticmethod
    def _final(kind: Kind, largest: float) -> Kind:
        if kind is Kind.DOUBLE and largest >= BEYOND_LONG:
            return Kind.TEXT  # as a small content's double column holding such a value
        return kind
