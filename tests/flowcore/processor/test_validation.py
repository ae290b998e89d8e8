"""Property validation with NiFi's messages.

A failed validation renders as NiFi renders it:
``'<Property>' validated against '<value>' is invalid because <reason>``, or
``'<Property>' is invalid because <reason>`` when there is no value.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import ProcessorNode, ScheduleConfig
from flowcore.engine.validation import validate_properties
from flowcore.processor import (
    AllowableValue,
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    validators,
)
from flowcore.processor.descriptors import Validator
from flowcore.session import ProcessSession
from processors.standard.generate_flowfile import GenerateFlowFile
from processors.standard.update_attribute import UpdateAttribute

MODE = PropertyDescriptor(
    name="mode",
    display_name="Mode",
    default="fast",
    required=True,
    allowable_values=[AllowableValue("fast"), AllowableValue("safe"), "paranoid"],
)
TIMEOUT = PropertyDescriptor(
    name="timeout",
    display_name="Timeout",
    default="30 sec",
    required=True,
    validators=[validators.time_period],
)
TARGET = PropertyDescriptor(
    name="target",
    display_name="Target Directory",
    required=True,
    validators=[validators.non_empty],
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
)
COUNT = PropertyDescriptor(
    name="count",
    display_name="Count",
    validators=[validators.positive_integer],
)
LIMIT = PropertyDescriptor(
    name="limit",
    display_name="Size Limit",
    validators=[validators.data_size],
    expression_language_scope=ExpressionLanguageScope.ENVIRONMENT,
)
DESCRIPTORS = (MODE, TIMEOUT, TARGET, COUNT, LIMIT)


class Checked(Processor):
    type_name = "ValidationTestChecked"
    property_descriptors = DESCRIPTORS
    relationships: ClassVar[list[Relationship]] = [Relationship("success")]

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        if (
            context.get_property(MODE).value == "paranoid"
            and not context.get_property(COUNT).is_set
        ):
            return [ValidationResult("Count", False, None, "Count is needed in paranoid mode")]
        return []

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        raise NotImplementedError


def messages(properties: dict[str, str]) -> list[str]:
    return [str(r) for r in validate_properties(DESCRIPTORS, properties, {})]


def node_for(processor: Processor, properties: dict[str, str]) -> ProcessorNode:
    return ProcessorNode("p", processor, properties, ScheduleConfig(), ManualClock())


# -- rendering ------------------------------------------------------------------------------


def test_result_rendering() -> None:
    assert str(ValidationResult("Batch Size", False, "0", "not a positive value")) == (
        "'Batch Size' validated against '0' is invalid because not a positive value"
    )
    assert str(ValidationResult("Directory", False, None, "Directory is required")) == (
        "'Directory' is invalid because Directory is required"
    )
    assert str(ValidationResult("Directory", True, "/tmp")) == "'Directory' is valid"


# -- validate_properties ----------------------------------------------------------------------


def test_valid_configuration_has_no_results() -> None:
    assert messages({"target": "/data/${dir}", "count": "3", "limit": "1 MB"}) == []


def test_required_property_missing() -> None:
    assert messages({}) == ["'Target Directory' is invalid because Target Directory is required"]


def test_required_property_empty() -> None:
    assert messages({"target": ""}) == [
        "'Target Directory' is invalid because Target Directory is required"
    ]


def test_defaults_satisfy_required_properties_and_are_validated() -> None:
    bad_default = PropertyDescriptor(
        name="period", default="soon", required=True, validators=[validators.time_period]
    )
    results = validate_properties([bad_default], {}, {})
    assert [str(r) for r in results] == [
        "'period' validated against 'soon' is invalid because Must be of format <duration> "
        "<TimeUnit> where <duration> is a non-negative integer and TimeUnit is a supported "
        "Time Unit, such as: nanos, millis, secs, mins, hrs, days"
    ]


def test_value_not_in_allowable_values() -> None:
    assert messages({"target": "/x", "mode": "reckless"}) == [
        "'Mode' validated against 'reckless' is invalid because Given value not found in "
        "allowed set 'fast, safe, paranoid'"
    ]


def test_allowable_values_are_case_sensitive() -> None:
    assert messages({"target": "/x", "mode": "FAST"}) == [
        "'Mode' validated against 'FAST' is invalid because Given value not found in "
        "allowed set 'fast, safe, paranoid'"
    ]


def test_unsupported_property() -> None:
    assert messages({"target": "/x", "Colour": "red"}) == [
        "'Colour' validated against 'red' is invalid because 'Colour' is not a supported "
        "property or has no Validator associated with it"
    ]


def test_time_period_validator_message() -> None:
    assert messages({"target": "/x", "timeout": "forever"}) == [
        "'Timeout' validated against 'forever' is invalid because Must be of format "
        "<duration> <TimeUnit> where <duration> is a non-negative integer and TimeUnit is a "
        "supported Time Unit, such as: nanos, millis, secs, mins, hrs, days"
    ]


def test_data_size_validator_message() -> None:
    assert messages({"target": "/x", "limit": "big"}) == [
        "'Size Limit' validated against 'big' is invalid because Must be of format <Data Size> "
        "<Data Unit> where <Data Size> is a non-negative integer and <Data Unit> is a supported "
        "Data Unit, such as: B, KB, MB, GB, TB"
    ]


def test_every_invalid_property_is_reported() -> None:
    results = messages({"mode": "x", "timeout": "y", "count": "0"})
    assert len(results) == 4
    assert results[0].startswith("'Mode' validated against 'x'")
    assert results[1].startswith("'Timeout' validated against 'y'")
    assert results[2] == "'Target Directory' is invalid because Target Directory is required"
    assert results[3] == "'Count' validated against '0' is invalid because not a positive value"


def test_expression_language_with_unknown_function_is_invalid() -> None:
    results = validate_properties(DESCRIPTORS, {"target": "/data/${dir:noSuchFunction()}"}, {})
    assert len(results) == 1
    result = results[0]
    assert not result.valid
    assert result.subject == "Target Directory"
    assert result.input == "/data/${dir:noSuchFunction()}"
    assert "noSuchFunction" in result.explanation
    assert str(result).startswith(
        "'Target Directory' validated against '/data/${dir:noSuchFunction()}' is invalid because "
    )


def test_expression_language_syntax_error_is_invalid() -> None:
    results = validate_properties(DESCRIPTORS, {"target": "${dir:toUpper(}"}, {})
    assert len(results) == 1
    assert str(results[0]).startswith(
        "'Target Directory' validated against '${dir:toUpper(}' is invalid because "
        "Unexpected '}' at position 14: expected an argument"
    )


def test_valid_expression_language_skips_the_literal_validators() -> None:
    # "${size}" is no data size, but EL is evaluated later, so only its syntax is checked.
    assert messages({"target": "/x", "limit": "${size}"}) == []


def test_expression_language_in_a_property_without_el_is_validated_as_text() -> None:
    results = messages({"target": "/x", "timeout": "${timeout}"})
    assert len(results) == 1
    assert results[0].startswith("'Timeout' validated against '${timeout}' is invalid because")


def test_dynamic_property_expression_language_is_validated() -> None:
    processor = UpdateAttribute()
    node = node_for(processor, {"good": "${filename:toUpper()}", "bad": "${filename:frobnicate()}"})
    results = node.validate()
    assert len(results) == 1
    assert results[0].subject == "bad"
    assert "frobnicate" in results[0].explanation


# -- validators -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("validator", "value", "reason"),
    [
        (validators.positive_integer, "0", "not a positive value"),
        (validators.positive_integer, "-3", "not a positive value"),
        (validators.positive_integer, "abc", "not a valid integer"),
        (validators.integer, "1.5", "not a valid integer"),
        (validators.non_negative_integer, "-1", "value is negative"),
        (validators.non_negative_integer, "x", "value is not a valid integer"),
        (validators.long_value, "x", "not a valid Long"),
        (validators.boolean, "yes", "Value must be 'true' or 'false'"),
        (validators.non_empty, "", "Prop cannot be empty"),
    ],
)
def test_standard_validators_use_nifi_reasons(
    validator: Validator, value: str, reason: str
) -> None:
    """The reasons of NiFi's StandardValidators (POSITIVE_INTEGER_VALIDATOR etc.)."""
    result = validator("Prop", value)
    assert not result.valid
    assert str(result) == f"'Prop' validated against '{value}' is invalid because {reason}"


