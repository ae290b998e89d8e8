"""Validation results and the validators NiFi users know, with NiFi's messages.

A result renders as NiFi's "'<Property>' validated against '<value>' is invalid because
<reason>".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flowcore.units import is_data_size, is_time_period


@dataclass(frozen=True, slots=True)
class ValidationResult:
    subject: str
    valid: bool
    input: str | None = None
    explanation: str = ""

    def __str__(self) -> str:
        if self.valid:
            return f"'{self.subject}' is valid"
        if self.input is None:
            return f"'{self.subject}' is invalid because {self.explanation}"
        return (
            f"'{self.subject}' validated against '{self.input}' is invalid because "
            f"{self.explanation}"
        )


def _result(subject: str, value: str, ok: bool, why: str) -> ValidationResult:
    return ValidationResult(subject, ok, value, "" if ok else why)


def non_empty(subject: str, value: str) -> ValidationResult:
    """NiFi's NON_EMPTY_VALIDATOR: any value but the empty string, so a line break or a
    blank is a value (a Demarcator of "\n", a Header Line Marker of " ")."""
    return _result(subject, value, value != "", f"{subject} cannot be empty")


any_text = non_empty
"""The same validator under its earlier name."""

_JAVA_TRIMMED = "".join(chr(code) for code in range(0x21))
"""What Java's ``String.trim()`` strips: every character up to and including a space."""


def non_blank(subject: str, value: str) -> ValidationResult:
    """NiFi's NON_BLANK_VALIDATOR: a value with a character ``String.trim()`` keeps."""
    return _result(
        subject,
        value,
        bool(value.strip(_JAVA_TRIMMED)),
        f"{subject} must contain at least one character that is not white space",
    )


_INTEGER = re.compile(r"\s*[-+]?\d+\s*")


def integer(subject: str, value: str) -> ValidationResult:
    return _result(subject, value, bool(_INTEGER.fullmatch(value)), "not a valid integer")


def non_negative_integer(subject: str, value: str) -> ValidationResult:
    if not _INTEGER.fullmatch(value):
        return _result(subject, value, False, "value is not a valid integer")
    return _result(subject, value, int(value) >= 0, "value is negative")


def positive_integer(subject: str, value: str) -> ValidationResult:
    if not _INTEGER.fullmatch(value):
        return _result(subject, value, False, "not a valid integer")
    return _result(subject, value, int(value) > 0, "not a positive value")


def long_value(subject: str, value: str) -> ValidationResult:
    return _result(subject, value, bool(_INTEGER.fullmatch(value)), "not a valid Long")


def boolean(subject: str, value: str) -> ValidationResult:
    ok = value.strip().lower() in {"true", "false"}
    return _result(subject, value, ok, "Value must be 'true' or 'false'")


def time_period(subject: str, value: str) -> ValidationResult:
    ok = is_time_period(value)
    why = (
        "Must be of format <duration> <TimeUnit> where <duration> is a non-negative integer "
        "and TimeUnit is a supported Time Unit, such as: nanos, millis, secs, mins, hrs, days"
    )
    return _result(subject, value, ok, why)


def data_size(subject: str, value: str) -> ValidationResult:
    ok = is_data_size(value)
    return _result(
        subject,
        value,
        ok,
        "Must be of format <Data Size> <Data Unit> where <Data Size> is a non-negative "
        "integer and <Data Unit> is a supported Data Unit, such as: B, KB, MB, GB, TB",
    )


def regular_expression(subject: str, value: str) -> ValidationResult:
    try:
        re.compile(value)
    except re.error as exc:
        return _result(subject, value, False, f"Specified expression is not valid: {exc}")
    return _result(subject, value, True, "")


def java_regular_expression(subject: str, value: str) -> ValidationResult:
    """A Java regular expression, as the EL matches them (see ``flowcore.el.regex``)."""
    from flowcore.el.regex import java_regex
    from flowcore.errors import ExpressionError

    try:
        java_regex(value)
    except ExpressionError as exc:
        return _result(subject, value, False, f"Specified expression is not valid: {exc}")
    return _result(subject, value, True, "")


def boolean_expression(subject: str, value: str) -> ValidationResult:
    """A single Expression Language expression returning a Boolean (RouteOnAttribute's rules).

    Unlike the other validators it also runs on values that contain ``${``: that is what
    it checks.
    """
    from flowcore.el import validate_expression

    error = validate_expression(value, single=True, result_type="BOOLEAN")
    return _result(subject, value, error is None, error or "")


boolean_expression.checks_expression_language = True  # type: ignore[attr-defined]


def attribute_name(subject: str, value: str) -> ValidationResult:
    """NiFi's ATTRIBUTE_KEY_VALIDATOR (``FlowFile.KeyValidator``): a name that is not blank
    once trimmed."""
    ok = bool(value.strip(_JAVA_TRIMMED))
    return _result(subject, value, ok, "Invalid attribute key: <Empty String>")


def attribute_key_property_name(subject: str, value: str) -> ValidationResult:
    """NiFi's ATTRIBUTE_KEY_PROPERTY_NAME_VALIDATOR: a dynamic property's *name* must be a
    valid attribute key (the result's subject is "Property Name", its input the name)."""
    ok = bool(subject.strip(_JAVA_TRIMMED))
    return ValidationResult(
        "Property Name", ok, subject, "" if ok else "Invalid attribute key: <Empty String>"
    )
