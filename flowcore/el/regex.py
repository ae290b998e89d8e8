"""Java regular expressions and replacement strings on top of Python's ``re``.

EL users write Java regex syntax (``matches``, ``replaceAll``). The two dialects mostly
agree; this module translates the differences that matter in practice: named groups
``(?<name>...)``, back references ``\\k<name>``, ``\\z``, and ``$1`` / ``${name}`` group
references in replacement strings. Both are cached, so literal patterns cost nothing after
the first use.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from flowcore.errors import ExpressionError

__all__ = ["java_regex", "java_replacer"]


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            following = pattern[i + 1]
            if following == "z":
                out.append(r"\Z")
                i += 2
                continue
            if following == "k" and i + 2 < n and pattern[i + 2] == "<":
                end = pattern.find(">", i + 3)
                if end > 0:
                    out.append(f"(?P={pattern[i + 3 : end]})")
                    i = end + 1
                    continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        out.append(char)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=512)
def java_regex(pattern: str) -> re.Pattern[str]:
    """The compiled form of a Java regular expression; raises ExpressionError if invalid."""
    try:
        return re.compile(_translate(pattern))
    except re.error as exc:
        raise ExpressionError(f"Invalid regular expression '{pattern}': {exc}") from None


@functools.lru_cache(maxsize=512)
def java_replacer(pattern: re.Pattern[str], replacement: str) -> Callable[[re.Match[str]], str]:
    """A ``re.sub`` callback for a Java replacement string (``$1``, ``${name}``, ``\\$``)."""
    pieces: list[str | int] = []  # text, or a group number / name to copy
    literal: list[str] = []
    i, n = 0, len(replacement)
    while i < n:
        char = replacement[i]
        if char == "\\":
            if i + 1 >= n:
                raise ExpressionError(f"Replacement '{replacement}' ends with a lone backslash")
            literal.append(replacement[i + 1])
            i += 2
            continue
        if char != "$":
            literal.append(char)
            i += 1
            continue
        if literal:
            pieces.append("".join(literal))
            literal.clear()
        i += 1
        if i < n and replacement[i] == "{":
            end = replacement.find("}", i)
            name = replacement[i + 1 : end] if end > 0 else ""
            if not name or name not in pattern.groupindex:
                raise ExpressionError(f"No group named '{name}' in replacement '{replacement}'")
            pieces.append(pattern.groupindex[name])
            i = end + 1
            continue
        if i >= n or not replacement[i].isdigit():
            raise ExpressionError(f"Illegal group reference in replacement '{replacement}'")
        number = int(replacement[i])
        i += 1
        # Like Java, take further digits only while they still name an existing group.
        while i < n and replacement[i].isdigit():
            longer = number * 10 + int(replacement[i])
            if longer > pattern.groups:
                break
            number = longer
            i += 1
        if number > pattern.groups:
            raise ExpressionError(f"No group {number} in replacement '{replacement}'")
        pieces.append(number)
    if literal:
        pieces.append("".join(literal))
    if all(isinstance(piece, str) for piece in pieces):
        constant = "".join(piece for piece in pieces if isinstance(piece, str))
        return lambda _match: constant

    def replace(match: re.Match[str]) -> str:
        return "".join(
            piece if isinstance(piece, str) else (match.group(piece) or "") for piece in pieces
        )

    return replace
