"""NiFi's RecordPath, compiled once and evaluated on Arrow record batches.

``compile_record_path(text)`` parses the whole language of NiFi's RecordPath guide (see
docs/record-path.md): child, descendant, wildcard, parent and current steps, array
indexes, ranges and lists, map keys, predicates, standalone and filter functions.

Evaluation has two forms. Whole columns at once with Arrow compute where the path allows
it (``arrow.py``: child paths, comparisons with literals, some string functions):
``RecordPath.evaluate(batch)`` gives one value per record. Anything else is
evaluated in Python on each record (a dictionary from the Arrow row) and gives the
FieldValues a processor may read or update (``RecordPath.select``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from flowcore.processor import ValidationResult
from processors.record.temporal_text import epoch_millis
from processors.record_processors.record_path.arrow import Fallback, Vector, compile_vector
from processors.record_processors.record_path.evaluate import Context, evaluate
from processors.record_processors.record_path.functions import check_call
from processors.record_processors.record_path.parser import (
    Call,
    Compare,
    Expr,
    Filter,
    Path,
    RecordPathError,
    parse,
)
from processors.record_processors.record_path.values import (
    FieldValue,
    JsonMap,
    to_text,
    type_name,
)

__all__ = [
    "FieldValue",
    "JsonMap",
    "RecordPath",
    "RecordPathError",
    "compile_record_path",
    "record_path_validator",
    "records_of",
    "root_of",
    "to_text",
    "type_name",
]


_CACHED_PATHS = 256
"""Compiled RecordPaths kept (a RecordPath and its Arrow evaluation are immutable)."""


@dataclass(frozen=True, slots=True)
class RecordPath:
    """A compiled RecordPath."""

    text: str
    expr: Expr
    vector: Vector | None
    """Arrow evaluation of the whole batch, when the path allows it."""

    @property
    def is_absolute(self) -> bool:
        """Whether the path starts at the root (``/``) rather than the context (``.``)."""
        return not _relative(self.expr)

    def select(self, root: FieldValue, context: FieldValue | None = None) -> list[FieldValue]:
        """The FieldValues selected in the record ``root`` (``.`` is ``context``)."""
        return evaluate(self.expr, Context(root, context or root))

    def evaluate(self, batch: pa.RecordBatch) -> pa.Array | None:
        """The first selected value of every record (null when none), or None when a
        vectorised path names a field that is not in the schema."""
        if self.vector is not None:
            try:
                return self.vector(batch)
            except Fallback:
                pass
        values = [
            (self.select(root) or [FieldValue(None, "")])[0].value for root in roots_of(batch)
        ]
        try:
            return pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return pa.array([to_text(v) for v in values], pa.string())

    def partition_keys(self, batch: pa.RecordBatch) -> tuple[pa.Array, pa.Array]:
        """Per record: a key equal for records whose selections are equal, and the
        attribute value (the selected value as text when it is one scalar, else null)."""
        if self.vector is not None:
            try:
                values = self.vector(batch)
            except Fallback:
                values = None
            if values is not None and not pa.types.is_nested(values.type):
                return values, _texts(values)
        keys: list[str] = []
        texts: list[str | None] = []
        for root in roots_of(batch):
            selected = [v.value for v in self.select(root)]
            keys.append(json.dumps(selected, default=repr, sort_keys=True))
            single = selected[0] if len(selected) == 1 else None
            scalar = not isinstance(single, dict | list | bytes | bytearray)
            texts.append(to_text(single) if scalar else None)
        return pa.array(keys, pa.string()), pa.array(texts, pa.string())


def _texts(values: pa.Array) -> pa.Array:
    """A column as ``DataTypeUtils.toString(value, null)`` gives each value: a date, time
    or timestamp as its epoch milliseconds, a double as ``Double.toString``."""
    kind = values.type
    if pa.types.is_date(kind) or pa.types.is_time(kind) or pa.types.is_timestamp(kind):
        return epoch_millis(values)[0].cast(pa.string())
    if pa.types.is_floating(kind):
        return pa.array([to_text(value) for value in values.to_pylist()], pa.string())
    return pc.cast(values, pa.string())


def root_of(record: dict[str, Any], schema: pa.Schema | None = None) -> FieldValue:
    """The root FieldValue of a record (its Arrow type taken from ``schema``)."""
    dtype = pa.struct(list(schema)) if schema is not None else None
    return FieldValue(record, "root", dtype=dtype)


def records_of(batch: pa.RecordBatch | pa.Table) -> list[dict[str, Any]]:
    """A batch's records as dictionaries (maps as dictionaries too)."""
    records: list[dict[str, Any]] = batch.to_pylist(maps_as_pydicts="strict")
    return records


def roots_of(batch: pa.RecordBatch) -> Iterator[FieldValue]:
    dtype = pa.struct(list(batch.schema))
    for record in records_of(batch):
        yield FieldValue(record, "root", dtype=dtype)


def _relative(expr: Expr) -> bool:
    """Whether the value depends on the context (a relative path outside predicates)."""
    if isinstance(expr, Path):
        return _relative(expr.start) if expr.start is not None else not expr.absolute
    if isinstance(expr, Call):
        return any(_relative(arg) for arg in expr.args)
    if isinstance(expr, Compare):
        return _relative(expr.left) or _relative(expr.right)
    return False


def _check(expr: Expr) -> None:
    """Validate every function call of the tree (name and number of arguments)."""
    if isinstance(expr, Call):
        check_call(expr)
        for arg in expr.args:
            _check(arg)
    elif isinstance(expr, Compare):
        _check(expr.left)
        _check(expr.right)
    elif isinstance(expr, Path):
        if expr.start is not None:
            _check(expr.start)
        for step in expr.steps:
            if isinstance(step, Filter):
                _check_predicate(step.predicate)
                _check(step.predicate)


FILTER_FUNCTIONS = frozenset(
    {
        "not",
        "isEmpty",
        "isBlank",
        "contains",
        "containsRegex",
        "matchesRegex",
        "startsWith",
        "endsWith",
    }
)
"""Functions that give a boolean, usable as a whole predicate."""


def _check_predicate(predicate: Expr) -> None:
    """A predicate is a comparison, a filter function or a path (NiFi: ``[./flag]``)."""
    if isinstance(predicate, Call) and predicate.name not in FILTER_FUNCTIONS:
        msg = (
            f"{predicate.name} is not a filter function: it can be used in a predicate only "
            "as part of a comparison"
        )
        raise RecordPathError(msg)
    if isinstance(predicate, Call) and predicate.name == "not":
        for arg in predicate.args:
            _check_predicate(arg)


def compile_record_path(text: str) -> RecordPath:
    """Compile ``text`` or raise ``RecordPathError`` saying why not.

    Compiled paths are cached, as NiFi's RecordPathCache does: a processor whose paths
    come from Expression Language compiles them per FlowFile, mostly to the same text."""
    return _compiled(text.strip())


@functools.lru_cache(maxsize=_CACHED_PATHS)
def _compiled(stripped: str) -> RecordPath:
    expr = parse(stripped)
    _check(expr)
    return RecordPath(stripped, expr, compile_vector(expr))


def record_path_validator(subject: str, value: str) -> ValidationResult:
    """NiFi's RecordPathValidator message: ``Invalid RecordPath: <reason>``."""
    if "${" in value:
        return ValidationResult(subject, True, value, "Expression Language is present")
    try:
        compile_record_path(value)
    except RecordPathError as exc:
        return ValidationResult(subject, False, value, f"Invalid RecordPath: {exc}")
    return ValidationResult(subject, True, value, "")
