"""Floating-point and decimal numbers as NiFi's JSON writer (Jackson on Java 21) writes them.

A double is Java's ``Double.toString`` (a float ``Float.toString``): the shortest digits
that read back as the value, plain for ``1e-3 <= |v| < 1e7`` with at least one fraction
digit (``2.5``, ``3.0``), else ``d.dddE[-]n`` (``1.0E16``, ``4.51E-7``). Without
scientific notation (NiFi's default) it is written as ``new BigDecimal(that text)``
in plain form (``10000000000000000``, ``0.00010``, ``0.000000451``), and -0.0 as ``0.0``.
A decimal is ``BigDecimal.toString``, or its plain form without scientific notation.

The common range is rendered by Arrow's cast (the same shortest digits); the values
outside it, usually few, are formatted one by one.
"""

from __future__ import annotations

import decimal
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_EXACT = decimal.Context(prec=1100)
"""Enough digits for any double's exact value and the differences between them."""


class NotWritableError(ValueError):
    """A value the writer cannot write, as NiFi cannot (a non-finite number as a plain
    decimal); names the field it is in once known."""

    def __init__(self, detail: str, path: tuple[str, ...] = ()) -> None:
        self.detail = detail
        self.path = path
        where = ".".join(path)
        super().__init__(f"field '{where}': {detail}" if path else detail)

    def within(self, name: str) -> NotWritableError:
        """The same error, in the field ``name``."""
        return NotWritableError(self.detail, (name, *self.path))


class NumberText(NamedTuple):
    """A floating-point column's text: each value's text (null where null) and the text
    to write after it (``.0`` after a whole number), if any."""

    text: pa.Array
    suffix: pa.Array | None


def _shortest(value: float, single: bool) -> tuple[int, str, int]:
    """Java's choice of digits for a finite non-zero value: sign, digits without
    trailing zeros, and the exponent of the first digit."""
    text = np.format_float_scientific(np.float32(value), unique=True) if single else repr(value)
    sign, digits, exponent = decimal.Decimal(text).normalize(_EXACT).as_tuple()
    assert isinstance(exponent, int)
    shown = "".join(map(str, digits))
    first = exponent + len(shown) - 1
    if len(shown) == 1:
        # Java picks among the one- and two-digit decimals that read back as the value
        # the closest one (this matters only for the smallest subnormal values).
        exact = decimal.Decimal(float(np.float32(value)) if single else value)
        two = exact.quantize(decimal.Decimal(1).scaleb(exact.adjusted() - 1), context=_EXACT)
        back = float(two)
        reads_back = np.float32(back) == np.float32(value) if single else back == value
        one = decimal.Decimal(f"{'-' if sign else ''}{shown}E{first}")
        if reads_back and _EXACT.abs(_EXACT.subtract(two, exact)) < _EXACT.abs(
            _EXACT.subtract(one, exact)
        ):
            _, digits, exponent = two.normalize(_EXACT).as_tuple()
            assert isinstance(exponent, int)
            shown = "".join(map(str, digits))
            first = exponent + len(shown) - 1
    return sign, shown, first


def java_text(value: float, single: bool, scientific: bool) -> str:
    """One value's text, as ``Double.toString``/``Float.toString`` (``scientific``) or
    the plain ``BigDecimal`` of it; a non-finite value is the string Jackson writes
    (``"NaN"``) or, without scientific notation, ``NotWritableError``."""
    if not np.isfinite(value):
        if not scientific:
            java = "NaN" if np.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
            msg = (
                f"{java} cannot be written as a plain number (NiFi's BigDecimal refuses it); "
                "set Allow Scientific Notation to true to write it as a string"
            )
            raise NotWritableError(msg)
        return '"NaN"' if np.isnan(value) else ('"Infinity"' if value > 0 else '"-Infinity"')
    if value == 0:
        return "-0.0" if scientific and np.signbit(value) else "0.0"
    sign, digits, first = _shortest(value, single)
    minus = "-" if sign else ""
    if 1e-3 <= abs(value) < 1e7:
        plain = format(decimal.Decimal(f"{minus}{digits}E{first - len(digits) + 1}"), "f")
        return plain if "." in plain else plain + ".0"
    java = f"{minus}{digits[0]}.{digits[1:] or '0'}E{first}"
    return java if scientific else format(decimal.Decimal(java), "f")


