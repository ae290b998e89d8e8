"""Hand-written parser from EL text to ``nodes`` parts.

Outside expressions it applies NiFi's escaping: a run of ``$`` before a complete
``{...}`` pairs up left to right (``$${x}`` is the text ``${x}``, ``$$${x}`` is ``$`` then
an expression), and ``#`` runs before ``#{name}`` work the same way for parameters. A
``${`` that is never closed is plain text, as in NiFi. Inside ``${...}`` it is a small
recursive-descent parser; whitespace between tokens is ignored, and so is a ``#`` comment
running to the end of its line. As in NiFi, a quoted string (argument or attribute name)
that contains ``${...}`` is itself evaluated, and parameter names may be quoted
(``#{'my param'}``). Syntax errors raise ``ExpressionError`` with the 0-based position in
the original text.
"""

from __future__ import annotations

import re

from flowcore.el.nodes import (
    AttributeRef,
    DynamicAttribute,
    Embedded,
    FunctionCall,
    Literal,
    MultiAttribute,
    Node,
    ParameterRef,
    ParameterText,
    Part,
    Template,
    Text,
)
from flowcore.el.values import Kind
from flowcore.errors import ExpressionError

__all__ = ["MULTI_ATTRIBUTE_FUNCTIONS", "find_closing_brace", "parse_template"]

MULTI_ATTRIBUTE_FUNCTIONS = frozenset(
    {
        "anyAttribute",
        "anyMatchingAttribute",
        "allAttributes",
        "allMatchingAttributes",
        "anyDelineatedValue",
        "allDelineatedValues",
    }
)

_WHITESPACE = " \t\r\n"
# Characters after which a '#' starts a comment inside ${...} (not a name or a string).
_TOKEN_END = " \t\r\n{(,:"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Unquoted attribute names stop at the characters NiFi reserves, and at whitespace.
_ATTRIBUTE = re.compile(r"[^$|{}()\[\],:;/*'\"\s]+")
_NUMBER = re.compile(
    r"[-+]?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)", re.ASCII
)
_WHOLE = re.compile(r"[-+]?\d+", re.ASCII)
_PARAMETER_NAME = re.compile(r"[A-Za-z0-9 ._-]+")
_ESCAPES = {"'": "'", '"': '"', "n": "\n", "r": "\r", "t": "\t", "\\": "\\"}
_STARTS = re.compile(r"[$#]")
_STARTS_NO_PARAMETERS = re.compile(r"\$")


def _error(message: str, pos: int, detail: str = "") -> ExpressionError:
    return ExpressionError(f"{message} at position {pos}" + (f": {detail}" if detail else ""))


def _unexpected(text: str, pos: int, expected: str) -> ExpressionError:
    found = f"'{text[pos]}'" if pos < len(text) else "end of text"
    return _error(f"Unexpected {found}", pos, f"expected {expected}")


def _unquote_parameter(name: str) -> str:
    if len(name) >= 2 and name[0] == name[-1] and name[0] in "'\"":
        return name[1:-1]
    return name


