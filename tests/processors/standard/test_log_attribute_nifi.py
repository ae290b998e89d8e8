"""NiFi's own LogAttribute tests (TestLogAttribute.java), ported to the TestRunner."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from flowcore.flow.nifi.mapping import nifi_mapping
from flowcore.processor.registry import processor_class
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
ATTRS = {"foo": "foo-value", "bar": "bar-value", "foobaz": "foobaz-value"}


def _log_message(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture, **properties: str
) -> str:
    """NiFi's ``processFlowFile(log, info, ...)``: the message logged for one FlowFile."""
    caplog.set_level(logging.INFO)
    runner = make_runner("LogAttribute", properties=properties)
    runner.enqueue(b"content", ATTRS)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    return "\n".join(
        r.getMessage() for r in caplog.records if r.name.startswith("flowcore.processor.")
    )


def test_nifi_log_property_csv_no_ignore(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """NiFi: TestLogAttribute.testLogPropertyCSVNoIgnore."""
    log_message = _log_message(make_runner, caplog, **{"Attributes to Log": "foo, bar"})
    assert "foobaz-value" not in log_message
    assert "foo-value" in log_message
    assert "bar-value" in log_message


def test_nifi_log_property_regex_no_ignore(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """NiFi: TestLogAttribute.testLogPropertyRegexNoIgnore."""
    log_message = _log_message(
        make_runner, caplog, **{"Attributes to Log Regular Expression": "foo.*"}
    )
    assert "foobaz-value" in log_message
    assert "foo-value" in log_message
    assert "bar-value" not in log_message


def test_nifi_log_property_with_csv_and_regex_no_ignore(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """NiFi: TestLogAttribute.testLogPropertyWithCSVAndRegexNoIgnore."""
    # there's an AND relationship between like properties, so only foo should be logged
    log_message = _log_message(
        make_runner,
        caplog,
        **{"Attributes to Log": "foo, bar", "Attributes to Log Regular Expression": "foo*"},
    )
    assert "foobaz-value" not in log_message
    assert "foo-value" in log_message
    assert "bar-value" not in log_message


def test_nifi_log_property_with_ignore_csv(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """NiFi: TestLogAttribute.testLogPropertyWithIgnoreCSV."""
    log_message = _log_message(make_runner, caplog, **{"Attributes to Ignore": "bar"})
    assert "foobaz-value" in log_message
    assert "foo-value" in log_message
    assert "bar-value" not in log_message


def test_nifi_log_property_with_ignore_regex(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """NiFi: TestLogAttribute.testLogPropertyWithIgnoreRegex."""
    log_message = _log_message(
        make_runner, caplog, **{"Attributes to Ignore Regular Expression": "foo.*"}
    )
    assert "foobaz-value" not in log_message
    assert "foo-value" not in log_message
    assert "bar-value" in log_message


def test_nifi_log_property_with_ignore_csv_and_regex(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """NiFi: TestLogAttribute.testLogPropertyWithIgnoreCSVAndRegex."""
    # an OR relationship between like properties: anything starting with foo or bar goes
    log_message = _log_message(
        make_runner,
        caplog,
        **{"Attributes to Ignore": "foo,bar", "Attributes to Ignore Regular Expression": "foo.*"},
    )
    assert "foobaz-value" not in log_message
    assert "foo-value" not in log_message
    assert "bar-value" not in log_message


def test_nifi_log_property_csv_with_ignore_regex(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """NiFi: TestLogAttribute.testLogPropertyCSVWithIgnoreRegex."""
    # add and remove the same properties: the net result is nothing
    log_message = _log_message(
        make_runner,
        caplog,
        **{"Attributes to Log": "foo", "Attributes to Ignore Regular Expression": "foo.*"},
    )
    assert "foobaz-value" not in log_message
    assert "foo-value" not in log_message
    assert "bar-value" not in log_message


def test_nifi_log_property_csv_with_ignore_csv(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """NiFi: TestLogAttribute.testLogPropertyCSVWithIgnoreCSV."""
    # add foo,foobaz and remove foobaz
    log_message = _log_message(
        make_runner,
        caplog,
        **{"Attributes to Log": "foo,foobaz", "Attributes to Ignore": "foobaz"},
    )
    assert "foobaz-value" not in log_message
    assert "foo-value" in log_message
    assert "bar-value" not in log_message


def test_nifi_log_property_regex_with_ignore_regex(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """NiFi: TestLogAttribute.testLogPropertyRegexWithIgnoreRegex."""
    log_message = _log_message(
        make_runner,
        caplog,
        **{
            "Attributes to Log Regular Expression": "foo.*",  # includes foo,foobaz
            "Attributes to Ignore Regular Expression": "foobaz.*",  # includes foobaz
        },
    )
    assert "foobaz-value" not in log_message
    assert "foo-value" in log_message
    assert "bar-value" not in log_message


def _migrated(old_name: str) -> str:
    """The property a NiFi flow's ``old_name`` sets once imported (NiFi's migration)."""
    mapping = nifi_mapping("org.apache.nifi.processors.standard.LogAttribute", "processor")
    assert mapping is not None
    key = mapping.aliases.get(old_name, old_name)
    for descriptor in processor_class(mapping.flowcore_type).property_descriptors:
        if key in (descriptor.name, descriptor.label):
            return descriptor.label
    raise AssertionError(f"{old_name} sets no property of LogAttribute")


def test_nifi_migrate_properties() -> None:
    """NiFi: TestLogAttribute.testMigrateProperties (the NiFi import's renames)."""
    expected_renamed = {
        "attributes-to-log-regex": "Attributes to Log Regular Expression",
        "attributes-to-ignore-regex": "Attributes to Ignore Regular Expression",
        "character-set": "Character Set",
        "Log prefix": "Log Prefix",
    }
    for old_name, new_name in expected_renamed.items():
        assert _migrated(old_name) == new_name
        assert _migrated(new_name) == new_name
