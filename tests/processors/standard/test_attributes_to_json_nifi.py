"""NiFi's own attributes_to_json tests, ported to the TestRunner."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import pytest

from flowcore.testing import MockFlowFile, TestRunner
from tests.processors.standard.nifi_import import imported_properties
from tests.processors.standard.nifi_resources import resource

RunnerFactory = Callable[..., TestRunner]
TEST_ATTRIBUTE_KEY = "TestAttribute"
TEST_ATTRIBUTE_VALUE = "TestValue"
JSON_ATTRIBUTE_NAME = "JSONAttributes"
ATTRIBUTE = "flowfile-attribute"
CONTENT = "flowfile-content"
CORE_ATTRIBUTES = {
    "filename",
    "path",
    "absolute.path",
    "mime.type",
    "priority",
    "uuid",
    "discard.reason",
    "alternate.identifier",
}
NESTED_JSON = [
    (resource("TestJson/json-sample.json").decode(), list),
    (resource("TestAttributesToJSON/input.json").decode(), dict),
]


def _success(runner: TestRunner) -> MockFlowFile:
    runner.assert_transfer_count("success", 1)
    runner.assert_transfer_count("failure", 0)
    return runner.get_flowfiles_for_relationship("success")[0]


def _json_attribute(runner: TestRunner) -> dict[str, Any]:
    out = _success(runner)
    out.assert_attribute_exists(JSON_ATTRIBUTE_NAME)
    value: dict[str, Any] = json.loads(out.attributes[JSON_ATTRIBUTE_NAME])
    return value


def test_nifi_invalid_user_supplied_attribute_list(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testInvalidUserSuppliedAttributeList."""
    runner = make_runner("AttributesToJSON")
    # Attribute list CANNOT be empty
    runner.set_property("Attributes List", "")
    runner.enqueue(b"")
    with pytest.raises(AssertionError):
        runner.run()


def test_nifi_invalid_include_core_attributes_property(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testInvalidIncludeCoreAttributesProperty."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Attributes List", "val1,val2")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("Include Core Attributes", "maybe")
    runner.enqueue(b"")
    with pytest.raises(AssertionError):
        runner.run()


def test_nifi_null_value_for_empty_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testNullValueForEmptyAttribute."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("Attributes List", "NonExistingAttributeKey")
    runner.set_property("Null Value", "true")
    runner.enqueue(b"")
    runner.run()
    val = _json_attribute(runner)
    # a true JSON null for the attribute that does not exist
    assert "NonExistingAttributeKey" in val
    assert val["NonExistingAttributeKey"] is None


def test_nifi_empty_string_value_for_empty_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testEmptyStringValueForEmptyAttribute."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("Attributes List", "NonExistingAttributeKey")
    runner.set_property("Null Value", "false")
    runner.enqueue(b"")
    runner.run()
    val = _json_attribute(runner)
    assert val.get("NonExistingAttributeKey") == ""


def test_nifi_invalid_json_value_in_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testInvalidJSONValueInAttribute."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Destination", ATTRIBUTE)
    # an attribute holding characters that are not valid JSON
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: "'badjson'"})
    runner.run()
    val = _json_attribute(runner)
    assert val[TEST_ATTRIBUTE_KEY] == "'badjson'"


def test_nifi_attributes_empty_list_user_specified_attributes(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testAttributes_emptyListUserSpecifiedAttributes."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Destination", ATTRIBUTE)
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: TEST_ATTRIBUTE_VALUE})
    runner.run()
    val = _json_attribute(runner)
    assert val.get(TEST_ATTRIBUTE_KEY) == TEST_ATTRIBUTE_VALUE


def test_nifi_content_empty_list_user_specified_attributes(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testContent_emptyListUserSpecifiedAttributes."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Destination", CONTENT)
    runner.set_property("Include Core Attributes", "false")
    runner.enqueue(b"")
    runner.run()
    out = _success(runner)
    out.assert_attribute_not_exists(JSON_ATTRIBUTE_NAME)
    out.assert_content_equals("{}")


def test_nifi_attribute_single_user_defined_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testAttribute_singleUserDefinedAttribute."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Attributes List", TEST_ATTRIBUTE_KEY)
    runner.set_property("Destination", ATTRIBUTE)
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: TEST_ATTRIBUTE_VALUE})
    runner.run()
    val = _json_attribute(runner)
    assert val.get(TEST_ATTRIBUTE_KEY) == TEST_ATTRIBUTE_VALUE
    assert len(val) == 1


