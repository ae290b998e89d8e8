"""EL values, their data types, and NiFi's implicit conversions between them.

An evaluated value is a Python ``str``, ``bool``, ``int`` (NiFi's Whole Number), ``float``
(Decimal), ``ELDate``, ``ELInstant`` (NiFi 2's nanosecond Instant) or ``None``
(null). Functions convert their subject and arguments
with the ``to_*`` helpers so that, for example, the string ``"5"`` works as a number and a
number renders the way Java prints it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import TypeAlias

from flowcore.el.dates import date_to_string, instant_to_string, parse_default_date, parse_instant
from flowcore.errors import ExpressionError

__all__ = [
    "ELDate",
    "ELInstant",
    "Kind",
    "Value",
    "convertible",
    "int_value",
    "java_double_str",
    "java_trim",
    "render",
    "to_bool",
    "to_date",
    "to_decimal",
    "to_instant",
    "to_number",
    "to_str",
    "to_whole",
]


@dataclass(frozen=True, slots=True)
class ELDate:
    """A NiFi Date: milliseconds since the epoch."""

    ms: int


@dataclass(frozen=True, slots=True)
class ELInstant:
    """A NiFi Instant (``java.time.Instant``): nanoseconds since the epoch."""

    ns: int

    @property
    def ms(self) -> int:
        """``Instant.toEpochMilli()``: whole milliseconds, rounded towards negative infinity."""
        return self.ns // 1_000_000


Value: TypeAlias = str | bool | int | float | ELDate | ELInstant | None


class Kind(Enum):
    """The static data types NiFi checks when an expression is compiled."""

    STRING = "String"
    WHOLE = "Whole Number"
    DECIMAL = "Decimal"
    NUMBER = "Number"
    BOOLEAN = "Boolean"
    DATE = "Date"
    INSTANT = "Instant"
    ANY = "Any"


_NUMERIC_KINDS = frozenset({Kind.WHOLE, Kind.DECIMAL, Kind.NUMBER, Kind.DATE, Kind.INSTANT})


def convertible(source: Kind, target: Kind) -> bool:
    """Whether NiFi would implicitly convert a value of ``source`` type to ``target``."""
    if source is target or source is Kind.ANY or target in (Kind.ANY, Kind.STRING):
        return True
    if target is Kind.BOOLEAN:
        return source is Kind.STRING
    if target in _NUMERIC_KINDS:
        return source is not Kind.BOOLEAN
    return False


# Java's String.trim() removes every character up to and including the space.
_JAVA_WHITESPACE = "".join(chr(code) for code in range(33))


def java_trim(text: str) -> str:
    return text.strip(_JAVA_WHITESPACE)


# Java's \d is ASCII only: "٣" (an Arabic-Indic three) is not a number to NiFi.
_WHOLE = re.compile(r"[-+]?\d+", re.ASCII)
_HEX = re.compile(r"[-+]?0[xX][0-9a-fA-F]+")
# NiFi's NumberParsing: Java floating-point literals, hexadecimal ones included.
_DECIMAL = re.compile(
    r"[-+]?(?:Infinity|NaN|\d+\.\d+|\d+(?:\.\d+)?[eE][-+]?\d+|\.\d+(?:[eE][-+]?\d+)?)",
    re.ASCII,
)
_HEX_DECIMAL = re.compile(
    r"[-+]?0[xX](?:[0-9a-fA-F]+\.?[pP][-+]?\d+|[0-9a-fA-F]+\.[0-9a-fA-F]+[pP][-+]?\d+"
    r"|\.[0-9a-fA-F]+(?:[pP][-+]?\d+)?)",
    re.ASCII,
)
_LONG_MAX = 2**63 - 1
_LONG_MIN = -(2**63)


def java_double_str(value: float) -> str:
    """``Double.toString``: plain between 10^-3 and 10^7, else ``d.dddE±n``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    magnitude = abs(value)
    if magnitude == 0.0 or 1e-3 <= magnitude < 1e7:
        return repr(value)  # shortest round-trip digits, always with a '.'
    decimal = Decimal(repr(magnitude)).as_tuple()
    digits = list(decimal.digits)
    exponent = int(decimal.exponent)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exponent += 1
    exponent += len(digits) - 1
    head, tail = str(digits[0]), "".join(map(str, digits[1:])) or "0"
    sign = "-" if value < 0 else ""
    return f"{sign}{head}.{tail}E{exponent}"