def java_value_text(value: object, kind: pa.DataType) -> str:
    """A scalar of Arrow type ``kind`` as Java's ``String.valueOf`` prints it: a Boolean
    ``true``/``false``, a float or double as ``Float``/``Double.toString`` (``NaN`` and
    the infinities by name), anything else as its text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if np.isnan(value):
            return "NaN"
        if np.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return java_text(value, pa.types.is_float32(kind), scientific=True)
    return value if isinstance(value, str) else str(value)


def float_text(column: pa.Array, scientific: bool) -> NumberText:
    """A float32 or float64 column's text (see the module)."""
    single = column.type != pa.float64()
    if single and column.type != pa.float32():
        column = column.cast(pa.float32())
    text = column.cast(pa.string())
    magnitude = pc.abs(column.cast(pa.float64()))
    zero = pc.equal(magnitude, 0.0)
    common = pc.or_(
        pc.and_(pc.greater_equal(magnitude, 1e-3), pc.less(magnitude, 1e7)), zero
    ).fill_null(True)
    if not scientific and pc.any(zero).as_py():
        text = pc.if_else(zero, "0", text)  # -0.0 is 0.0 as a BigDecimal
    if not pc.all(common).as_py():
        outside = pc.invert(common)
        values = column.filter(outside).to_pylist()
        texts = [java_text(v, single, scientific) for v in values]
        text = pc.replace_with_mask(text, outside, pa.array(texts, pa.string()))
    # In the common range Arrow writes a whole number as its digits alone.
    whole = pc.and_(common, pc.equal(column, pc.floor(column))).fill_null(False)
    if not pc.any(whole).as_py():
        return NumberText(text, None)
    positions = np.flatnonzero(whole.to_numpy(zero_copy_only=False))
    marked = np.zeros(len(column) + 1, dtype=np.int32)
    marked[positions + 1] = 2
    offsets = pa.py_buffer(np.cumsum(marked, dtype=np.int32))
    data = pa.py_buffer(b".0" * len(positions))
    after = pa.Array.from_buffers(pa.string(), len(column), [None, offsets, data])
    return NumberText(text, after)


def decimal_text(column: pa.Array, scientific: bool) -> pa.Array:
    """A decimal column's text: Arrow's is ``BigDecimal.toString``; without scientific
    notation the values it writes with an exponent are made plain."""
    text = column.cast(pa.string())
    if scientific:
        return text
    exponent = pc.match_substring(text, "E").fill_null(False)
    if not pc.any(exponent).as_py():
        return text
    plain = [format(decimal.Decimal(t), "f") for t in text.filter(exponent).to_pylist()]
    return pc.replace_with_mask(text, exponent, pa.array(plain, pa.string()))


_NOT_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def java_string(column: pa.Array) -> pa.Array:
    """Each value of a float32 or float64 column as Java's ``Float.toString`` /
    ``Double.toString`` writes it, ``NaN`` and ``Infinity`` included (how NiFi's CSV
    writer prints a floating-point field: ``8.0``, ``2.5``, ``1.2345678E7``, ``1.0E-4``);
    null where null."""
    finite = pc.is_finite(column).fill_null(True)
    whole = column
    if not pc.all(finite).as_py():
        whole = pc.if_else(finite, column, pa.scalar(0.0, column.type))
    number = float_text(whole, scientific=True)
    text = number.text
    if number.suffix is not None:
        text = pc.binary_join_element_wise(text, number.suffix, "")
    if whole is not column:
        outside = pc.invert(finite)
        names = [_NOT_FINITE[repr(float(v))] for v in column.filter(outside).to_pylist()]
        text = pc.replace_with_mask(text, outside, pa.array(names, pa.string()))
    return text
