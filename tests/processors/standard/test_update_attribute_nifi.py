"""NiFi's own update_attribute tests, ported to the TestRunner."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flowcore.flow import parse_flow
from flowcore.flow.definition import FlowDefinitionError
from flowcore.flow.nifi import import_nifi
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
TEST_CONTENT = "THIS IS TEST CONTENT"
SNAPSHOT = Path(__file__).parents[2] / "flowcore" / "flow" / "nifi" / "fixtures" / "snapshot.json"


def _assert_penalized_back_in_queue(runner: TestRunner) -> None:
    for relationship in ("success", "set state fail"):
        runner.assert_transfer_count(relationship, 0)
    [queued] = runner.queued_flowfiles()
    assert queued.is_penalized(runner.clock.now_ms())


def _flow_with(properties: dict[str, str], parameters: dict[str, str] | None = None) -> Any:
    """A flow holding one UpdateAttribute, "tag", with ``properties``."""
    processor = {"type": "UpdateAttribute", "properties": properties, "auto_terminate": ["success"]}
    return {
        "version": 1,
        "flow": {"name": "demo", "parameters": parameters or {}, "processors": {"tag": processor}},
    }


def _imported_update_attribute(properties: dict[str, str]) -> dict[str, Any]:
    """The properties flowcore imports for a NiFi UpdateAttribute with ``properties``."""
    data: dict[str, Any] = json.loads(SNAPSHOT.read_text("utf-8"))
    [log] = [p for p in data["flowContents"]["processors"] if p["name"] == "Log"]
    log["type"] = "org.apache.nifi.processors.attributes.UpdateAttribute"
    log["bundle"]["artifact"] = "nifi-update-attribute-nar"
    log["properties"] = properties
    log["propertyDescriptors"] = {
        name: {"name": name, "displayName": name, "dynamic": name == "greeting"}
        for name in properties
    }
    log["autoTerminatedRelationships"] = []
    document = import_nifi(data).document
    parse_flow(document)
    imported: dict[str, Any] = document["flow"]["processors"]["Log"]["properties"]
    return imported


def test_nifi_default(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testDefault."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("attribute.1", "value.1")
    runner.set_property("attribute.2", "new.value.2")
    runner.enqueue(b"", {"attribute.2": "old.value.2"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_equals("attribute.1", "value.1")
    flow_file.assert_attribute_equals("attribute.2", "new.value.2")


def test_nifi_set_empty_string(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testSetEmptyString."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("attribute.1", "")
    runner.assert_valid()
    # No attributes on flowFile
    runner.enqueue(b"")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file1 = runner.get_flowfiles_for_relationship("success")[0]
    assert flow_file1.get_attribute("attribute.1") == ""
    runner.clear_transfer_state()
    # Existing attribute to be replaced on FlowFile
    runner.enqueue(b"", {"attribute.1": "old.value.1"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file2 = runner.get_flowfiles_for_relationship("success")[0]
    assert flow_file2.get_attribute("attribute.1") == ""


def test_nifi_default_add_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testDefaultAddAttribute."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("NewAttr", "${one:plus(${two})}")
    runner.enqueue(b"", {"one": "1", "two": "2"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_equals("NewAttr", "3")


def test_nifi_add_attribute_with_incorrect_expression(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testAddAttributeWithIncorrectExpression."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("NewId", "${UUID(}")
    runner.assert_not_valid()


def test_nifi_dynamic_property_with_unset_parameter() -> None:
    """NiFi: TestUpdateAttribute.testDynamicPropertyWithUnsetParameter."""
    # NiFi's mock has no parameter context and refuses a value that is only unset
    # parameters; a NiFi flow refuses any reference to a parameter it lacks, as a flowcore
    # flow does when it is loaded (a TestRunner has no parameters to check against)
    for value in (
        "#{missing.parameter}",
        "#{missing.parameter}#{another.missing.parameter}",
        "#{missing.parameter} #{another.missing.parameter}",
        "#{missing.parameter}${now()}",
        "${#{missing.parameter}:isEmpty():ifElse('', #{missing.parameter})}",
    ):
        with pytest.raises(
            FlowDefinitionError, match=re.escape("unknown parameter '#{missing.parameter}'")
        ):
            parse_flow(_flow_with({"attribute.with.param": value}))
    parameters = {"missing.parameter": "a", "another.missing.parameter": "b"}
    definition = parse_flow(
        _flow_with({"attribute.with.param": "#{missing.parameter}"}, parameters)
    )
    assert definition.flow.processors["tag"].properties["attribute.with.param"] == "a"


def test_nifi_basic_state(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testBasicState."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("Store State", "Store state locally")
    runner.set_property("count", "${getStateValue('count'):plus(1)}")
    runner.set_property("sum", "${getStateValue('sum'):plus(${pencils})}")
    runner.assert_not_valid()
    runner.set_property("Stateful Variables Initial Value", "0")
    runner.assert_valid()
    runner.enqueue(b"", {"pencils": "2"})
    runner.enqueue(b"", {"pencils": "2"})
    runner.enqueue(b"", {"pencils": "3"})
    runner.enqueue(b"", {"pencils": "3"})
    runner.enqueue(b"", {"pencils": "5"})
    runner.run(5)
    runner.assert_all_flowfiles_transferred("success", 5)
    runner.get_flowfiles_for_relationship("success")[4].assert_attribute_equals("count", "5")
    runner.get_flowfiles_for_relationship("success")[4].assert_attribute_equals("sum", "15")


def test_nifi_state_with_init_value(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testStateWithInitValue."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("Store State", "Store state locally")
    runner.set_property("Stateful Variables Initial Value", "10")
    runner.set_property("count", "${getStateValue('count'):plus(1)}")
    runner.set_property("sum", "${getStateValue('sum'):plus(${pencils})}")
    runner.assert_valid()
    runner.enqueue(b"", {"pencils": "2"})
    runner.enqueue(b"", {"pencils": "2"})
    runner.enqueue(b"", {"pencils": "3"})
    runner.enqueue(b"", {"pencils": "3"})
    runner.enqueue(b"", {"pencils": "5"})
    runner.run(5)
    runner.assert_all_flowfiles_transferred("success", 5)
    runner.get_flowfiles_for_relationship("success")[4].assert_attribute_equals("count", "15")
    runner.get_flowfiles_for_relationship("success")[4].assert_attribute_equals("sum", "25")


def test_nifi_default_boolean_as_string(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testDefaultBooleanAsString."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("NewAttr", "${a:equals('b'):toString()}")
    runner.enqueue(b"", {"a": "b"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_equals("NewAttr", "true")


def test_nifi_default_escape_value(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testDefaultEscapeValue."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("NewAttr", "$${a}")
    runner.enqueue(b"", {"a": "b"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_equals("NewAttr", "${a}")


def test_nifi_simple_delete(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testSimpleDelete."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("Delete Attributes Expression", "attribute.2")
    runner.enqueue(b"", {"attribute.1": "value.1", "attribute.2": "value.2"})

    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_equals("attribute.1", "value.1")
    flow_file.assert_attribute_not_exists("attribute.2")


def test_nifi_regex_dot_delete(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testRegexDotDelete."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("Delete Attributes Expression", "attribute.2")
    runner.enqueue(
        b"", {"attribute.1": "value.1", "attribute.2": "value.2", "attributex2": "valuex2"}
    )

    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_equals("attribute.1", "value.1")
    flow_file.assert_attribute_not_exists("attribute.2")
    flow_file.assert_attribute_not_exists("attributex2")


def test_nifi_regex_literal_dot_delete(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testRegexLiteralDotDelete."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("Delete Attributes Expression", "attribute\\.2")
    runner.enqueue(
        b"", {"attribute.1": "value.1", "attribute.2": "value.2", "attributex2": "valuex2"}
    )

    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_equals("attribute.1", "value.1")
    flow_file.assert_attribute_not_exists("attribute.2")
    flow_file.assert_attribute_exists("attributex2")


def test_nifi_regex_group_delete(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testRegexGroupDelete."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("Delete Attributes Expression", "(attribute\\.[2-5]|sample.*)")
    runner.enqueue(
        b"",
        {
            "attribute.1": "value.1",
            "attribute.2": "value.2",
            "attribute.6": "value.6",
            "sampleSize": "value.size",
            "sample.1": "value.sample.1",
            "simple.1": "value.simple.1",
        },
    )

    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_equals("attribute.1", "value.1")
    flow_file.assert_attribute_not_exists("attribute.2")
    flow_file.assert_attribute_exists("attribute.6")
    flow_file.assert_attribute_not_exists("sampleSize")
    flow_file.assert_attribute_not_exists("sample.1")
    flow_file.assert_attribute_exists("simple.1")


def test_nifi_attribute_key(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testAttributeKey."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("Delete Attributes Expression", "(attribute\\.[2-5]|sample.*)")
    runner.enqueue(
        b"",
        {
            "attribute.1": "value.1",
            "attribute.2": "value.2",
            "attribute.6": "value.6",
            "sampleSize": "value.size",
            "sample.1": "value.sample.1",
            "simple.1": "value.simple.1",
        },
    )

    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_equals("attribute.1", "value.1")
    flow_file.assert_attribute_not_exists("attribute.2")
    flow_file.assert_attribute_exists("attribute.6")
    flow_file.assert_attribute_not_exists("sampleSize")
    flow_file.assert_attribute_not_exists("sample.1")
    flow_file.assert_attribute_exists("simple.1")


def test_nifi_expression_literal_delete(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testExpressionLiteralDelete."""
    runner = make_runner("UpdateAttribute")
    runner.set_property(
        "Delete Attributes Expression", "${literal('attribute\\.'):append(${literal(6)})}"
    )
    runner.enqueue(
        b"",
        {
            "attribute.1": "value.1",
            "attribute.2": "value.2",
            "attribute.6": "value.6",
            "sampleSize": "value.size",
            "sample.1": "value.sample.1",
            "simple.1": "value.simple.1",
        },
    )

    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_equals("attribute.1", "value.1")
    flow_file.assert_attribute_exists("attribute.2")
    flow_file.assert_attribute_not_exists("attribute.6")
    flow_file.assert_attribute_exists("sampleSize")
    flow_file.assert_attribute_exists("sample.1")
    flow_file.assert_attribute_exists("simple.1")


