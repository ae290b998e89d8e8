"""JSONPath for the EL ``jsonPath*`` functions, with the results NiFi's Jayway JsonPath gives.

Paths are parsed by ``jsonpath-ng`` (its extended grammar, which has Jayway's filters such
as ``[?(@.type=='home')]``) and cached. On top of it this module reproduces what NiFi does
with Jayway's answers: a *definite* path (no ``..``, ``*``, filter, slice or union) that
matches nothing reads as the empty string, an indefinite one as a JSON list; a one-element
list is unwrapped; scalars print as Java prints them (``6.1``, ``true``) and JSON ``null``
as the empty string; anything else prints as compact JSON. ``set`` and ``delete`` leave a
document alone when nothing matches; ``add`` needs an array and ``put`` an object, and
otherwise the function's result is the empty string, as in NiFi.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from jsonpath_ng.exceptions import JsonPathLexerError, JsonPathParserError
from jsonpath_ng.ext.parser import parse as parse_path

from flowcore.el.values import java_double_str
from flowcore.errors import ExpressionError

__all__ = ["JsonDocument", "JsonPath", "PathFailed", "compile_path", "to_json_text"]

_INDEFINITE = re.compile(r"\.\.|\*|\?\(|\[[^\]]*[,:][^\]]*\]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class JsonPath:
    """A parsed path and whether it is definite (one match at most, in Jayway's terms)."""

    __slots__ = ("definite", "expression", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.definite = _INDEFINITE.search(text) is None
        # Jayway's length() function is jsonpath-ng's `len` extension.
        translated = text[: -len(".length()")] + ".`len`" if text.endswith(".length()") else text
        try:
            self.expression = parse_path(translated)
        except (JsonPathParserError, JsonPathLexerError, ValueError, TypeError) as exc:
            raise ExpressionError(f"Invalid JSON Path expression: {text} ({exc})") from None

    def matches(self, document: Any) -> list[Any]:
        """The matches in ``document``; raises ``PathFailed`` when the path cannot be
        applied (a filter comparing a number with a string, say)."""
        try:
            return list(self.expression.find(document))
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            raise PathFailed(str(exc)) from None


class PathFailed(Exception):
    """Applying a path failed; NiFi logs it and the function's result is empty."""


@functools.lru_cache(maxsize=256)
def compile_path(text: str) -> JsonPath:
    """A parsed JSONPath; raises ExpressionError when ``text`` is not one."""
    if not text or not text.strip():
        raise ExpressionError("Invalid JSON Path expression: the path is empty")
    return JsonPath(text)


def _java_scalar(value: Any) -> str:
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return java_double_str(value)
    return str(value)


def to_json_text(value: Any) -> str:
    """Compact JSON as Jackson writes it (Java number formatting, no spaces)."""
    if isinstance(value, dict):
        items = (
            f"{json.dumps(str(k), ensure_ascii=False)}:{to_json_text(v)}" for k, v in value.items()
        )
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(to_json_text(item) for item in value) + "]"
    if isinstance(value, float):
        return java_double_str(value)
    return json.dumps(value, ensure_ascii=False)


def without_lone_surrogates(value: Any) -> Any:
    """The parsed JSON with each lone surrogate (an escape such as ``"\\ud800"`` without its
    pair) as ``?``, which is how Java's ``getBytes(UTF-8)`` writes it: a FlowFile attribute
    cannot hold one, and text holding one cannot be written."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", errors="replace").decode("utf-8")
        return value
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {
            without_lone_surrogates(key): without_lone_surrogates(item)
            for key, item in value.items()
        }
    return value


def _representation(value: Any) -> str:
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, dict | list):
        return to_json_text(value)
    return _java_scalar(value)


class JsonDocument:
    """A parsed JSON subject and the operations NiFi's functions apply to it."""

    __slots__ = ("data",)

    def __init__(self, text: str | None) -> None:
        if not text:
            raise ExpressionError("Subject is empty")
        try:
            self.data = json.loads(text)
        except ValueError:
            raise ExpressionError(f"Subject contains invalid JSON: {text}") from None
        if _SURROGATE_ESCAPE.search(text):
            self.data = without_lone_surrogates(self.data)

    def read(self, path: JsonPath) -> str:
        try:
            matches = path.matches(self.data)
        except PathFailed:
            return ""
        if path.definite:
            return "" if not matches else _representation(matches[0].value)
        return _representation([match.value for match in matches])

    def delete(self, path: JsonPath) -> str:
        try:
            if path.matches(self.data):
                self.data = path.expression.filter(lambda _value: True, self.data)
        except (PathFailed, TypeError, ValueError, KeyError, IndexError):
            return ""
        return to_json_text(self.data)

    def set(self, path: JsonPath, value: Any) -> str:
        try:
            if path.matches(self.data):
                self.data = path.expression.update(self.data, value)
        except (PathFailed, TypeError, ValueError, KeyError, IndexError):
            return ""
        return to_json_text(self.data)

    def add(self, path: JsonPath, value: Any) -> str:
        try:
            matches = path.matches(self.data)
        except PathFailed:
            return ""
        for match in matches:
            if not isinstance(match.value, list):
                return ""  # Jayway: "Can only add to an array"
        for match in matches:
            match.value.append(value)
        return to_json_text(self.data)

    def put(self, path: JsonPath, key: str, value: Any) -> str:
        try:
            matches = path.matches(self.data)
        except PathFailed:
            return ""
        for match in matches:
            if not isinstance(match.value, dict):
                return ""  # Jayway: "Can only add properties to a map"
        for match in matches:
            match.value[key] = value
        return to_json_text(self.data)