def test_nifi_attribute_single_user_defined_attribute_with_white_space(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestAttributesToJSON.testAttribute_singleUserDefinedAttributeWithWhiteSpace."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Attributes List", " " + TEST_ATTRIBUTE_KEY + " ")
    runner.set_property("Destination", ATTRIBUTE)
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: TEST_ATTRIBUTE_VALUE})
    runner.run()
    val = _json_attribute(runner)
    assert val.get(TEST_ATTRIBUTE_KEY) == TEST_ATTRIBUTE_VALUE
    assert len(val) == 1


def test_nifi_attribute_single_non_existing_user_defined_attribute(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestAttributesToJSON.testAttribute_singleNonExistingUserDefinedAttribute."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Attributes List", "NonExistingAttribute")
    runner.set_property("Destination", ATTRIBUTE)
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: TEST_ATTRIBUTE_VALUE})
    runner.run()
    val = _json_attribute(runner)
    # an attribute asked for that does not exist is in the JSON as an empty string
    assert val.get("NonExistingAttribute") == ""
    assert len(val) == 1


def test_nifi_attribute_no_include_core_attributes_user_defined(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestAttributesToJSON.testAttribute_noIncludeCoreAttributesUserDefined."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Attributes List", " " + TEST_ATTRIBUTE_KEY + " , path ")
    runner.set_property("Include Core Attributes", "false")
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: TEST_ATTRIBUTE_VALUE, "path": TEST_ATTRIBUTE_VALUE})
    runner.run()
    val = _json_attribute(runner)
    assert val.get(TEST_ATTRIBUTE_KEY) == TEST_ATTRIBUTE_VALUE
    assert val.get("path") == TEST_ATTRIBUTE_VALUE
    assert len(val) == 2


def test_nifi_attribute_no_include_core_attributes_regex(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testAttribute_noIncludeCoreAttributesRegex."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Attributes Regular Expression", "path.*")
    runner.set_property("Include Core Attributes", "false")
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: TEST_ATTRIBUTE_VALUE, "path": TEST_ATTRIBUTE_VALUE})
    runner.run()
    val = _json_attribute(runner)
    assert val.get("path") == TEST_ATTRIBUTE_VALUE
    assert len(val) == 1


def test_nifi_attribute_no_include_core_attributes_content(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testAttribute_noIncludeCoreAttributesContent."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Include Core Attributes", "false")
    runner.set_property("Destination", CONTENT)
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: TEST_ATTRIBUTE_VALUE, "path": TEST_ATTRIBUTE_VALUE})
    runner.run()
    val = json.loads(_success(runner).content)
    assert val.get(TEST_ATTRIBUTE_KEY) == TEST_ATTRIBUTE_VALUE
    assert len(val) == 1


def test_nifi_attribute_include_core_attributes_content(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testAttribute_includeCoreAttributesContent."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Destination", CONTENT)
    runner.set_property("Include Core Attributes", "true")
    runner.enqueue(b"")
    runner.run()
    flow_file = _success(runner)
    assert flow_file.get_attribute("mime.type") == "application/json"
    val = json.loads(flow_file.content)
    # nifi-mock's new FlowFile has filename, path and uuid, as a TestRunner's has
    assert len(val) == 3
    assert set(val) <= CORE_ATTRIBUTES


def test_nifi_attribute_include_core_attributes_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testAttribute_includeCoreAttributesAttribute."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Include Core Attributes", "true")
    runner.enqueue(b"")
    runner.run()
    flow_file = _success(runner)
    assert flow_file.get_attribute("mime.type") is None
    val = json.loads(flow_file.attributes[JSON_ATTRIBUTE_NAME])
    assert len(val) == 3
    assert set(val) <= CORE_ATTRIBUTES


