"""Control characters escaped before user text reaches a log.

Attribute values, names and other text that clients or FlowFiles supply may hold NUL,
newlines, escape sequences or other control characters. Logged raw they forge log lines,
drive terminals or break log shippers. ``escape_control`` writes each one as a Python-style
escape (``\\x00``, ``\\n``, ``\\u2028``); ``EscapeControlFilter`` applies it to the
arguments of every record of the loggers it is attached to (the format string is the
developer's and is left alone). A record logged with ``extra={PREFORMATTED: True}`` is left
as it is: its author escaped the user text itself (LogAttribute keeps NiFi's multi-line
layout that way).
"""

from __future__ import annotations

import logging
import re
from typing import Any

PREFORMATTED = "flowcore_preformatted"

# C0 controls, DEL, C1 controls, and the Unicode line and paragraph separators.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_BUT_LAYOUT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape_control(text: str) -> str:
    """``text`` with every control character written as an escape; else unchanged."""
    return _CONTROL.sub(_escape, text)


def escape_control_keep_lines(text: str) -> str:
    """As ``escape_control`` but keeping newlines and tabs: for content logged as text."""
    return _CONTROL_BUT_LAYOUT.sub(_escape, text)


def _safe_arg(value: Any) -> Any:
    if isinstance(value, (int, float)):  # bool included: numbers format as numbers
        return value
    return escape_control(value if isinstance(value, str) else str(value))


class EscapeControlFilter(logging.Filter):
    """Escapes control characters in a record's arguments (see the module docstring)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, PREFORMATTED, False) or not record.args:
            return True
        args = record.args
        if isinstance(args, dict):
            record.args = {key: _safe_arg(value) for key, value in args.items()}
        else:
            record.args = tuple(_safe_arg(value) for value in args)
        return True


_FILTER = EscapeControlFilter()


def safe_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)`` with control characters escaped in its arguments."""
    logger = logging.getLogger(name)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
    return logger
