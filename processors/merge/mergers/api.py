"""The record merger API, after Hudi RFC-101: a merger takes two BufferedRecords, gives one.

A merger never answers "nothing": a key that must disappear comes back as a record whose
operation is DELETE (data kept where there is some, ordering value set). The rules are in
``docs/record-mergers.md``.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from enum import Enum, StrEnum
from typing import Any, Final

import pyarrow as pa


class HoodieOperation(Enum):
    """Hudi's row operation; UPDATE_BEFORE counts as a delete (``isDelete``)."""

    INSERT = "I"
    UPDATE_BEFORE = "-U"
    UPDATE_AFTER = "U"
    DELETE = "D"

    @classmethod
    def from_code(cls, code: object) -> HoodieOperation | None:
        """The operation for a code ``I``, ``-U``, ``U``, ``D``; None for anything else."""
        if isinstance(code, str):
            for member in cls:
                if member.value == code:
                    return member
        return None

    @property
    def is_delete(self) -> bool:
        return self is HoodieOperation.DELETE or self is HoodieOperation.UPDATE_BEFORE


class RecordMergeMode(StrEnum):
    """How the winner for a key is chosen (Hudi's ``RecordMergeMode``)."""

    COMMIT_TIME_ORDERING = "COMMIT_TIME_ORDERING"
    EVENT_TIME_ORDERING = "EVENT_TIME_ORDERING"
    CUSTOM = "CUSTOM"


class PartialUpdateMode(StrEnum):
    """Which fields of the winning record may be filled from the losing one (spec 2.4)."""

    NONE = "NONE"
    KEEP_VALUES = "KEEP_VALUES"
    FILL_DEFAULTS = "FILL_DEFAULTS"
    IGNORE_DEFAULTS = "IGNORE_DEFAULTS"
    IGNORE_MARKERS = "IGNORE_MARKERS"


# -- ordering values ----------------------------------------------------------------------


class _DefaultOrdering(int):
    """Hudi's ``DEFAULT_ORDERING_VALUE`` (Java ``Integer 0``): an int 0 known by identity."""

    _instance: _DefaultOrdering | None = None

    def __new__(cls) -> _DefaultOrdering:
        if cls._instance is None:
            cls._instance = super().__new__(cls, 0)
        return cls._instance

    def __repr__(self) -> str:
        return "DEFAULT_ORDERING_VALUE"

    def __reduce__(self) -> str:
        return "DEFAULT_ORDERING_VALUE"  # unpickles to the module's singleton


DEFAULT_ORDERING_VALUE: Final = _DefaultOrdering()
"""The ordering value of a record without one: no ordering field, or all of them null."""

OrderingValue = Any
"""An ordering field's value, a tuple of them (several fields), or DEFAULT_ORDERING_VALUE."""


def is_default_ordering(value: object) -> bool:
    """True for the default ordering value (commit-time ordering)."""
    return value is DEFAULT_ORDERING_VALUE


def _is_numeric(value: object) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def _sign(difference: bool, less: bool) -> int:
    return 0 if not difference else (-1 if less else 1)


def _compare_scalar(a: Any, b: Any) -> int:
    a_default, b_default = a is DEFAULT_ORDERING_VALUE, b is DEFAULT_ORDERING_VALUE
    if a_default and b_default:
        return 0
    if a_default or b_default:
        other = b if a_default else a
        # The default compares as the number 0 with numbers, and sorts before the rest.
        result = _compare_scalar(0, other) if _is_numeric(other) else -1
        return result if a_default else -result
    if isinstance(a, float) or isinstance(b, float):
        a_nan = isinstance(a, float) and math.isnan(a)
        b_nan = isinstance(b, float) and math.isnan(b)
        if a_nan or b_nan:  # NaN is the greatest value (Java's Double.compare, DuckDB)
            return _sign(a_nan != b_nan, b_nan)
    return _sign(bool(a != b), bool(a < b))


def compare_ordering(a: OrderingValue, b: OrderingValue) -> int:
    """Compare two ordering values: -1, 0 or 1.

    Tuples (several ordering fields) compare element by element. The default value
    compares as 0 with numbers and sorts before every other value (strings, booleans,
    dates, tuples...); Hudi would throw a ClassCastException there.
    """
    a_tuple, b_tuple = isinstance(a, tuple), isinstance(b, tuple)
    if a_tuple and b_tuple:
        for x, y in zip(a, b, strict=False):
            result = _compare_scalar(x, y)
            if result:
                return result
        return _sign(len(a) != len(b), len(a) < len(b))
    if a_tuple or b_tuple:
        if a is DEFAULT_ORDERING_VALUE:
            return -1
        if b is DEFAULT_ORDERING_VALUE:
            return 1
        msg = f"cannot compare ordering values {a!r} and {b!r}"
        raise TypeError(msg)
    return _compare_scalar(a, b)


