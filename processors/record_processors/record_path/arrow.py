"""Compiling RecordPaths to Arrow compute: whole columns at once, one value per record.

What compiles (anything else is evaluated in Python, record by record):

* child paths ``/a/b`` (``struct_field``);
* a child path with a trailing comparison of the value to a literal, ``/a[. > 3]`` or
  ``/a[. = 'x']``: the value where the comparison holds, else null (numbers against
  numbers; text against text for ``=`` and ``!=``);
* ``toUpperCase``, ``toLowerCase``, ``trim``, ``substring`` with non-negative literal
  positions, and ``concat`` of text columns and text literals, over compiled arguments.

A compiled path raises ``Fallback`` when the batch's types are not the ones it handles
(a number where text is expected...): the caller then evaluates in Python, so results
never depend on which way a path was evaluated.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa
import pyarrow.compute as pc

from processors.record_processors.record_path.parser import (
    Call,
    Child,
    Compare,
    Current,
    Expr,
    Filter,
    Literal,
    Path,
)
from processors.record_processors.record_path.values import JAVA_WHITESPACE

Vector = Callable[[pa.RecordBatch], pa.Array | None]
"""Values of a batch, or None when a child path names a field the schema lacks."""


def _has_astral(values: pa.Array) -> bool:
    """Whether a text beyond the Basic Multilingual Plane is there (two UTF-16 units)."""
    if pc.all(pc.string_is_ascii(values)).as_py() is not False:
        return False
    return bool(pc.any(pc.match_substring_regex(values, "[\\x{10000}-\\x{10FFFF}]")).as_py())


class Fallback(Exception):
    """This batch's types need the Python evaluation."""


_CASE: dict[str, Callable[[pa.Array], pa.Array]] = {
    "toUpperCase": pc.utf8_upper,
    "toLowerCase": pc.utf8_lower,
    "trim": lambda values: pc.utf8_trim(values, characters=JAVA_WHITESPACE),
}
_COMPARE: dict[str, Callable[[pa.Array, pa.Scalar], pa.Array]] = {
    "=": pc.equal,
    "!=": pc.not_equal,
    "<": pc.less,
    "<=": pc.less_equal,
    ">": pc.greater,
    ">=": pc.greater_equal,
}
_FLIPPED = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _is_text(values: pa.Array) -> bool:
    return bool(pa.types.is_string(values.type) or pa.types.is_large_string(values.type))


def _is_number(values: pa.Array) -> bool:
    return bool(pa.types.is_integer(values.type) or pa.types.is_floating(values.type))


def _children(fields: tuple[str, ...]) -> Vector:
    def vector(batch: pa.RecordBatch) -> pa.Array | None:
        index = batch.schema.get_field_index(fields[0])
        if index < 0:
            return None
        values = batch.column(index)
        for name in fields[1:]:
            if not pa.types.is_struct(values.type) or values.type.get_field_index(name) < 0:
                return None
            values = pc.struct_field(values, name)
        return values

    return vector


def _present(inner: Vector, batch: pa.RecordBatch) -> pa.Array:
    values = inner(batch)
    if values is None:
        raise Fallback
    return values


def _is_current(expr: Expr) -> bool:
    return (
        isinstance(expr, Path)
        and not expr.absolute
        and expr.start is None
        and expr.steps == (Current(),)
    )


def _filtered(inner: Vector, compare: Compare) -> Vector | None:
    if _is_current(compare.left) and isinstance(compare.right, Literal):
        op, literal = compare.op, compare.right.value
    elif _is_current(compare.right) and isinstance(compare.left, Literal):
        op, literal = _FLIPPED[compare.op], compare.left.value
    else:
        return None
    kernel = _COMPARE[op]

    def vector(batch: pa.RecordBatch) -> pa.Array | None:
        values = inner(batch)
        if values is None:
            return None
        numeric = isinstance(literal, int | float) and not isinstance(literal, bool)
        # NiFi orders numbers as longs (a fraction truncated): fractions go to Python
        exact = op in ("=", "!=") or (isinstance(literal, int) and pa.types.is_integer(values.type))
        if numeric and _is_number(values) and exact:
            mask = kernel(values, pa.scalar(literal))
        elif isinstance(literal, str) and _is_text(values) and op in ("=", "!="):
            mask = kernel(values, pa.scalar(literal, values.type))
        else:
            raise Fallback
        return pc.if_else(mask, values, pa.nulls(len(values), values.type))

    return vector


def _call(expr: Call) -> Vector | None:
    args = [compile_vector(arg) if not isinstance(arg, Literal) else None for arg in expr.args]
    if expr.name in _CASE and len(args) == 1 and args[0] is not None:
        case, inner = _CASE[expr.name], args[0]

        def cased(batch: pa.RecordBatch) -> pa.Array | None:
            values = _present(inner, batch)
            if not _is_text(values):
                raise Fallback
            if expr.name != "trim" and pc.any(pc.invert(pc.string_is_ascii(values))).as_py():
                # Arrow maps case one character at a time ('ß' to 'ẞ'); Java and Python
                # use the full mappings ('ß' to 'SS'), so text beyond ASCII goes to Python
                raise Fallback
            return pc.fill_null(case(values), "")

        return cased
    if expr.name == "substring" and len(args) == 3 and args[0] is not None:
        start, stop = expr.args[1], expr.args[2]
        if not (
            isinstance(start, Literal)
            and isinstance(stop, Literal)
            and isinstance(start.value, int)
            and isinstance(stop.value, int)
            and start.value >= 0
            and stop.value >= 0
        ):
            return None
        text, first, last = args[0], start.value, stop.value

        def sliced(batch: pa.RecordBatch) -> pa.Array | None:
            values = _present(text, batch)
            if not _is_text(values) or _has_astral(values):
                raise Fallback  # Java counts UTF-16 units: an emoji is 2 (Python does it)
            return pc.utf8_slice_codeunits(values, first, last)

        return sliced
    if expr.name == "concat":
        parts: list[Vector | str] = []
        for arg, compiled in zip(expr.args, args, strict=True):
            if isinstance(arg, Literal):
                if not isinstance(arg.value, str):
                    return None
                parts.append(arg.value)
            elif compiled is None:
                return None
            else:
                parts.append(compiled)

        def joined(batch: pa.RecordBatch) -> pa.Array | None:
            columns: list[pa.Array | pa.Scalar] = []
            for part in parts:
                if isinstance(part, str):
                    columns.append(pa.scalar(part))
                    continue
                values = _present(part, batch)
                if not _is_text(values):
                    raise Fallback
                columns.append(values.cast(pa.string()))
            if not any(isinstance(c, pa.Array) for c in columns):
                raise Fallback
            return pc.binary_join_element_wise(
                *columns, "", null_handling="replace", null_replacement="null"
            )

        return joined
    return None


def compile_vector(expr: Expr) -> Vector | None:
    """The Arrow form of ``expr``, or None when it needs the Python evaluation."""
    if isinstance(expr, Call):
        return _call(expr)
    if not (isinstance(expr, Path) and expr.absolute and expr.start is None and expr.steps):
        return None
    steps = expr.steps
    tail: Filter | None = None
    if isinstance(steps[-1], Filter) and isinstance(steps[-1].predicate, Compare):
        tail, steps = steps[-1], steps[:-1]
    if not steps or not all(isinstance(step, Child) for step in steps):
        return None
    children = _children(tuple(step.name for step in steps if isinstance(step, Child)))
    if tail is None:
        return children
    assert isinstance(tail.predicate, Compare)
    return _filtered(children, tail.predicate)
