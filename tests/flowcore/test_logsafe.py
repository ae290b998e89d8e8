"""Control characters in user text are escaped before they reach a log."""

from __future__ import annotations

import logging

import pytest

from flowcore.logsafe import PREFORMATTED, escape_control, escape_control_keep_lines, safe_logger


def test_escape_control_writes_each_control_character_as_an_escape() -> None:
    assert escape_control("plain text, ünïcödé") == "plain text, ünïcödé"
    assert escape_control("a\x00b\nc\td\x1b\x7f\x85\u2028") == (
        "a\\x00b\\nc\\td\\x1b\\x7f\\x85\\u2028"
    )
    assert escape_control_keep_lines("a\nb\tc\x00\r") == "a\nb\tc\\x00\\r"


def test_a_safe_logger_escapes_its_arguments_not_its_format(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    log = safe_logger("flowcore.test.logsafe")
    log.info("value %s, error %s, count %d", "x\x00y", ValueError("bad\nline"), 3)
    log.info("kept\n%s", "as is", extra={PREFORMATTED: True})
    first, second = (record.getMessage() for record in caplog.records)
    assert first == "value x\\x00y, error bad\\nline, count 3"
    assert second == "kept\nas is"
    assert safe_logger("flowcore.test.logsafe").filters == log.filters  # attached once