def int_value(value: int) -> int:
    """``Long.intValue()``: the low 32 bits as a signed int (NiFi's indices and radixes)."""
    return (value + 2**31) % 2**32 - 2**31


def _double_to_long(value: float) -> int:
    """Java's ``double.longValue()``: truncate, NaN is 0, saturate at the long range."""
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return _LONG_MAX if value > 0 else _LONG_MIN
    return max(_LONG_MIN, min(_LONG_MAX, int(value)))


def to_str(value: Value) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_double_str(value)
    if isinstance(value, ELInstant):
        return instant_to_string(value.ns)
    return date_to_string(value.ms)


def render(value: Value) -> str:
    """The text a value becomes in the evaluated result; null renders as empty."""
    if value.__class__ is str:
        return value
    text = to_str(value)
    return "" if text is None else text


def _java_long(text: str) -> int:
    """NiFi's whole-number text: ``Long.valueOf``, and where that fails ``Long.decode``
    (hexadecimal, or octal after a leading 0); beyond the long range Java throws."""
    value = int(text)
    if _LONG_MIN <= value <= _LONG_MAX:
        return value
    unsigned = text.lstrip("+-")
    if len(unsigned) > 1 and unsigned.startswith("0") and set(unsigned) <= set("01234567"):
        value = int(unsigned, 8) * (-1 if text.startswith("-") else 1)
        if _LONG_MIN <= value <= _LONG_MAX:
            return value
    raise ExpressionError(f'For input string: "{text}"')


def _java_decode_hex(text: str) -> int:
    value = int(text, 16)
    if not _LONG_MIN <= value <= _LONG_MAX:
        raise ExpressionError(f'For input string: "{text}"')
    return value


def _parse_number(text: str) -> int | float | None:
    text = java_trim(text)
    if _WHOLE.fullmatch(text):
        return _java_long(text)
    if _HEX.fullmatch(text):
        return _java_decode_hex(text)
    if _DECIMAL.fullmatch(text):
        return float(text)
    if _HEX_DECIMAL.fullmatch(text):
        return _java_hex_float(text)
    return None


def _java_hex_float(text: str) -> float:
    """``Double.valueOf`` of a hexadecimal literal such as ``0xF1.p2``. NiFi's pattern also
    takes ``0x.8`` without the binary exponent, which Java then refuses."""
    if "p" not in text and "P" not in text:
        raise ExpressionError(f'For input string: "{text}"')
    return float.fromhex(text)


def to_number(value: Value) -> int | float | None:
    """NiFi's Number: whole or decimal, whichever the value is."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        return _parse_number(value)
    return value.ms


def to_whole(value: Value) -> int | None:
    """NiFi's Whole Number: decimals are truncated (``toNumber()``)."""
    number = to_number(value)
    if number is None or isinstance(number, int):
        return number
    return _double_to_long(number)


def to_decimal(value: Value) -> float | None:
    """NiFi's Decimal (``toDecimal()``)."""
    number = to_number(value)
    return None if number is None else float(number)


def to_bool(value: Value) -> bool | None:
    """Strings are true when they equal "true" ignoring case; others are false."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return java_trim(value).lower() == "true"
    return False


def to_date(value: Value) -> ELDate | None:
    """NiFi's Date: numbers are epoch milliseconds; strings are parsed as NiFi does."""
    if value is None or isinstance(value, ELDate):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return ELDate(value)
    if isinstance(value, float):
        return ELDate(_double_to_long(value))
    if isinstance(value, ELInstant):
        return ELDate(value.ms)
    return ELDate(parse_default_date(value))


_DIGITS = re.compile(r"\d+", re.ASCII)


def to_instant(value: Value) -> ELInstant | None:
    """NiFi's Instant: numbers are epoch milliseconds; strings are ISO-8601 or RFC 1123."""
    if value is None or isinstance(value, ELInstant):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return ELInstant(value * 1_000_000)
    if isinstance(value, float):
        return ELInstant(_double_to_long(value) * 1_000_000)
    if isinstance(value, ELDate):
        return ELInstant(value.ms * 1_000_000)
    text = java_trim(value)
    if _DIGITS.fullmatch(text):
        return ELInstant(int(text) * 1_000_000)
    return ELInstant(parse_instant(text))
