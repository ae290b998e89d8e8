"""Value expressions of equality rules, and the type-tagged keys their values index under.

An expression is an alias-qualified property path (``"a.f1"``, ``"a.address.zip"``,
``"a.$ids"``) or one of the DTL functions ``lower``, ``upper``, ``string`` and ``integer``
applied to an expression (``["lower", "c.f3"]``). Every expression references exactly one
dataset alias. Evaluating one on an entity gives a flat list of values (a scalar is a
one-element list, ``null`` nothing); each value becomes one *value key*, a byte string
that carries its type, so that ``"1"``, ``1`` and ``true`` never meet in the index.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

FUNCTIONS = ("lower", "upper", "string", "integer")
"""The DTL functions a value expression may use."""

Entity = Mapping[str, Any]


class ExpressionError(ValueError):
    """A value expression that cannot be compiled; ``str()`` explains why."""


@dataclass(frozen=True, slots=True)
class Expression:
    """A compiled value expression over the entities of one alias."""

    alias: str
    text: str
    """Canonical JSON of the expression, as written (``"a.f1"``, ``["lower","c.f3"]``)."""
    evaluate: Callable[[Entity], list[Any]]
    key: bytes = b""
    """8 bytes naming this expression in index keys (stable across rule reordering)."""

    def __post_init__(self) -> None:
        digest = hashlib.blake2b(self.text.encode("utf-8"), digest_size=8).digest()
        object.__setattr__(self, "key", digest)


def compile_expression(spec: Any, aliases: Sequence[str]) -> Expression:
    """Compile one side of an equality rule; raises ExpressionError naming the problem."""
    used: set[str] = set()
    evaluate = _compile(spec, aliases, used)
    if len(used) != 1:
        msg = (
            f"the value expression {_text(spec)} must reference exactly one dataset alias, "
            f"not {len(used)}"
        )
        raise ExpressionError(msg)
    return Expression(alias=used.pop(), text=_text(spec), evaluate=evaluate)


def _text(spec: Any) -> str:
    return json.dumps(spec, separators=(",", ":"), ensure_ascii=False)


def _compile(spec: Any, aliases: Sequence[str], used: set[str]) -> Callable[[Entity], list[Any]]:
    if isinstance(spec, str):
        alias, dot, path = spec.partition(".")
        if not dot or not path or any(not part for part in path.split(".")):
            msg = f'{_text(spec)} is not an alias-qualified property path such as "a.x"'
            raise ExpressionError(msg)
        if alias not in aliases:
            known = ", ".join(aliases)
            msg = f"{_text(spec)} refers to the unknown dataset alias '{alias}' (known: {known})"
            raise ExpressionError(msg)
        used.add(alias)
        return _path(path.split("."))
    if isinstance(spec, list) and spec and isinstance(spec[0], str):
        name, args = spec[0], spec[1:]
        if name not in FUNCTIONS:
            msg = (
                f"{_text(spec)} uses the unknown function '{name}' (known: {', '.join(FUNCTIONS)})"
            )
            raise ExpressionError(msg)
        if len(args) != 1:
            msg = f"the function '{name}' takes one argument, not {len(args)}, in {_text(spec)}"
            raise ExpressionError(msg)
        inner = _compile(args[0], aliases, used)
        function = _FUNCTIONS[name]

        def apply(entity: Entity) -> list[Any]:
            return [r for r in (function(v) for v in inner(entity)) if r is not None]

        return apply
    msg = f'{_text(spec)} is not a value expression (a path "a.x" or ["function", expr])'
    raise ExpressionError(msg)


def _flatten(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return [v for v in value if v is not None]
    return [value]


def ids_of(entity: Entity) -> list[Any]:
    """``$ids`` if the entity has it, else ``[_id]`` (DTL's dynamic ``$ids``)."""
    if "$ids" in entity:
        return _flatten(entity["$ids"])
    return _flatten(entity.get("_id"))


def _path(parts: list[str]) -> Callable[[Entity], list[Any]]:
    first, rest = parts[0], parts[1:]

    def evaluate(entity: Entity) -> list[Any]:
        values = ids_of(entity) if first == "$ids" else _flatten(entity.get(first))
        for part in rest:
            # A path goes into dicts; over a list it maps and flattens, as DTL paths do.
            values = [item for v in values if isinstance(v, dict) for item in _flatten(v.get(part))]
        return values

    return evaluate


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else None


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else None


def _string(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _integer(value: Any) -> Any:
    if isinstance(value, bool):
        return None  # no implicit true -> 1 (see docs/processors/merge_entities.md)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            return int(value.strip(), 10)
        except ValueError:
            return None
    return None


_FUNCTIONS: dict[str, Callable[[Any], Any]] = {
    "lower": _lower,
    "upper": _upper,
    "string": _string,
    "integer": _integer,
}


# -- value keys ------------------------------------------------------------------------------

_LONG_KEY = 200
"""Value keys longer than this are replaced by a 16-byte hash (keyed-state keys are short)."""


def value_key(value: Any) -> bytes | None:
    """The type-tagged index key of one value; None for values that never match.

    Strings ``s``, booleans ``b``, numbers ``n`` (an integer and a float of equal value
    share a key: ``1`` matches ``1.0``), dicts and nested lists ``j`` (deep equality, by
    canonical JSON). ``null`` and NaN never match.
    """
    if value is None:
        return None
    if isinstance(value, str):
        key = b"s" + value.encode("utf-8", "surrogatepass")
    elif isinstance(value, bool):
        key = b"b1" if value else b"b0"
    elif isinstance(value, int):
        key = b"n" + str(value).encode()
    elif isinstance(value, float):
        if math.isnan(value):
            return None
        key = b"n" + _number_text(value).encode()
    else:
        key = b"j" + canonical_json(value).encode("utf-8", "surrogatepass")
    if len(key) > _LONG_KEY:
        key = b"h" + hashlib.blake2b(key, digest_size=16).digest()
    return key


def _number_text(value: float) -> str:
    if math.isfinite(value) and value.is_integer():
        return str(int(value))
    return repr(value)


def _normalise(value: Any) -> Any:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and integral floats as integers (deep, type-aware equality)."""
    return json.dumps(_normalise(value), separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def value_keys(values: Sequence[Any]) -> list[bytes]:
    """The distinct value keys of an expression's values, in first-seen order."""
    keys: dict[bytes, None] = {}
    for value in values:
        key = value_key(value)
        if key is not None:
            keys[key] = None
    return list(keys)
