"""JSON records written from their serialized form, as NiFi's JsonRecordSetWriter does.

NiFi keeps the text of the JSON object each record was read from (Jackson's compact text
of the parsed object: no whitespace, numbers as parsed, strings escaped as Jackson
escapes them) and writes it as it is when the record's schema is the writer's, unless it
holds scientific notation and Allow Scientific Notation is false (Jackson writes a double
below 1e-3 or from 1e7 up as ``1.0E-4``, ``1.2345678E7``): that record is written field
by field. Fields the schema does not know were removed from the object while it was read.

``with_serialized_forms`` applies this to rendered records: a record whose form is
already its rendering (compact input, the common case) costs one comparison; the others
are parsed and written again here, one at a time.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from processors.record._common import temporal_as_text
from processors.record.json_numbers import java_text

JSON_MIME_TYPE = "application/json"
_DECODE = msgspec.json.Decoder()
_ENCODE = msgspec.json.Encoder()
_LOWER_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*)\\u00([01][0-9a-f])")
"""A ``\\u00xx`` escape (not an escaped backslash followed by ``u00xx``) in lower case."""
_SAME_LINE = re.compile(rb"\}[ \t\r]*\{")
"""Two objects on one line (or a ``}{`` in a text, which is taken as the same)."""
_NEWLINE, _OPEN, _CLOSE = ord("\n"), ord("{"), ord("}")
_QUOTE, _BACKSLASH, _SPACE, _TAB, _RETURN = ord('"'), ord("\\"), ord(" "), ord("\t"), ord("\r")
_PLAIN_FROM, _PLAIN_TO = 1e-3, 1e7
"""Java's Double.toString writes a double outside [1e-3, 1e7) with an exponent."""


class LineTexts(NamedTuple):
    """The texts of the first lines of a buffer of JSON lines."""

    texts: pa.Array
    """Each non-blank line, without its surrounding whitespace (a string array)."""
    used: int
    """Bytes up to and including the newline of the last line taken."""


def line_texts(
    buffer: bytes, limit: int | None = None, *, one_per_line: bool = False
) -> LineTexts | None:
    """The first ``limit`` (or all) non-blank complete lines of ``buffer``, or None unless
    each of them is one object: it begins with ``{``, ends with ``}`` and has no ``}`` and
    ``{`` with only blanks between (which could be two objects on one line; not searched
    for when the caller knows there is one object per line). Then the lines are the
    records a JSON-lines parser reads, in order."""
    data = np.frombuffer(buffer, dtype=np.uint8)
    ends = np.flatnonzero(data == _NEWLINE)
    if not len(ends):
        return LineTexts(pa.array([], pa.string()), 0) if not limit else None
    starts = np.concatenate((np.zeros(1, np.int64), ends[:-1] + 1))
    shaped = (data[starts] == _OPEN) & (data[np.maximum(ends - 1, 0)] == _CLOSE) & (ends > starts)
    trimmed = False
    if not shaped.all():
        keep = shaped.copy()
        for index in np.flatnonzero(~shaped):
            line = buffer[starts[index] : ends[index]].strip()
            if line and not (line.startswith(b"{") and line.endswith(b"}")):
                return None
            keep[index] = bool(line)
        starts, ends, trimmed = starts[keep], ends[keep], True
    if limit is not None:
        if len(starts) < limit:
            return None
        starts, ends = starts[:limit], ends[:limit]
    if not len(starts):
        return LineTexts(pa.array([], pa.string()), 0)
    used = int(ends[-1]) + 1
    if not one_per_line and _SAME_LINE.search(buffer, 0, used):
        return None
    offsets = np.append(starts, ends[-1]).astype(np.int32)
    texts = pa.Array.from_buffers(
        pa.string(), len(starts), [None, pa.py_buffer(offsets), pa.py_buffer(buffer)]
    )
    texts = pc.utf8_trim_whitespace(texts) if trimmed else pc.utf8_rtrim_whitespace(texts)
    return LineTexts(texts, used)


def _upper_escape(match: re.Match[bytes]) -> bytes:
    return match.group(1) + b"\\u00" + match.group(2).upper()


def _scientific(value: Any) -> bool:
    """Whether Jackson would write some double of ``value`` with an exponent."""
    kind = type(value)
    if kind is float:
        size = abs(value)
        return size != 0.0 and not _PLAIN_FROM <= size < _PLAIN_TO
    if kind is dict:
        return any(_scientific(item) for item in value.values())
    if kind is list:
        return any(_scientific(item) for item in value)
    return False


def _known(value: Any, kind: pa.DataType | pa.Schema) -> Any:
    """``value`` without the object members the schema does not know (at every level the
    schema describes), as NiFi's reader removes them from the object it keeps."""
    if isinstance(value, dict):
        if isinstance(kind, pa.Schema):
            fields = {field.name: field.type for field in kind}
        elif pa.types.is_struct(kind):
            fields = {kind.field(i).name: kind.field(i).type for i in range(kind.num_fields)}
        else:
            return value
        return {key: _known(item, fields[key]) for key, item in value.items() if key in fields}
    if isinstance(value, list) and (
        pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)
    ):
        return [_known(item, kind.value_type) for item in value]
    return value


def _java_double(text: str) -> msgspec.Raw:
    """A JSON double as Jackson writes the double it reads (``Double.toString``)."""
    return msgspec.Raw(java_text(float(text), single=False, scientific=True).encode())


