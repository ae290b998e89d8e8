"""RecordPath functions: standalone functions and filter functions, as in NiFi's guide.

A function that transforms a value (``substring``, ``toUpperCase``...) gives one result
per value its first argument selects, named as that value; other arguments use their
first selected value. Filter functions (``isEmpty``, ``contains``...) give a boolean per
value and are true in a predicate when any value passes.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pyarrow as pa

from flowcore.el.dates import compile_java_time_pattern, resolve_zone
from flowcore.el.regex import java_regex, java_replacer, java_sub
from flowcore.el.utf16 import java_length, java_slice
from flowcore.el.utf16 import pad as utf16_pad
from flowcore.el.values import java_double_str
from flowcore.errors import ExpressionError
from processors.record_processors.record_path.evaluate import (
    Context,
    compare_holds,
    evaluate,
    holds,
)
from processors.record_processors.record_path.parser import Call, Compare, Expr, RecordPathError
from processors.record_processors.record_path.values import (
    FieldValue,
    JsonMap,
    as_bytes,
    b64,
    epoch_millis,
    java_string,
    java_trim,
    to_text,
)

Function = Callable[[Context, tuple[Expr, ...]], list[FieldValue]]


def _first(arg: Expr, context: Context) -> Any:
    values = evaluate(arg, context)
    return values[0].value if values else None


def _text_arg(arg: Expr, context: Context) -> str:
    return to_text(_first(arg, context)) or ""


_INTEGRAL_TEXT = re.compile(r"[+-]?\d+")
_INT_RANGE = range(-(2**31), 2**31)


def _index_arg(arg: Expr, context: Context) -> int | None:
    """A position or length as ``DataTypeUtils.toInteger`` reads one where
    ``isIntegerTypeCompatible`` holds: a number (its long value) or integral text in the
    int range; None for anything else (the function then gives '')."""
    value = _first(arg, context)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, float | Decimal):
        return int(value) if math.isfinite(value) else None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _INTEGRAL_TEXT.fullmatch(value):
        number = int(value)
        return number if number in _INT_RANGE else None
    return None


def _mapped(
    transform: Callable[[Any, Context, tuple[Expr, ...]], Any], null: Any = None
) -> Function:
    """A function over each value of its first argument (a null value gives ``null``)."""

    def apply(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
        return [
            FieldValue(
                null if value.value is None else transform(value.value, context, args[1:]),
                value.name,
                value.parent,
            )
            for value in evaluate(args[0], context)
        ]

    return apply


def _filter(test: Callable[[Any, Context, tuple[Expr, ...]], bool]) -> Function:
    def apply(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
        values = evaluate(args[0], context)
        return [FieldValue(test(v.value, context, args[1:]), v.name, v.parent) for v in values]

    return apply


def _text(function: Callable[[str], Any]) -> Callable[[Any, Context, tuple[Expr, ...]], Any]:
    return lambda value, _c, _a: function(to_text(value) or "")


def _substring(value: Any, context: Context, args: tuple[Expr, ...]) -> str:
    text = to_text(value) or ""
    first, last = _index_arg(args[0], context), _index_arg(args[1], context)
    if first is None or last is None:
        return ""
    # positions count UTF-16 code units, as Java's String (an emoji is 2)
    start, end, size = first, last, java_length(text)
    start = start + size + 1 if start < 0 else start
    end = min(end + size + 1 if end < 0 else end, size)
    if start < 0 or start >= size or start > end:
        return ""
    return java_slice(text, start, end)


def _before(last: bool) -> Callable[[Any, Context, tuple[Expr, ...]], Any]:
    def cut(value: Any, context: Context, args: tuple[Expr, ...]) -> Any:
        text, search = to_text(value) or "", _text_arg(args[0], context)
        index = text.rfind(search) if last else text.find(search)
        return value if index < 0 or not search else text[:index]

    return cut


def _after(last: bool) -> Callable[[Any, Context, tuple[Expr, ...]], Any]:
    def cut(value: Any, context: Context, args: tuple[Expr, ...]) -> Any:
        text, search = to_text(value) or "", _text_arg(args[0], context)
        index = text.rfind(search) if last else text.find(search)
        return value if index < 0 or not search else text[index + len(search) :]

    return cut


def _replace(value: Any, context: Context, args: tuple[Expr, ...]) -> Any:
    """A null or absent search or replacement leaves the value as it is, as NiFi."""
    search, replacement = _first(args[0], context), _first(args[1], context)
    if search is None or replacement is None:
        return value
    return (to_text(value) or "").replace(to_text(search) or "", to_text(replacement) or "")


def _replace_regex(value: Any, context: Context, args: tuple[Expr, ...]) -> Any:
    """A null or absent replacement, or no regex at all, leaves the value as it is; a null
    regex is an error (NiFi's Pattern.compile(null) throws)."""
    regexes, replacement = evaluate(args[0], context), _first(args[1], context)
    if not regexes or replacement is None:
        return value
    regex = regexes[0].value
    if regex is None:
        msg = "replaceRegex: the regular expression is null"
        raise RecordPathError(msg)
    pattern = java_regex(to_text(regex) or "")
    replacer = java_replacer(pattern, to_text(replacement) or "")
    return java_sub(pattern, replacer, to_text(value) or "")[0]


_NOT_CUSTOM_IDS = ("UTC+", "UTC-", "UT+", "UT-", "+", "-")
"""Offsets ``TimeZone.getTimeZone`` does not read (it knows only ``GMT+hh:mm`` forms)."""


def _zone(args: tuple[Expr, ...], context: Context, index: int) -> dt.tzinfo | None:
    """``TimeZone.getTimeZone(id).toZoneId()``: an unknown ID is GMT, not an error."""
    name = _text_arg(args[index], context)
    if name.startswith(_NOT_CUSTOM_IDS):
        return dt.UTC
    try:
        return resolve_zone(name)
    except ExpressionError:
        return dt.UTC


def _zone_given(args: tuple[Expr, ...], context: Context, index: int) -> bool:
    """Whether a zone argument exists and names something (an empty one is no formatter)."""
    return len(args) <= index or bool(_text_arg(args[index], context))


def _to_date(value: Any, context: Context, args: tuple[Expr, ...]) -> Any:
    """NiFi's toDate(): the year, month, day and time of day a strict parse gives, in the
    zone argument or the system's zone (any zone in the text is ignored); the value as it
    is when the text does not parse or gives no whole date."""
    if not isinstance(value, str):
        return value
    pattern_text = _text_arg(args[0], context)
    if not pattern_text:
        return value
    try:
        fields = compile_java_time_pattern(pattern_text).parse_wall_clock(value)
    except (ValueError, ExpressionError):
        return value
    if fields is None:
        return value
    given = len(args) > 1 and bool(_text_arg(args[1], context))
    try:
        local = dt.datetime(  # noqa: DTZ001 - a wall-clock time, its zone applied below
            fields.year, fields.month, fields.day, fields.hour, fields.minute, fields.second
        )
        # the zone argument, else the system's zone (a naive time's astimezone)
        moment = local.replace(tzinfo=_zone(args, context, 1)) if given else local.astimezone()
        utc = moment.astimezone(dt.UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):
        return value  # a year Python cannot hold (before 1 or after 9999) stays as it is
    return utc.replace(microsecond=fields.nanosecond // 1000)


def _epoch_ms(value: Any) -> int | None:
    """Epoch milliseconds of a date, time or timestamp (``getTime()``) or of a number
    (``Number.longValue()`` truncates)."""
    millis = epoch_millis(value)
    if millis is not None:
        return millis
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float | Decimal) and math.isfinite(value):
        return int(value)
    return None


def _format(value: Any, context: Context, args: tuple[Expr, ...]) -> Any:
    """NiFi's format(): a date or a number of epoch milliseconds as text, in the zone
    argument or the system's zone."""
    millis = _epoch_ms(value)
    pattern_text = _text_arg(args[0], context)
    if millis is None or not pattern_text or not _zone_given(args, context, 1):
        return value
    zone = _zone(args, context, 1) if len(args) > 1 else None
    try:
        return compile_java_time_pattern(pattern_text).format(millis, zone)
    except (ValueError, ExpressionError):
        return value  # an invalid pattern leaves the value as it is, as NiFi


def _charset(args: tuple[Expr, ...], context: Context) -> str:
    name = _text_arg(args[0], context) if args else "UTF-8"
    return name.lower().replace("utf-16be", "utf-16-be").replace("utf-16le", "utf-16-le")


def _to_string(value: Any, context: Context, args: tuple[Expr, ...]) -> Any:
    """NiFi's toString(): bytes decoded with the charset, any other value as Java's
    ``toString()`` (a timestamp is ``2024-01-31 10:00:00.0``, not epoch milliseconds)."""
    if isinstance(value, bytes | bytearray | list):
        # new String(bytes, charset): a malformed sequence becomes U+FFFD
        return as_bytes(value).decode(_charset(args, context), errors="replace")
    return java_string(value)


def _to_bytes(value: Any, context: Context, args: tuple[Expr, ...]) -> Any:
    if not isinstance(value, str):
        msg = "Argument supplied to toBytes must be a String"
        raise RecordPathError(msg)
    return value.encode(_charset(args, context))


def _base64_encode(value: Any, _context: Context, _args: tuple[Expr, ...]) -> Any:
    if not isinstance(value, str | bytes | bytearray):
        msg = "Argument supplied to base64Encode must be a String or byte[]"
        raise RecordPathError(msg)
    return b64(value, encode=True)


_HASHES = {
    "MD2": None,
    "MD5": "md5",
    "SHA": "sha1",
    "SHA-1": "sha1",
    "SHA-224": "sha224",
    "SHA-256": "sha256",
    "SHA-384": "sha384",
    "SHA-512": "sha512",
    "SHA-512/224": "sha512_224",
    "SHA-512/256": "sha512_256",
    "SHA3-224": "sha3_224",
    "SHA3-256": "sha3_256",
    "SHA3-384": "sha3_384",
    "SHA3-512": "sha3_512",
}


def _base64_decode(value: Any, _context: Context, _args: tuple[Expr, ...]) -> Any:
    if not isinstance(value, str | bytes | bytearray):
        msg = "Argument supplied to base64Decode must be a String or byte[]"
        raise RecordPathError(msg)
    try:
        return b64(value, encode=False)
    except ValueError as exc:
        msg = f"base64Decode: {exc}"
        raise RecordPathError(msg) from None


def _hash(value: Any, context: Context, args: tuple[Expr, ...]) -> Any:
    algorithm = _text_arg(args[0], context).upper()
    if not algorithm:
        return value  # no algorithm: NiFi gives the value as it is
    name = _HASHES.get(algorithm)
    if name is None:
        msg = f"hash algorithm '{algorithm}' is not supported"
        raise RecordPathError(msg)
    return hashlib.new(name, as_bytes(value)).hexdigest()


def _pad(left: bool) -> Callable[[Any, Context, tuple[Expr, ...]], str]:
    def pad(value: Any, context: Context, args: tuple[Expr, ...]) -> str:
        text = to_text(value) or ""
        width = _index_arg(args[0], context)
        if width is None:
            return ""
        # StringUtils.leftPad/rightPad: an empty padding string is the default "_"
        fill = (_text_arg(args[1], context) if len(args) > 1 else "") or "_"
        return utf16_pad(text, width, fill, left)  # widths in UTF-16 code units

    return pad


def _uuid5(value: Any, context: Context, args: tuple[Expr, ...]) -> str:
    """NiFi's uuid5(): a namespace that is not text is the nil UUID."""
    given = _first(args[0], context) if args else None
    namespace = uuid.UUID(given) if isinstance(given, str) else uuid.UUID(int=0)
    return str(uuid.uuid5(namespace, java_string(value) or ""))  # value.toString()


_NULL_UUID5 = str(uuid.uuid5(uuid.UUID(int=0), ""))
"""NiFi's uuid5() of a null value: the name '' in the nil namespace, whatever is given."""


def _escape_json(value: Any, _context: Context, _args: tuple[Expr, ...]) -> str:
    return _jackson(value)


def _jackson(value: Any) -> str:
    """JSON as Jackson's default ObjectMapper writes it: a double as ``Double.toString``
    (NaN and Infinity quoted), a timestamp and a date as epoch milliseconds
    (``WRITE_DATES_AS_TIMESTAMPS``), a time as its ``toString()`` text (``"10:00:00"``)."""
    if isinstance(value, float):
        text = java_double_str(value)
        return f'"{text}"' if not math.isfinite(value) else text
    if isinstance(value, dt.time):
        return f'"{java_string(value)}"'
    if isinstance(value, dt.date):
        return str(epoch_millis(value))
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(f"{_jackson(str(key))}:{_jackson(item)}" for key, item in value.items())
            + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ",".join(_jackson(item) for item in value) + "]"
    return json.dumps(value, default=str, ensure_ascii=False)


def _unescape_json(value: Any, context: Context, args: tuple[Expr, ...]) -> Any:
    """NiFi's UnescapeJson: the JSON text parsed; an object stays a Map unless the second
    argument is true (then a Record, the objects inside it Records only if the third is
    true too), as do the objects of a top-level array."""
    try:
        parsed = json.loads(to_text(value) or "")
    except json.JSONDecodeError as exc:
        msg = f"unescapeJson: '{value}' is not JSON: {exc}"
        raise RecordPathError(msg) from exc
    convert = len(args) > 0 and _text_arg(args[0], context).lower() == "true"
    recursive = len(args) > 1 and _text_arg(args[1], context).lower() == "true"
    if not convert:
        return _as_maps(parsed)
    if isinstance(parsed, dict):
        return _as_record(parsed, recursive)
    if isinstance(parsed, list) and parsed and isinstance(parsed[0], dict):
        return [_as_record(item, recursive) if isinstance(item, dict) else item for item in parsed]
    return _as_maps(parsed)


def _as_maps(value: Any) -> Any:
    """Every JSON object in ``value`` a Map."""
    if isinstance(value, dict):
        return JsonMap({key: _as_maps(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_as_maps(item) for item in value]
    return value


def _as_record(value: dict[str, Any], recursive: bool) -> dict[str, Any]:
    """A JSON object as a Record; the objects inside it Records too or Maps."""
    if not recursive:
        return {key: _as_maps(item) for key, item in value.items()}

    def records(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: records(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [records(inner) for inner in item]
        return item

    return {key: records(item) for key, item in value.items()}


def _concat(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    # StringBuilder.append of a null value's text writes "null", as NiFi's concat does
    text = "".join(
        "null" if v.value is None else to_text(v.value) or ""
        for arg in args
        for v in evaluate(arg, context)
    )
    return [FieldValue(text, "concat")]


def _replace_null(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    out = []
    for value in evaluate(args[0], context):
        new = _first(args[1], context) if value.value is None else value.value
        out.append(FieldValue(new, value.name, value.parent))
    return out


def _field_name(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    return [FieldValue(v.name, "fieldName", v.parent) for v in evaluate(args[0], context)]


def _coalesce(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    for arg in args:
        for value in evaluate(arg, context):
            if value.value is not None:
                return [value]
    return []


def _count(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    return [FieldValue(len(evaluate(args[0], context)), "count")]


def _anchored(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    out: list[FieldValue] = []
    for anchor in evaluate(args[0], context):
        out.extend(evaluate(args[1], Context(anchor, anchor)))
    return out


def _pairs(args: tuple[Expr, ...], context: Context, function: str) -> list[tuple[str, Any]]:
    if len(args) % 2:
        msg = f"{function} needs an even number of arguments (name, value pairs)"
        raise RecordPathError(msg)
    return [
        (_text_arg(args[i], context), _first(args[i + 1], context)) for i in range(0, len(args), 2)
    ]


def _map_of(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    # String.valueOf of each value (Java's toString; a null is "null")
    entries = {
        key: "null" if value is None else java_string(value)
        for key, value in _pairs(args, context, "mapOf")
    }
    return [FieldValue(entries, "mapOf", dtype=pa.map_(pa.string(), pa.string()))]


def _record_of(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    return [FieldValue(dict(_pairs(args, context, "recordOf")), "recordOf")]


def _array_of(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    return [FieldValue([v.value for a in args for v in evaluate(a, context)], "arrayOf")]


def _not(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    """NiFi's NotFilter inverts the filter it wraps: a comparison whose right side is null
    still passes nothing."""
    inner = args[0]
    if isinstance(inner, Compare):
        return [FieldValue(compare_holds(inner, context, invert=True), "not")]
    return [FieldValue(not holds(args[0], context), "not")]


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str | list | dict | bytes) and len(value) == 0)


def _is_empty(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    values = evaluate(args[0], context)
    if not values:
        return [FieldValue(True, "isEmpty")]
    return [FieldValue(_empty(v.value), v.name, v.parent) for v in values]


_NOT_JAVA_WHITESPACE = frozenset("\x85\xa0\u2007\u202f")
"""Spaces Python's isspace() counts that Java's Character.isWhitespace does not."""


def _java_blank(text: str) -> bool:
    """``String.isBlank()``: empty or only ``Character.isWhitespace`` characters."""
    return all(char.isspace() and char not in _NOT_JAVA_WHITESPACE for char in text)


def _is_blank(context: Context, args: tuple[Expr, ...]) -> list[FieldValue]:
    values = evaluate(args[0], context)
    if not values:
        return [FieldValue(True, "isBlank")]
    return [
        FieldValue(v.value is None or _java_blank(to_text(v.value) or ""), v.name, v.parent)
        for v in values
    ]


def _string_test(
    test: Callable[[str, str], bool],
) -> Callable[[Any, Context, tuple[Expr, ...]], bool]:
    """NiFi's StringComparisonFilter (and the regex filters): false for a null value or a
    null or absent search value."""

    def check(value: Any, context: Context, args: tuple[Expr, ...]) -> bool:
        search = _first(args[0], context)
        if value is None or search is None:
            return False
        return test(to_text(value) or "", to_text(search) or "")

    return check


_EMPTY_FOR_NULL = frozenset({"toUpperCase", "toLowerCase", "trim"})
"""Functions that give '' for a null value (NiFi's toLowerCase(/notDefined) is '')."""

FUNCTIONS: dict[str, tuple[Function, int, int]] = {}
"""name -> (function, fewest arguments, most arguments)."""


def _register(name: str, function: Function, least: int, most: int) -> None:
    FUNCTIONS[name] = (function, least, most)


for _name, _transform, _least, _most in (
    ("substring", _substring, 3, 3),
    ("substringBefore", _before(last=False), 2, 2),
    ("substringBeforeLast", _before(last=True), 2, 2),
    ("substringAfter", _after(last=False), 2, 2),
    ("substringAfterLast", _after(last=True), 2, 2),
    ("replace", _replace, 3, 3),
    ("replaceRegex", _replace_regex, 3, 3),
    ("toDate", _to_date, 2, 3),
    ("format", _format, 2, 3),
    ("toString", _to_string, 2, 2),
    ("toBytes", _to_bytes, 2, 2),
    ("trim", _text(java_trim), 1, 1),
    ("toUpperCase", _text(str.upper), 1, 1),
    ("toLowerCase", _text(str.lower), 1, 1),
    ("base64Encode", _base64_encode, 1, 1),
    ("base64Decode", _base64_decode, 1, 1),
    ("hash", _hash, 2, 2),
    ("padLeft", _pad(left=True), 2, 3),
    ("padRight", _pad(left=False), 2, 3),
    ("uuid5", _uuid5, 1, 2),
    ("escapeJson", _escape_json, 1, 1),
    ("unescapeJson", _unescape_json, 1, 3),
):
    null = _NULL_UUID5 if _name == "uuid5" else "" if _name in _EMPTY_FOR_NULL else None
    _register(_name, _mapped(_transform, null), _least, _most)

for _name, _test in (
    ("contains", _string_test(lambda text, part: part in text)),
    ("startsWith", _string_test(str.startswith)),
    ("endsWith", _string_test(str.endswith)),
    (
        "matchesRegex",
        _string_test(lambda text, regex: java_regex(regex).fullmatch(text) is not None),
    ),
    ("containsRegex", _string_test(lambda text, regex: java_regex(regex).search(text) is not None)),
):
    _register(_name, _filter(_test), 2, 2)

for _name, _function, _least, _most in (
    ("concat", _concat, 1, 1_000),
    ("replaceNull", _replace_null, 2, 2),
    ("fieldName", _field_name, 1, 1),
    ("coalesce", _coalesce, 1, 1_000),
    ("count", _count, 1, 1),
    ("anchored", _anchored, 2, 2),
    ("mapOf", _map_of, 0, 1_000),
    ("recordOf", _record_of, 0, 1_000),
    ("arrayOf", _array_of, 1, 1_000),
    ("not", _not, 1, 1),
    ("isEmpty", _is_empty, 1, 1),
    ("isBlank", _is_blank, 1, 1),
):
    _register(_name, _function, _least, _most)


def check_call(expr: Call) -> None:
    """Reject an unknown function or a wrong number of arguments when compiling."""
    found = FUNCTIONS.get(expr.name)
    if found is None:
        msg = f"Invalid function call: '{expr.name}' is not a RecordPath function"
        raise RecordPathError(msg)
    _function, least, most = found
    if not least <= len(expr.args) <= most:
        expected = str(least) if least == most else f"{least} to {most}"
        msg = (
            f"Invalid number of arguments: {expr.name} function takes {expected} arguments "
            f"but got {len(expr.args)}"
        )
        raise RecordPathError(msg)


def call(expr: Call, context: Context) -> list[FieldValue]:
    check_call(expr)
    return FUNCTIONS[expr.name][0](context, expr.args)
