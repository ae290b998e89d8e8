"""The EL function registry and the everyday functions (strings, logic, numbers, dates).

The rest of NiFi's functions are in ``functions_more``, registered into the same table.

Each function is registered with its arity and the data types NiFi declares for its
subject, arguments and result; the compiler uses these to reject unknown functions, wrong
argument counts and impossible conversions before anything runs. An implementation gets
the evaluation context, its evaluated subject and its argument *evaluators* (so ``ifElse``,
``and``, ``or`` and ``replaceNull`` evaluate only what they need) and follows NiFi's null
handling function by function.
"""

from __future__ import annotations

import base64
import itertools
import math
import socket
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import quote_plus

from flowcore.el.context import EvalContext, EvaluationFailure
from flowcore.el.dates import compile_java_time_pattern, resolve_zone
from flowcore.el.regex import java_regex, java_replacer, java_sub
from flowcore.el.utf16 import java_length, java_slice, pad
from flowcore.el.values import (
    ELDate,
    Kind,
    Value,
    int_value,
    java_trim,
    to_bool,
    to_date,
    to_decimal,
    to_number,
    to_str,
    to_whole,
)

__all__ = [
    "FUNCTIONS",
    "NOT_LITERAL",
    "Evaluator",
    "FunctionSpec",
    "Impl",
    "check_regex",
    "function",
    "string_arg",
]

Evaluator = Callable[[EvalContext], Value]
Impl = Callable[[EvalContext, Value, Sequence[Evaluator]], Value]
NOT_LITERAL = object()
"""Stands for an argument that is not a literal in the tuple given to a ``check``."""
Check = Callable[[tuple[object, ...]], None]


@dataclass(frozen=True, slots=True)
class FunctionSpec:
    name: str
    impl: Impl
    subject: Kind | None  # None: subjectless (``${now()}``)
    params: tuple[Kind, ...]
    required: int
    varargs: bool  # the last parameter repeats
    returns: Kind
    check: Check | None  # validates literal arguments at compile time
    optional_subject: bool = False  # both ${fn(...)} and ${x:fn(...)} (``math``)
    subjectless_impl: Impl | None = None  # the ${fn(...)} form of an optional subject
    exact_subject: bool = False  # the subject must have exactly the ``subject`` type

    def accepts(self, count: int) -> bool:
        if count < self.required:
            return False
        return self.varargs or count <= len(self.params)

    def param_kind(self, index: int) -> Kind:
        return self.params[min(index, len(self.params) - 1)]

    def arity(self) -> str:
        if self.varargs:
            return f"at least {self.required} argument{'s' if self.required != 1 else ''}"
        most = len(self.params)
        if most == self.required:
            return f"{most} argument{'s' if most != 1 else ''}"
        joiner = "or" if most == self.required + 1 else "to"
        return f"{self.required} {joiner} {most} arguments"


FUNCTIONS: dict[str, FunctionSpec] = {}


def _function(
    name: str,
    *,
    subject: Kind | None,
    returns: Kind,
    params: tuple[Kind, ...] = (),
    required: int | None = None,
    varargs: bool = False,
    check: Check | None = None,
    optional_subject: bool = False,
    exact_subject: bool = False,
) -> Callable[[Impl], Impl]:
    def register(impl: Impl) -> Impl:
        FUNCTIONS[name] = FunctionSpec(
            name=name,
            impl=impl,
            subject=subject,
            params=params,
            required=len(params) if required is None else required,
            varargs=varargs,
            returns=returns,
            check=check,
            optional_subject=optional_subject,
            exact_subject=exact_subject,
        )
        return impl

    return register


def _string_arg(ctx: EvalContext, args: Sequence[Evaluator], index: int) -> str | None:
    return to_str(args[index](ctx))


# --- compile-time checks of literal arguments -------------------------------------------


def _check_regex(literals: tuple[object, ...]) -> None:
    if isinstance(literals[0], str):
        java_regex(literals[0])


