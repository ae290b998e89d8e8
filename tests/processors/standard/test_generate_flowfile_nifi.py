"""NiFi's own generate_flowfile tests, ported to the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.flow import parse_flow
from flowcore.testing import TestRunner
from tests.processors.standard.nifi_import import imported_properties

RunnerFactory = Callable[..., TestRunner]


def test_nifi_generate_custom_text(make_runner: RunnerFactory) -> None:
    """NiFi: TestGenerateFlowFile.testGenerateCustomText."""
    runner = make_runner("GenerateFlowFile")
    runner.set_property("File Size", "100MB")
    runner.set_property("Data Format", "Text")
    runner.set_property("Custom Text", "This is my custom text!")
    runner.run()
    runner.assert_transfer_count("success", 1)
    generated_flow_file = runner.get_flowfiles_for_relationship("success")[0]
    generated_flow_file.assert_content_equals("This is my custom text!")
    generated_flow_file.assert_attribute_not_exists("mime.type")


def test_nifi_invalid_custom_text(make_runner: RunnerFactory) -> None:
    """NiFi: TestGenerateFlowFile.testInvalidCustomText."""
    runner = make_runner("GenerateFlowFile")
    runner.set_property("File Size", "100MB")
    runner.set_property("Data Format", "Binary")
    runner.set_property("Custom Text", "This is my custom text!")
    runner.assert_not_valid()
    runner.set_property("Data Format", "Text")
    runner.set_property("Unique FlowFiles", "true")
    runner.assert_not_valid()


def test_nifi_dynamic_properties_to_attributes(make_runner: RunnerFactory) -> None:
    """NiFi: TestGenerateFlowFile.testDynamicPropertiesToAttributes."""
    runner = make_runner("GenerateFlowFile")
    runner.set_property("File Size", "1B")
    runner.set_property("Data Format", "Text")
    runner.set_property("Mime Type", "application/text")
    runner.set_property("plain.dynamic.property", "Plain Value")
    runner.set_property("expression.dynamic.property", "${literal('Expression Value')}")
    runner.assert_valid()
    runner.run()
    runner.assert_transfer_count("success", 1)
    generated_flow_file = runner.get_flowfiles_for_relationship("success")[0]
    generated_flow_file.assert_attribute_equals("plain.dynamic.property", "Plain Value")
    generated_flow_file.assert_attribute_equals("expression.dynamic.property", "Expression Value")
    generated_flow_file.assert_attribute_equals("mime.type", "application/text")


def test_nifi_context_parameters_to_attributes(make_runner: RunnerFactory) -> None:
    """NiFi: TestGenerateFlowFile.testContextParametersToAttributes."""
    # a flowcore flow puts its parameters' values into the properties when it is loaded
    properties = {
        "File Size": "1B",
        "Data Format": "Text",
        "Mime Type": "application/text",
        "expression.context.parameter": "#{context.parameter.property}",
    }
    processor = {"type": "GenerateFlowFile", "properties": properties, "auto_terminate": []}
    flow = {
        "name": "demo",
        "parameters": {"context.parameter.property": "context.parameter.value"},
        "processors": {"generate": processor},
    }
    definition = parse_flow({"version": 1, "flow": flow})
    runner = make_runner("GenerateFlowFile")
    for name, value in definition.flow.processors["generate"].properties.items():
        runner.set_property(name, value)
    runner.assert_valid()
    runner.run()
    runner.assert_transfer_count("success", 1)
    generated_flow_file = runner.get_flowfiles_for_relationship("success")[0]
    generated_flow_file.assert_attribute_equals(
        "expression.context.parameter", "context.parameter.value"
    )
    generated_flow_file.assert_attribute_equals("mime.type", "application/text")


def test_nifi_expression_language_support(make_runner: RunnerFactory) -> None:
    """NiFi: TestGenerateFlowFile.testExpressionLanguageSupport."""
    runner = make_runner("GenerateFlowFile")
    runner.set_property("File Size", "${nextInt()}B")
    runner.set_property("Unique FlowFiles", "true")
    runner.set_property("Batch Size", "2")
    runner.assert_valid()
    runner.run()
    # each FlowFile of a batch has its own size, from the expression, when unique
    runner.assert_transfer_count("success", 2)
    first, second = runner.get_flowfiles_for_relationship("success")
    assert first.size < second.size
    runner.clear_transfer_state()

    runner.set_property("Unique FlowFiles", "false")
    runner.assert_valid()
    runner.run()
    # and the same size when not
    runner.assert_transfer_count("success", 2)
    first, second = runner.get_flowfiles_for_relationship("success")
    assert first.size == second.size


def test_nifi_migrate_properties(make_runner: RunnerFactory) -> None:
    """NiFi: TestGenerateFlowFile.testMigrateProperties."""
    # NiFi 1's names are renamed when a NiFi flow is imported
    old_names = {"generate-ff-custom-text": "x", "character-set": "UTF-8", "mime-type": "a/b"}
    expected = {"Custom Text": "x", "Character Set": "UTF-8", "Mime Type": "a/b"}
    assert imported_properties("GenerateFlowFile", old_names) == expected
    assert imported_properties("GenerateFlowFile", expected) == expected
    runner = make_runner("GenerateFlowFile")
    for name, value in expected.items():
        runner.set_property(name, value)
    runner.set_property("Data Format", "Text")
    runner.assert_valid()
