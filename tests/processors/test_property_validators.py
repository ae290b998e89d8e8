"""Each property validates blanks and empty values with the validator NiFi gives it.

NiFi's NON_EMPTY_VALIDATOR refuses only the empty string (a value of spaces is valid),
NON_BLANK_VALIDATOR also a value ``String.trim()`` empties, ATTRIBUTE_KEY_VALIDATOR a
blank attribute name ("Invalid attribute key: <Empty String>"), Validator.VALID nothing;
ATTRIBUTE_KEY_PROPERTY_NAME_VALIDATOR checks a dynamic property's name. The table lists
every flowcore property whose NiFi counterpart uses one of them (read in NiFi's source),
so a flow valid in NiFi is valid here and one invalid there is invalid here.
"""

from __future__ import annotations

import pytest

from flowcore.engine.validation import validate_properties
from flowcore.processor import PropertyDescriptor, ValidationResult
from flowcore.processor.registry import processor_class, service_class

NON_EMPTY = "NON_EMPTY_VALIDATOR"
NON_BLANK = "NON_BLANK_VALIDATOR"
ATTRIBUTE_KEY = "ATTRIBUTE_KEY_VALIDATOR"
VALID = "Validator.VALID"
PROPERTY_NAME = "ATTRIBUTE_KEY_PROPERTY_NAME_VALIDATOR"

CHECKED: list[tuple[str, str, str]] = [
    # (component type, property API name, NiFi's validator)
    ("AttributesToJSON", "Attributes List", NON_EMPTY),
    ("AttributesToJSON", "Attributes Regular Expression", NON_EMPTY),
    ("ControlRate", "Maximum Rate", NON_EMPTY),
    ("ControlRate", "Rate Controlled Attribute", NON_EMPTY),
    ("ControlRate", "Grouping Attribute", NON_EMPTY),
    ("CryptographicHashContent", "Hash Algorithm", NON_EMPTY),
    ("EnforceOrder", "Group Identifier", NON_BLANK),
    ("EnforceOrder", "Order Attribute", NON_BLANK),
    ("FetchFile", "File to Fetch", NON_EMPTY),
    ("FetchFile", "Move Destination Directory", NON_EMPTY),
    ("GenerateFlowFile", "generate-ff-custom-text", NON_EMPTY),
    ("GenerateFlowFile", "mime-type", NON_EMPTY),
    ("GenerateFlowFile", "<dynamic>", PROPERTY_NAME),
    ("InvokeHTTP", "Request User-Agent", NON_EMPTY),
    ("InvokeHTTP", "Response Header Request Attributes Prefix", NON_EMPTY),
    ("LogAttribute", "Attributes to Log", NON_EMPTY),
    ("LogAttribute", "Attributes to Ignore", NON_EMPTY),
    ("LogAttribute", "Log prefix", NON_EMPTY),
    ("MergeContent", "Correlation Attribute Name", ATTRIBUTE_KEY),
    ("MergeContent", "Header File", NON_EMPTY),
    ("MergeContent", "Footer File", NON_EMPTY),
    ("MergeContent", "Demarcator File", NON_EMPTY),
    ("MergeContent", "Tar Modified Time", NON_EMPTY),
    ("MergeRecord", "Correlation Attribute Name", ATTRIBUTE_KEY),
    ("PutFile", "Directory", NON_EMPTY),
    ("PutFile", "Last Modified Time", NON_EMPTY),
    ("PutFile", "Owner", NON_EMPTY),
    ("PutFile", "Group", NON_EMPTY),
    ("RouteText", "<dynamic>", NON_EMPTY),
    ("SplitJson", "JsonPath Expression", NON_EMPTY),
    ("SplitText", "Header Line Marker Characters", NON_EMPTY),
    ("UpdateAttribute", "<dynamic>", PROPERTY_NAME),
    ("ValidateRecord", "Validation Details Attribute Name", ATTRIBUTE_KEY),
    ("ValidateRecord", "Schema Name", NON_EMPTY),
    ("ValidateRecord", "Schema Branch", NON_EMPTY),
    ("CSVReader", "Null String", NON_EMPTY),
    ("CSVReader", "schema-name", NON_EMPTY),
    ("CSVReader", "schema-branch", NON_EMPTY),
    ("CSVRecordSetWriter", "Record Separator", NON_EMPTY),
    ("CSVRecordSetWriter", "Null String", NON_EMPTY),
    ("JsonTreeReader", "schema-name", NON_EMPTY),
    ("AvroSchemaRegistry", "<dynamic>", NON_EMPTY),
    ("SimpleKeyValueLookupService", "<dynamic>", VALID),
    ("SimpleCsvFileLookupService", "lookup-key-column", NON_EMPTY),
    ("SimpleCsvFileLookupService", "lookup-value-column", NON_EMPTY),
]


