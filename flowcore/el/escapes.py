"""The escape and unescape translators of Apache Commons Text, which NiFi's EL uses.

``escapeJson`` / ``escapeXml`` / ``escapeCsv`` / ``escapeHtml3`` / ``escapeHtml4`` and their
inverses produce exactly what ``StringEscapeUtils`` does: JSON escapes ``/`` and writes
every character outside printable ASCII as ``\\uXXXX`` (UTF-16 units, upper-case hex); XML
1.0 drops characters XML cannot hold and writes ``&#127;``-style references for C1
controls; CSV quotes a value only when it holds ``,``, ``"``, CR or LF; HTML 3 knows the
Latin-1 entities and HTML 4 the full HTML 4.0 set.
"""

from __future__ import annotations

import re
from html.entities import codepoint2name, name2codepoint

__all__ = [
    "escape_csv",
    "escape_html3",
    "escape_html4",
    "escape_json",
    "escape_xml",
    "unescape_csv",
    "unescape_html3",
    "unescape_html4",
    "unescape_json",
    "unescape_xml",
]

_JSON_CONTROL = {"\b": "\\b", "\n": "\\n", "\t": "\\t", "\f": "\\f", "\r": "\\r"}
_JSON_LOOKUP = {'"': '\\"', "\\": "\\\\", "/": "\\/", **_JSON_CONTROL}


def _utf16_escape(char: str) -> str:
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"
    return f"\\u{code:04X}"


def escape_json(text: str) -> str:
    out: list[str] = []
    for char in text:
        mapped = _JSON_LOOKUP.get(char)
        if mapped is not None:
            out.append(mapped)
        elif " " <= char <= "\x7f":
            out.append(char)
        else:
            out.append(_utf16_escape(char))
    return "".join(out)


_JAVA_UNESCAPE = re.compile(r"\\(u+[0-9a-fA-F]{4}|[0-3][0-7]{2}|[0-7]{1,2}|.)?", re.DOTALL)
_JAVA_SIMPLE = {
    "b": "\b",
    "n": "\n",
    "t": "\t",
    "f": "\f",
    "r": "\r",
    "\\": "\\",
    '"': '"',
    "'": "'",
}


def _java_unescape(match: re.Match[str]) -> str:
    body = match.group(1)
    if body is None:  # a lone trailing backslash is dropped
        return ""
    if body[0] == "u":
        return chr(int(body.lstrip("u"), 16))
    if body[0] in "01234567":
        return chr(int(body, 8))
    # Any other escaped character stands for itself (the backslash is dropped).
    return _JAVA_SIMPLE.get(body, body)


def unescape_json(text: str) -> str:
    if "\\" not in text:
        return text
    unescaped = _JAVA_UNESCAPE.sub(_java_unescape, text)
    # UTF-16 surrogate pairs written as two \u escapes become one character.
    return unescaped.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


_XML_BASIC = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"}


def _xml10_char(char: str) -> str:
    mapped = _XML_BASIC.get(char)
    if mapped is not None:
        return mapped
    code = ord(char)
    if code < 0x20:
        return char if char in "\t\n\r" else ""
    if 0x7F <= code <= 0x84 or 0x86 <= code <= 0x9F:
        return f"&#{code};"
    if 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF):
        return ""
    return char


def escape_xml(text: str) -> str:
    return "".join(_xml10_char(char) for char in text)


# One pass over the text, so that "&amp;#65;" becomes "&#65;" and not "A".
_ENTITY = re.compile(r"&(?:#([xX][0-9a-fA-F]+|[0-9]+)|([A-Za-z][A-Za-z0-9]*));")
_XML_ENTITIES = {"quot": '"', "amp": "&", "lt": "<", "gt": ">", "apos": "'"}


def _unescape_entities(text: str, names: dict[str, str]) -> str:
    if "&" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        number = match.group(1)
        if number is None:
            return names.get(match.group(2), match.group(0))
        try:
            return chr(int(number[1:], 16) if number[0] in "xX" else int(number))
        except (ValueError, OverflowError):
            return match.group(0)

    return _ENTITY.sub(replace, text)


def unescape_xml(text: str) -> str:
    return _unescape_entities(text, _XML_ENTITIES)


_CSV_SPECIAL = frozenset(',"\r\n')


def escape_csv(text: str) -> str:
    if not any(char in _CSV_SPECIAL for char in text):
        return text
    return '"' + text.replace('"', '""') + '"'


def unescape_csv(text: str) -> str:
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        return text
    inner = text[1:-1]
    if any(char in _CSV_SPECIAL for char in inner):
        return inner.replace('""', '"')
    return text


# HTML 3.2 knows the four basic entities and Latin-1 (160-255); HTML 4.0 adds the rest.
_HTML4_ESCAPES = {chr(code): f"&{name};" for code, name in codepoint2name.items()}
_HTML3_ESCAPES = {
    char: entity
    for char, entity in _HTML4_ESCAPES.items()
    if char in '"&<>' or 160 <= ord(char) <= 255
}
_HTML4_NAMES = {name: chr(code) for name, code in name2codepoint.items()}
_HTML3_NAMES = {name: char for name, char in _HTML4_NAMES.items() if char in _HTML3_ESCAPES}


def escape_html3(text: str) -> str:
    return "".join(_HTML3_ESCAPES.get(char, char) for char in text)


def escape_html4(text: str) -> str:
    return "".join(_HTML4_ESCAPES.get(char, char) for char in text)


def unescape_html3(text: str) -> str:
    return _unescape_entities(text, _HTML3_NAMES)


def unescape_html4(text: str) -> str:
    return _unescape_entities(text, _HTML4_NAMES)
