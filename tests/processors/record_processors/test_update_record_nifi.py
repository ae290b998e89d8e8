"""NiFi's TestUpdateRecord, ported (MockRecordParser -> JsonTreeReader with the schema,
MockRecordWriter("header") -> CSVRecordSetWriter); NiFi's test resources are in
``nifi_resources/TestUpdateRecord``, its JSON tests run on the real JSON services."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from flowcore.testing import TestRunner
from tests.processors.record_processors.nifi_ports import (
    avro_schema,
    json_reader,
    json_records,
    resource,
)

RunnerFactory = Callable[..., TestRunner]
NAME_AGE = avro_schema([("name", "string"), ("age", "int")])
LITERAL = "literal-value"
RECORD_PATH = "record-path-value"
STRATEGY = "Replacement Value Strategy"

PERSON_WITH_ADDRESS = resource("TestUpdateRecord/schema/person-with-address.avsc")
MULTI_ARRAYS = resource("TestUpdateRecord/schema/multi-arrays.avsc")
PERSON_WITH_NAME_RECORD = resource("TestUpdateRecord/schema/person-with-name-record.avsc")
NAME_FIELDS_ONLY = resource("TestUpdateRecord/schema/name-fields-only.avsc")
PERSON_WITH_NAME_AND_MOTHER = resource("TestUpdateRecord/schema/person-with-name-and-mother.avsc")
MULTI_ARRAYS_JSON = resource("TestUpdateRecord/input/multi-arrays.json")
PERSON_JSON = resource("TestUpdateRecord/input/person.json")


def mock_update(
    make_runner: RunnerFactory,
    properties: dict[str, str],
    schema: str = NAME_AGE,
) -> TestRunner:
    """UpdateRecord as NiFi's setup has it: records of ``schema`` in, CSV out."""
    return make_runner(
        "UpdateRecord", properties, reader_type="JsonTreeReader", reader=json_reader(schema)
    )


def json_update(
    make_runner: RunnerFactory,
    properties: dict[str, str],
    in_schema: str | None,
    out_schema: str | None,
) -> TestRunner:
    """UpdateRecord between the JSON services: each with its Schema Text, or (None) the
    reader inferring and the writer inheriting; the writer pretty-prints."""
    reader = json_reader(in_schema) if in_schema else {"Schema Access Strategy": "infer-schema"}
    writer = (
        json_reader(out_schema)
        if out_schema
        else {"Schema Access Strategy": "inherit-record-schema"}
    )
    writer.update({"Pretty Print JSON": "true", "Schema Write Strategy": "full-schema-attribute"})
    return make_runner(
        "UpdateRecord",
        properties,
        reader_type="JsonTreeReader",
        reader=reader,
        writer_type="JsonRecordSetWriter",
        writer=writer,
    )


def only_success(runner: TestRunner) -> str:
    runner.assert_all_flowfiles_transferred("success", 1)
    return runner.get_flowfiles_for_relationship("success")[0].text()


def run_json(runner: TestRunner, content: str) -> str:
    runner.enqueue(content)
    runner.run()
    return only_success(runner)


