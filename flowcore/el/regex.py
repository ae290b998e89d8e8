"""Java regular expressions and replacement strings, on top of the ``regex`` package.

EL users write Java regex syntax (``matches``, ``replaceAll``, ``find``, the multi-attribute
functions). The ``regex`` package already understands what Python's ``re`` lacks and Java
has: possessive quantifiers (``a++``), atomic groups (``(?>...)``) and ``(?<name>...)``.
What is still translated here is Java-only syntax: the POSIX and ``java.lang.Character``
classes (``\\p{Punct}``, ``\\p{Alpha}``, ``\\p{javaLowerCase}``; the POSIX ones are ASCII-only
in Java), ``\\Q...\\E``, ``\\k<name>``, ``\\z``, and ``$1`` / ``${name}`` group references in
replacement strings. Class unions and intersections (``[a-c[x-z]]``, ``[a-z&&[^e]]``) use
the package's version 1 syntax, which has nested sets. Patterns and replacers are cached,
so literal patterns cost nothing after the first use. ``java_finditer`` and ``java_sub``
find matches as ``Matcher.find`` does; ``java_split`` is ``String.split``.

Java's line terminators are ``\\n``, ``\\r\\n``, ``\\r``, ``\\u0085``, ``\\u2028`` and
``\\u2029`` (only ``\\n`` with UNIX_LINES, ``(?d)``), where Python knows only ``\\n``: so
``.``, ``^``, ``$`` and ``\\Z`` are spelled out for the flags in force where they stand
(``.`` does not match ``\\r``; ``$`` matches before a final ``\\r\\n``; multiline ``^`` never
matches at the end of the input), or CRLF text would be matched differently.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

import regex

from flowcore.errors import ExpressionError

__all__ = [
    "Match",
    "Pattern",
    "java_finditer",
    "java_regex",
    "java_replacer",
    "java_split",
    "java_sub",
]

Pattern = regex.Pattern[str]
Match = regex.Match[str]

# Java's POSIX classes (US-ASCII only) and java.lang.Character classes, as set contents.
_PUNCT = r"!-/:-@\[-`{-~"
_CLASSES = {
    "Lower": "a-z",
    "Upper": "A-Z",
    "ASCII": r"\x00-\x7F",
    "Alpha": "a-zA-Z",
    "Digit": "0-9",
    "Alnum": "a-zA-Z0-9",
    "Punct": _PUNCT,
    "Graph": r"\x21-\x7E",
    "Print": r"\x20-\x7E",
    "Blank": r" \t",
    "Cntrl": r"\x00-\x1F\x7F",
    "XDigit": "0-9a-fA-F",
    "Space": r" \t\n\x0B\f\r",
    "javaLowerCase": r"\p{Ll}",
    "javaUpperCase": r"\p{Lu}",
    "javaWhitespace": r"\t\n\x0B\f\r\x1C-\x1F\p{Zs}\p{Zl}\p{Zp}",
    "javaMirrored": r"\p{Bidi_Mirrored}",
    "javaLetter": r"\p{L}",
    "javaDigit": r"\p{Nd}",
    "javaLetterOrDigit": r"\p{L}\p{Nd}",
    "javaAlphabetic": r"\p{Alphabetic}",
    "javaSpaceChar": r"\p{Zs}\p{Zl}\p{Zp}",
    "javaISOControl": r"\x00-\x1F\x7F-\x9F",
    "javaTitleCase": r"\p{Lt}",
    "javaIdeographic": r"\p{Ideographic}",
    "IsAlphabetic": r"\p{Alphabetic}",
    "IsLetter": r"\p{L}",
    "IsDigit": r"\p{Nd}",
    "IsPunctuation": r"\p{P}",
    "IsWhite_Space": r"\p{White_Space}",
    "IsUppercase": r"\p{Uppercase}",
    "IsLowercase": r"\p{Lowercase}",
}


# Java's line terminators, as set contents; "\r\n" counts as one.
_TERMINATORS = "\\n\\r\\u0085\\u2028\\u2029"
_ANY = "[^" + _TERMINATORS + "]"
# "$" (and "\Z"): at the end, or before a line terminator that ends the input.
_END = "(?:(?=\\r\\n\\Z)|(?<!\\r)(?=\\n\\Z)|(?=[\\r\\u0085\\u2028\\u2029]\\Z)|\\Z)"
_END_MULTILINE = "(?:(?<!\\r)(?=\\n)|(?=[\\r\\u0085\\u2028\\u2029])|\\Z)"
_START_MULTILINE = "(?:(?!\\Z)(?:\\A|(?<=[\\n\\u0085\\u2028\\u2029])|(?<=\\r)(?!\\n)))"
_UNIX = {
    ".": "[^\\n]",
    "$": "(?=\\n?\\Z)",
    "$m": "(?=\\n|\\Z)",
    "^m": "(?:(?!\\Z)(?:\\A|(?<=\\n)))",
}
_FLAG_GROUP = re.compile(r"\(\?([idmsuxU]*)(?:-([idmsuxU]*))?([:)])")


def _line_construct(char: str, flags: frozenset[str]) -> str:
    """``.``, ``^`` or ``$`` as Java matches them under ``flags`` (letters d, m, s)."""
    if char == ".":
        if "s" in flags:
            return "(?s:.)"
        return _UNIX["."] if "d" in flags else _ANY
    multiline = "m" in flags
    if char == "^":
        if not multiline:
            return "\\A"
        return _UNIX["^m"] if "d" in flags else _START_MULTILINE
    if "d" in flags:
        return _UNIX["$m"] if multiline else _UNIX["$"]
    return _END_MULTILINE if multiline else _END


def _translate(pattern: str) -> tuple[str, bool]:
    """The pattern in the ``regex`` package's syntax, and whether it needs its version 1
    (nested sets and ``&&``, for Java's class unions and intersections)."""
    out: list[str] = []
    nested = False
    i, n = 0, len(pattern)
    in_class = 0  # depth of [...] sets
    flags: frozenset[str] = frozenset()  # d, m, s in force here
    saved: list[frozenset[str]] = []  # the flags outside each open group
    while i < n:
        char = pattern[i]
        if not in_class:
            if char in ".^$":
                out.append(_line_construct(char, flags))
                i += 1
                continue
            if char == "(":
                saved.append(flags)
                found = _FLAG_GROUP.match(pattern, i)
                if found is None:
                    out.append(char)
                    i += 1
                    continue
                on, off, end = found.group(1), found.group(2) or "", found.group(3)
                flags = (flags | (set(on) & {"d", "m", "s"})) - set(off)
                if end == ")":  # (?s): for the rest of the enclosing group
                    saved.pop()
                # d and U are Java's alone; the rest are the regex package's letters too.
                kept_on = on.replace("d", "").replace("U", "")
                kept_off = off.replace("d", "").replace("U", "")
                spelled = kept_on + ("-" + kept_off if kept_off else "")
                if spelled or end == ":":
                    out.append("(?" + spelled + end)
                i = found.end()
                continue
            if char == ")":
                if saved:
                    flags = saved.pop()
                out.append(char)
                i += 1
                continue
        if char == "\\" and i + 1 < n:
            following = pattern[i + 1]
            if following == "Z" and not in_class:  # before a final line terminator
                out.append(_line_construct("$", flags - {"m"}))
                i += 2
                continue
            if following == "Q":  # \Q...\E quotes literally, as in Java
                end = pattern.find("\\E", i + 2)
                quoted = pattern[i + 2 : n if end < 0 else end]
                out.append(regex.escape(quoted) if not in_class else _escape_in_class(quoted))
                i = n if end < 0 else end + 2
                continue
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
            if following in "pP" and i + 2 < n and pattern[i + 2] == "{":
                end = pattern.find("}", i + 3)
                name = pattern[i + 3 : end] if end > 0 else ""
                body = _CLASSES.get(name)
                if body is not None:
                    if in_class:
                        if following == "P":  # a nested negated set, in version 1
                            nested = True
                            out.append("[^" + body + "]")
                        else:
                            out.append(body)
                    else:
                        out.append(("[^" if following == "P" else "[") + body + "]")
                    i = end + 1
                    continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "[":
            if in_class:  # Java's union [a-c[x-z]]: a nested set
                nested = True
            in_class += 1
            out.append(char)
            i += 1
            # A ']' right after '[' or '[^' is a literal in Java too.
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":
                out.append(r"\]")
                i += 1
            continue
        if char == "]" and in_class:
            in_class -= 1
        elif char == "&" and in_class and pattern.startswith("&&", i):
            nested = True  # Java's intersection [a-z&&[^e]]
        out.append(char)
        i += 1
    return "".join(out), nested


def _escape_in_class(text: str) -> str:
    return "".join("\\" + char if char in "\\]^-[" else char for char in text)


@functools.lru_cache(maxsize=512)
def java_regex(pattern: str) -> Pattern:
    """The compiled form of a Java regular expression; raises ExpressionError if invalid."""
    translated, nested = _translate(pattern)
    try:
        return regex.compile(translated, regex.V1 if nested else regex.V0)
    except regex.error as exc:
        raise ExpressionError(f"Invalid regular expression '{pattern}': {exc}") from None


def java_finditer(pattern: Pattern, text: str) -> Iterator[Match]:
    """The matches ``Matcher.find`` gives, one after another: after an empty match the next
    search starts one character on. (Python's ``finditer`` may instead take a longer match
    at the same place: ``a*?b?`` on ``ab`` is ``""``, ``b``, ``""`` in Java and ``""``,
    ``ab``, ``""`` in Python.)"""
    position, size = 0, len(text)
    while position <= size:
        match = pattern.search(text, position)
        if match is None:
            return
        yield match
        position = match.end() + 1 if match.end() == match.start() else match.end()


def java_sub(
    pattern: Pattern, replace: Callable[[Match], str], text: str, count: int = 0
) -> tuple[str, int]:
    """``Matcher.replaceAll`` (``count`` 0) or the first ``count`` replacements, over
    ``java_finditer``'s matches; the text and the number of replacements."""
    pieces: list[str] = []
    start = done = 0
    for match in java_finditer(pattern, text):
        pieces.append(text[start : match.start()])
        pieces.append(replace(match))
        start = match.end()
        done += 1
        if done == count:
            break
    if not done:
        return text, 0
    pieces.append(text[start:])
    return "".join(pieces), done


def java_split(pattern: Pattern, text: str) -> list[str]:
    """``String.split(regex)``: trailing empty strings dropped, no leading empty piece for a
    zero-width match at the start."""
    pieces: list[str] = []
    start = 0
    for match in java_finditer(pattern, text):
        if match.end() == 0:
            continue
        pieces.append(text[start : match.start()])
        start = match.end()
    if start == 0 and not pieces:
        return [text]
    pieces.append(text[start:])
    while pieces and not pieces[-1]:
        pieces.pop()
    return pieces


@functools.lru_cache(maxsize=512)
def java_replacer(pattern: Pattern, replacement: str) -> Callable[[Match], str]:
    """A ``Pattern.sub`` callback for a Java replacement string (``$1``, ``${name}``, ``\\$``)."""
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

    def replace(match: Match) -> str:
        return "".join(
            piece if isinstance(piece, str) else (match.group(piece) or "") for piece in pieces
        )

    return replace
