"""LogAttribute: what is logged, at which level, and that FlowFiles pass unchanged."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from flowcore.testing import TestRunner
from processors.standard.log_attribute import select_attributes

RunnerFactory = Callable[..., TestRunner]


def _logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(
        r.getMessage() for r in caplog.records if r.name.startswith("flowcore.processor.")
    )


def test_logs_attributes_and_passes_flowfiles(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    runner = make_runner("LogAttribute")
    flowfile = runner.enqueue("payload", {"color": "red"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert out.attributes == flowfile.attributes
    assert runner.get_provenance_events() == []

    text = _logged(caplog)
    assert f"logging for flow file {flowfile.uuid}" in text
    assert "Key: 'color'\n\tValue: 'red'" in text
    assert "Key: 'fileSize'\n\tValue: '7'" in text
    assert "-" * 50 in text
    assert "payload" not in text
    [record] = [r for r in caplog.records if r.name.startswith("flowcore.processor.")]
    assert record.levelno == logging.INFO


def test_log_level_and_payload(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    quiet = make_runner("LogAttribute", properties={"Log Level": "debug"})
    quiet.enqueue("x")
    quiet.run()
    quiet.assert_transfer_count("success", 1)
    assert _logged(caplog) == ""

    loud = make_runner("LogAttribute", properties={"Log Level": "error", "Log Payload": "true"})
    loud.enqueue("the payload")
    loud.run()
    [record] = [r for r in caplog.records if r.name.startswith("flowcore.processor.")]
    assert record.levelno == logging.ERROR
    assert record.getMessage().endswith("the payload")


def test_attribute_selection_and_prefix(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    runner = make_runner(
        "LogAttribute",
        properties={
            "Attributes to Log Regular Expression": "a.*",
            "Attributes to Ignore": "a2",
            "Log FlowFile Properties": "false",
            "Log Prefix": "${tag}",
        },
    )
    runner.enqueue("", {"a1": "1", "a2": "2", "b1": "3", "tag": "MINE"})
    runner.run()
    text = _logged(caplog)
    assert "Key: 'a1'" in text
    assert "Key: 'a2'" not in text
    assert "Key: 'b1'" not in text
    assert "fileSize" not in text
    assert "-" * 5 + "MINE".center(40, "-") + "-" * 5 in text


def test_single_line_format(make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    runner = make_runner(
        "LogAttribute", properties={"Output Format": "Single Line", "Attributes to Log": "x,y"}
    )
    runner.enqueue("", {"x": "1", "y": "2", "z": "3"})
    runner.run()
    assert "FlowFile Attribute Map Content [x=1, y=2]" in _logged(caplog)


def test_select_attributes() -> None:
    keys = ["a", "b", "c", "uuid"]
    assert select_attributes(keys, set(), ".*", set(), None) == ["a", "b", "c", "uuid"]
    assert select_attributes(keys, {"a", "b"}, ".*", set(), None) == ["a", "b"]
    assert select_attributes(keys, {"a", "b"}, "b|c", set(), None) == ["b"]
    assert select_attributes(keys, set(), None, {"uuid"}, "[ab]") == ["c"]


def test_validation(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "LogAttribute",
        properties={
            "Log Level": "verbose",
            "Attributes to Ignore Regular Expression": "[",
            "Character Set": "klingon",
        },
    )
    errors = runner.validation_errors()
    assert (
        "'Log Level' validated against 'verbose' is invalid because Given value not found "
        "in allowed set 'trace, debug, info, warn, error'" in errors
    )
    assert any(
        e.startswith(
            "'Attributes to Ignore Regular Expression' validated against "
            "'[' is invalid because Specified expression is not valid"
        )
        for e in errors
    )
    assert (
        "'Character Set' validated against 'klingon' is invalid because Character Set is "
        "not supported by this runtime." in errors
    )


def test_control_characters_in_attributes_and_payload_are_escaped(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    runner = make_runner("LogAttribute", properties={"Log Payload": "true"})
    runner.enqueue("line 1\nline 2\x00\x1b[31m", {"evil": "a\x00b\nKey: 'forged'"})
    runner.run()
    text = _logged(caplog)
    assert "\x00" not in text and "\x1b" not in text
    assert "Key: 'evil'\n\tValue: 'a\\x00b\\nKey: 'forged''" in text  # one line, visible
    assert text.endswith("line 1\nline 2\\x00\\x1b[31m")  # the payload keeps its lines