@pytest.mark.parametrize(
    ("validator", "value"),
    [
        (validators.positive_integer, "7"),
        (validators.integer, "-7"),
        (validators.non_negative_integer, "0"),
        (validators.long_value, "12345678901"),
        (validators.boolean, "TRUE"),
        (validators.time_period, "5 mins"),
        (validators.data_size, "10 KB"),
        (validators.regular_expression, "a+b*"),
        (validators.java_regular_expression, "\\p{Punct}++(?<n>x)"),
        (validators.boolean_expression, "${a:isEmpty()}"),
        (validators.non_empty, "x"),
    ],
)
def test_standard_validators_accept(validator: Validator, value: str) -> None:
    assert validator("Prop", value).valid


def test_regular_expression_validator() -> None:
    result = validators.regular_expression("Pattern", "a(b")
    assert not result.valid
    assert str(result).startswith(
        "'Pattern' validated against 'a(b' is invalid because Specified expression is not valid: "
    )


def test_java_regular_expression_validator() -> None:
    result = validators.java_regular_expression("Pattern", "a(b")
    assert not result.valid
    assert "Specified expression is not valid: Invalid regular expression 'a(b'" in str(result)


def test_boolean_expression_validator_checks_even_text_without_expressions() -> None:
    result = validators.boolean_expression("Rule", "true")
    assert str(result) == "'Rule' validated against 'true' is invalid because No Expressions found"


