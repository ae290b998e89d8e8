"""Evaluating a RecordPath AST against one record (Python objects from an Arrow row).

A step maps the FieldValues selected so far to new ones; predicates keep the values for
which they hold, evaluated with the value as the context (``.``). Comparisons hold when
any value on the left compares so with the first value on the right that is not null,
as NiFi's filters compare (see ``compare``).
"""

from __future__ import annotations

import decimal
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from processors.record_processors.record_path.parser import (
    AllElements,
    Call,
    Child,
    Compare,
    Current,
    Descendant,
    Expr,
    Filter,
    Indexes,
    Literal,
    MapKeys,
    Parent,
    Path,
    RecordPathError,
    Step,
    Wildcard,
)
from processors.record_processors.record_path.values import (
    FieldValue,
    child_type,
    element_type,
    epoch_millis,
    is_map,
    is_record,
    java_string,
)


@dataclass(frozen=True, slots=True)
class Context:
    """The root record (``/``) and the context value (``.``)."""

    root: FieldValue
    current: FieldValue


def evaluate(expr: Expr, context: Context) -> list[FieldValue]:
    """The FieldValues ``expr`` selects (a literal or a comparison gives one value)."""
    if isinstance(expr, Path):
        if expr.start is not None:
            selected = evaluate(expr.start, context)
        else:
            selected = [context.root if expr.absolute else context.current]
        for step in expr.steps:
            selected = list(_step(step, selected, context))
        return selected
    if isinstance(expr, Literal):
        return [FieldValue(expr.value, str(expr.value))]
    if isinstance(expr, Compare):
        return [FieldValue(holds(expr, context), "compare")]
    from processors.record_processors.record_path.functions import call

    return call(expr, context)


def holds(expr: Expr, context: Context) -> bool:
    """Whether a predicate holds for the context value."""
    if isinstance(expr, Compare):
        return compare_holds(expr, context)
    if isinstance(expr, Literal):
        msg = f"the literal {expr.value!r} is not a predicate"
        raise RecordPathError(msg)
    if isinstance(expr, Call | Path):
        return any(v.value is True for v in evaluate(expr, context))
    return False


def compare_holds(expr: Compare, context: Context, *, invert: bool = False) -> bool:
    """NiFi's BinaryOperatorFilter: whether any value on the left passes (``invert``: fails)
    against the right side's first value that is not null; with none, nothing passes."""
    right = next((v.value for v in evaluate(expr.right, context) if v.value is not None), None)
    if right is None:
        return False
    return any(compare(expr.op, v.value, right) != invert for v in evaluate(expr.left, context))


def compare(op: str, left: Any, right: Any) -> bool:
    """One comparison as NiFi's filters make it: a null never passes; ``=``/``!=`` compare
    two numbers as numbers, a number and another value as text, and anything else with
    Java's ``equals`` (so ``!=`` between a number and text is false); the ordering
    operators compare longs when both sides are integral-compatible (any number, a date,
    integral text: a fraction is truncated, as ``Number.longValue()``), else doubles."""
    if left is None or right is None:
        return False
    if op in ("=", "!="):
        left_number, right_number = _is_number(left), _is_number(right)
        if left_number and right_number:
            equal = _numbers_equal(left, right)
        elif left_number or right_number:
            if op == "!=":
                return False
            equal = java_string(left) == java_string(right)  # Object.toString()
        else:
            equal = _java_equals(left, right)
        return equal if op == "=" else not equal
    first: float | None
    second: float | None
    first, second = _as_long(left), _as_long(right)
    if first is None or second is None:
        first, second = _as_double(left), _as_double(right)
        if first is None or second is None:
            return False
    if op == "<":
        return first < second
    if op == "<=":
        return first <= second
    if op == ">":
        return first > second
    return first >= second


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool)


def _numbers_equal(left: Any, right: Any) -> bool:
    if isinstance(left, int) and isinstance(right, int):
        return bool(left == right)
    return float(left) == float(right)


def _java_equals(left: Any, right: Any) -> bool:
    """``Object.equals``: values of different kinds (a boolean and text) are not equal."""
    if isinstance(left, str) or isinstance(right, str) or isinstance(left, bool):
        return type(left) is type(right) and bool(left == right)
    return bool(left == right)


_INTEGRAL = re.compile(r"[+-]?\d+")
_FLOATING = re.compile(
    r"[+-]?(?:Infinity|NaN|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
)
_LONG_RANGE = (-(2**63), 2**63 - 1)


