"""Lookup services: key/value tables that LookupRecord enriches records from.

``LookupService`` is the protocol (NiFi's LookupService): the coordinate names it needs
(``required_keys``) and ``lookup(coordinates, context)``, the value found or None (the
context is the FlowFile's attributes, as NiFi's). Three services
follow NiFi's nifi-lookup-services, each a string lookup on the coordinate ``key``:

* SimpleKeyValueLookupService: the entries are the service's user-defined properties.
* PropertiesFileLookupService: a Java properties file (``Properties File``).
* SimpleCsvFileLookupService: two columns of a CSV file with a header line (``CSV File``,
  ``CSV Format``, ``Lookup Key Column``, ``Lookup Value Column``, ``Ignore Duplicates``).

The two file services reload their file when it changes: as NiFi's
SynchronousFileWatcher, a lookup checks the file's modification time at most every 30
seconds of the injected clock. A file that cannot be read or parsed when enabled makes
the service invalid; on a reload, the lookup fails (LookupFailureError) and the table in
memory is kept.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from flowcore.clock import Clock
from flowcore.errors import ConfigurationError, ProcessException
from flowcore.processor import (
    ControllerService,
    ExpressionLanguageScope,
    ProcessContext,
    PropertyDescriptor,
    ValidationResult,
    controller_service,
    validators,
)

KEY = "key"
WATCH_INTERVAL_MS = 30_000
"""How often a file service looks at its file's modification time (NiFi's 30 s)."""


class LookupFailureError(ProcessException):
    """A lookup that could not be done (the lookup table could not be reloaded)."""


@runtime_checkable
class LookupService(Protocol):
    """NiFi's LookupService: looks a value up by named coordinates."""

    @property
    def required_keys(self) -> frozenset[str]: ...

    def lookup(
        self, coordinates: Mapping[str, Any], context: Mapping[str, str] | None = None
    ) -> Any | None:
        """The value found at ``coordinates``, or None; ``context`` is the FlowFile's
        attributes (NiFi's lookup context), which a service may use or ignore."""
        ...


def _key(coordinates: Mapping[str, Any]) -> str | None:
    value = coordinates.get(KEY)
    if value is None:
        return None
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return text if text.strip() else None


@controller_service("SimpleKeyValueLookupService")
class SimpleKeyValueLookupService(ControllerService):
    """Allows users to add key/value pairs as User-defined Properties."""

    property_descriptors = ()

    def __init__(self) -> None:
        self.entries: dict[str, str] = {}

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="A key/value pair of the lookup table",
            dynamic=True,
            expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
        )

    def on_enabled(self, context: ProcessContext) -> None:
        self.entries = {
            name: context.get_property(name).evaluate().as_str()
            for name in context.dynamic_properties()
        }

    @property
    def required_keys(self) -> frozenset[str]:
        return frozenset({KEY})

    def lookup(
        self, coordinates: Mapping[str, Any], context: Mapping[str, str] | None = None
    ) -> Any | None:
        key = _key(coordinates)
        return None if key is None else self.entries.get(key)


def _file_exists(subject: str, value: str) -> ValidationResult:
    if "${" in value or Path(value).is_file():
        return ValidationResult(subject, True, value, "")
    return ValidationResult(subject, False, value, f"File {value} does not exist")


class _FileLookup(ControllerService):
    """A string lookup over a file, reloaded when the file's modification time changes."""

    def __init__(self) -> None:
        self.table: dict[str, str] = {}
        self.path = Path()
        self._clock: Clock | None = None
        self._modified = 0
        self._checked_ms = 0

    @property
    def required_keys(self) -> frozenset[str]:
        return frozenset({KEY})

    def _load(self) -> dict[str, str]:
        raise NotImplementedError

    def _enable(self, context: ProcessContext, path: str) -> None:
        self.path = Path(path)
        self._clock = context.clock
        self._checked_ms = context.now_ms()
        try:
            self._modified = os.stat(self.path).st_mtime_ns
            self.table = self._load()
        except (OSError, ValueError) as exc:
            msg = f"cannot load the lookup table from {self.path}: {exc}"
            raise ConfigurationError(msg) from exc

    def lookup(
        self, coordinates: Mapping[str, Any], context: Mapping[str, str] | None = None
    ) -> Any | None:
        key = _key(coordinates)
        if key is None:
            return None
        self._reload_if_changed()
        return self.table.get(key)

    def _reload_if_changed(self) -> None:
        now = self._clock.now_ms() if self._clock is not None else 0
        if now - self._checked_ms < WATCH_INTERVAL_MS:
            return
        self._checked_ms = now
        try:
            modified = os.stat(self.path).st_mtime_ns
            if modified == self._modified:
                return
            self.table = self._load()
            self._modified = modified
        except (OSError, ValueError) as exc:
            msg = f"cannot reload the lookup table from {self.path}: {exc}"
            raise LookupFailureError(msg) from exc


PROPERTIES_FILE = PropertyDescriptor(
    name="properties-file",
    display_name="Properties File",
    description="A properties file",
    required=True,
    validators=[_file_exists],
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
    external_resource=True,
)

_PROPERTY_LINE = re.compile(r"((?:\\.|[^=:\s\\])*)\s*[=:\s]?\s*(.*)", re.DOTALL)