def test_nifi_expression_regex_delete(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testExpressionRegexDelete."""
    runner = make_runner("UpdateAttribute")
    runner.set_property(
        "Delete Attributes Expression",
        "${literal('(attribute\\.'):append(${literal('[2-5]')}):append(${literal('|sample.*)')})}",
    )
    runner.enqueue(
        b"",
        {
            "attribute.1": "value.1",
            "attribute.2": "value.2",
            "attribute.6": "value.6",
            "sampleSize": "value.size",
            "sample.1": "value.sample.1",
            "simple.1": "value.simple.1",
        },
    )

    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_equals("attribute.1", "value.1")
    flow_file.assert_attribute_not_exists("attribute.2")
    flow_file.assert_attribute_exists("attribute.6")
    flow_file.assert_attribute_not_exists("sampleSize")
    flow_file.assert_attribute_not_exists("sample.1")
    flow_file.assert_attribute_exists("simple.1")


def test_nifi_attribute_list_delete(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testAttributeListDelete."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("Delete Attributes Expression", "attribute.1|attribute.2|sample.1|simple.1")
    runner.enqueue(
        b"",
        {
            "attribute.1": "value.1",
            "attribute.2": "value.2",
            "attribute.6": "value.6",
            "sampleSize": "value.size",
            "sample.1": "value.sample.1",
            "simple.1": "value.simple.1",
        },
    )

    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    flow_file = runner.get_flowfiles_for_relationship("success")[0]
    flow_file.assert_attribute_not_exists("attribute.1")
    flow_file.assert_attribute_not_exists("attribute.2")
    flow_file.assert_attribute_exists("attribute.6")
    flow_file.assert_attribute_exists("sampleSize")
    flow_file.assert_attribute_not_exists("sample.1")
    flow_file.assert_attribute_not_exists("simple.1")


def test_nifi_invalid_regex(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testInvalidRegex."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("Delete Attributes Expression", "(")
    runner.assert_not_valid()


def test_nifi_invalid_regex_in_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testInvalidRegexInAttribute."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("Delete Attributes Expression", "${butter}")
    runner.assert_valid()
    runner.enqueue(b"", {"butter": "("})
    # NiFi throws a ProcessException (the session rolls back and the FlowFile is penalized);
    # flowcore penalizes the FlowFile and returns it to its queue
    runner.run()
    _assert_penalized_back_in_queue(runner)


def test_nifi_data_is_too_short(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testDataIsTooShort."""
    runner = make_runner("UpdateAttribute")
    runner.set_property("attribute.1", "${test:substring(1, 20)}")
    runner.assert_valid()
    runner.enqueue(b"", {"test": "chocolate"})
    # NiFi's test passes whether or not run throws; NiFi's substring gives "" when an index
    # is out of bounds, so the FlowFile goes to success
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals("attribute.1", "")


def test_nifi_migrate_properties(make_runner: RunnerFactory) -> None:
    """NiFi: TestUpdateAttribute.testMigrateProperties."""
    runner = make_runner("UpdateAttribute")
    # NiFi renames NiFi 1's name on the processor; flowcore has no cache of its own to size
    # and drops both names when it imports a NiFi flow
    for name in ("canonical-value-lookup-cache-size", "Cache Value Lookup Cache Size"):
        properties = _imported_update_attribute({name: "100", "greeting": "hello"})
        assert properties == {"greeting": "hello"}
    runner.set_property("greeting", "hello")
    runner.enqueue(b"")
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals("greeting", "hello")