def _as_long(value: Any) -> int | None:
    """``DataTypeUtils.toLong`` where ``isLongTypeCompatible`` holds, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float | decimal.Decimal):
        if math.isnan(value):
            return 0
        if math.isinf(value):
            return _LONG_RANGE[0] if value < 0 else _LONG_RANGE[1]
        return int(value)  # longValue(): toward zero
    millis = epoch_millis(value)  # a date, time or timestamp: getTime()
    if millis is not None:
        return millis
    if isinstance(value, str) and _INTEGRAL.fullmatch(value):
        number = int(value)
        return number if _LONG_RANGE[0] <= number <= _LONG_RANGE[1] else None
    return None


def _as_double(value: Any) -> float | None:
    """``DataTypeUtils.toDouble`` where ``isDoubleTypeCompatible`` holds, else None."""
    if _is_number(value):
        return float(value)
    if isinstance(value, str) and _FLOATING.fullmatch(value):
        return float(value.replace("Infinity", "inf"))
    return None


def _children(value: FieldValue) -> Iterator[FieldValue]:
    if not is_record(value):
        return
    record: dict[str, Any] = value.value
    for name, child in record.items():
        yield FieldValue(child, name, value, record, name, child_type(value.dtype, name))


def _elements(value: FieldValue) -> Iterator[FieldValue]:
    if isinstance(value.value, list):
        items: list[Any] = value.value
        inner = element_type(value.dtype)
        for index, item in enumerate(items):
            yield FieldValue(item, value.name, value.parent, items, index, inner)
    elif is_map(value):
        entries: dict[str, Any] = value.value
        inner = element_type(value.dtype)
        for key, item in entries.items():
            yield FieldValue(item, value.name, value.parent, entries, key, inner)


def _descendants(value: FieldValue) -> Iterator[FieldValue]:
    for child in _children(value):
        yield child
        yield from _descendants(child)
        if isinstance(child.value, list):
            for element in _elements(child):
                yield from _descendants(element)


def _step(step: Step, selected: list[FieldValue], context: Context) -> Iterator[FieldValue]:
    for value in selected:
        if isinstance(step, Child):
            if is_record(value):
                record: dict[str, Any] = value.value
                yield FieldValue(
                    record.get(step.name),
                    step.name,
                    value,
                    record,
                    step.name,
                    child_type(value.dtype, step.name),
                    step.name not in record,
                )
            else:
                yield _missing_child(value, step.name)
        elif isinstance(step, Wildcard):
            # NiFi's WildcardChildPath gives only the fields that have a value
            yield from (child for child in _children(value) if child.value is not None)
        elif isinstance(step, Descendant):
            for found in _descendants(value):
                # as NiFi's DescendantFieldPath and WildcardDescendantPath: no null values
                if found.value is not None and (step.name is None or found.name == step.name):
                    yield found
        elif isinstance(step, Parent):
            if value.parent is not None:
                yield value.parent
        elif isinstance(step, Current):
            yield value
        elif isinstance(step, AllElements):
            yield from _elements(value)
        elif isinstance(step, Indexes):
            yield from _indexed(value, step)
        elif isinstance(step, MapKeys):
            if isinstance(value.value, dict):
                entries: dict[str, Any] = value.value
                inner = element_type(value.dtype) if is_map(value) else None
                for key in step.keys:
                    yield FieldValue(
                        entries.get(key),
                        value.name,
                        value.parent,
                        entries,
                        key,
                        inner,
                        key not in entries,
                    )
        elif isinstance(step, Filter) and holds(step.predicate, Context(context.root, value)):
            yield value


def _record_typed(value: FieldValue) -> bool:
    """A record, or a value of a record type (NiFi's ``Filters.isRecord``)."""
    return is_record(value) or (value.dtype is not None and pa.types.is_struct(value.dtype))


def _missing_child(value: FieldValue, name: str) -> FieldValue:
    """NiFi's ``missingChild``: the child of a value that is not a record (a null record,
    a text, a map) is one null value. Updating it sets the field in the nearest record
    above it (``getParentRecord``), except below a null of a record type, where nothing
    is updated."""
    holder: FieldValue | None = value
    while holder is not None and not _record_typed(holder):
        holder = holder.parent
    container = holder.value if holder is not None and is_record(holder) else None
    return FieldValue(
        None,
        name,
        value,
        container,
        name if container is not None else None,
        child_type(value.dtype, name),
        True,
    )


def _indexed(value: FieldValue, step: Indexes) -> Iterator[FieldValue]:
    if not isinstance(value.value, list):
        return
    items: list[Any] = value.value
    size = len(items)
    inner = element_type(value.dtype)
    for first, last in step.ranges:
        start = first + size if first < 0 else first
        end = last + size if last < 0 else last
        for index in range(max(start, 0), min(end, size - 1) + 1):
            yield FieldValue(items[index], value.name, value.parent, items, index, inner)