# -- through a processor node -------------------------------------------------------------------


def test_processor_node_accepts_display_names() -> None:
    node = node_for(Checked(), {"Target Directory": "/x", "Mode": "safe"})
    assert node.properties == {"target": "/x", "mode": "safe"}
    assert node.validate() == []


def test_processor_node_reports_property_errors_before_custom_validation() -> None:
    node = node_for(Checked(), {"Mode": "paranoid"})
    assert [str(r) for r in node.validate()] == [
        "'Target Directory' is invalid because Target Directory is required"
    ]
    node.set_property("Target Directory", "/x")
    assert [str(r) for r in node.validate()] == [
        "'Count' is invalid because Count is needed in paranoid mode"
    ]
    node.set_property("Count", "2")
    assert node.validate() == []
    node.set_property("Count", None)
    assert len(node.validate()) == 1


def test_generate_flowfile_validation() -> None:
    node = node_for(GenerateFlowFile(), {"Batch Size": "0"})
    assert [str(r) for r in node.validate()] == [
        "'Batch Size' validated against '0' is invalid because not a positive value"
    ]
    node = node_for(GenerateFlowFile(), {"Custom Text": "hi", "Unique FlowFiles": "true"})
    assert [str(r) for r in node.validate()] == [
        "'Custom Text' is invalid because If Custom Text is set, then Unique FlowFiles must be "
        "set to false."
    ]
    node = node_for(GenerateFlowFile(), {"Data Format": "Hex"})
    assert [str(r) for r in node.validate()] == [
        "'Data Format' validated against 'Hex' is invalid because Given value not found in "
        "allowed set 'Binary, Text'"
    ]
    node = node_for(GenerateFlowFile(), {"File Size": "${size:nope()}"})
    results = node.validate()
    assert len(results) == 1
    assert results[0].subject == "File Size"
    assert "nope" in results[0].explanation
