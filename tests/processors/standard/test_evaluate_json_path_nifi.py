"""NiFi's own evaluate_json_path tests, ported to the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.testing import TestRunner
from tests.processors.standard.nifi_resources import resource

RunnerFactory = Callable[..., TestRunner]
JSON_SNIPPET = resource("TestJson/json-sample.json")
XML_SNIPPET = resource("TestXml/xml-snippet.xml")
ATTRIBUTE = "flowfile-attribute"
CONTENT = "flowfile-content"
NULL_INPUT = '{"stringField": "String Value", "nullField": null}'


def test_nifi_invalid_json_path(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testInvalidJsonPath."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("invalid.jsonPath", "$..")
    runner.assert_not_valid()


def test_nifi_upgrade_to_json_path24(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testUpgradeToJsonPath24."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", ATTRIBUTE)
    for bad in ("LoremIpsum []", "LoremIpsum[]", "$..", "$.xyz."):
        runner.set_property("DefinitelyNotJsonPath", bad)
        runner.enqueue(JSON_SNIPPET)
        runner.assert_not_valid()
    # weird strings Jayway JsonPath compiles all the same
    for old in ("LoremIpsum@$Q#$^Q$%Q#", "TestTest['sdfadsf']#$%#$^#$^.xyz"):
        runner.set_property("DefinitelyNotJsonPath", old)
        runner.enqueue(JSON_SNIPPET)
        runner.assert_valid()
    for good in ("$", "$.xyz", "$['xyz']", "$.*['xyz']"):
        runner.set_property("DefinitelyNotJsonPath", good)
        runner.enqueue(JSON_SNIPPET)
        runner.assert_valid()
    runner.set_property("DefinitelyNotJsonPath", "   ")
    runner.assert_not_valid()


def test_nifi_invalid_json_document(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testInvalidJsonDocument."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", ATTRIBUTE)
    runner.enqueue(XML_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_nifi_invalid_configuration_destination_content_two_paths(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestEvaluateJsonPath.testInvalidConfiguration_destinationContent_twoPaths."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", CONTENT)
    runner.set_property("JsonPath1", "$[0]._id")
    runner.set_property("JsonPath2", "$[0].name")
    runner.assert_not_valid()


def test_nifi_invalid_configuration_invalid_json_path_space(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testInvalidConfiguration_invalidJsonPath_space."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", CONTENT)
    runner.set_property("JsonPath1", "$[0]. _id")
    runner.assert_not_valid()


def test_nifi_configuration_destination_attributes_two_paths(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testConfiguration_destinationAttributes_twoPaths."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("JsonPath1", "$[0]._id")
    runner.set_property("JsonPath2", "$[0].name")  # cannot be converted to scalar
    runner.enqueue(JSON_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_nifi_extract_path_destination_attribute(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testExtractPath_destinationAttribute."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("JsonPath", "$[0]._id")
    runner.enqueue(JSON_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("matched", 1)
    out = runner.get_flowfiles_for_relationship("matched")[0]
    assert out.get_attribute("JsonPath") == "54df94072d5dbf7dc6340cc5"


def test_nifi_extract_path_destination_attributes_two_paths(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testExtractPath_destinationAttributes_twoPaths."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("Return Type", "json")
    runner.set_property("evaluatejson.id", "$[0]._id")
    runner.set_property("evaluatejson.name", "$[0].name")
    runner.enqueue(JSON_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("matched", 1)
    out = runner.get_flowfiles_for_relationship("matched")[0]
    assert out.get_attribute("evaluatejson.id") == "54df94072d5dbf7dc6340cc5"
    assert out.get_attribute("evaluatejson.name") == '{"first":"Shaffer","last":"Pearson"}'


def test_nifi_extract_path_destination_attributes_two_paths_not_found(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestEvaluateJsonPath.testExtractPath_destinationAttributes_twoPaths_notFound."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("Path Not Found Behavior", "warn")
    runner.set_property("evaluatejson.id", "$[0]._id.nonexistent")
    runner.set_property("evaluatejson.name", "$[0].name.nonexistent")
    runner.enqueue(JSON_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("matched", 1)
    out = runner.get_flowfiles_for_relationship("matched")[0]
    assert out.get_attribute("evaluatejson.id") == ""
    assert out.get_attribute("evaluatejson.name") == ""


def test_nifi_extract_path_destination_attributes_two_paths_one_found(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestEvaluateJsonPath.testExtractPath_destinationAttributes_twoPaths_oneFound."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("Path Not Found Behavior", "ignore")
    runner.set_property("evaluatejson.id", "$[0]._id")
    runner.set_property("evaluatejson.name", "$[0].name.nonexistent")
    runner.enqueue(JSON_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("matched", 1)
    out = runner.get_flowfiles_for_relationship("matched")[0]
    assert out.get_attribute("evaluatejson.id") == "54df94072d5dbf7dc6340cc5"
    assert out.get_attribute("evaluatejson.name") == ""


def test_nifi_extract_path_destination_attributes_two_paths_one_found_skip_missing(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestEvaluateJsonPath.testExtractPath_destinationAttributes_twoPaths_oneFound_skipMissing."""  # noqa: E501
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("Path Not Found Behavior", "skip")
    runner.set_property("evaluatejson.id", "$[0]._id")
    runner.set_property("evaluatejson.name", "$[0].name.nonexistent")
    runner.enqueue(JSON_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("matched", 1)
    out = runner.get_flowfiles_for_relationship("matched")[0]
    assert out.get_attribute("evaluatejson.id") == "54df94072d5dbf7dc6340cc5"
    out.assert_attribute_not_exists("evaluatejson.name")


def test_nifi_extract_path_destination_content(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testExtractPath_destinationContent."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", CONTENT)
    runner.set_property("JsonPath", "$[0]._id")
    runner.enqueue(JSON_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("matched", 1)
    runner.get_flowfiles_for_relationship("matched")[0].assert_content_equals(
        "54df94072d5dbf7dc6340cc5"
    )


def test_nifi_extract_path_destination_content_indefinite_result(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestEvaluateJsonPath.testExtractPath_destinationContent_indefiniteResult."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", CONTENT)
    runner.set_property("friends.indefinite.id.list", "$[0].friends.[*].id")
    runner.enqueue(JSON_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("matched", 1)
    runner.get_flowfiles_for_relationship("matched")[0].assert_content_equals("[0,1,2]")


def test_nifi_extract_path_destination_content_indefinite_result_operators(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestEvaluateJsonPath.testExtractPath_destinationContent_indefiniteResult_operators."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", CONTENT)
    runner.set_property("friends.indefinite.id.list", "$[0].friends[?(@.id < 3)].id")
    runner.enqueue(JSON_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("matched", 1)
    runner.get_flowfiles_for_relationship("matched")[0].assert_content_equals("[0,1,2]")


def test_nifi_route_unmatched_destination_content_no_match(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testRouteUnmatched_destinationContent_noMatch."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", CONTENT)
    runner.set_property("jsonPath", "$[0].nonexistent.key")
    runner.enqueue(JSON_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("unmatched", 1)
    runner.get_flowfiles_for_relationship("unmatched")[0].assert_content_equals(JSON_SNIPPET)


def test_nifi_route_failure_return_type_scalar_result_array(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testRouteFailure_returnTypeScalar_resultArray."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Return Type", "scalar")
    runner.set_property("Destination", CONTENT)
    runner.set_property("friends.indefinite.id.list", "$[0].friends[?(@.id < 3)].id")
    runner.enqueue(JSON_SNIPPET)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(JSON_SNIPPET)


def test_nifi_null_input(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testNullInput."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Return Type", "json")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("stringField", "$.stringField")
    runner.set_property("missingField", "$.missingField")
    runner.set_property("nullField", "$.nullField")
    runner.enqueue(NULL_INPUT)
    runner.run()
    runner.assert_transfer_count("matched", 1)
    output = runner.get_flowfiles_for_relationship("matched")[0]
    assert output.get_attribute("stringField") == "String Value"
    assert output.get_attribute("missingField") == ""
    assert output.get_attribute("nullField") == ""


def test_nifi_null_input_null_string_representation(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testNullInput_nullStringRepresentation."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Return Type", "json")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("Null Value Representation", "the string 'null'")
    runner.set_property("stringField", "$.stringField")
    runner.set_property("missingField", "$.missingField")
    runner.set_property("nullField", "$.nullField")
    runner.enqueue(NULL_INPUT)
    runner.run()
    runner.assert_transfer_count("matched", 1)
    output = runner.get_flowfiles_for_relationship("matched")[0]
    assert output.get_attribute("stringField") == "String Value"
    assert output.get_attribute("missingField") == ""
    assert output.get_attribute("nullField") == "null"


def test_nifi_handle_ascii_control_characters(make_runner: RunnerFactory) -> None:
    """NiFi: TestEvaluateJsonPath.testHandleAsciiControlCharacters."""
    runner = make_runner("EvaluateJsonPath")
    runner.set_property("Destination", ATTRIBUTE)
    runner.set_property("Return Type", "json")
    runner.set_property("evaluatejson.controlcharacterpath", "$.jinxing_json.object.property")
    runner.enqueue(resource("TestJson/control-characters.json"))
    runner.run()
    runner.assert_all_flowfiles_transferred("matched", 1)
    out = runner.get_flowfiles_for_relationship("matched")[0]
    assert out.get_attribute("evaluatejson.controlcharacterpath") is not None
