"""The ``java.lang.Math`` methods NiFi's ``math()`` function calls by name.

NiFi looks a method up by reflection from the argument types (``long`` for whole numbers,
``double`` for decimals; a whole second argument falls back to ``int``), so
``${x:math('abs')}`` keeps a whole number whole and ``math('sqrt')`` needs a decimal. The
table below has each overload keyed by name and signature; the error messages are NiFi's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from flowcore.errors import ExpressionError

__all__ = ["call_math"]

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
Number = int | float


def _exact(value: int, low: int = _LONG_MIN, high: int = _LONG_MAX) -> int:
    if not low <= value <= high:
        raise ArithmeticError("long overflow" if high == _LONG_MAX else "integer overflow")
    return value


def _wrap(value: int) -> int:
    """Two's complement wrap-around, as Java's long arithmetic does."""
    return (value - _LONG_MIN) % 2**64 + _LONG_MIN


def _floor_div(a: int, b: int) -> int:
    if b == 0:
        raise ArithmeticError("/ by zero")
    return _wrap(a // b)


def _floor_mod(a: int, b: int) -> int:
    if b == 0:
        raise ArithmeticError("/ by zero")
    return a % b


def _round(value: float) -> int:
    """``Math.round``: floor(value + 1/2) computed exactly (0.49999999999999994 gives 0)."""
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return _LONG_MAX if value > 0 else _LONG_MIN
    floor = math.floor(value)
    rounded = floor + 1 if value - floor >= 0.5 else floor  # value - floor is exact
    return max(_LONG_MIN, min(_LONG_MAX, rounded))


def _get_exponent(value: float) -> int:
    """``Math.getExponent``: 1024 for NaN and infinities, -1023 for zero and subnormals."""
    if not math.isfinite(value):
        return 1024
    if abs(value) < 2.2250738585072014e-308:
        return -1023
    return math.frexp(value)[1] - 1


def _scalb(value: float, scale: int) -> float:
    try:
        return math.ldexp(value, max(-2100, min(2100, scale)))
    except OverflowError:
        return math.copysign(math.inf, value)


def _java_div(a: int, b: int) -> int:
    """Java's ``a / b`` on longs: truncated, Long.MIN_VALUE / -1 wraps to itself."""
    if b == 0:
        raise ArithmeticError("/ by zero")
    quotient = abs(a) // abs(b)
    return _wrap(quotient if (a < 0) == (b < 0) else -quotient)


def _ceil_div(a: int, b: int) -> int:
    quotient = _java_div(a, b)
    if (a < 0) == (b < 0) and _wrap(quotient * b) != a:
        return quotient + 1
    return quotient


def _ceil_mod(a: int, b: int) -> int:
    if b == 0:
        raise ArithmeticError("/ by zero")
    return _wrap(a - _ceil_div(a, b) * b)


def _exact_div(divide: Callable[[int, int], int]) -> Callable[[int, int], int]:
    def call(a: int, b: int) -> int:
        if a == _LONG_MIN and b == -1:
            raise ArithmeticError("long overflow")
        return divide(a, b)

    return call


def _unsigned_multiply_high(a: int, b: int) -> int:
    return _wrap(((a % 2**64) * (b % 2**64)) >> 64)


def _rint(value: float) -> float:
    if math.isinf(value) or math.isnan(value):
        return value
    return float(round(value))  # Python rounds half to even, as rint does


def _signum(value: float) -> float:
    if value == 0.0 or math.isnan(value):
        return value
    return math.copysign(1.0, value)


def _java_log(value: float, log: Callable[[float], float]) -> float:
    if math.isnan(value) or value < 0:
        return math.nan
    if value == 0:
        return -math.inf
    return log(value)


def _pow(a: float, b: float) -> float:
    try:
        return math.pow(a, b)
    except (OverflowError, ValueError):
        if math.isnan(a) or math.isnan(b):
            return math.nan
        if a == 0.0:
            return math.inf
        return math.nan if a < 0 and not float(b).is_integer() else math.inf


def _safe(function: Callable[[float], float]) -> Callable[[float], float]:
    """A one-argument function that answers NaN / infinity where Python raises."""

    def call(value: float) -> float:
        try:
            return function(value)
        except ValueError:
            return math.nan
        except OverflowError:
            return math.inf

    return call


def _ieee_remainder(a: float, b: float) -> float:
    if b == 0.0 or math.isinf(a) or math.isnan(a) or math.isnan(b):
        return math.nan
    if math.isinf(b):
        return a
    return math.remainder(a, b)