def _component(type_name: str) -> object:
    try:
        return processor_class(type_name)()
    except Exception:
        return service_class(type_name)()


def _problems(type_name: str, name: str, value: str) -> list[ValidationResult]:
    """The descriptor validators' results for ``name`` set to ``value`` (a dynamic
    property is named ``x``, or ``value`` when its name is what is checked)."""
    component = _component(type_name)
    descriptors: list[PropertyDescriptor] = list(component.property_descriptors)
    if name == "<dynamic>":
        dynamic = component.get_dynamic_property_descriptor("x")  # type: ignore[attr-defined]
        assert dynamic is not None
        return validate_properties([], {"x": value}, {"x": dynamic})
    descriptor = next(d for d in descriptors if d.name == name)
    results = validate_properties([descriptor], {name: value}, {})
    return [r for r in results if r.subject == descriptor.label]


def _named(type_name: str, property_name: str) -> list[ValidationResult]:
    component = _component(type_name)
    dynamic = component.get_dynamic_property_descriptor(property_name)  # type: ignore[attr-defined]
    assert dynamic is not None
    return validate_properties([], {property_name: "value"}, {property_name: dynamic})


@pytest.mark.parametrize(("type_name", "name", "nifi"), CHECKED)
def test_blank_and_empty_values_as_nifi(type_name: str, name: str, nifi: str) -> None:
    if nifi == PROPERTY_NAME:
        (blank_name,) = _named(type_name, " ")
        assert str(blank_name) == (
            "'Property Name' validated against ' ' is invalid because "
            "Invalid attribute key: <Empty String>"
        )
        assert _named(type_name, "a") == []
        return
    blank = _problems(type_name, name, " ")
    empty = _problems(type_name, name, "")
    if nifi == VALID:
        assert (blank, empty) == ([], [])
    elif nifi == NON_EMPTY:
        assert blank == [] or "Given value not found in allowed set" in str(blank[0])
        assert len(empty) == 1
        assert "cannot be empty" in str(empty[0]) or "is required" in str(empty[0])
    elif nifi == NON_BLANK:
        (problem,) = blank
        assert str(problem).endswith("must contain at least one character that is not white space")
        assert _problems(type_name, name, "\u00a0") == []  # String.trim() keeps it
    else:
        (problem,) = blank
        assert str(problem).endswith("is invalid because Invalid attribute key: <Empty String>")
        assert _problems(type_name, name, "a") == []


def test_python_extension_non_empty_validators_accept_blanks() -> None:
    from processors.python_extensions.validators import STANDARD

    for name in ("NON_EMPTY_VALIDATOR", "NON_EMPTY_EL_VALIDATOR"):
        assert STANDARD[name]("P", " ").valid
        assert str(STANDARD[name]("P", "")) == (
            "'P' validated against '' is invalid because P cannot be empty"
        )


@pytest.mark.parametrize("type_name", ["GetFile", "ListFile"])
def test_input_directory_blank_is_a_directory_that_does_not_exist(type_name: str) -> None:
    """NiFi's DirectoryExistsValidator looks the value up as it is: a blank is a missing
    directory (flowcore said "cannot be empty", a message NiFi does not give)."""
    (problem,) = _problems(type_name, "Input Directory", " ")
    assert str(problem).endswith("is invalid because Directory does not exist")


def test_replace_text_literal_replace_searches_for_a_blank() -> None:
    """ReplaceText's customValidate applies NON_EMPTY_VALIDATOR to a Literal Replace's
    Search Value: a blank is a value to search for."""
    from flowcore.testing import TestRunner

    runner = TestRunner("ReplaceText")
    runner.set_property("Replacement Strategy", "Literal Replace")
    runner.set_property("Search Value", " ")
    assert runner.validation_errors() == []
    runner.close()