_DECODE_JAVA = msgspec.json.Decoder(float_hook=_java_double)


def jackson_text(text: str | bytes, schema: pa.Schema, scientific: bool = False) -> str | None:
    """The text NiFi writes for a record read from the JSON ``text`` with ``schema``, or
    None when it writes that record field by field (scientific notation while
    ``scientific`` is not allowed, or a text this cannot read back). With it allowed,
    each double is written as Jackson writes it (``1.0E-4``)."""
    try:
        value = (_DECODE_JAVA if scientific else _DECODE).decode(text)
    except (msgspec.DecodeError, ValueError):
        return None
    if not isinstance(value, dict) or (not scientific and _scientific(value)):
        return None
    written = _ENCODE.encode(_known(value, schema))
    if b"\\u00" in written:  # msgspec escapes control characters in lower case
        written = _LOWER_ESCAPE.sub(_upper_escape, written)
    return written.decode()


def _compacted(texts: pa.Array) -> pa.Array:
    """``texts`` (JSON values) without the blanks between their tokens, found for all
    texts at once (numpy): a blank is outside quotes when an even number of quotes comes
    before it. A text with a backslash is left as it is (an escaped quote would need its
    own care; those go the slow way)."""
    texts = texts.cast(pa.string()).fill_null("")
    if not len(texts):
        return texts
    buffers = texts.buffers()
    start = texts.offset
    offsets = np.frombuffer(buffers[1], dtype=np.int32)[start : start + len(texts) + 1]
    first = int(offsets[0])
    data = np.frombuffer(buffers[2], dtype=np.uint8)[first : int(offsets[-1])]
    bounds = (offsets - first).astype(np.int64)
    blanks = np.flatnonzero(
        (data == _SPACE) | (data == _NEWLINE) | (data == _TAB) | (data == _RETURN)
    )
    if not len(blanks):
        return texts
    quotes = np.flatnonzero(data == _QUOTE)
    escapes = np.flatnonzero(data == _BACKSLASH)
    if len(escapes):  # leave out the texts holding one: their quotes and blanks
        kept_rows = np.unique(np.searchsorted(bounds, escapes, side="right") - 1)
        quotes = quotes[~np.isin(np.searchsorted(bounds, quotes, side="right") - 1, kept_rows)]
        blanks = blanks[~np.isin(np.searchsorted(bounds, blanks, side="right") - 1, kept_rows)]
    dropped = blanks[(np.searchsorted(quotes, blanks) & 1) == 0]
    if not len(dropped):
        return texts
    kept = np.delete(data, dropped)
    new_offsets = (bounds - np.searchsorted(dropped, bounds)).astype(np.int32)
    return pa.Array.from_buffers(
        pa.string(),
        len(texts),
        [None, pa.py_buffer(new_offsets), pa.py_buffer(kept.tobytes())],
    )


def _joined(texts: pa.Array) -> bytes:
    """The values of a string array without nulls, one after another."""
    texts = texts.cast(pa.string())
    if not len(texts):
        return b""
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int32)
    first, last = int(offsets[texts.offset]), int(offsets[texts.offset + len(texts)])
    return bytes(memoryview(texts.buffers()[2])[first:last])


_BLANKS = b" \t\r\n"


def with_serialized_forms(
    rendered: pa.Array, forms: pa.Array, schema: pa.Schema, scientific: bool = False
) -> pa.Array:
    """The records' texts (``rendered``: ``{...}`` each, field by field) with each record
    that has a serialized form (``forms``, null where none) written from it instead.

    A form equal to the rendering, or equal once the blanks between its tokens are
    removed, is the rendering; only the others are read and written again one by one.
    First, for all the differing records at once: when their forms and renderings, each
    joined and rid of every blank, are the same bytes, each form is its rendering (both
    are a run of whole objects with the same values, so the same text but for blanks
    splits into the same objects, and a blank inside a text is in both: both hold the
    same texts, unless the writer formats dates or times, which are then compared the
    exact way)."""
    same = pc.fill_null(pc.equal(rendered, forms), True)
    if pc.all(same).as_py():
        return rendered
    positions = np.flatnonzero(~same.to_numpy(zero_copy_only=False))
    everyone = len(positions) == len(rendered)
    texts = forms if everyone else forms.take(positions)
    mine = rendered if everyone else rendered.take(positions)
    if temporal_as_text(schema) is None and (
        _joined(texts).translate(None, _BLANKS) == _joined(mine).translate(None, _BLANKS)
    ):
        return rendered
    texts = _compacted(texts)
    same = pc.fill_null(pc.equal(mine, texts), True)
    differ = ~same.to_numpy(zero_copy_only=False)
    if not differ.any():
        return rendered
    positions, texts = positions[differ], texts.filter(pa.array(differ))
    replaced: list[int] = []
    written_texts: list[str] = []
    for position, text in zip(positions, texts.to_pylist(), strict=True):
        written = jackson_text(text, schema, scientific)
        if written is not None:
            replaced.append(int(position))
            written_texts.append(written)
    if not replaced:
        return rendered
    mask = np.zeros(len(rendered), dtype=bool)
    mask[replaced] = True
    return pc.replace_with_mask(rendered, pa.array(mask), pa.array(written_texts, rendered.type))