def test_nifi_literal_replacement_value(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testLiteralReplacementValue."""
    runner = mock_update(make_runner, {"/name": "Jane Doe"})
    runner.enqueue(json_records(["name", "age"], ("John Doe", 35)))
    runner.run()
    assert only_success(runner) == "name,age\nJane Doe,35\n"


def test_nifi_literal_replacement_value_expression_language(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testLiteralReplacementValueExpressionLanguage."""
    runner = mock_update(make_runner, {"/name": "${newName}"})
    runner.enqueue(json_records(["name", "age"], ("John Doe", 35)), {"newName": "Jane Doe"})
    runner.run()
    assert only_success(runner) == "name,age\nJane Doe,35\n"


def test_nifi_record_path_replacement_value(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testRecordPathReplacementValue."""
    runner = mock_update(make_runner, {"/name": "/age", STRATEGY: RECORD_PATH})
    runner.enqueue(json_records(["name", "age"], ("John Doe", 35)))
    runner.run()
    assert only_success(runner) == "name,age\n35,35\n"


def test_nifi_record_path_replacement_with_filter_function_call(
    make_runner: RunnerFactory,
) -> None:
    """NiFi TestUpdateRecord.testRecordPathReplacementWithFilterFunctionCall."""
    runner = mock_update(make_runner, {"/hasAge": "not(isEmpty(/age))", STRATEGY: RECORD_PATH})
    runner.enqueue(json_records(["name", "age"], ("John Doe", 35)))
    runner.run()
    assert only_success(runner) == "name,age,hasAge\nJohn Doe,35,true\n"


def test_nifi_invalid_record_path_using_expression_language(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testInvalidRecordPathUsingExpressionLanguage."""
    runner = mock_update(make_runner, {"/name": "${recordPath}", STRATEGY: RECORD_PATH})
    runner.enqueue(json_records(["name", "age"], ("John Doe", 35)), {"recordPath": "hello"})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_nifi_literal_replacement_row_index_value_expression_language(
    make_runner: RunnerFactory,
) -> None:
    """NiFi TestUpdateRecord.testLiteralReplacementRowIndexValueExpressionLanguage."""
    schema = avro_schema([("id", "long"), ("name", "string"), ("age", "int")])
    runner = mock_update(make_runner, {STRATEGY: LITERAL, "/id": "${record.index}"}, schema)
    rows = [(None, "John Doe", 35), (None, "Jane Doe", 36), (None, "John Smith", 37)]
    rows.append((None, "Jane Smith", 38))
    runner.enqueue(json_records(["id", "name", "age"], *rows))
    runner.run()
    assert only_success(runner) == (
        "id,name,age\n1,John Doe,35\n2,Jane Doe,36\n3,John Smith,37\n4,Jane Smith,38\n"
    )


def test_nifi_replace_with_missing_record_path(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testReplaceWithMissingRecordPath."""
    sibling = {"type": "record", "name": "sibling", "fields": [{"name": "name", "type": "string"}]}
    schema = avro_schema([("name", "string"), ("siblings", {"type": "array", "items": sibling})])
    runner = mock_update(make_runner, {"/name": "/siblings[0]/name", STRATEGY: RECORD_PATH}, schema)
    runner.enqueue(json_records(["name", "siblings"], ("John Doe", None)), {"recordPath": "hello"})
    runner.run()
    assert only_success(runner) == "name,siblings\n,\n"


def test_nifi_relative_path(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testRelativePath."""
    schema = avro_schema([("name", "string"), ("nickname", "string")])
    runner = mock_update(make_runner, {"/name": "../nickname", STRATEGY: RECORD_PATH}, schema)
    runner.enqueue(json_records(["name", "nickname"], ("John Doe", "Johnny")))
    runner.run()
    assert only_success(runner) == "name,nickname\nJohnny,Johnny\n"


def test_nifi_concat_with_array_inferred_schema(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testConcatWithArrayInferredSchema."""
    runner = json_update(
        make_runner,
        {
            "/addresses[*]/full": "concat(../street, ' ', ../city, ' ', ../state)",
            STRATEGY: RECORD_PATH,
        },
        None,
        None,
    )
    out = run_json(runner, resource("TestUpdateRecord/input/addresses.json"))
    assert out == resource("TestUpdateRecord/output/full-addresses.json")


def test_nifi_changing_schema(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testChangingSchema."""
    runner = json_update(
        make_runner,
        {"/name": "/name/first", STRATEGY: RECORD_PATH},
        PERSON_WITH_NAME_RECORD,
        resource("TestUpdateRecord/schema/person-with-name-string.avsc"),
    )
    out = run_json(runner, PERSON_JSON)
    assert out == resource("TestUpdateRecord/output/person-with-firstname.json")


def test_nifi_update_in_array(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testUpdateInArray."""
    runner = json_update(
        make_runner,
        {"/address[*]/city": "newCity", STRATEGY: LITERAL},
        PERSON_WITH_ADDRESS,
        PERSON_WITH_ADDRESS,
    )
    out = run_json(runner, resource("TestUpdateRecord/input/person-address.json"))
    assert out == resource("TestUpdateRecord/output/person-with-new-city.json")


def test_nifi_update_in_null_array(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testUpdateInNullArray."""
    runner = json_update(
        make_runner,
        {"/address[*]/city": "newCity", STRATEGY: LITERAL},
        PERSON_WITH_ADDRESS,
        PERSON_WITH_ADDRESS,
    )
    out = run_json(runner, resource("TestUpdateRecord/input/person-with-null-array.json"))
    assert out == resource("TestUpdateRecord/output/person-with-null-array.json")


def test_nifi_add_field_not_in_input_record(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testAddFieldNotInInputRecord."""
    runner = json_update(
        make_runner,
        {"/firstName": "/name/first", "/lastName": "/name/last", STRATEGY: RECORD_PATH},
        PERSON_WITH_NAME_RECORD,
        resource("TestUpdateRecord/schema/person-with-name-string-fields.avsc"),
    )
    out = run_json(runner, PERSON_JSON)
    assert out == resource("TestUpdateRecord/output/person-with-firstname-lastname.json")


def test_nifi_field_values_in_el(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testFieldValuesInEL."""
    runner = json_update(
        make_runner,
        {"/name/last": "${field.value:toUpper()}", STRATEGY: LITERAL},
        PERSON_WITH_NAME_RECORD,
        PERSON_WITH_NAME_RECORD,
    )
    out = run_json(runner, PERSON_JSON)
    assert out == resource("TestUpdateRecord/output/person-with-capital-lastname.json")


def set_root(make_runner: RunnerFactory, destination: str, value: str) -> None:
    """The record replaced by the name's fields, whatever the path to the root."""
    runner = json_update(
        make_runner,
        {destination: value, STRATEGY: RECORD_PATH},
        PERSON_WITH_NAME_RECORD,
        NAME_FIELDS_ONLY,
    )
    out = run_json(runner, PERSON_JSON)
    assert out == resource("TestUpdateRecord/output/name-fields-only.json")


def test_nifi_set_root_path_absolute_with_multiple_values(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testSetRootPathAbsoluteWithMultipleValues."""
    set_root(make_runner, "/", "/name/*")


def test_nifi_set_root_path_absolute_with_single_value(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testSetRootPathAbsoluteWithSingleValue."""
    set_root(make_runner, "/", "/name")


def test_nifi_set_root_path_relative_with_multiple_values(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testSetRootPathRelativeWithMultipleValues."""
    set_root(make_runner, "/name/..", "/name/*")


def test_nifi_set_root_path_relative_with_single_value(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testSetRootPathRelativeWithSingleValue."""
    set_root(make_runner, "/name/..", "/name")


def test_nifi_set_root_with_unescape_json_call(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testSetRootWithUnescapeJsonCall."""
    runner = json_update(
        make_runner,
        {"/": "unescapeJson(/stringified_name, 'true')", STRATEGY: RECORD_PATH},
        resource("TestUpdateRecord/schema/person-with-stringified-name.avsc"),
        NAME_FIELDS_ONLY,
    )
    out = run_json(runner, resource("TestUpdateRecord/input/person-stringified-name.json"))
    assert out == resource("TestUpdateRecord/output/name-fields-only.json")


def test_nifi_set_nested_root_with_unescape_json_call(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """NiFi TestUpdateRecord.testSetNestedRootWithUnescapeJsonCall."""
    organisation = resource("TestUpdateRecord/input/organisation.json")

    def errors() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]

    def update(value: str) -> TestRunner:
        return json_update(
            make_runner,
            {"/": value, STRATEGY: RECORD_PATH},
            resource("TestUpdateRecord/schema/organisation-with-departments-string.avsc"),
            resource("TestUpdateRecord/schema/organisation-with-departments.avsc"),
        )

    with caplog.at_level(logging.ERROR):
        # recursive conversion
        out = run_json(update("unescapeJson(/record_json, 'true', 'true')"), organisation)
        assert out == resource("TestUpdateRecord/output/organisation.json")
        assert errors() == []
        # no conversion
        out = run_json(update("unescapeJson(/record_json)"), organisation)
        assert out == '[ {\n  "name" : null,\n  "departments" : null,\n  "address" : null\n} ]'
        assert errors() == []
        # non-recursive conversion: the departments stay maps, which no record field takes
        runner = update("unescapeJson(/record_json, 'true')")
        runner.enqueue(organisation)
        runner.run()
        runner.assert_all_flowfiles_transferred("failure", 1)
        assert errors(), "the failure is logged as an error"


def test_nifi_set_field_with_unescape_json_call(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testSetFieldWithUnescapeJsonCall."""
    runner = json_update(
        make_runner,
        {"/name": "unescapeJson(/stringified_name)", STRATEGY: RECORD_PATH},
        resource("TestUpdateRecord/schema/person-with-stringified-name.avsc"),
        PERSON_WITH_NAME_RECORD,
    )
    out = run_json(runner, resource("TestUpdateRecord/input/person-stringified-name.json"))
    assert out == resource("TestUpdateRecord/output/person-with-name.json")


def test_nifi_set_nested_record_with_unescape_json_call(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testSetNestedRecordWithUnescapeJsonCall."""
    schema = resource("TestUpdateRecord/schema/embedded-record.avsc")
    runner = json_update(
        make_runner, {"/embedded": "unescapeJson(/str)", STRATEGY: RECORD_PATH}, schema, schema
    )
    out = run_json(runner, resource("TestUpdateRecord/input/embedded-string.json"))
    assert out == resource("TestUpdateRecord/output/embedded-record.json")


def test_nifi_set_absolute_path_with_another_record(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testSetAbsolutePathWithAnotherRecord."""
    runner = json_update(
        make_runner,
        {"/name": "/mother", STRATEGY: RECORD_PATH},
        PERSON_WITH_NAME_AND_MOTHER,
        PERSON_WITH_NAME_AND_MOTHER,
    )
    out = run_json(runner, PERSON_JSON)
    assert out == resource("TestUpdateRecord/output/name-and-mother-same.json")


def arrays_update(make_runner: RunnerFactory, strategy: str) -> TestRunner:
    return json_update(make_runner, {STRATEGY: strategy}, MULTI_ARRAYS, MULTI_ARRAYS)


def update_with(runner: TestRunner, path: str, value: str, content: str = MULTI_ARRAYS_JSON) -> str:
    """One run with the single dynamic property ``path``, removed after (as NiFi's test)."""
    runner.clear_transfer_state()
    runner.set_property(path, value)
    runner.enqueue(content)
    runner.run()
    out = only_success(runner)
    runner.remove_property(path)
    return out


def test_nifi_update_simple_array(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testUpdateSimpleArray."""
    runner = arrays_update(make_runner, LITERAL)

    def numbers(replacement: str) -> str:
        return MULTI_ARRAYS_JSON.replace("1, null, 4", replacement, 1)

    assert update_with(runner, "/numbers[*]", "8") == numbers("8, 8, 8")
    assert '"numbers" : null' in update_with(runner, "/numbers[*]", "8", '{"numbers":null}')
    assert update_with(runner, "/numbers[1]", "8") == numbers("1, 8, 4")
    assert update_with(runner, "/numbers[0..1]", "8") == numbers("8, 8, 4")
    assert update_with(runner, "/numbers[0,2]", "8") == numbers("8, null, 8")
    assert update_with(runner, "/numbers[0,1..2]", "8") == numbers("8, 8, 8")
    assert update_with(runner, "/numbers[0..-1][. = 4]", "8") == numbers("1, null, 8")


def test_nifi_update_complex_arrays(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testUpdateComplexArrays."""
    runner = arrays_update(make_runner, RECORD_PATH)
    expected = "TestUpdateRecord/output/updateArrays/"
    assert update_with(runner, "/peoples[*]", "/peoples[3]").count("Mary Doe") == 4
    assert update_with(runner, "/peoples[1]", "/peoples[3]").count("Mary Doe") == 2
    assert update_with(runner, "/peoples[0..1]", "/peoples[3]") == resource(
        expected + "multi-arrays-0and1.json"
    )
    assert update_with(runner, "/peoples[0,2]", "/peoples[3]") == resource(
        expected + "multi-arrays-0and2.json"
    )
    assert update_with(runner, "/peoples[0,1..2]", "/peoples[3]").count("Mary Doe") == 4
    not_mary = "/peoples[0..-1][./name != 'Mary Doe']"
    assert update_with(runner, not_mary, "/peoples[3]").count("Mary Doe") == 4
    out = update_with(runner, not_mary + "/addresses[*]", "/peoples[3]/addresses[0]")
    assert out.count("1 nifi road") == 13
    out = update_with(runner, not_mary + "/addresses[0,1..2]", "/peoples[3]/addresses[0]")
    assert out == resource(expected + "multi-arrays-streets.json")
    runner.set_property(STRATEGY, LITERAL)
    out = update_with(runner, not_mary + "/addresses[0,1..2]/city", "newCity")
    assert out.count("newCity") == 9


def test_nifi_nifi16213(make_runner: RunnerFactory) -> None:
    """NiFi TestUpdateRecord.testNiFi16213: arrayOf(/participants[*]/user_id) into a field."""
    runner = json_update(
        make_runner,
        {"/participants": "arrayOf(/participants[*]/user_id)", STRATEGY: RECORD_PATH},
        resource("TestUpdateRecord/schema/uuid-list-test-parent.avsc"),
        resource("TestUpdateRecord/schema/uuid-list-test-child.avsc"),
    )
    runner.enqueue(resource("TestUpdateRecord/input/uuid-list-test-input.json"))
    runner.run()
    runner.assert_all_flowfiles_transferred("success")
