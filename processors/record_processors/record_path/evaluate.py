"""Evaluating a RecordPath AST against one record (Python objects from an Arrow row).

A step maps the FieldValues selected so far to new ones; predicates keep the values for
which they hold, evaluated with the value as the context (``.``). Comparisons hold when
any value on the left compares so with any value on the right: ``=``/``!=`` compare
numbers as numbers and anything else as text, the ordering operators numbers only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

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
    is_map,
    is_record,
    to_number,
    to_text,
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
        left = [v.value for v in evaluate(expr.left, context) if not v.missing]
        right = [v.value for v in evaluate(expr.right, context) if not v.missing]
        return any(compare(expr.op, a, b) for a in left for b in right)
    if isinstance(expr, Literal):
        msg = f"the literal {expr.value!r} is not a predicate"
        raise RecordPathError(msg)
    if isinstance(expr, Call | Path):
        return any(v.value is True for v in evaluate(expr, context))
    return False


def compare(op: str, left: Any, right: Any) -> bool:
    if op in ("=", "!="):
        if left is None or right is None:
            equal = left is None and right is None
        else:
            a, b = _numeric(left), _numeric(right)
            equal = a == b if a is not None and b is not None else to_text(left) == to_text(right)
        return equal if op == "=" else not equal
    first, second = to_number(left), to_number(right)
    if first is None or second is None:
        return False
    x, y = float(first), float(second)
    if op == "<":
        return x < y
    if op == "<=":
        return x <= y
    if op == ">":
        return x > y
    return x >= y


def _numeric(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return None
    number = to_number(value)
    return None if number is None else float(number)


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
        elif isinstance(step, Wildcard):
            yield from _children(value)
        elif isinstance(step, Descendant):
            for found in _descendants(value):
                if step.name is None or found.name == step.name:
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
