"""ValidateRecord: valid and invalid records split, strict and lenient types, details."""

from __future__ import annotations

import json
from collections.abc import Callable

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]

PERSON = json.dumps(
    {
        "type": "record",
        "name": "person",
        "fields": [
            {"name": "id", "type": "int"},
            {"name": "firstName", "type": "string"},
            {"name": "lastName", "type": "string"},
        ],
    }
)
PEOPLE = "id,firstName,lastName\n1,John,Doe\n2,Jane,Doe\nThree,Jack,Doe\n"


def _runner(make_runner: RunnerFactory, **properties: str) -> TestRunner:
    runner = make_runner("ValidateRecord", properties)
    return runner


def _with_schema(make_runner: RunnerFactory, **properties: str) -> TestRunner:
    runner = _runner(
        make_runner,
        **{
            "Schema Access Strategy": "schema-text-property",
            "Schema Text": PERSON,
            **properties,
        },
    )
    runner.add_controller_service("invalid-writer", "CSVRecordSetWriter", {})
    runner.set_property("Record Writer for Invalid Records", "invalid-writer")
    return runner


def test_reader_schema_keeps_every_record_valid_and_column_order(
    make_runner: RunnerFactory,
) -> None:
    content = (
        "fieldA,fieldB,fieldC,fieldD,fieldE,fieldF\n"
        "valueA,valueB,valueC,valueD,valueE,valueF\n"
        "valueA,valueB,valueC,valueD,valueE,valueF\n"
    )
    runner = _runner(make_runner)
    original = runner.enqueue(content)
    runner.run()
    runner.assert_all_flowfiles_transferred("valid", 1)
    out = runner.get_flowfiles_for_relationship("valid")[0]
    out.assert_content_equals(content)
    out.assert_attribute_equals("record.count", "2")
    out.assert_attribute_equals("mime.type", "text/csv")
    types = [e.event_type for e in runner.get_provenance_events()]
    assert ProvenanceEventType.FORK in types
    assert ProvenanceEventType.DROP in types
    drops = [e for e in runner.get_provenance_events() if e.event_type == "DROP"]
    assert drops[0].flowfile_uuid == original.uuid


def test_strict_type_check_sends_every_mistyped_record_to_invalid(
    make_runner: RunnerFactory,
) -> None:
    runner = _with_schema(make_runner, **{"Strict Type Checking": "true"})
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_transfer_count("valid", 0)
    runner.assert_transfer_count("invalid", 1)
    runner.assert_transfer_count("failure", 0)
    invalid = runner.get_flowfiles_for_relationship("invalid")[0]
    invalid.assert_attribute_equals("record.count", "3")
    invalid.assert_content_equals(PEOPLE)


def test_lenient_type_check_converts_what_converts(make_runner: RunnerFactory) -> None:
    runner = _with_schema(
        make_runner,
        **{"Strict Type Checking": "false", "Allow Extra Fields": "false"},
    )
    runner.add_controller_service("json", "JsonRecordSetWriter", {})
    runner.set_property("Record Writer", "json")
    runner.enqueue(PEOPLE)
    runner.run()
    valid = runner.get_flowfiles_for_relationship("valid")[0]
    assert json.loads(valid.content) == [
        {"id": 1, "firstName": "John", "lastName": "Doe"},
        {"id": 2, "firstName": "Jane", "lastName": "Doe"},
    ]
    valid.assert_attribute_equals("record.count", "2")
    invalid = runner.get_flowfiles_for_relationship("invalid")[0]
    invalid.assert_content_equals("id,firstName,lastName\nThree,Jack,Doe\n")
    invalid.assert_attribute_equals("record.count", "1")


def test_invalid_route_event_and_attribute_carry_the_reasons(make_runner: RunnerFactory) -> None:
    runner = _with_schema(
        make_runner,
        **{
            "Allow Extra Fields": "false",
            "Validation Details Attribute Name": "valDetails",
            "Maximum Validation Details Length": "150",
        },
    )
    runner.enqueue("id,firstName,extra\n1,John,x\n")
    runner.run()
    invalid = runner.get_flowfiles_for_relationship("invalid")[0]
    details = (
        "Records in this FlowFile were invalid for the following reasons: The following 1 "
        "fields were missing: [/lastName]; The following 1 fields were present in the Record "
        "but not in the schema: [/extra]"
    )
    assert invalid.attributes["valDetails"] == details[:150]
    routes = [e for e in runner.get_provenance_events() if e.event_type == "ROUTE"]
    assert [(e.relationship, e.details) for e in routes] == [("invalid", details)]


