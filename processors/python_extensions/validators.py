"""NiFi's ``StandardValidators``, by name, as flowcore validators (NiFi's messages)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from flowcore.processor import validators as v
from flowcore.processor.descriptors import Validator
from flowcore.processor.validation import ValidationResult


def _result(subject: str, value: str, ok: bool, why: str) -> ValidationResult:
    return ValidationResult(subject, ok, value, "" if ok else why)


def _always(subject: str, value: str) -> ValidationResult:
    return ValidationResult(subject, True, value)


def _number(subject: str, value: str) -> ValidationResult:
    try:
        float(value.strip())
        ok = bool(value.strip())
    except ValueError:
        ok = False
    return _result(subject, value, ok, "not a valid number")


def _positive_long(subject: str, value: str) -> ValidationResult:
    if not re.fullmatch(r"\s*[-+]?\d+\s*", value):
        return _result(subject, value, False, "not a valid Long")
    return _result(subject, value, int(value) > 0, "not a positive value")


def _port(subject: str, value: str) -> ValidationResult:
    ok = value.strip().isdigit() and 1 <= int(value) <= 65535
    return _result(subject, value, ok, "Must be in the range [1, 65535]")


def _hostname_ports(subject: str, value: str) -> ValidationResult:
    for part in value.split(","):
        host, sep, port = part.strip().rpartition(":")
        if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            return _result(subject, value, False, f"'{part.strip()}' is not a valid host:port")
    return _result(subject, value, True, "")


def _url(subject: str, value: str) -> ValidationResult:
    parts = urlsplit(value.strip())
    ok = bool(parts.scheme and parts.netloc)
    return _result(subject, value, ok, "Not a valid URL")


def _uri(subject: str, value: str) -> ValidationResult:
    ok = bool(urlsplit(value.strip()).scheme) and " " not in value.strip()
    return _result(subject, value, ok, "not a valid URI")


def _file_exists(subject: str, value: str) -> ValidationResult:
    return _result(subject, value, Path(value).exists(), "File " + value + " does not exist")


STANDARD: dict[str, Validator] = {
    "ALWAYS_VALID": _always,
    "NON_EMPTY_VALIDATOR": v.non_empty,
    "NON_EMPTY_EL_VALIDATOR": v.non_empty,
    "INTEGER_VALIDATOR": v.integer,
    "POSITIVE_INTEGER_VALIDATOR": v.positive_integer,
    "POSITIVE_LONG_VALIDATOR": _positive_long,
    "NON_NEGATIVE_INTEGER_VALIDATOR": v.non_negative_integer,
    "NUMBER_VALIDATOR": _number,
    "LONG_VALIDATOR": v.long_value,
    "PORT_VALIDATOR": _port,
    "HOSTNAME_PORT_LIST_VALIDATOR": _hostname_ports,
    "BOOLEAN_VALIDATOR": v.boolean,
    "URL_VALIDATOR": _url,
    "URI_VALIDATOR": _uri,
    "REGULAR_EXPRESSION_VALIDATOR": v.java_regular_expression,
    "REGULAR_EXPRESSION_WITH_EL_VALIDATOR": v.java_regular_expression,
    "TIME_PERIOD_VALIDATOR": v.time_period,
    "DATA_SIZE_VALIDATOR": v.data_size,
    "FILE_EXISTS_VALIDATOR": _file_exists,
}


def flowcore_validator(validator: object) -> Validator | None:
    """The flowcore validator for a ``StandardValidators`` member (None if unknown)."""
    return STANDARD.get(str(getattr(validator, "name", "")))
