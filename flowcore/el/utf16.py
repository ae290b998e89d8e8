"""Java's string indices: ``String.length()``, ``substring`` and ``indexOf`` count UTF-16
code units, so a character outside the Basic Multilingual Plane (an emoji such as 😀)
counts as two. NiFi's ``length()``, ``substring()``, ``indexOf()``, ``lastIndexOf()``,
``padLeft()`` and ``padRight()`` use these counts; Python counts code points.

A Java substring may split such a character into a lone surrogate. Python text cannot be
stored or written as UTF-8 with one, so a lone half becomes ``?``, which is what Java's
``String.getBytes(UTF_8)`` writes for it.
"""

from __future__ import annotations

import re

__all__ = ["index_of", "java_length", "java_slice", "last_index_of", "pad"]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _units(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


def _from_units(units: bytes) -> str:
    text = units.decode("utf-16-le", "surrogatepass")
    return _LONE_SURROGATE.sub("?", text)


def java_length(text: str) -> int:
    """``String.length()``: characters beyond U+FFFF count twice."""
    if text.isascii():
        return len(text)
    return len(text) + len(_ASTRAL.findall(text))


def java_slice(text: str, start: int, end: int) -> str:
    """``text.substring(start, end)`` for indices already checked to be in range."""
    if text.isascii() or _ASTRAL.search(text) is None:
        return text[start:end]
    return _from_units(_units(text)[2 * start : 2 * end])


def _to_java_index(text: str, index: int) -> int:
    if index < 0:
        return index
    return index + len(_ASTRAL.findall(text, 0, index))


def index_of(text: str, search: str) -> int:
    """``String.indexOf(search)`` in UTF-16 code units."""
    return _to_java_index(text, text.find(search))


def last_index_of(text: str, search: str) -> int:
    """``String.lastIndexOf(search)`` in UTF-16 code units."""
    return _to_java_index(text, text.rfind(search))


def pad(text: str, size: int, padding: str, left: bool) -> str:
    """Commons Lang ``StringUtils.leftPad`` / ``rightPad`` to ``size`` UTF-16 code units."""
    missing = size - java_length(text)
    if missing <= 0:
        return text
    pad_units = _units(padding)
    repeated = pad_units * (missing // java_length(padding) + 1)
    filler = _from_units(repeated[: 2 * missing])
    return filler + text if left else text + filler
