"""``self.logger``: the component log a processor writes to (NiFi's ComponentLog shape).

Messages use Java's ``{}`` placeholders (``self.logger.info("Read {} records", n)``),
filled from the arguments in order; a trailing exception argument is appended.
"""

from __future__ import annotations

import logging as std_logging
from enum import Enum
from typing import Any


class LogLevel(Enum):
    TRACE = 1
    DEBUG = 2
    INFO = 3
    WARN = 4
    ERROR = 5


_LEVELS = {
    LogLevel.TRACE: 5,
    LogLevel.DEBUG: std_logging.DEBUG,
    LogLevel.INFO: std_logging.INFO,
    LogLevel.WARN: std_logging.WARNING,
    LogLevel.ERROR: std_logging.ERROR,
}


def _format(message: object, args: tuple[Any, ...]) -> str:
    text = str(message)
    rest = list(args)
    parts = text.split("{}")
    out = [parts[0]]
    for part in parts[1:]:
        out.append(str(rest.pop(0)) if rest else "{}")
        out.append(part)
    text = "".join(out)
    if rest:
        text += " " + " ".join(str(r) for r in rest)
    return text


class Logger:
    """Wraps a Python logger; NiFi's method names (``warn``, not ``warning``)."""

    def __init__(self, logger: std_logging.Logger) -> None:
        self._logger = logger

    def _log(self, level: int, message: object, args: tuple[Any, ...]) -> None:
        if self._logger.isEnabledFor(level):
            self._logger.log(level, "%s", _format(message, args))

    def trace(self, msg: object, *args: Any) -> None:
        self._log(5, msg, args)

    def debug(self, msg: object, *args: Any) -> None:
        self._log(std_logging.DEBUG, msg, args)

    def info(self, msg: object, *args: Any) -> None:
        self._log(std_logging.INFO, msg, args)

    def warn(self, msg: object, *args: Any) -> None:
        self._log(std_logging.WARNING, msg, args)

    def warning(self, msg: object, *args: Any) -> None:
        self._log(std_logging.WARNING, msg, args)

    def error(self, msg: object, *args: Any) -> None:
        self._log(std_logging.ERROR, msg, args)

    def log(self, level: LogLevel, msg: object, *args: Any) -> None:
        self._log(_LEVELS[level], msg, args)