# -- records ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BufferedRecord:
    """One version of a record: key, ordering value, schema id, operation and data.

    ``data`` holds exactly the fields of the record's schema (``schema_id``): a field not
    in ``data`` is *absent*, which is not the same as present and null. None means a
    data-less record (a delete made by ``create_delete``).
    """

    record_key: str
    ordering_value: OrderingValue
    schema_id: int | None
    operation: HoodieOperation | None
    data: Mapping[str, Any] | None

    @property
    def is_delete(self) -> bool:
        """DELETE or UPDATE_BEFORE."""
        return self.operation is not None and self.operation.is_delete

    @property
    def is_empty(self) -> bool:
        return self.data is None

    @property
    def is_commit_time_ordering_delete(self) -> bool:
        """A delete without an ordering value: it always wins, anything later overrides it."""
        return self.is_delete and self.ordering_value is DEFAULT_ORDERING_VALUE

    def as_delete(self) -> BufferedRecord:
        """This record marked as a delete (UPDATE_BEFORE stays, anything else is DELETE)."""
        if self.is_delete:
            return self
        return replace(self, operation=HoodieOperation.DELETE)

    @staticmethod
    def create_delete(
        record_key: str, ordering_value: OrderingValue = DEFAULT_ORDERING_VALUE
    ) -> BufferedRecord:
        """A data-less delete (``BufferedRecords.createDelete``)."""
        return BufferedRecord(record_key, ordering_value, None, HoodieOperation.DELETE, None)


def infer_operation(is_delete: bool, operation: HoodieOperation | None) -> HoodieOperation | None:
    """``BufferedRecords.inferOperation``: a delete keeps UPDATE_BEFORE, else is DELETE."""
    if is_delete:
        if operation is HoodieOperation.UPDATE_BEFORE:
            return operation
        return HoodieOperation.DELETE
    return operation


# -- context ------------------------------------------------------------------------------

AVRO_DEFAULT_METADATA = b"avro.default"
"""Arrow field metadata key a reader may use to expose an Avro default (JSON text)."""


@dataclass(frozen=True, slots=True)
class MergeContext:
    """What a merger may know besides the two records (Hudi's RecordContext and props).

    ``reader_schema`` is the union of the bin's schemas (fields in first-appearance order).
    """

    reader_schema: pa.Schema
    key_fields: tuple[str, ...] = ()
    ordering_fields: tuple[str, ...] = ()
    partial_update_mode: PartialUpdateMode = PartialUpdateMode.NONE
    partial_update_marker: str | None = None
    props: Mapping[str, str] = field(default_factory=dict)

    def default_value(self, name: str) -> Any:
        """The schema default of a field: its Avro default if exposed, else None (null)."""
        return schema_default(self.reader_schema, name)

    def ordering_value(self, data: Mapping[str, Any]) -> OrderingValue:
        """The ordering value of a record's data (null fields become the default)."""
        return ordering_value_of(data, self.ordering_fields, self.reader_schema)


def schema_default(schema: pa.Schema, name: str) -> Any:
    """A field's default from Arrow metadata ``avro.default`` (JSON), else None."""
    index = schema.get_field_index(name)
    if index < 0:
        return None
    metadata = schema.field(index).metadata or {}
    text = metadata.get(AVRO_DEFAULT_METADATA)
    if text is None:
        return None
    return json.loads(text)


def ordering_value_of(
    data: Mapping[str, Any], ordering_fields: tuple[str, ...], schema: pa.Schema
) -> OrderingValue:
    """Hudi's ordering value: none configured or all null -> the default; several -> tuple.

    A single ``int32`` field holding 0 is the default too (Java ``Integer 0`` equals
    ``DEFAULT_ORDERING_VALUE``); ``int64`` 0 (a Java ``Long``) is not.
    """
    if not ordering_fields:
        return DEFAULT_ORDERING_VALUE
    values = [data.get(name) for name in ordering_fields]
    if all(value is None for value in values):
        return DEFAULT_ORDERING_VALUE
    if len(values) == 1:
        value = values[0]
        index = schema.get_field_index(ordering_fields[0])
        if value == 0 and index >= 0 and pa.types.is_int32(schema.field(index).type):
            return DEFAULT_ORDERING_VALUE
        return value
    return tuple(DEFAULT_ORDERING_VALUE if value is None else value for value in values)


# -- the merger ---------------------------------------------------------------------------


class RecordMerger(ABC):
    """Merges two versions of a record; ``older`` arrived (or was merged) before ``newer``.

    ``merge`` must be associative and must return a record (DELETE to remove the key).
    ``partial_merge`` chooses the winner with ``merge`` and then, unless either side is a
    delete, fills the winner's fields from the loser by the context's Partial Update Mode.
    """

    @abstractmethod
    def merge(
        self, older: BufferedRecord, newer: BufferedRecord, context: MergeContext
    ) -> BufferedRecord:
        """The record that stands for the key after ``older`` then ``newer``."""

    def partial_merge(
        self,
        older: BufferedRecord,
        newer: BufferedRecord,
        reader_schema: pa.Schema,
        context: MergeContext,
    ) -> BufferedRecord:
        """``merge``'s winner, with fields filled from the other record (spec 2.4)."""
        from processors.merge.mergers.partial import merge_partial_fields

        winner = self.merge(older, newer, context)
        if older.is_delete or newer.is_delete or winner.is_delete:
            return winner
        low = newer if winner is older else older
        return merge_partial_fields(winner, low, reader_schema, context)


class MergerContractError(Exception):
    """A merger broke the contract (returned None or something not a BufferedRecord)."""


__all__ = [
    "AVRO_DEFAULT_METADATA",
    "DEFAULT_ORDERING_VALUE",
    "BufferedRecord",
    "HoodieOperation",
    "MergeContext",
    "MergerContractError",
    "OrderingValue",
    "PartialUpdateMode",
    "RecordMergeMode",
    "RecordMerger",
    "compare_ordering",
    "infer_operation",
    "is_default_ordering",
    "ordering_value_of",
    "schema_default",
]
