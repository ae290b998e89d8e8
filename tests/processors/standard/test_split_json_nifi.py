"""NiFi's own split_json tests, ported to the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.testing import TestRunner
from tests.processors.standard.nifi_resources import resource

RunnerFactory = Callable[..., TestRunner]
JSON_SNIPPET = resource("TestJson/json-sample.json")
XML_SNIPPET = resource("TestXml/xml-snippet.xml")
PATH = "JsonPath Expression"
ARRAY_OF_NULLS = '{"stringField": "String Value", "arrayOfNulls": [null, null, null]}'


def test_nifi_invalid_json_path(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitJson.testInvalidJsonPath."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$..")
    test_runner.assert_not_valid()


def test_nifi_invalid_json_document(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitJson.testInvalidJsonDocument."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$")
    test_runner.enqueue(XML_SNIPPET)
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("failure", 1)
    out = test_runner.get_flowfiles_for_relationship("failure")[0]
    out.assert_content_equals(XML_SNIPPET)


def test_nifi_split_non_array_result(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitJson.testSplit_nonArrayResult."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$[0]._id")
    test_runner.enqueue(JSON_SNIPPET)
    test_runner.run()
    test_runner.assert_all_flowfiles_transferred("failure", 1)
    test_runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(JSON_SNIPPET)


def test_nifi_split_array_result_one_value(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitJson.testSplit_arrayResult_oneValue."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$[0].range[?(@ == 0)]")
    test_runner.enqueue(JSON_SNIPPET)
    test_runner.run()
    test_runner.assert_transfer_count("original", 1)
    original = test_runner.get_flowfiles_for_relationship("original")[0]
    original.assert_attribute_equals("fragment.count", "1")
    test_runner.assert_transfer_count("split", 1)
    original.assert_content_equals(JSON_SNIPPET)
    test_runner.get_flowfiles_for_relationship("split")[0].assert_content_equals("0")


def test_nifi_split_array_result_multiple_values(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitJson.testSplit_arrayResult_multipleValues."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$[0].range")
    test_runner.enqueue(JSON_SNIPPET)
    test_runner.run()
    num_splits_expected = 10
    test_runner.assert_transfer_count("original", 1)
    original = test_runner.get_flowfiles_for_relationship("original")[0]
    original.assert_attribute_equals("fragment.count", str(num_splits_expected))
    test_runner.assert_transfer_count("split", num_splits_expected)
    original.assert_content_equals(JSON_SNIPPET)


def test_nifi_split_change_jsonpath(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitJson.testSplit_change_jsonpath."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$[0].range")
    test_runner.enqueue(JSON_SNIPPET)
    test_runner.run()
    num_splits_expected = 10
    test_runner.assert_transfer_count("original", 1)
    original = test_runner.get_flowfiles_for_relationship("original")[0]
    original.assert_attribute_equals("fragment.count", str(num_splits_expected))
    test_runner.assert_transfer_count("split", num_splits_expected)
    original.assert_content_equals(JSON_SNIPPET)

    # change the JsonPath Expression, and it is applied
    test_runner.clear_transfer_state()
    test_runner.set_property(PATH, "$[*].name")
    test_runner.enqueue(JSON_SNIPPET, {"filename": "test.json"})
    test_runner.run()
    test_runner.assert_transfer_count("original", 1)
    original_flow_file = test_runner.get_flowfiles_for_relationship("original")[0]
    original_flow_file.assert_attribute_exists("fragment.identifier")
    original_flow_file.assert_attribute_equals("fragment.count", "7")
    original_flow_file.assert_content_equals(JSON_SNIPPET)
    test_runner.assert_transfer_count("split", 7)
    flow_file = test_runner.get_flowfiles_for_relationship("split")[0]
    flow_file.assert_content_equals('{"first":"Shaffer","last":"Pearson"}')


def test_nifi_split_array_result_non_scalar_values(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitJson.testSplit_arrayResult_nonScalarValues."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$[*].name")
    test_runner.enqueue(JSON_SNIPPET, {"filename": "test.json"})
    test_runner.run()
    test_runner.assert_transfer_count("original", 1)
    original_flow_file = test_runner.get_flowfiles_for_relationship("original")[0]
    original_flow_file.assert_attribute_exists("fragment.identifier")
    original_flow_file.assert_attribute_equals("fragment.count", "7")
    original_flow_file.assert_content_equals(JSON_SNIPPET)
    test_runner.assert_transfer_count("split", 7)
    flow_file = test_runner.get_flowfiles_for_relationship("split")[0]
    flow_file.assert_content_equals('{"first":"Shaffer","last":"Pearson"}')
    flow_file.assert_attribute_equals("fragment.count", "7")
    flow_file.assert_attribute_equals("fragment.index", "0")
    flow_file.assert_attribute_equals("segment.original.filename", "test.json")
    flow_file = test_runner.get_flowfiles_for_relationship("split")[6]
    flow_file.assert_attribute_equals("fragment.count", "7")
    flow_file.assert_attribute_equals("fragment.index", "6")
    flow_file.assert_attribute_equals("segment.original.filename", "test.json")


def test_nifi_split_path_not_found(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitJson.testSplit_pathNotFound."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$.nonexistent")
    test_runner.enqueue(JSON_SNIPPET)
    test_runner.run()
    test_runner.assert_transfer_count("failure", 1)
    test_runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(JSON_SNIPPET)


def test_nifi_split_path_to_null_value(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitJson.testSplit_pathToNullValue."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$.nullField")
    test_runner.enqueue('{"stringField": "String Value", "nullField": null}')
    test_runner.run()
    test_runner.assert_transfer_count("failure", 1)


def test_nifi_split_path_to_array_with_nulls_empty_string_representation(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestSplitJson.testSplit_pathToArrayWithNulls_emptyStringRepresentation."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$.arrayOfNulls")
    test_runner.enqueue(ARRAY_OF_NULLS)
    test_runner.run()
    expected_files = 3
    test_runner.assert_transfer_count("split", expected_files)
    for i in range(expected_files):
        test_runner.get_flowfiles_for_relationship("split")[i].assert_content_equals("")


def test_nifi_split_path_to_array_with_nulls_null_string_representation(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestSplitJson.testSplit_pathToArrayWithNulls_nullStringRepresentation."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$.arrayOfNulls")
    test_runner.set_property("Null Value Representation", "the string 'null'")
    test_runner.enqueue(ARRAY_OF_NULLS)
    test_runner.run()
    expected_files = 3
    test_runner.assert_transfer_count("split", expected_files)
    for i in range(expected_files):
        test_runner.get_flowfiles_for_relationship("split")[i].assert_content_equals("null")


def test_nifi_split_path_to_input_string_null_value(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitJson.testSplit_pathToInputStringNullValue."""
    test_runner = make_runner("SplitJson")
    test_runner.set_property(PATH, "$.*")
    test_runner.enqueue("null")
    test_runner.run()
    test_runner.assert_transfer_count("failure", 1)