def _check_date_args(literals: tuple[object, ...]) -> None:
    if literals and isinstance(literals[0], str):
        compile_java_time_pattern(literals[0])
    if len(literals) > 1 and isinstance(literals[1], str):
        resolve_zone(literals[1])


# --- strings -----------------------------------------------------------------------------

S, W, N, B, D, A = Kind.STRING, Kind.WHOLE, Kind.NUMBER, Kind.BOOLEAN, Kind.DATE, Kind.ANY


@_function("toUpper", subject=S, returns=S)
def _to_upper(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    return None if text is None else text.upper()


@_function("toLower", subject=S, returns=S)
def _to_lower(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    return None if text is None else text.lower()


@_function("trim", subject=S, returns=S)
def _trim(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    return None if text is None else java_trim(text)


@_function("substring", subject=S, returns=S, params=(W, W), required=1)
def _substring(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return ""
    length = java_length(text)  # Java indices count UTF-16 code units
    start = to_whole(args[0](ctx))
    end = length if len(args) < 2 else to_whole(args[1](ctx))
    if start is None or end is None:
        raise EvaluationFailure("substring index is null")
    start, end = int_value(start), int_value(end)
    if start < 0 or end > length or start > end:
        return ""  # NiFi turns Java's IndexOutOfBoundsException into the empty string
    return java_slice(text, start, end)


def _before_after(last: bool, after: bool) -> Impl:
    def impl(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
        text = to_str(subject)
        if text is None:
            return ""
        search = _string_arg(ctx, args, 0)
        if not search:
            return text
        index = text.rfind(search) if last else text.find(search)
        if index < 0:
            return text
        return text[index + len(search) :] if after else text[:index]

    return impl


_function("substringBefore", subject=S, returns=S, params=(S,))(_before_after(False, False))
_function("substringBeforeLast", subject=S, returns=S, params=(S,))(_before_after(True, False))
_function("substringAfter", subject=S, returns=S, params=(S,))(_before_after(False, True))
_function("substringAfterLast", subject=S, returns=S, params=(S,))(_before_after(True, True))


@_function("replace", subject=S, returns=S, params=(S, S))
def _replace(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return None
    search = _string_arg(ctx, args, 0)
    if search is None:
        return text
    return text.replace(search, _string_arg(ctx, args, 1) or "")


@_function("replaceAll", subject=S, returns=S, params=(S, S), check=_check_regex)
def _replace_all(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return None
    regex = _string_arg(ctx, args, 0)
    if regex is None:
        return text
    pattern = java_regex(regex)
    return java_sub(pattern, java_replacer(pattern, _string_arg(ctx, args, 1) or ""), text)[0]


@_function("append", subject=S, returns=S, params=(S,))
def _append(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return (to_str(subject) or "") + (_string_arg(ctx, args, 0) or "")


@_function("prepend", subject=S, returns=S, params=(S,))
def _prepend(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return (_string_arg(ctx, args, 0) or "") + (to_str(subject) or "")


@_function("length", subject=S, returns=W)
def _length(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    return 0 if text is None else java_length(text)


def _padding(left: bool) -> Impl:
    def impl(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
        text = to_str(subject)
        if text is None:
            return None
        length = to_whole(args[0](ctx))
        if length is None or length <= 0 or length > 2**31 - 1:
            return text
        padding = (_string_arg(ctx, args, 1) if len(args) > 1 else None) or "_"
        return pad(text, length, padding, left)

    return impl


_function("padLeft", subject=S, returns=S, params=(W, S), required=1)(_padding(True))
_function("padRight", subject=S, returns=S, params=(W, S), required=1)(_padding(False))


@_function("urlEncode", subject=S, returns=S)
def _url_encode(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return None
    # java.net.URLEncoder: space becomes '+', and only letters, digits and ".-*_" are kept.
    return quote_plus(text, safe="*").replace("~", "%7E")


@_function("base64Encode", subject=S, returns=S)
def _base64_encode(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    return None if text is None else base64.b64encode(text.encode("utf-8")).decode("ascii")


# --- booleans ----------------------------------------------------------------------------


def _comparable(value: Value) -> str | None:
    return str(value.ms) if isinstance(value, ELDate) else to_str(value)


@_function("equals", subject=A, returns=B, params=(A,))
def _equals(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    if subject is None:
        return False
    other = args[0](ctx)
    if other is None:
        return False
    if type(subject) is type(other):
        return subject == other
    return _comparable(subject) == _comparable(other)


@_function("equalsIgnoreCase", subject=S, returns=B, params=(S,))
def _equals_ignore_case(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    other = _string_arg(ctx, args, 0)
    if text is None or other is None or len(text) != len(other):
        return False
    return all(
        a == b or a.upper() == b.upper() or a.lower() == b.lower()
        for a, b in zip(text, other, strict=True)
    )


@_function("isEmpty", subject=A, returns=B)
def _is_empty(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    return text is None or not java_trim(text)


@_function("isNull", subject=A, returns=B)
def _is_null(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return subject is None


@_function("notNull", subject=A, returns=B)
def _not_null(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return subject is not None


def _string_test(test: Callable[[str, str], bool]) -> Impl:
    def impl(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
        text = to_str(subject)
        if text is None:
            return False
        other = _string_arg(ctx, args, 0)
        return other is not None and test(text, other)

    return impl


_function("contains", subject=S, returns=B, params=(S,))(_string_test(lambda a, b: b in a))
_function("startsWith", subject=S, returns=B, params=(S,))(_string_test(str.startswith))
_function("endsWith", subject=S, returns=B, params=(S,))(_string_test(str.endswith))
_function("matches", subject=S, returns=B, params=(S,), check=_check_regex)(
    _string_test(lambda text, regex: java_regex(regex).fullmatch(text) is not None)
)


@_function("in", subject=S, returns=B, params=(S,), varargs=True)
def _in(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None:
        return False
    return any(to_str(arg(ctx)) == text for arg in args)


def _numeric_test(test: Callable[[float, float], bool]) -> Impl:
    def impl(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
        number = to_number(subject)
        if number is None:
            return False
        other = to_number(args[0](ctx))
        if other is None:
            return False
        if isinstance(number, float) or isinstance(other, float):
            # Java compares a long with a double as two doubles (the long rounded)
            return test(float(number), float(other))
        return test(number, other)

    return impl


_function("gt", subject=N, returns=B, params=(N,))(_numeric_test(lambda a, b: a > b))
_function("ge", subject=N, returns=B, params=(N,))(_numeric_test(lambda a, b: a >= b))
_function("lt", subject=N, returns=B, params=(N,))(_numeric_test(lambda a, b: a < b))
_function("le", subject=N, returns=B, params=(N,))(_numeric_test(lambda a, b: a <= b))


@_function("and", subject=B, returns=B, params=(B,))
def _and(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    if to_bool(subject) is False:
        return False
    return to_bool(args[0](ctx))


@_function("or", subject=B, returns=B, params=(B,))
def _or(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    if to_bool(subject) is True:
        return True
    return to_bool(args[0](ctx))


@_function("not", subject=B, returns=B)
def _not(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    flag = to_bool(subject)
    return None if flag is None else not flag


@_function("ifElse", subject=B, returns=S, params=(S, S))
def _if_else(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return to_str(args[0 if to_bool(subject) is True else 1](ctx))


# --- numbers -----------------------------------------------------------------------------


@_function("toNumber", subject=W, returns=W)
def _to_number(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return to_whole(subject)


@_function("toDecimal", subject=Kind.DECIMAL, returns=Kind.DECIMAL)
def _to_decimal(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return to_decimal(subject)


def _java_divide(a: float, b: float) -> float:
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _wrap(value: int) -> int:
    """Java's long arithmetic: the result wraps around past Long.MAX_VALUE / MIN_VALUE."""
    return (value + 2**63) % 2**64 - 2**63


def _java_int_divide(a: int, b: int) -> int:
    if b == 0:
        raise EvaluationFailure("division by zero")
    quotient = abs(a) // abs(b)
    return _wrap(quotient if (a < 0) == (b < 0) else -quotient)


def _java_int_mod(a: int, b: int) -> int:
    if b == 0:
        raise EvaluationFailure("division by zero")
    remainder = abs(a) % abs(b)
    return -remainder if a < 0 else remainder


def _java_float_mod(a: float, b: float) -> float:
    return math.nan if b == 0.0 or math.isinf(a) else math.fmod(a, b)


def _arithmetic(whole: Callable[[int, int], int], decimal: Callable[[float, float], float]) -> Impl:
    def impl(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
        a = to_number(subject)
        if a is None:
            return None
        b = to_number(args[0](ctx))
        if b is None:
            return None
        if isinstance(a, int) and isinstance(b, int):
            return whole(a, b)
        return decimal(float(a), float(b))

    return impl


_function("plus", subject=N, returns=N, params=(N,))(
    _arithmetic(lambda a, b: _wrap(a + b), lambda a, b: a + b)
)
_function("minus", subject=N, returns=N, params=(N,))(
    _arithmetic(lambda a, b: _wrap(a - b), lambda a, b: a - b)
)
_function("multiply", subject=N, returns=N, params=(N,))(
    _arithmetic(lambda a, b: _wrap(a * b), lambda a, b: a * b)
)
_function("divide", subject=N, returns=N, params=(N,))(_arithmetic(_java_int_divide, _java_divide))
_function("mod", subject=N, returns=N, params=(N,))(_arithmetic(_java_int_mod, _java_float_mod))


# --- dates -------------------------------------------------------------------------------


@_function("now", subject=None, returns=D)
def _now(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return ELDate(ctx.now_ms())


@_function("toDate", subject=S, returns=D, params=(S, S), required=0, check=_check_date_args)
def _to_date(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    if not args:
        return to_date(subject)
    text = to_str(subject)
    pattern = _string_arg(ctx, args, 0)
    if text is None or pattern is None:
        return None
    zone_name = _string_arg(ctx, args, 1) if len(args) > 1 else None
    zone = None if zone_name is None else resolve_zone(zone_name)
    return ELDate(compile_java_time_pattern(pattern).parse_to_instant_ns(text, zone) // 1_000_000)


@_function("format", subject=D, returns=S, params=(S, S), required=1, check=_check_date_args)
def _format(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    moment = to_date(subject)
    pattern = _string_arg(ctx, args, 0)
    if moment is None or pattern is None:
        return None
    zone_name = _string_arg(ctx, args, 1) if len(args) > 1 else None
    zone = None if zone_name is None else resolve_zone(zone_name)
    return compile_java_time_pattern(pattern).format(moment.ms, zone)


# --- misc --------------------------------------------------------------------------------


@_function("UUID", subject=None, returns=S)
def _uuid(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return str(uuid.uuid4())


@_function("hostname", subject=None, returns=S, params=(B,), required=0)
def _hostname(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    if args and to_bool(args[0](ctx)) is True:
        return socket.getfqdn()
    return socket.gethostname()


@_function("literal", subject=None, returns=A, params=(A,))
def _literal(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return args[0](ctx)


_counter = itertools.count()
_counter_lock = threading.Lock()


@_function("nextInt", subject=None, returns=W)
def _next_int(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    with _counter_lock:
        return next(_counter)


@_function("replaceNull", subject=S, returns=S, params=(S,))
def _replace_null(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    return _string_arg(ctx, args, 0) if text is None else text


@_function("replaceEmpty", subject=S, returns=S, params=(S,))
def _replace_empty(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    text = to_str(subject)
    if text is None or not java_trim(text):
        return _string_arg(ctx, args, 0)
    return text


@_function("toString", subject=A, returns=S)
def _to_string(ctx: EvalContext, subject: Value, args: Sequence[Evaluator]) -> Value:
    return to_str(subject)


# The registration helpers, for the modules that add functions (``functions_more``).
function = _function
string_arg = _string_arg
check_regex = _check_regex
