"""Writing records changed in Python (UpdateRecord, LookupRecord) back through a writer.

Records are dictionaries (``record_path.records_of``). ``to_batch`` turns them back into
Arrow with the types of a hint schema where the values allow it: a field set to the text
``"42"`` keeps its ``int64`` type, a field set to ``"abc"`` becomes a string; a new field
takes the type Arrow infers. The writer's schema is fixed by the first batch, as NiFi
fixes it from the first record; later batches are cast to it.

A value of another type set in a text field is what NiFi's ``MapRecord.setValue`` makes
of it. A record read by a type-checking reader (NiFi's CSV readers: ``checkTypes``)
converts it to the field's type, so it becomes ``DataTypeUtils.toString``'s text (a
timestamp its epoch milliseconds, a double ``3.0``). Other readers' records keep the value
and widen the field to a CHOICE, and the writer then writes the value as its own type (a
timestamp with the writer's Timestamp Format, a number as a number): here the field takes
the values' type when they all share one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from processors.record.api import (
    BinarySink,
    RecordSetWriter,
    RecordSetWriterFactory,
    WriteResult,
)
from processors.record.avro_union import build_array, has_union
from processors.record.serialized import SerializedForms, attach, forms_of
from processors.record_processors.record_path import JsonMap, to_text

_CONVERSION_ERRORS = (
    pa.ArrowInvalid,
    pa.ArrowTypeError,
    pa.ArrowNotImplementedError,
    OverflowError,
)


def _fits(value: Any, hint: pa.DataType) -> bool:
    """Whether no record in ``value`` has a field the struct type ``hint`` lacks (Arrow
    would drop it silently), and no Map stands where ``hint`` wants a record."""
    if isinstance(value, JsonMap) and pa.types.is_struct(hint):
        return False
    if isinstance(value, dict) and pa.types.is_struct(hint):
        names = {hint.field(i).name: hint.field(i).type for i in range(hint.num_fields)}
        return all(key in names and _fits(item, names[key]) for key, item in value.items())
    if isinstance(value, list) and pa.types.is_list(hint):
        return all(_fits(item, hint.value_type) for item in value)
    return True


def _coerced(value: Any, hint: pa.DataType) -> Any:
    """``value`` with the text inside it made numbers or booleans where ``hint`` (a nested
    type) wants them, as NiFi's writers convert a field's value to its schema's type (an
    array element UpdateRecord set to "8" is the int 8); anything else is left as it is."""
    if isinstance(value, list) and (pa.types.is_list(hint) or pa.types.is_large_list(hint)):
        return [_coerced(item, hint.value_type) for item in value]
    if isinstance(value, dict) and pa.types.is_struct(hint):
        types = {hint.field(i).name: hint.field(i).type for i in range(hint.num_fields)}
        return {
            key: _coerced(item, types[key]) if key in types else item for key, item in value.items()
        }
    if isinstance(value, str):
        if pa.types.is_integer(hint) and _WHOLE.fullmatch(value):
            return int(value)
        if pa.types.is_floating(hint) and _DECIMAL.fullmatch(value):
            return float(value)
        if pa.types.is_boolean(hint) and value.lower() in ("true", "false"):
            return value.lower() == "true"
    return value


_WHOLE = re.compile(r"[-+]?[0-9]+")
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _map_aware_type(values: list[Any]) -> pa.DataType | None:
    """The Arrow type of values holding Maps (``JsonMap``): each Map an Arrow map, so no
    writer takes it for a record; None (Arrow infers) when there is none."""
    if not any(_holds_map(v) for v in values):
        return None
    return _common_type([_type_of(v) for v in values])


def _holds_map(value: Any) -> bool:
    if isinstance(value, JsonMap):
        return True
    if isinstance(value, dict):
        return any(_holds_map(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_map(item) for item in value)
    return False


def _type_of(value: Any) -> pa.DataType | None:
    if value is None:
        return None
    if isinstance(value, JsonMap):
        return pa.map_(pa.string(), _common_type([_type_of(v) for v in value.values()]))
    if isinstance(value, dict):
        return pa.struct([(key, _type_of(item) or pa.null()) for key, item in value.items()])
    if isinstance(value, list):
        return pa.list_(_common_type([_type_of(v) for v in value]))
    return pa.array([value]).type


def _common_type(types: list[pa.DataType | None]) -> pa.DataType:
    """The one type of ``types`` (nulls aside); several: Arrow's error, as inference's."""
    found = {t for t in types if t is not None and not pa.types.is_null(t)}
    if not found:
        return pa.null()
    if len(found) > 1:
        msg = f"values of several types: {sorted(map(str, found))}"
        raise pa.ArrowInvalid(msg)
    return found.pop()


def _column(values: list[Any], hint: pa.DataType | None, typed: bool = False) -> pa.Array:
    if hint is not None and (pa.types.is_string(hint) or pa.types.is_large_string(hint)):
        if typed:
            values = [_scalar_text(value) for value in values]
        else:
            own = _own_type(values)
            if own is not None:
                return own
    if hint is not None and pa.types.is_nested(hint) and not all(_fits(v, hint) for v in values):
        hint = None
    if hint is not None:
        try:
            if has_union(hint):  # each value to the union's child of its own kind
                return build_array(values, hint)
            return pa.array(values, type=hint)
        except (*_CONVERSION_ERRORS, ValueError):
            pass
        if pa.types.is_nested(hint):
            try:  # text set into a list's elements or a record's fields: of their types
                return pa.array([_coerced(v, hint) for v in values], type=hint)
            except _CONVERSION_ERRORS:
                pass
    try:
        inferred = pa.array(values, type=_map_aware_type(values))
    except _CONVERSION_ERRORS:
        inferred = pa.array([to_text(v) for v in values], pa.string())
    if hint is not None and inferred.type != hint:
        try:
            return inferred.cast(hint)
        except _CONVERSION_ERRORS:
            return inferred
    if pa.types.is_null(inferred.type):
        return inferred.cast(pa.string())
    return inferred


def _scalar_text(value: Any) -> Any:
    """A scalar that is not text as ``DataTypeUtils.toString`` gives it; others as they are."""
    if value is None or isinstance(value, str | dict | list):
        return value
    return to_text(value)


def _own_type(values: list[Any]) -> pa.Array | None:
    """The values as their own Arrow type when they all share one that is not text."""
    if all(value is None or isinstance(value, str) for value in values):
        return None
    try:
        array = pa.array(values)
    except _CONVERSION_ERRORS:
        return None
    if pa.types.is_string(array.type) or pa.types.is_null(array.type):
        return None
    return array


def to_batch(records: list[dict[str, Any]], hint: pa.Schema, typed: bool = False) -> pa.RecordBatch:
    """Records as a batch: the hint's fields first (in order), then new fields; a hint
    field that no record has (the whole record was replaced) is left out. ``typed``:
    the records came from a type-checking reader (see the module's docstring)."""
    present: dict[str, None] = {}
    for record in records:
        present.update(dict.fromkeys(record))
    names = [name for name in hint.names if name in present]
    names += [name for name in present if hint.get_field_index(name) < 0]
    arrays = []
    for name in names:
        index = hint.get_field_index(name)
        arrays.append(
            _column(
                [r.get(name) for r in records],
                hint.field(index).type if index >= 0 else None,
                typed,
            )
        )
    return pa.RecordBatch.from_arrays(arrays, names=names)


class RecordSink:
    """One record set: a writer opened on the first batch, with that batch's schema."""

    def __init__(
        self,
        writers: RecordSetWriterFactory,
        sink: BinarySink,
        attributes: Mapping[str, str],
        read_schema: pa.Schema,
        typed: bool = False,
    ) -> None:
        self._writers = writers
        self._typed = typed
        self._sink = sink
        self._attributes = attributes
        self._read_schema = read_schema
        self._writer: RecordSetWriter | None = None
        self._schema: pa.Schema | None = None

    def write(self, records: list[dict[str, Any]], source: pa.RecordBatch | None = None) -> None:
        """Write ``records``; with ``source`` (the batch they were read as, row for row),
        a record equal to its source row keeps that row's serialized form
        (``unchanged_forms``)."""
        if not records:
            return
        batch = to_batch(records, self._schema or self._read_schema, self._typed)
        if source is not None:
            unchanged_forms(batch, source)
        if self._writer is None:
            self._schema = batch.schema
            schema = self._writers.writer_schema(batch.schema, self._attributes)
            self._writer = self._writers.create_writer(schema, self._sink, self._attributes)
        elif self._schema is not None and batch.schema != self._schema:
            batch = batch.select(self._schema.names).cast(self._schema)
        self._writer.write_batch(batch)

    def finish(self) -> WriteResult:
        if self._writer is None:
            schema = self._writers.writer_schema(self._read_schema, self._attributes)
            self._writer = self._writers.create_writer(schema, self._sink, self._attributes)
        return self._writer.finish()

    def abort(self) -> None:
        if self._writer is not None:
            self._writer.abort()


def unchanged_forms(batch: pa.RecordBatch, source: pa.RecordBatch) -> None:
    """Give ``batch`` the serialized forms of ``source``'s rows that it holds unchanged.

    NiFi's ``MapRecord`` drops a record's serialized form only when a value set on it
    differs from the one it held (``Objects.equals``, after conversion to the field's
    type), so the writer still writes the text of a record that an update left as it was;
    here the rows are compared as converted (same schema, value for value). A batch whose
    schema is not its source's (a field added or retyped) gets none, as NiFi's writer
    writes every record field by field when the schema is not its own."""
    forms = forms_of(source)
    if forms is None or not batch.schema.equals(source.schema):
        return
    texts = forms.texts
    if texts is None:
        return
    before = source.to_pylist()
    after = batch.to_pylist()
    kept = pa.array(
        [
            text if old == new else None
            for text, old, new in zip(texts.to_pylist(), before, after, strict=True)
        ],
        pa.string(),
    )
    attach(batch, SerializedForms(forms.mime_type, kept))
