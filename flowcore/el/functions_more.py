"""The rest of NiFi 2's EL functions: text, search, encoding, JSON, math, instants, state.

Registered into the same table as the core functions (``functions.FUNCTIONS``), with the
types NiFi's compiler gives them. Each implementation follows its NiFi evaluator's null
handling: most return null for a null subject, some (``escape*``, ``unique``, ``repeat``,
``getDelimitedField``) return the empty string, ``indexOf`` returns -1. The multi-attribute
functions and the ``join`` / ``count`` reductions over them are compiled by the compiler;
the ``join`` / ``count`` here are their single-value forms.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import json
import random
import re
import socket
import string
import threading
import unicodedata
import uuid
from collections.abc import Callable, Sequence

from flowcore.el import escapes
from flowcore.el.context import EvalContext, EvaluationFailure
from flowcore.el.dates import (
    add_amount,
    compile_java_time_pattern,
    parse_amount,
    parse_instant,
    resolve_zone,
)
from flowcore.el.functions import FUNCTIONS, Evaluator, check_regex, function, string_arg
from flowcore.el.java_math import call_math
from flowcore.el.jsonpath import JsonDocument, JsonPath, compile_path
from flowcore.el.regex import Pattern, java_regex, java_replacer, java_sub
from flowcore.el.utf16 import index_of, java_length, last_index_of
from flowcore.el.values import (
    ELDate,
    ELInstant,
    Kind,
    Value,
    int_value,
    to_bool,
    to_date,
    to_instant,
    to_number,
    to_str,
    to_whole,
)
from flowcore.errors import ExpressionError

__all__: list[str] = []

S, W, N, B, D, A, INST = (
    Kind.STRING,
    Kind.WHOLE,
    Kind.NUMBER,
    Kind.BOOLEAN,
    Kind.DATE,
    Kind.ANY,
    Kind.INSTANT,
)


# --- text ------------------------------------------------------------------------------


def _translator(translate: Callable[[str], str]) -> Callable[..., Value]:
    def impl(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
        text = to_str(subject)
        return "" if text is None else translate(text)

    return impl


for _name, _translate in (
    ("escapeJson", escapes.escape_json),
    ("escapeXml", escapes.escape_xml),
    ("escapeCsv", escapes.escape_csv),
    ("escapeHtml3", escapes.escape_html3),
    ("escapeHtml4", escapes.escape_html4),
    ("unescapeJson", escapes.unescape_json),
    ("unescapeXml", escapes.unescape_xml),
    ("unescapeCsv", escapes.unescape_csv),
    ("unescapeHtml3", escapes.unescape_html3),
    ("unescapeHtml4", escapes.unescape_html4),
):
    function(_name, subject=S, returns=S)(_translator(_translate))


def _java_digit(char: str) -> int | None:
    """``Character.digit(char, 16)``: ASCII and fullwidth hex letters, any decimal digit."""
    if char in string.hexdigits:
        return int(char, 16)
    if char.isdecimal():
        return unicodedata.decimal(char)
    for first in ("\uff21", "\uff41"):  # fullwidth A and a
        if 0 <= ord(char) - ord(first) < 6:
            return ord(char) - ord(first) + 10
    return None


def _escape_byte(pair: str, text: str) -> int:
    """``Integer.parseInt(pair, 16)`` as URLDecoder reads an escape: a sign is allowed."""
    sign, digits = (pair[0], pair[1:]) if pair[0] in "+-" else ("+", pair)
    values = [_java_digit(char) for char in digits]
    if not digits or None in values:
        raise EvaluationFailure(
            f'URLDecoder: Illegal hex characters in escape (%) pattern - For input string: "{pair}"'
        )
    value = 0
    for digit in values:
        value = value * 16 + (digit or 0)
    if sign == "-" and value:
        raise EvaluationFailure(
            f"URLDecoder: Illegal hex characters in escape (%) pattern - negative value: {text}"
        )
    return value


@function("urlDecode", subject=S, returns=S)
def _url_decode(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    """``URLDecoder.decode(text, UTF_8)``: '+' is a space, runs of %XX are UTF-8 bytes."""
    text = to_str(subject)
    if text is None:
        return None
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char != "%":
            out.append(" " if char == "+" else char)
            i += 1
            continue
        run = bytearray()
        while i + 2 < n and text[i] == "%":
            run.append(_escape_byte(text[i + 1 : i + 3], text))
            i += 3
        if i < n and text[i] == "%":
            raise EvaluationFailure(f"URLDecoder: Incomplete trailing escape (%) pattern: {text}")
        out.append(run.decode("utf-8", errors="replace"))
    return "".join(out)


_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


@function("base64Decode", subject=S, returns=S)
def _base64_decode(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return None
    # java.util.Base64's basic decoder: no whitespace, padding optional.
    if not _BASE64.fullmatch(text) or len(text.rstrip("=")) % 4 == 1:
        raise EvaluationFailure(f"Illegal base64 text: {text}")
    padded = text.rstrip("=") + "=" * (-len(text.rstrip("=")) % 4)
    try:
        decoded = base64.b64decode(padded, validate=True)
    except binascii.Error as exc:
        raise EvaluationFailure(f"Illegal base64 text: {exc}") from None
    return decoded.decode("utf-8", errors="replace")


def _index_of(last: bool) -> Callable[..., Value]:
    def impl(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
        text = to_str(subject)
        if text is None:
            return -1
        search = string_arg(ctx, args, 0)
        if search is None:
            raise EvaluationFailure("the search string is null")
        return last_index_of(text, search) if last else index_of(text, search)

    return impl


function("indexOf", subject=S, returns=W, params=(S,))(_index_of(False))
function("lastIndexOf", subject=S, returns=W, params=(S,))(_index_of(True))


@function("find", subject=S, returns=B, params=(S,), check=check_regex)
def _find(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return False
    regex = string_arg(ctx, args, 0)
    if regex is None:
        return False
    return java_regex(regex).search(text) is not None


@function("replaceFirst", subject=S, returns=S, params=(S, S), check=check_regex)
def _replace_first(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return None
    regex = string_arg(ctx, args, 0)
    replacement = string_arg(ctx, args, 1)
    if regex is None or replacement is None:
        raise EvaluationFailure("the regular expression and the replacement must not be null")
    pattern = java_regex(regex)
    return java_sub(pattern, java_replacer(pattern, replacement), text, count=1)[0]


def _pattern_mappings(argument: str | None) -> list[tuple[Pattern, str]]:
    mappings: list[tuple[Pattern, str]] = []
    if argument is None or not argument.strip():
        return mappings
    for mapping in argument.split(","):
        parts = mapping.strip().split(":")
        if len(parts) < 2 or not parts[0].strip() or not parts[1].strip():
            continue
        try:
            mappings.append((java_regex(parts[0]), parts[1]))
        except ExpressionError:
            continue
    return mappings


@function("replaceByPattern", subject=S, returns=S, params=(S,))
def _replace_by_pattern(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return None
    for pattern, replacement in _pattern_mappings(string_arg(ctx, args, 0)):
        if pattern.fullmatch(text) is not None:
            return replacement
    return text


@function("repeat", subject=S, returns=S, params=(W, W), required=1)
def _repeat(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return ""
    low = to_whole(args[0](ctx))
    if low is None:
        raise EvaluationFailure("the number of repeats is null")
    low = int_value(low)  # NiFi takes the counts' intValue()
    if len(args) == 1:
        if low <= 0:
            raise EvaluationFailure("Number of repeats must be > 0")
        return text * low
    if low <= 0:
        raise EvaluationFailure("Minimum number of repeats must be > 0")
    high = to_whole(args[1](ctx))
    if high is None:
        raise EvaluationFailure("the maximum number of repeats is null")
    high = int_value(high)
    if low > high:
        raise EvaluationFailure("Min repeats must not be greater than max repeats")
    return text * random.randint(low, high)


@function("unique", subject=S, returns=S, params=(S,))
def _unique(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return ""
    separator = string_arg(ctx, args, 0)
    if not separator:
        return text
    return separator.join(dict.fromkeys(text.split(separator)))


@function("compactDelimitedList", subject=S, returns=S, params=(S,))
def _compact(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return ""
    separator = string_arg(ctx, args, 0)
    if not separator:
        return text
    return separator.join(piece for piece in text.split(separator) if piece)


@function("trimDelimitedList", subject=S, returns=S, params=(S,))
def _trim_list(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return ""
    separator = string_arg(ctx, args, 0)
    if not separator:
        return text
    pieces = text.split(separator)
    start, end = 0, len(pieces)
    while start < end and not pieces[start]:
        start += 1
    while end > start and not pieces[end - 1]:
        end -= 1
    return separator.join(pieces[start:end])


def _single_char(value: str | None, what: str) -> str:
    if not value:
        raise EvaluationFailure(
            f"Cannot evaluate getDelimitedField function because the {what} was not specified"
        )
    if java_length(value) > 1:  # an emoji is two Java chars
        raise EvaluationFailure(
            f'Cannot evaluate getDelimitedField function because the {what} evaluated to "{value}"'
            ", but only a single character is allowed."
        )
    return value


@function("getDelimitedField", subject=S, returns=S, params=(W, S, S, S, B), required=1)
def _get_delimited_field(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if not text:
        return ""
    index = to_whole(args[0](ctx))
    if index is None:
        raise EvaluationFailure(
            "Cannot evaluate getDelimitedField function because the index (which field to "
            "obtain) was not specified"
        )
    if index < 1:
        return ""
    delimiter = _single_char(string_arg(ctx, args, 1) if len(args) > 1 else ",", "delimiter")
    quote = _single_char(string_arg(ctx, args, 2) if len(args) > 2 else '"', "quote character")
    escape = _single_char(string_arg(ctx, args, 3) if len(args) > 3 else "\\", "escape character")
    strip = to_bool(args[4](ctx)) is True if len(args) > 4 else False
    if quote == delimiter:
        raise EvaluationFailure("the quote character and the delimiter are the same")
    if quote == escape:
        raise EvaluationFailure("the quote character and the escape character are the same")
    if delimiter == escape:
        raise EvaluationFailure("the delimiter and the escape character are the same")
    field: list[str] = []
    in_quote = False
    current = 1
    escaped = False
    for char in text:
        if char == quote and not escaped:
            in_quote = not in_quote
            if not strip and current == index:
                field.append(char)
        elif char == delimiter and not escaped and not in_quote:
            if current == index:
                return "".join(field)
            current += 1
        elif current == index and (char != escape or not strip):
            field.append(char)
        escaped = char == escape and not escaped
    return "".join(field) if current == index else ""


# Java's MessageDigest names (case-insensitive) and their hashlib names.
_DIGESTS = {
    "MD2": None,
    "MD5": "md5",
    "SHA": "sha1",
    "SHA-1": "sha1",
    "SHA1": "sha1",
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
# The SUN provider's aliases: SHA256 and the like, and the algorithms' object identifiers
# (also written OID.<oid>).
_DIGEST_ALIASES = {
    "SHA224": "sha224",
    "SHA256": "sha256",
    "SHA384": "sha384",
    "SHA512": "sha512",
    "SHA512/224": "sha512_224",
    "SHA512/256": "sha512_256",
    "1.3.14.3.2.26": "sha1",
    **{
        f"2.16.840.1.101.3.4.2.{number}": digest
        for number, digest in enumerate(
            (
                "sha256",
                "sha384",
                "sha512",
                "sha224",
                "sha512_224",
                "sha512_256",
                "sha3_224",
                "sha3_256",
                "sha3_384",
                "sha3_512",
            ),
            start=1,
        )
    },
}
_DIGEST_ALIASES.update({f"OID.{oid}": digest for oid, digest in list(_DIGEST_ALIASES.items())})
_SUPPORTED_DIGESTS = ", ".join(name for name, digest in _DIGESTS.items() if digest is not None)


@function("hash", subject=S, returns=S, params=(S,))
def _hash(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return None
    algorithm = string_arg(ctx, args, 0)
    name = (algorithm or "").upper()
    digest = _DIGESTS.get(name) or _DIGEST_ALIASES.get(name)
    if digest is None:
        raise EvaluationFailure(
            f"Invalid hash algorithm: {algorithm} not in set [{_SUPPORTED_DIGESTS}]"
        )
    return hashlib.new(digest, text.encode("utf-8")).hexdigest()


def _name_uuid(version: int) -> Callable[..., Value]:
    make = uuid.uuid3 if version == 3 else uuid.uuid5

    def impl(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
        text = to_str(subject)
        if text is None:
            return None
        namespace_text = string_arg(ctx, args, 0)
        try:
            namespace = uuid.UUID(int=0) if namespace_text is None else uuid.UUID(namespace_text)
        except ValueError:
            raise EvaluationFailure(f"Invalid UUID string: {namespace_text}") from None
        return str(make(namespace, text))

    return impl


function("UUID3", subject=S, returns=S, params=(S,))(_name_uuid(3))
function("UUID5", subject=S, returns=S, params=(S,))(_name_uuid(5))


@function("evaluateELString", subject=S, returns=S)
def _evaluate_el_string(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return ""
    from flowcore.el.expression import compile_template  # the compiler imports this module

    inner = EvalContext(ctx.attributes, ctx.env, None, ctx.now_ms(), ctx.state)
    return compile_template(text, parameters=False).render(inner)


# --- JSON --------------------------------------------------------------------------------


def _check_json_path(literals: tuple[object, ...]) -> None:
    if isinstance(literals[0], str):
        compile_path(literals[0])


def _path_arg(ctx: EvalContext, args: Sequence[Evaluator]) -> JsonPath:
    text = string_arg(ctx, args, 0)
    if text is None:
        raise EvaluationFailure("Invalid JSON Path expression: null")
    return compile_path(text)


def _json_value(value: Value) -> object:
    """A value as Jayway stores it: strings, numbers and booleans keep their type."""
    if isinstance(value, ELDate):
        return value.ms
    if isinstance(value, ELInstant):
        return to_str(value)
    return value


@function("jsonPath", subject=S, returns=S, params=(S,), check=_check_json_path)
def _json_path(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    document = JsonDocument(to_str(subject))
    return document.read(_path_arg(ctx, args))


@function("jsonPathDelete", subject=S, returns=S, params=(S,), check=_check_json_path)
def _json_path_delete(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    document = JsonDocument(to_str(subject))
    return document.delete(_path_arg(ctx, args))


@function("jsonPathSet", subject=S, returns=S, params=(S, A), check=_check_json_path)
def _json_path_set(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    document = JsonDocument(to_str(subject))
    path = _path_arg(ctx, args)
    return document.set(path, _json_value(args[1](ctx)))


@function("jsonPathAdd", subject=S, returns=S, params=(S, A), check=_check_json_path)
def _json_path_add(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    document = JsonDocument(to_str(subject))
    path = _path_arg(ctx, args)
    return document.add(path, _json_value(args[1](ctx)))


@function("jsonPathPut", subject=S, returns=S, params=(S, A, A), check=_check_json_path)
def _json_path_put(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    document = JsonDocument(to_str(subject))
    path = _path_arg(ctx, args)
    key = to_str(args[1](ctx))
    if key is None:
        raise EvaluationFailure("the key to put is null")
    return document.put(path, key, to_str(args[2](ctx)))


@function("isJson", subject=S, returns=B)
def _is_json(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return False
    text = text.strip()
    if not (text[:1] == "[" and text[-1:] == "]") and not (text[:1] == "{" and text[-1:] == "}"):
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


# --- numbers -----------------------------------------------------------------------------


@function("math", subject=N, returns=N, params=(S, N), required=1, optional_subject=True)
def _math(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    name = string_arg(ctx, args, 0)
    number = to_number(subject)
    if name is None or number is None:
        return None  # a null subject (a missing attribute) is null, as in NiFi
    argument = None
    if len(args) > 1:
        argument = to_number(args[1](ctx))
        if argument is None:
            return None
    return call_math(name, number, argument)


def _math_subjectless(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    """``${math('random')}``: the no-argument ``Math`` methods."""
    name = string_arg(ctx, args, 0)
    if name is None:
        return None
    if len(args) > 1:
        raise EvaluationFailure("Call to math() as the subject must take exactly 1 parameter")
    return call_math(name, None, None)


FUNCTIONS["math"] = dataclasses.replace(FUNCTIONS["math"], subjectless_impl=_math_subjectless)


@function("toRadix", subject=W, returns=S, params=(W, W), required=1)
def _to_radix(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    number = to_whole(subject)
    if number is None:
        return None
    radix = to_whole(args[0](ctx))
    if radix is None:
        return None
    radix = int_value(radix)
    if not 2 <= radix <= 36:
        radix = 10  # Long.toString falls back to base 10
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    magnitude, out = abs(number), []
    while True:
        magnitude, digit = divmod(magnitude, radix)
        out.append(digits[digit])
        if not magnitude:
            break
    text = ("-" if number < 0 else "") + "".join(reversed(out))
    if len(args) > 1:
        width = to_whole(args[1](ctx))
        if width is not None:
            width = int_value(width)
        if width is not None and width > len(text):
            text = "0" * (width - len(text)) + text
    return text


@function("fromRadix", subject=S, returns=W, params=(W,))
def _from_radix(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return None
    radix = to_whole(args[0](ctx))
    if radix is None:
        return None
    radix = int_value(radix)  # Long.parseLong(text, radix.intValue())
    # Character.digit takes any Unicode decimal digit too ("٣" is 3)
    if not 2 <= radix <= 36 or not re.fullmatch(r"[-+]?(?:[0-9a-zA-Z]|\d)+", text):
        raise EvaluationFailure(f'For input string: "{text}" under radix {radix}')
    try:
        value = int(text, radix)
    except ValueError:
        raise EvaluationFailure(f'For input string: "{text}" under radix {radix}') from None
    if not -(2**63) <= value <= 2**63 - 1:
        raise EvaluationFailure(f'For input string: "{text}" under radix {radix}')
    return value


@function("random", subject=None, returns=W)
def _random(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    value = random.getrandbits(64) - 2**63
    return abs(value) if value != -(2**63) else value  # Math.abs(Long.MIN_VALUE) stays negative


# --- dates and instants ------------------------------------------------------------------


def _check_amount_args(literals: tuple[object, ...]) -> None:
    if isinstance(literals[0], str):
        parse_amount(literals[0])
    if len(literals) > 1 and isinstance(literals[1], str):
        resolve_zone(literals[1])


def _date_duration(sign: int) -> Callable[..., Value]:
    def impl(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
        moment = to_date(subject)
        if moment is None:
            return None
        amount = string_arg(ctx, args, 0)
        zone_name = string_arg(ctx, args, 1) if len(args) > 1 else None
        zone = None if zone_name is None else resolve_zone(zone_name)
        return ELDate(add_amount(moment.ms * 1_000_000, amount, zone, sign) // 1_000_000)

    return impl


function("plusDuration", subject=D, returns=D, params=(S, S), required=1, check=_check_amount_args)(
    _date_duration(1)
)
function(
    "minusDuration", subject=D, returns=D, params=(S, S), required=1, check=_check_amount_args
)(_date_duration(-1))


def _instant_duration(sign: int) -> Callable[..., Value]:
    utc = resolve_zone("UTC")

    def impl(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
        moment = to_instant(subject)
        if moment is None:
            return None
        return ELInstant(add_amount(moment.ns, string_arg(ctx, args, 0), utc, sign))

    return impl


function("plusInstantDuration", subject=INST, returns=INST, params=(S,), check=_check_amount_args)(
    _instant_duration(1)
)
function("minusInstantDuration", subject=INST, returns=INST, params=(S,), check=_check_amount_args)(
    _instant_duration(-1)
)


def _check_instant_args(literals: tuple[object, ...]) -> None:
    if len(literals) == 1:
        raise ExpressionError("toInstant takes no arguments or a format and a time zone")
    if literals and isinstance(literals[0], str):
        compile_java_time_pattern(literals[0])
    if len(literals) > 1 and isinstance(literals[1], str):
        resolve_zone(literals[1])


@function(
    "toInstant", subject=S, returns=INST, params=(S, S), required=0, check=_check_instant_args
)
def _to_instant(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    if not args or not isinstance(subject, str):
        whole = to_whole(subject)
        return None if whole is None else ELInstant(whole * 1_000_000)
    pattern = string_arg(ctx, args, 0)
    if pattern is None:
        return None
    zone_name = string_arg(ctx, args, 1)
    if zone_name is None:
        raise EvaluationFailure("the time zone is null")
    compiled = compile_java_time_pattern(pattern)
    return ELInstant(compiled.parse_to_instant_ns(subject, resolve_zone(zone_name), strict=True))


@function("formatInstant", subject=INST, returns=S, params=(S, S), check=_check_instant_args)
def _format_instant(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    moment = to_instant(subject)
    if moment is None:
        return None
    pattern = string_arg(ctx, args, 0)
    if pattern is None:
        return None
    zone_name = string_arg(ctx, args, 1)
    if zone_name is None:
        raise EvaluationFailure("the time zone is null")
    return compile_java_time_pattern(pattern).format_ns(moment.ns, resolve_zone(zone_name))


@function("toMicros", subject=INST, returns=N, exact_subject=True)
def _to_micros(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return None if not isinstance(subject, ELInstant) else subject.ns // 1000


@function("toNanos", subject=INST, returns=N, exact_subject=True)
def _to_nanos(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return None if not isinstance(subject, ELInstant) else subject.ns


@function("isValidInstant", subject=S, returns=B)
def _is_valid_instant(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return False
    try:
        parse_instant(text.strip())
    except ExpressionError:
        return False
    return True


def _check_valid_date_args(literals: tuple[object, ...]) -> None:
    if isinstance(literals[0], str):
        compile_java_time_pattern(literals[0])
    if len(literals) > 1 and isinstance(literals[1], str):
        resolve_zone(literals[1])


@function(
    "isValidDate", subject=S, returns=B, params=(S, S), required=1, check=_check_valid_date_args
)
def _is_valid_date(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return False
    pattern_text = string_arg(ctx, args, 0)
    if pattern_text is None:
        return False
    try:
        pattern = compile_java_time_pattern(pattern_text)
        zone_name = string_arg(ctx, args, 1) if len(args) > 1 else None
        zone = resolve_zone(zone_name) if zone_name is not None else resolve_zone("UTC")
        # As NiFi: a pattern without a year is checked against the leap year 2000.
        pattern.parse_ns(text.strip(), zone, default_year=2000, reject_gap=True)
    except ExpressionError:
        return False
    return True


# --- reductions on a single value --------------------------------------------------------


@function("join", subject=S, returns=S, params=(S,))
def _join(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    return "" if text is None else text


@function("count", subject=A, returns=W)
def _count(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return 0 if subject is None or subject is False else 1


# --- subjectless -------------------------------------------------------------------------


_address: list[str] = []


@function("ip", subject=None, returns=S)
def _ip(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    if not _address:
        try:
            _address.append(socket.gethostbyname(socket.gethostname()))
        except OSError:
            _address.append("127.0.0.1")
    return _address[0]


@function("thread", subject=None, returns=S)
def _thread(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return threading.current_thread().name


@function("getStateValue", subject=None, returns=S, params=(S,))
def _get_state_value(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    key = string_arg(ctx, args, 0)
    if key is None or ctx.state is None:
        return None
    return ctx.state.get(key)


# java.net.URI's legal characters per component (RFC 2396), besides letters and digits.
_UNRESERVED = "_-!.~'()*"
_RESERVED = ";/?:@&=+$,[]"
_LEGAL = {
    "userinfo": _UNRESERVED + ";:&=+$,",
    "path": _UNRESERVED + ":@&=+$,;/",
    "uric": _UNRESERVED + _RESERVED,
}


def _uri_quote(text: str, part: str) -> str:
    legal = _LEGAL[part]
    out: list[str] = []
    for char in text:
        if char.isascii() and (char.isalnum() or char in legal):
            out.append(char)
        elif not char.isascii() and not char.isspace() and char.isprintable():
            out.append(char)  # java.net.URI keeps "other" characters
        else:
            out.append("".join(f"%{byte:02X}" for byte in char.encode("utf-8")))
    return "".join(out)


def _build_uri(parts: list[str | None]) -> str:
    scheme, user_info, host, port_text, path, query, fragment = parts
    try:
        port = int(port_text) if port_text is not None else None
        if port is None or not -(2**31) <= port <= 2**31 - 1:
            raise ValueError
    except ValueError:
        raise EvaluationFailure(
            f"Could not evaluate 'getUri' function with argument '{port_text}' which is not a "
            "number"
        ) from None
    out: list[str] = []
    if scheme is not None:
        out.append(scheme + ":")
    if host is not None:
        out.append("//")
        if user_info is not None:
            out.append(_uri_quote(user_info, "userinfo") + "@")
        bracket = ":" in host and not host.startswith("[")
        out.append(f"[{host}]" if bracket else host)
        if port != -1:
            out.append(f":{port}")
    if path is not None:
        if scheme is not None and path and not path.startswith("/"):
            raise EvaluationFailure(
                f"Could not evaluate 'getUri' function with argument(s) {parts}: "
                "Relative path in absolute URI"
            )
        out.append(_uri_quote(path, "path"))
    if query is not None:
        out.append("?" + _uri_quote(query, "uric"))
    if fragment is not None:
        out.append("#" + _uri_quote(fragment, "uric"))
    return "".join(out)


@function("getUri", subject=None, returns=S, params=(S, S, S, S, S, S, S))
def _get_uri(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return _build_uri([to_str(arg(ctx)) for arg in args])