def test_extra_fields_allowed_by_default(make_runner: RunnerFactory) -> None:
    runner = _with_schema(make_runner)
    runner.enqueue("id,firstName,lastName,extra\n1,John,Doe,x\n")
    runner.run()
    runner.assert_all_flowfiles_transferred("valid", 1)
    valid = runner.get_flowfiles_for_relationship("valid")[0]
    valid.assert_content_equals("id,firstName,lastName\n1,John,Doe\n")


def test_null_in_required_field_is_missing(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "ValidateRecord",
        {
            "Schema Access Strategy": "schema-text-property",
            "Schema Text": PERSON,
            "Validation Details Attribute Name": "why",
        },
        reader_type="JsonTreeReader",
        writer_type="JsonRecordSetWriter",
    )
    records = [
        {"id": 1, "firstName": "John", "lastName": "Doe"},
        {"id": 2, "firstName": None, "lastName": "Doe"},
    ]
    runner.enqueue(json.dumps(records))
    runner.run()
    valid = runner.get_flowfiles_for_relationship("valid")[0]
    assert json.loads(valid.content) == records[:1]
    invalid = runner.get_flowfiles_for_relationship("invalid")[0]
    assert json.loads(invalid.content) == records[1:]
    assert invalid.attributes["why"].endswith("missing: [/firstName]")


def test_zero_records_remove_the_original(make_runner: RunnerFactory) -> None:
    runner = _runner(make_runner)
    runner.enqueue("id,name\n")
    runner.run()
    for relationship in ("valid", "invalid", "failure"):
        runner.assert_transfer_count(relationship, 0)
    runner.assert_queue_empty()


def test_malformed_content_goes_to_failure_unchanged(make_runner: RunnerFactory) -> None:
    runner = _runner(make_runner)
    content = "a,b\n1,2\n3\n"
    runner.enqueue(content)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(content)


def test_unparseable_schema_text_goes_to_failure(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        **{"Schema Access Strategy": "schema-text-property", "Schema Text": "${schema}"},
    )
    runner.enqueue(PEOPLE, {"schema": "{not json"})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_counters(make_runner: RunnerFactory) -> None:
    runner = _with_schema(make_runner, **{"Strict Type Checking": "false"})
    runner.enqueue(PEOPLE)
    runner.run()
    assert runner.get_counter_value("Records Validated") == 3
    assert runner.get_counter_value("Records Found Valid") == 2
    assert runner.get_counter_value("Records Found Invalid") == 1


def _by_schema_name(make_runner: RunnerFactory) -> TestRunner:
    runner = _runner(
        make_runner,
        **{"Schema Access Strategy": "Use 'Schema Name' Property", "Strict Type Checking": "false"},
    )
    runner.add_controller_service("registry", "AvroSchemaRegistry", {"person": PERSON})
    runner.set_property("Schema Registry", "registry")
    runner.add_controller_service("invalid-writer", "CSVRecordSetWriter", {})
    runner.set_property("Record Writer for Invalid Records", "invalid-writer")
    return runner


def test_schema_name_validates_against_the_registry_schema(make_runner: RunnerFactory) -> None:
    runner = _by_schema_name(make_runner)
    runner.enqueue(PEOPLE, {"schema.name": "person"})
    runner.run()
    runner.assert_transfer_count("valid", 1)
    runner.assert_transfer_count("invalid", 1)
    invalid = runner.get_flowfiles_for_relationship("invalid")[0]
    invalid.assert_content_equals("id,firstName,lastName\nThree,Jack,Doe\n")


def test_a_schema_name_the_registry_lacks_goes_to_failure(make_runner: RunnerFactory) -> None:
    runner = _by_schema_name(make_runner)
    runner.enqueue(PEOPLE, {"schema.name": "nobody"})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(PEOPLE)


def test_schema_name_without_a_registry_is_invalid(make_runner: RunnerFactory) -> None:
    runner = _runner(make_runner, **{"Schema Access Strategy": "schema-name"})
    assert runner.validation_errors() == [
        "'Schema Registry' is invalid because If the Schema Access Strategy is set to "
        "\"Use 'Schema Name' Property\", the Schema Registry property must also be set"
    ]
