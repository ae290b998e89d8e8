"""Records' serialized form: the text each record was read from, carried beside its batch.

NiFi's JsonTreeReader gives every record the text of the JSON object it was read from
(its ``SerializedForm``), and JsonRecordSetWriter writes that text as it is, rather than
field by field, when the record's schema is the writer's. So records that pass through a
processor unchanged keep their own shape: a field a record did not have stays absent, a
``3`` in a double field stays ``3``, each record keeps its order of fields.

An Arrow batch has no room for this, so a reader attaches the texts to the batch object
(``attach``) and code that cuts batches carries them over (``sliced``, ``taken``,
``filtered``); a
batch made any other way (records changed or made anew) has none, as a changed record in
NiFi loses its serialized form. A writer asks ``forms_of`` for the batch it is given.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

import pyarrow as pa


class SerializedForms:
    """The serialized form of each row of a batch, in the format ``mime_type``; the texts
    are made on first use when given as a function (a reader pays nothing for them when
    no writer asks)."""

    __slots__ = ("_make", "_texts", "mime_type")

    def __init__(self, mime_type: str, texts: pa.Array | Callable[[], pa.Array | None]) -> None:
        self.mime_type = mime_type
        self._texts: pa.Array | None = None
        self._make: Callable[[], pa.Array | None] | None = None
        if isinstance(texts, pa.Array):
            self._texts = texts
        else:
            self._make = texts

    @property
    def texts(self) -> pa.Array | None:
        """One text per row (a string array; null where a row has none), or None when
        they turned out not to be known."""
        if self._make is not None:
            self._texts, self._make = self._make(), None
        return self._texts

    @property
    def made(self) -> pa.Array | None:
        """The texts if they are made already (None when still to be made, or unknown)."""
        return self._texts if self._make is None else None

    def part(self, start: int, length: int) -> SerializedForms:
        """The forms of rows ``start`` to ``start + length`` (made when used)."""

        def make() -> pa.Array | None:
            texts = self.texts
            return None if texts is None else texts.slice(start, length)

        return SerializedForms(self.mime_type, make)


_ATTACHED: dict[int, SerializedForms] = {}
"""id(batch) -> its forms; an entry leaves with its batch (``weakref.finalize``)."""


def attach(batch: pa.RecordBatch, forms: SerializedForms) -> pa.RecordBatch:
    """``batch``, now carrying ``forms`` (one per row)."""
    made = forms.made
    if made is not None and len(made) != batch.num_rows:
        msg = f"{len(made)} serialized forms for a batch of {batch.num_rows} rows"
        raise ValueError(msg)
    key = id(batch)
    if key not in _ATTACHED:
        weakref.finalize(batch, _ATTACHED.pop, key, None)
    _ATTACHED[key] = forms
    return batch


def forms_of(batch: pa.RecordBatch) -> SerializedForms | None:
    """The forms ``batch`` carries, if any."""
    return _ATTACHED.get(id(batch))


def sliced(batch: pa.RecordBatch, start: int, length: int | None = None) -> pa.RecordBatch:
    """``batch.slice(start, length)``, carrying the rows' forms."""
    part = batch.slice(start, length)
    forms = _ATTACHED.get(id(batch))
    if forms is not None and part.num_rows:
        attach(part, forms.part(start, part.num_rows))
    return part


def taken(batch: pa.RecordBatch, indices: pa.Array) -> pa.RecordBatch:
    """``batch.take(indices)``, carrying the rows' forms."""
    return _selected(batch, batch.take(indices), lambda texts: texts.take(indices))


def filtered(batch: pa.RecordBatch, mask: pa.Array) -> pa.RecordBatch:
    """``batch.filter(mask)``, carrying the rows' forms."""
    return _selected(batch, batch.filter(mask), lambda texts: texts.filter(mask))


def _selected(
    batch: pa.RecordBatch, part: pa.RecordBatch, select: Callable[[pa.Array], pa.Array]
) -> pa.RecordBatch:
    """``part``, rows chosen from ``batch``, with the forms of those rows (``select``)."""
    forms = _ATTACHED.get(id(batch))
    if forms is not None and part.num_rows:
        texts = forms.texts
        if texts is not None:
            attach(part, SerializedForms(forms.mime_type, select(texts)))
    return part


def combined(batches: Sequence[pa.RecordBatch], mime_type: str) -> pa.Array | None:
    """The forms in ``mime_type`` of the rows of ``batches`` one after another (null for
    the rows of a batch without), or None when no batch has any."""
    parts: list[pa.Array | None] = []
    for batch in batches:
        forms = _ATTACHED.get(id(batch))
        texts = forms.texts if forms is not None and forms.mime_type == mime_type else None
        parts.append(texts)
    if all(texts is None for texts in parts):
        return None
    arrays = [
        pa.nulls(batch.num_rows, pa.string())
        if texts is None
        else texts
        if texts.type == pa.string()
        else texts.cast(pa.string())
        for batch, texts in zip(batches, parts, strict=True)
    ]
    return arrays[0] if len(arrays) == 1 else pa.concat_arrays(arrays)