def test_nifi_attributes_regex(make_runner: RunnerFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """NiFi: TestAttributesToJSON.testAttributesRegex."""
    monkeypatch.setenv("regex", "delimited\\.header\\.column\\.[0-9]+")
    runner = make_runner("AttributesToJSON")
    runner.set_property("Attributes Regular Expression", "${regex}")
    runner.set_property("Attributes List", "test, test1")
    attributes = {
        "delimited.header.column.1": "Registry",
        "delimited.header.column.2": "Assignment",
        "delimited.header.column.3": "Organization Name",
        "delimited.header.column.4": "Organization Address",
        "delimited.footer.column.1": "not included",
        "test": "test",
        "test1": "test1",
    }
    runner.enqueue(b"", attributes)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    val = json.loads(flow_file.attributes[JSON_ATTRIBUTE_NAME])
    for number in range(1, 5):
        assert f"delimited.header.column.{number}" in val
    assert "delimited.footer.column.1" not in val
    assert "test" in val
    assert "test1" in val

    # without the regular expression, its matches are not in the JSON
    runner.remove_property("Attributes Regular Expression")
    runner.enqueue(b"", attributes)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("success", 2)
    flow_file = runner.get_flowfiles_for_relationship("success")[1]
    val = json.loads(flow_file.attributes[JSON_ATTRIBUTE_NAME])
    for number in range(1, 5):
        assert f"delimited.header.column.{number}" not in val
    assert "delimited.footer.column.1" not in val
    assert "test" in val
    assert "test1" in val


@pytest.mark.parametrize(("nested_json", "expected_class"), NESTED_JSON)
def test_nifi_attribute_with_nested_json_output_as_json_in_content(
    make_runner: RunnerFactory, nested_json: str, expected_class: type
) -> None:
    """NiFi: TestAttributesToJSON.testAttributeWithNestedJsonOutputAsJsonInContent."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Destination", CONTENT)
    runner.set_property("JSON Handling Strategy", "NESTED")
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: nested_json})
    runner.run()
    flow_file = _success(runner)
    assert flow_file.get_attribute("mime.type") == "application/json"
    val = json.loads(flow_file.content)
    assert isinstance(val[TEST_ATTRIBUTE_KEY], expected_class)


@pytest.mark.parametrize(("nested_json", "expected_class"), NESTED_JSON)
def test_nifi_attribute_with_nested_json_output_as_json_in_attribute(
    make_runner: RunnerFactory, nested_json: str, expected_class: type
) -> None:
    """NiFi: TestAttributesToJSON.testAttributeWithNestedJsonOutputAsJsonInAttribute."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("JSON Handling Strategy", "NESTED")
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: nested_json})
    runner.run()
    val = _json_attribute(runner)
    assert isinstance(val[TEST_ATTRIBUTE_KEY], expected_class)


@pytest.mark.parametrize("look_alike_json", ["[THIS IS NOT JSON]", "{THIS IS NOT JSON}"])
def test_nifi_attributes_with_look_a_like_json(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture, look_alike_json: str
) -> None:
    """NiFi: TestAttributesToJSON.testAttributesWithLookALikeJson."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Destination", CONTENT)
    runner.set_property("JSON Handling Strategy", "NESTED")
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: look_alike_json})
    with caplog.at_level(logging.ERROR):
        runner.run()
    runner.assert_transfer_count("failure", 1)
    runner.assert_transfer_count("success", 0)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert "expecting" in errors[0]


@pytest.mark.parametrize(("nested_json", "expected_class"), NESTED_JSON)
def test_nifi_attribute_with_nested_json_output_as_string_in_attribute(
    make_runner: RunnerFactory, nested_json: str, expected_class: type
) -> None:
    """NiFi: TestAttributesToJSON.testAttributeWithNestedJsonOutputAsStringInAttribute."""
    runner = make_runner("AttributesToJSON")
    runner.set_property("Destination", ATTRIBUTE)
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: nested_json})
    runner.run()
    val = _json_attribute(runner)
    assert isinstance(val[TEST_ATTRIBUTE_KEY], str)


def test_nifi_attribute_with_json_between_leading_and_trailing_spaces(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestAttributesToJSON.testAttributeWithJsonBetweenLeadingAndTrailingSpaces."""
    json_between_leading_and_trailing_spaces = (
        '\n{\n    "fruit": "Apple",\n    "size": "Large",\n    "color": "Red"\n}\n'
    )
    assert isinstance(json.loads(json_between_leading_and_trailing_spaces), dict)
    runner = make_runner("AttributesToJSON")
    runner.set_property("Destination", CONTENT)
    runner.set_property("JSON Handling Strategy", "NESTED")
    runner.enqueue(b"", {TEST_ATTRIBUTE_KEY: json_between_leading_and_trailing_spaces})
    runner.run()
    result = _success(runner)
    attributes = json.loads(result.content)
    assert isinstance(attributes[TEST_ATTRIBUTE_KEY], dict)


def test_nifi_migrate_properties(make_runner: RunnerFactory) -> None:
    """NiFi: TestAttributesToJSON.testMigrateProperties."""
    # NiFi 1's name is renamed when a NiFi flow is imported
    imported = imported_properties("AttributesToJSON", {"attributes-to-json-regex": "a.*"})
    assert imported == {"Attributes Regular Expression": "a.*"}
    runner = make_runner("AttributesToJSON")
    runner.set_property("Attributes Regular Expression", "a.*")
    runner.assert_valid()
