"""Helpers shared by the standard processors: validators NiFi has and flowcore's module
does not, NiFi's file-attribute date format, and permission strings."""

from __future__ import annotations

import codecs
import os
import re
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol

from flowcore.processor import ValidationResult

FILE_DATE_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
"""NiFi's ``yyyy-MM-dd'T'HH:mm:ssZ`` (``file.lastModifiedTime`` and friends), in UTC."""


class Writer(Protocol):
    """What a ``session.write`` callback is given: something to write bytes to."""

    def write(self, data: bytes, /) -> None: ...


_PERMISSIONS_RE = re.compile(r"^(?:[r-][w-][x-]){3}$|^[0-7]{3}$")


def _result(subject: str, value: str, reason: str | None) -> ValidationResult:
    return ValidationResult(subject, reason is None, value, reason or "")


def directory_exists(subject: str, value: str) -> ValidationResult:
    """NiFi's ``createDirectoryExistsValidator(true, false)`` (EL texts are not checked)."""
    reason = None
    if not os.path.exists(value):
        reason = "Directory does not exist"
    elif not os.path.isdir(value):
        reason = "Path does not point to a directory"
    return _result(subject, value, reason)


def character_set(subject: str, value: str) -> ValidationResult:
    """NiFi's ``CHARACTER_SET_VALIDATOR``."""
    try:
        codecs.lookup(value.strip())
    except LookupError:
        return _result(subject, value, "Character Set is not supported by this runtime.")
    return _result(subject, value, None)


def permissions(subject: str, value: str) -> ValidationResult:
    """``rw-r--r--`` or ``644``."""
    ok = bool(_PERMISSIONS_RE.match(value.strip()))
    reason = (
        None
        if ok
        else (
            "Must be a UNIX permission string of the form rwxrwxrwx with '-' in place of denied "
            "permissions (e.g. rw-r--r--) or an octal number (e.g. 644)"
        )
    )
    return _result(subject, value, reason)


def parse_permissions(text: str) -> int | None:
    """The mode bits of ``rw-r--r--`` or ``644``; None if ``text`` is neither."""
    text = text.strip()
    if not _PERMISSIONS_RE.match(text):
        return None
    if text.isdigit():
        return int(text, 8)
    mode = 0
    for index, char in enumerate(text):
        if char != "-":
            mode |= 1 << (8 - index)
    return mode


def integer_range(low: int, high: int) -> Callable[[str, str], ValidationResult]:
    """A validator of a whole number from ``low`` to ``high`` inclusive (NiFi's
    ``createLongValidator``)."""

    def validate(subject: str, value: str) -> ValidationResult:
        try:
            number = int(value.strip())
        except ValueError:
            return _result(subject, value, "Value is not a valid integer")
        if low <= number <= high:
            return _result(subject, value, None)
        return _result(subject, value, f"Value must be between {low} and {high}")

    return validate


def permissions_string(mode: int) -> str:
    """``rwxr-xr-x`` for a mode (NiFi's ``PosixFilePermissions.toString``)."""
    return stat.filemode(mode)[1:]


def file_name_text(name: str) -> str:
    """A file name or path as attribute text: bytes that are not UTF-8 (which Python keeps
    as lone surrogates) become U+FFFD, as NiFi's JVM decodes them; any other text as is.

    A lone surrogate cannot be stored (attributes are UTF-8 in the FlowFile repository),
    so without this one such name in a directory failed every commit of the processor."""
    return _as_utf8(name, "replace")


def file_name_key(name: str) -> str:
    """A file name or path as text that tells every name apart (undecodable bytes as
    ``\\xNN``), for processor state; ``file_name_text`` would make some names alike."""
    return _as_utf8(name, "backslashreplace")


def _as_utf8(name: str, errors: str) -> str:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        try:
            raw = name.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a surrogate that no undecodable byte made
            raw = name.encode("utf-8", "surrogatepass")
        return raw.decode("utf-8", errors)
    return name


def format_file_date(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, tz=UTC).strftime(FILE_DATE_FORMAT)


def parse_file_date(text: str) -> float:
    """Seconds since the epoch of a ``yyyy-MM-dd'T'HH:mm:ssZ`` text; ValueError if not one."""
    parsed = datetime.strptime(text.strip(), FILE_DATE_FORMAT)  # noqa: DTZ007 (%z is in it)
    return parsed.timestamp()
