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

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
"""A dot-notation name jsonpath-ng reads as it is; any other is given to it in brackets."""
_INDEFINITE = re.compile(r"\.\.|\*|\?\(|\[[^\]]*[,:][^\]]*\]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class JsonPath:
    """A parsed path and whether it is definite (one match at most, in Jayway's terms)."""

    __slots__ = ("definite", "expression", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.definite = _INDEFINITE.search(text) is None
        translated = _as_jayway_reads(text)
        # Jayway's length() function is jsonpath-ng's `len` extension.
        if translated.endswith(".length()"):
            translated = translated[: -len(".length()")] + ".`len`"
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


def _bracket_end(text: str, start: int) -> int:
    """The index after the bracket opened at ``start`` (quotes and nesting respected)."""
    depth = 0
    quote = ""
    index = start
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    raise ExpressionError(f"Invalid JSON Path expression: {text} (a bracket is not closed)")


def _as_jayway_reads(text: str) -> str:
    """``text`` as Jayway JsonPath compiles it, in jsonpath-ng's grammar: a path that does
    not start at ``$`` or ``@`` starts at ``$.``; a dot-notation name is everything up to
    the next ``.``, ``[`` or ``(`` (``$.a@#b`` names the field ``a@#b``), and may not hold
    a space or be missing (``$.a.`` and ``$[0]. _id`` are refused, as Jayway refuses them);
    brackets and filters are left as they are."""
    path = text.strip()
    out: list[str] = []
    named: str | None = None  # the separator before a name that comes next
    if path.startswith(("$", "@")):
        out, index = [path[0]], 1
    else:
        out, index, named = ["$"], 0, "."  # as if "$." came first
    while index < len(path) or named is not None:
        if named is not None:
            separator, named = named, None
            end = index
            while end < len(path) and path[end] not in ".[(":
                end += 1
            name = path[index:end]
            if end < len(path) and path[end] == "(":  # a function: the rest as it is
                out.append(separator + path[index:])
                break
            if not name or " " in name:
                where = "ends with a '.'" if not name else "has a name with a space"
                raise ExpressionError(f"Invalid JSON Path expression: {text} (the path {where})")
            if name == "*" or _PLAIN_NAME.fullmatch(name):
                out.append(separator + name)
            else:
                out.append("['" + name.replace("\\", "\\\\").replace("'", "\\'") + "']")
            index = end
            continue
        char = path[index]
        if char == "[":
            end = _bracket_end(path, index)
            out.append(path[index:end])
            index = end
        elif path.startswith("..", index):
            out.append("..")
            index += 2
            if index < len(path) and path[index] == "*":
                out.append("*")
                index += 1
                continue
            if index < len(path) and path[index] == "[":
                continue
            named = ""
        elif char == ".":
            index += 1
            if index < len(path) and path[index] == "[":
                out.append(".")
                continue
            named = "."
        else:  # a name straight after a bracket, as Jayway reads it
            named = "."
    return "".join(out)


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