def find_closing_brace(text: str, start: int) -> int:
    """Index of the ``}`` closing a ``{`` just before ``start``, or -1 if there is none."""
    depth = 1
    i, n = start, len(text)
    while i < n:
        char = text[i]
        if char == "#" and text[i - 1] in _TOKEN_END and i + 1 < n and text[i + 1] != "{":
            newline = text.find("\n", i)
            if newline > 0:  # a comment: skip it, quotes and braces included
                i = newline + 1
                continue
        if char == "'" or char == '"':
            i += 1
            while i < n and text[i] != char:
                i += 2 if text[i] == "\\" else 1
            if i >= n:
                return -1
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def parse_template(text: str, *, parameters: bool = True) -> list[Part]:
    """Split ``text`` into literal text, ``${...}`` expressions and ``#{...}`` parameters.

    With ``parameters=False`` (used for parameter values) ``#`` has no special meaning
    outside expressions.
    """
    parts: list[Part] = []
    buffer: list[str] = []

    def flush() -> None:
        joined = "".join(buffer)
        if joined:
            parts.append(Text(joined))
        buffer.clear()

    starts = _STARTS if parameters else _STARTS_NO_PARAMETERS
    parser = _ExpressionParser(text)
    i, n = 0, len(text)
    while i < n:
        found = starts.search(text, i)
        if found is None:
            buffer.append(text[i:])
            break
        run_start = found.start()
        buffer.append(text[i:run_start])
        char = text[run_start]
        brace = run_start
        while brace < n and text[brace] == char:
            brace += 1
        run = brace - run_start
        if brace >= n or text[brace] != "{":
            buffer.append(text[run_start:brace])
            i = brace
            continue
        end = find_closing_brace(text, brace + 1) if char == "$" else text.find("}", brace + 1)
        if end < 0:  # never closed: literal text, the run of $ or # included
            buffer.append(text[run_start:brace])
            i = brace
            continue
        buffer.append(char * (run // 2))
        if run % 2 == 0:  # escaped: the braces are literal text
            buffer.append(text[brace : end + 1])
        elif char == "$":
            flush()
            node, after = parser.expression(brace + 1)
            if after != end + 1:
                raise _unexpected(text, after - 1, "'}' to close the expression")
            parts.append(Embedded(node))
        else:
            name = _unquote_parameter(text[brace + 1 : end])
            if not _PARAMETER_NAME.fullmatch(name):
                raise _error(
                    f"Invalid parameter name '{name}'",
                    brace + 1,
                    "only letters, digits, space, '.', '-' and '_' are allowed",
                )
            flush()
            parts.append(ParameterText(name, run_start + run - 1))
        i = end + 1
    flush()
    return parts


class _ExpressionParser:
    """Parses the inside of ``${...}``; every method takes and returns a text offset."""

    __slots__ = ("n", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)

    def _skip(self, i: int) -> int:
        text, n = self.text, self.n
        while i < n:
            char = text[i]
            if char in _WHITESPACE:
                i += 1
            elif char == "#" and i + 1 < n and text[i + 1] != "{":
                newline = text.find("\n", i)
                if newline < 0:
                    return i
                i = newline + 1
            else:
                return i
        return i

    def expression(self, i: int) -> tuple[Node, int]:
        """Parse from just after ``${`` through the closing ``}``."""
        text = self.text
        i = self._skip(i)
        node, i = self._subject(i)
        while True:
            i = self._skip(i)
            if i >= self.n:
                raise _unexpected(text, i, "'}' to close the expression")
            char = text[i]
            if char == "}":
                return node, i + 1
            if char != ":":
                expected = "':' or '}'"
                if _ATTRIBUTE.match(text, i) and isinstance(node, AttributeRef):
                    expected += " (quote attribute names that contain spaces or special characters)"
                raise _unexpected(text, i, expected)
            i = self._skip(i + 1)
            found = _IDENTIFIER.match(text, i)
            if found is None:
                raise _unexpected(text, i, "a function name after ':'")
            name = found.group()
            args, after = self._arguments(self._skip(found.end()), name)
            node = FunctionCall(name, node, args, i)
            i = after

    def _subject(self, i: int) -> tuple[Node, int]:
        text = self.text
        if i < self.n and text[i] in "'\"":
            name, after = self._string(i)
            template = self._template(name, i)
            if template is not None:
                return DynamicAttribute(template, i), after
            return AttributeRef(name, i), after
        if text.startswith("#{", i):
            return self._parameter(i)
        if text.startswith("${", i):
            inner, after = self.expression(i + 2)
            return DynamicAttribute(inner, i), after
        found = _ATTRIBUTE.match(text, i)
        if found is None:
            raise _unexpected(text, i, "an attribute name or a function")
        name = found.group()
        after = self._skip(found.end())
        if after < self.n and text[after] == "(":
            if not _IDENTIFIER.fullmatch(name):
                raise _error(f"Invalid function name '{name}'", i)
            args, after = self._arguments(after, name)
            if name in MULTI_ATTRIBUTE_FUNCTIONS:
                return MultiAttribute(name, args, i), after
            return FunctionCall(name, None, args, i), after
        if name[0].isdigit():
            raise _error(
                f"Attribute name '{name}'", i, "names that start with a digit must be quoted"
            )
        return AttributeRef(name, i), found.end()

    def _arguments(self, i: int, name: str) -> tuple[tuple[Node, ...], int]:
        text = self.text
        if i >= self.n or text[i] != "(":
            raise _unexpected(text, i, f"'(' after function name '{name}'")
        i = self._skip(i + 1)
        if i < self.n and text[i] == ")":
            return (), i + 1
        args: list[Node] = []
        while True:
            arg, i = self._argument(i)
            args.append(arg)
            i = self._skip(i)
            if i < self.n and text[i] == ",":
                i = self._skip(i + 1)
                continue
            if i < self.n and text[i] == ")":
                return tuple(args), i + 1
            raise _unexpected(text, i, f"',' or ')' in the arguments of '{name}'")

    def _argument(self, i: int) -> tuple[Node, int]:
        text = self.text
        if i < self.n and text[i] in "'\"":
            value, after = self._string(i)
            template = self._template(value, i)
            if template is not None:
                return template, after
            return Literal(value, Kind.STRING, i), after
        if text.startswith("${", i):
            return self.expression(i + 2)
        if text.startswith("#{", i):
            return self._parameter(i)
        number = _NUMBER.match(text, i)
        if number is not None and not _IDENTIFIER.match(text, number.end()):
            literal = number.group()
            if _WHOLE.fullmatch(literal):
                if not -(2**63) <= int(literal) <= 2**63 - 1:  # Long.parseLong throws
                    raise _error(f"Whole number '{literal}' is out of the long range", i)
                return Literal(int(literal), Kind.WHOLE, i), number.end()
            return Literal(float(literal), Kind.DECIMAL, i), number.end()
        word = _IDENTIFIER.match(text, i)
        if word is not None and word.group() in ("true", "false"):
            return Literal(word.group() == "true", Kind.BOOLEAN, i), word.end()
        if word is not None and word.group() == "null":
            return Literal(None, Kind.STRING, i), word.end()
        raise _unexpected(
            text, i, "an argument (a quoted string, a number, true, false, null or ${...})"
        )

    @staticmethod
    def _template(value: str, pos: int) -> Node | None:
        """A quoted string holding ``${...}`` (or an escaped ``$${...}``); None if plain."""
        if "${" not in value:
            return None
        parts = parse_template(value, parameters=False)
        if all(isinstance(part, Text) for part in parts):
            unescaped = "".join(part.value for part in parts if isinstance(part, Text))
            return None if unescaped == value else Literal(unescaped, Kind.STRING, pos)
        return Template(tuple(parts), pos)

    def _string(self, i: int) -> tuple[str, int]:
        text, n = self.text, self.n
        quote = text[i]
        out: list[str] = []
        j = i + 1
        while j < n:
            char = text[j]
            if char == "\\" and j + 1 < n:
                following = text[j + 1]
                out.append(_ESCAPES.get(following, "\\" + following))
                j += 2
                continue
            if char == quote:
                return "".join(out), j + 1
            out.append(char)
            j += 1
        raise _error("Unterminated string literal", i)

    def _parameter(self, i: int) -> tuple[Node, int]:
        end = self.text.find("}", i + 2)
        name = _unquote_parameter(self.text[i + 2 : end]) if end > 0 else ""
        if end < 0 or not _PARAMETER_NAME.fullmatch(name):
            raise _error("Invalid parameter reference", i, "expected #{name}")
        return ParameterRef(name, i), end + 1