_D1: dict[str, Callable[[float], Number]] = {
    "abs": abs,
    "acos": _safe(math.acos),
    "asin": _safe(math.asin),
    "atan": math.atan,
    "cbrt": math.cbrt,
    "ceil": lambda v: float(math.ceil(v)) if math.isfinite(v) else v,
    "cos": _safe(math.cos),
    "cosh": _safe(math.cosh),
    "exp": _safe(math.exp),
    "expm1": _safe(math.expm1),
    "floor": lambda v: float(math.floor(v)) if math.isfinite(v) else v,
    "getExponent": _get_exponent,
    "log": lambda v: _java_log(v, math.log),
    "log10": lambda v: _java_log(v, math.log10),
    "log1p": lambda v: math.nan if v < -1 else -math.inf if v == -1 else math.log1p(v),
    "nextDown": lambda v: math.nextafter(v, -math.inf),
    "nextUp": lambda v: math.nextafter(v, math.inf),
    "rint": _rint,
    "round": _round,
    "signum": _signum,
    "sin": _safe(math.sin),
    "sinh": _safe(math.sinh),
    "sqrt": lambda v: math.nan if v < 0 or math.isnan(v) else math.sqrt(v),
    "tan": _safe(math.tan),
    "tanh": math.tanh,
    "toDegrees": math.degrees,
    "toRadians": math.radians,
    "ulp": lambda v: math.ulp(v) if not math.isinf(v) else math.inf,
}
_L1: dict[str, Callable[[int], Number]] = {
    "abs": lambda v: _wrap(abs(v)),
    "absExact": lambda v: _exact(abs(v)),
    "negateExact": lambda v: _exact(-v),
    "incrementExact": lambda v: _exact(v + 1),
    "decrementExact": lambda v: _exact(v - 1),
    "toIntExact": lambda v: _exact(v, _INT_MIN, _INT_MAX),
}
_DD: dict[str, Callable[[float, float], Number]] = {
    "atan2": math.atan2,
    "hypot": math.hypot,
    "IEEEremainder": _ieee_remainder,
    "max": lambda a, b: math.nan if math.isnan(a) or math.isnan(b) else max(a, b),
    "min": lambda a, b: math.nan if math.isnan(a) or math.isnan(b) else min(a, b),
    "pow": _pow,
    "copySign": math.copysign,
    "nextAfter": math.nextafter,
}
_LL: dict[str, Callable[[int, int], Number]] = {
    "max": max,
    "min": min,
    "addExact": lambda a, b: _exact(a + b),
    "subtractExact": lambda a, b: _exact(a - b),
    "multiplyExact": lambda a, b: _exact(a * b),
    "floorDiv": _floor_div,
    "floorMod": _floor_mod,
    "ceilDiv": _ceil_div,
    "ceilMod": _ceil_mod,
    "divideExact": _exact_div(_java_div),
    "floorDivExact": _exact_div(_floor_div),
    "ceilDivExact": _exact_div(_ceil_div),
    "multiplyHigh": lambda a, b: (a * b) >> 64,
    "unsignedMultiplyHigh": _unsigned_multiply_high,
}
_DI: dict[str, Callable[[float, int], Number]] = {
    "scalb": _scalb,
}


def _kind(value: Number) -> str:
    return "double" if isinstance(value, float) else "long"


def call_math(name: str, subject: Number | None, argument: Number | None) -> Number:
    """``Math.<name>(subject[, argument])``; no subject calls the no-argument method."""
    if subject is None:
        if name == "random":
            return random.random()
        raise ExpressionError(
            "Cannot evaluate 'math' function because no subjectless method was found with "
            f"the name:'{name}'"
        )
    if argument is None:
        if isinstance(subject, float):
            one_double = _D1.get(name)
            if one_double is not None:
                return one_double(subject)
        else:
            one_long = _L1.get(name)
            if one_long is not None:
                return one_long(subject)
        raise ExpressionError(
            "Cannot evaluate 'math' function because no method was found matching the passed "
            f"parameters: name:'{name}', one argument of type: '{_kind(subject)}'"
        )
    if isinstance(subject, float) or isinstance(argument, float):
        two_doubles = _DD.get(name)
        if two_doubles is not None and isinstance(subject, float) and isinstance(argument, float):
            return two_doubles(subject, argument)
        if isinstance(subject, float) and isinstance(argument, int):
            double_int = _DI.get(name)
            if double_int is not None:
                return double_int(subject, (argument - _INT_MIN) % 2**32 + _INT_MIN)  # intValue()
    else:
        two_longs = _LL.get(name)
        if two_longs is not None:
            return two_longs(subject, argument)
    raise ExpressionError(
        "Cannot evaluate 'math' function because no method was found matching the passed "
        f"parameters: name:'{name}', first argument type: '{_kind(subject)}', second argument "
        f"type:  '{_kind(argument)}'"
    )