def parse_properties(text: str) -> dict[str, str]:
    """A Java properties file: ``key=value``, ``key: value``, ``key value``; ``#`` and
    ``!`` comments; a trailing backslash continues a line; backslash escapes."""
    entries: dict[str, str] = {}
    logical = ""
    for raw in text.splitlines():
        line = raw.lstrip()
        if not logical and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2:
            logical += line[:-1]
            continue
        logical += line
        match = _PROPERTY_LINE.fullmatch(logical)
        logical = ""
        if match:
            entries[_unescape(match.group(1))] = _unescape(match.group(2))
    return entries


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        char = match.group(1)
        if char.startswith("u"):
            return chr(int(char[1:], 16))
        return {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(char, char)

    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", one, text)


@controller_service("PropertiesFileLookupService")
class PropertiesFileLookupService(_FileLookup):
    """A reloadable properties file-based lookup service."""

    property_descriptors = (PROPERTIES_FILE,)

    def on_enabled(self, context: ProcessContext) -> None:
        self._enable(context, context.get_property(PROPERTIES_FILE).evaluate().as_str())

    def _load(self) -> dict[str, str]:
        return parse_properties(self.path.read_text(encoding="iso-8859-1"))


CSV_FILE = PropertyDescriptor(
    name="csv-file",
    display_name="CSV File",
    description="A CSV file.",
    required=True,
    validators=[_file_exists],
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
    external_resource=True,
)
_FORMATS: dict[str, dict[str, Any]] = {
    "Default": {"delimiter": ","},
    "Excel": {"delimiter": ","},
    "InformixUnload": {"delimiter": "|", "quoting": csv.QUOTE_NONE, "escapechar": "\\"},
    "InformixUnloadCsv": {"delimiter": ","},
    "MongoDBCsv": {"delimiter": ","},
    "MongoDBTsv": {"delimiter": "\t", "quoting": csv.QUOTE_NONE},
    "MySQL": {"delimiter": "\t", "quoting": csv.QUOTE_NONE, "escapechar": "\\"},
    "Oracle": {"delimiter": ","},
    "PostgreSQLCsv": {"delimiter": ","},
    "PostgreSQLText": {"delimiter": "\t", "quoting": csv.QUOTE_NONE, "escapechar": "\\"},
    "RFC4180": {"delimiter": ","},
    "TDF": {"delimiter": "\t"},
}
CSV_FORMAT = PropertyDescriptor(
    name="CSV Format",
    display_name="CSV Format",
    description='Specifies which "format" the CSV data is in, or specifies if custom '
    "formatting should be used.",
    default="Default",
    required=True,
    allowable_values=tuple(_FORMATS),
)
LOOKUP_KEY_COLUMN = PropertyDescriptor(
    name="lookup-key-column",
    display_name="Lookup Key Column",
    description="Lookup key column.",
    required=True,
    validators=[validators.non_empty],
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
)
LOOKUP_VALUE_COLUMN = PropertyDescriptor(
    name="lookup-value-column",
    display_name="Lookup Value Column",
    description="Lookup value column.",
    required=True,
    validators=[validators.non_empty],
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
)
IGNORE_DUPLICATES = PropertyDescriptor(
    name="ignore-duplicates",
    display_name="Ignore Duplicates",
    description="Ignore duplicate keys for records in the CSV file.",
    default="true",
    required=True,
    allowable_values=("true", "false"),
    validators=[validators.boolean],
)


@controller_service("SimpleCsvFileLookupService")
class SimpleCsvFileLookupService(_FileLookup):
    """A reloadable CSV file-based lookup service."""

    property_descriptors = (
        CSV_FILE,
        CSV_FORMAT,
        LOOKUP_KEY_COLUMN,
        LOOKUP_VALUE_COLUMN,
        IGNORE_DUPLICATES,
    )

    def on_enabled(self, context: ProcessContext) -> None:
        self.dialect = _FORMATS[context.get_property(CSV_FORMAT).as_str()]
        self.key_column = context.get_property(LOOKUP_KEY_COLUMN).evaluate().as_str()
        self.value_column = context.get_property(LOOKUP_VALUE_COLUMN).evaluate().as_str()
        self.ignore_duplicates = context.get_property(IGNORE_DUPLICATES).as_bool()
        self._enable(context, context.get_property(CSV_FILE).evaluate().as_str())

    def _load(self) -> dict[str, str]:
        text = self.path.read_text(encoding="utf-8")
        rows = csv.DictReader(io.StringIO(text, newline=""), **self.dialect)
        for column in (self.key_column, self.value_column):
            if rows.fieldnames is None or column not in rows.fieldnames:
                msg = f"column '{column}' is not in the header of {self.path}"
                raise ValueError(msg)
        table: dict[str, str] = {}
        for row in rows:
            key = row.get(self.key_column) or ""
            if not key.strip():
                msg = f"Empty lookup key encountered in: {self.path}"
                raise ValueError(msg)
            if key in table and not self.ignore_duplicates:
                msg = f"Duplicate lookup key encountered: {key} in {self.path}"
                raise ValueError(msg)
            table[key] = row.get(self.value_column) or ""
        return table
