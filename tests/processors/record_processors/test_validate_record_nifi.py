"""NiFi's TestValidateRecord, ported. MockRecordWriter("valid", false) becomes the real
CSVRecordSetWriter (its literal header line is the CSV header line, the field names), and
MockRecordWriter("invalid", true), which quotes every value, the CSV writer with Quote
Mode ALL; MockSchemaRegistry becomes AvroSchemaRegistry. The writer properties NiFi's
tests set on the CSVReader (Quote Mode, Trailing Delimiter) do nothing there and are left
out. NiFi's test resources are in ``nifi_resources/TestValidateRecord`` and
``nifi_resources/TestUpdateRecord``."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from datetime import datetime

import fastavro

from flowcore.testing import TestRunner
from tests.processors.record_processors.nifi_ports import RESOURCES, migrated, resource

RunnerFactory = Callable[..., TestRunner]
SCHEMA_TEXT = "schema-text-property"
PERSON_WITH_NAME_STRING = resource("TestUpdateRecord/schema/person-with-name-string.avsc")
PERSON_FIELDS = resource("TestUpdateRecord/schema/person-with-name-string-fields.avsc")
COLUMNS = "fieldA,fieldB,fieldC,fieldD,fieldE,fieldF\n"
COLUMNS_CONTENT = COLUMNS + "valueA,valueB,valueC,valueD,valueE,valueF\n" * 2
PEOPLE = "1, John Doe\n2, Jane Doe\nThree, Jack Doe\n"
PEOPLE_WITH_HEADER = "id, firstName, lastName\n1, John, Doe\n2, Jane, Doe\nThree, Jack, Doe\n"
DETAILS = (
    "Records in this FlowFile were invalid for the following reasons: ; "
    "The following 1 fields had values whose type did not match the schema: [/id]"
)
QUOTE_ALL = {"Quote Mode": "ALL"}


def validate(
    make_runner: RunnerFactory,
    properties: Mapping[str, str],
    reader_type: str = "CSVReader",
    reader: Mapping[str, str] | None = None,
    writer_type: str = "CSVRecordSetWriter",
    writer: Mapping[str, str] | None = None,
    invalid_writer: Mapping[str, str] | None = QUOTE_ALL,
) -> TestRunner:
    """ValidateRecord with the reader and writer, and (unless None) a CSV writer for the
    invalid records."""
    runner = make_runner(
        "ValidateRecord",
        dict(properties),
        reader_type=reader_type,
        reader=dict(reader or {}),
        writer_type=writer_type,
        writer=dict(writer or {}),
    )
    if invalid_writer is not None:
        runner.add_controller_service("invalid-writer", "CSVRecordSetWriter", dict(invalid_writer))
        runner.set_property("Record Writer for Invalid Records", "invalid-writer")
    return runner


def only(runner: TestRunner, relationship: str) -> object:
    runner.assert_transfer_count(relationship, 1)
    return runner.get_flowfiles_for_relationship(relationship)[0]


def test_nifi_columns_order(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testColumnsOrder."""
    runner = validate(
        make_runner,
        {},
        writer={"Schema Write Strategy": "full-schema-attribute"},
        invalid_writer=None,
    )
    runner.enqueue(COLUMNS_CONTENT)
    runner.run()
    runner.assert_all_flowfiles_transferred("valid", 1)
    runner.get_flowfiles_for_relationship("valid")[0].assert_content_equals(COLUMNS_CONTENT)


def test_nifi_write_failure_routes_to_failure(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testWriteFailureRoutesToFailure."""
    # MockRecordWriter failing after one record becomes an Avro writer whose schema
    # refuses the records' text (fieldA is an int there).
    schema = json.dumps(
        {
            "type": "record",
            "name": "columns",
            "fields": [{"name": "fieldA", "type": "int"}]
            + [{"name": f"field{c}", "type": "string"} for c in "BCDEF"],
        }
    )
    runner = validate(
        make_runner,
        {},
        writer_type="AvroRecordSetWriter",
        writer={"Schema Access Strategy": SCHEMA_TEXT, "Schema Text": schema},
        invalid_writer=None,
    )
    runner.enqueue(COLUMNS_CONTENT)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def people_runner(make_runner: RunnerFactory, properties: Mapping[str, str]) -> TestRunner:
    """The CSV of people without a header read with person-with-name-string.avsc."""
    reader = {
        "Schema Access Strategy": SCHEMA_TEXT,
        "Schema Text": PERSON_WITH_NAME_STRING,
        "Treat First Line as Header": "false",
    }
    return validate(make_runner, properties, reader=reader)


def test_nifi_appropriate_service_used_for_invalid_records(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testAppropriateServiceUsedForInvalidRecords."""
    runner = people_runner(make_runner, {"Allow Extra Fields": "false"})
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    valid = only(runner, "valid")
    valid.assert_attribute_equals("record.count", "2")  # type: ignore[attr-defined]
    valid.assert_content_equals("id,name\n1,John Doe\n2,Jane Doe\n")  # type: ignore[attr-defined]
    invalid = only(runner, "invalid")
    invalid.assert_attribute_equals("record.count", "1")  # type: ignore[attr-defined]
    invalid.assert_content_equals('"id","name"\n"Three","Jack Doe"\n')  # type: ignore[attr-defined]


def header_runner(
    make_runner: RunnerFactory,
    strict: bool,
    writer_type: str,
) -> TestRunner:
    """People with a header line (names taken from it), validated by
    person-with-name-string-fields.avsc."""
    reader = {
        "Schema Access Strategy": "csv-header-derived",
        "Treat First Line as Header": "true",
        "Ignore CSV Header Column Names": "true",
    }
    properties = {
        "Schema Access Strategy": SCHEMA_TEXT,
        "Schema Text": PERSON_FIELDS,
        "Allow Extra Fields": "false",
        "Strict Type Checking": str(strict).lower(),
    }
    return validate(
        make_runner,
        properties,
        reader=reader,
        writer_type=writer_type,
        writer={"Schema Write Strategy": "full-schema-attribute"},
    )


def test_nifi_strict_type_check(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testStrictTypeCheck."""
    runner = header_runner(make_runner, True, "JsonRecordSetWriter")
    runner.enqueue(PEOPLE_WITH_HEADER)
    runner.run()
    runner.assert_transfer_count("valid", 0)
    runner.assert_transfer_count("failure", 0)
    invalid = only(runner, "invalid")
    invalid.assert_attribute_equals("record.count", "3")  # type: ignore[attr-defined]
    invalid.assert_content_equals(  # type: ignore[attr-defined]
        '"id","firstName","lastName"\n"1","John","Doe"\n"2","Jane","Doe"\n"Three","Jack","Doe"\n'
    )


def test_nifi_non_strict_type_check_with_avro_writer(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testNonStrictTypeCheckWithAvroWriter."""
    runner = header_runner(make_runner, False, "AvroRecordSetWriter")
    runner.enqueue(PEOPLE_WITH_HEADER)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    valid = only(runner, "valid")
    valid.assert_attribute_equals("record.count", "2")  # type: ignore[attr-defined]
    # full-schema-attribute: the records without a container, their schema in avro.schema
    schema = json.loads(valid.attributes["avro.schema"])  # type: ignore[attr-defined]
    fields = schema["fields"]
    assert [f["name"] for f in fields] == ["id", "firstName", "lastName"]
    assert fields[0]["type"] in ("int", ["null", "int"], ["int", "null"])
    data = io.BytesIO(valid.content)  # type: ignore[attr-defined]
    parsed = fastavro.parse_schema(schema)
    records = []
    while data.tell() < len(valid.content):  # type: ignore[attr-defined]
        records.append(fastavro.schemaless_reader(data, parsed))
    assert records == [
        {"id": 1, "firstName": "John", "lastName": "Doe"},
        {"id": 2, "firstName": "Jane", "lastName": "Doe"},
    ]
    invalid = only(runner, "invalid")
    invalid.assert_attribute_equals("record.count", "1")  # type: ignore[attr-defined]
    invalid.assert_content_equals(  # type: ignore[attr-defined]
        '"id","firstName","lastName"\n"Three","Jack","Doe"\n'
    )


def test_nifi_non_strict_type_check_with_json_writer(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testNonStrictTypeCheckWithJsonWriter."""
    runner = header_runner(make_runner, False, "JsonRecordSetWriter")
    runner.enqueue(PEOPLE_WITH_HEADER)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    valid = only(runner, "valid")
    valid.assert_attribute_equals("record.count", "2")  # type: ignore[attr-defined]
    # NiFi's JSON writer writes the text as read ("1"), which NiFi's test marks as a
    # shortcoming to fix; flowcore writes valid records with the schema's types, as
    # NiFi's Avro writer does (testNonStrictTypeCheckWithAvroWriter).
    valid.assert_content_equals(  # type: ignore[attr-defined]
        '[{"id":1,"firstName":"John","lastName":"Doe"},'
        '{"id":2,"firstName":"Jane","lastName":"Doe"}]'
    )
    invalid = only(runner, "invalid")
    invalid.assert_attribute_equals("record.count", "1")  # type: ignore[attr-defined]
    invalid.assert_content_equals(  # type: ignore[attr-defined]
        '"id","firstName","lastName"\n"Three","Jack","Doe"\n'
    )


def json_validate(
    make_runner: RunnerFactory,
    schema: str,
    properties: Mapping[str, str],
    reader: Mapping[str, str] | None = None,
    writer: Mapping[str, str] | None = None,
    invalid_writer: Mapping[str, str] | None = QUOTE_ALL,
) -> TestRunner:
    """JSON read with ``schema`` and validated against it, written as JSON."""
    return validate(
        make_runner,
        {"Schema Access Strategy": SCHEMA_TEXT, "Schema Text": schema, **properties},
        reader_type="JsonTreeReader",
        reader={"Schema Access Strategy": SCHEMA_TEXT, "Schema Text": schema, **(reader or {})},
        writer_type="JsonRecordSetWriter",
        writer={"Schema Write Strategy": "full-schema-attribute", **(writer or {})},
        invalid_writer=invalid_writer,
    )


def test_nifi_validate_nested_map(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testValidateNestedMap."""
    schema = resource("TestValidateRecord/nested-map-schema.avsc")
    content = resource("TestValidateRecord/nested-map-input.json")
    runner = json_validate(
        make_runner, schema, {"Allow Extra Fields": "false", "Strict Type Checking": "false"}
    )
    runner.enqueue(content)
    runner.run()
    runner.assert_transfer_count("valid", 1)
    runner.assert_transfer_count("invalid", 0)
    runner.assert_transfer_count("failure", 0)
    runner.clear_transfer_state()
    runner.set_property("Strict Type Checking", "true")
    runner.enqueue(content)
    runner.run()
    runner.assert_transfer_count("valid", 1)
    runner.assert_transfer_count("invalid", 1)
    runner.assert_transfer_count("failure", 0)


def test_nifi_validate_missing_required_array(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testValidateMissingRequiredArray."""
    schema = resource("TestValidateRecord/missing-array.avsc")
    runner = json_validate(
        make_runner, schema, {"Allow Extra Fields": "true", "Strict Type Checking": "false"}
    )
    runner.enqueue(resource("TestValidateRecord/missing-array.json"))
    runner.run()
    runner.assert_transfer_count("valid", 0)
    runner.assert_transfer_count("invalid", 1)
    runner.assert_transfer_count("failure", 0)


def test_nifi_validate_missing_required_array_with_default(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testValidateMissingRequiredArrayWithDefault."""
    schema = resource("TestValidateRecord/missing-array-with-default.avsc")
    runner = json_validate(
        make_runner, schema, {"Allow Extra Fields": "true", "Strict Type Checking": "false"}
    )
    runner.enqueue(resource("TestValidateRecord/missing-array.json"))
    runner.run()
    runner.assert_transfer_count("valid", 1)
    runner.assert_transfer_count("invalid", 0)
    runner.assert_transfer_count("failure", 0)


def test_nifi_validate_json_timestamp(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testValidateJsonTimestamp."""
    schema = resource("TestValidateRecord/timestamp.avsc")
    content = resource("TestValidateRecord/timestamp.json")
    slashes = {"Timestamp Format": "yyyy/MM/dd HH:mm:ss"}
    properties = {"Allow Extra Fields": "false", "Strict Type Checking": "true"}
    # 1) valid with the schema and the slash format
    runner = json_validate(make_runner, schema, properties, slashes, slashes, invalid_writer=None)
    runner.set_property("Record Writer for Invalid Records", "writer")
    runner.enqueue(content)
    runner.run()
    only(runner, "valid").assert_content_equals(content)  # type: ignore[attr-defined]
    # 2) the schema inferred
    inferred = json_validate(make_runner, schema, properties, slashes, slashes, invalid_writer=None)
    inferred.set_property("Record Writer for Invalid Records", "writer")
    inferred.add_controller_service(
        "inferring-reader",
        "JsonTreeReader",
        {"Schema Access Strategy": "infer-schema", **slashes},
    )
    inferred.set_property("Record Reader", "inferring-reader")
    inferred.enqueue(content)
    inferred.run()
    only(inferred, "valid").assert_content_equals(content)  # type: ignore[attr-defined]
    # 3) a timestamp format the content does not have
    dashes = {"Timestamp Format": "yyyy-MM-dd HH:mm:ss"}
    wrong = json_validate(make_runner, schema, properties, dashes, slashes, invalid_writer=None)
    wrong.set_property("Record Writer for Invalid Records", "writer")
    wrong.enqueue(content)
    wrong.run()
    only(wrong, "invalid").assert_content_equals(content)  # type: ignore[attr-defined]


def test_nifi_validate_csv_timestamp_zone_offset(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testValidateCsvTimestampZoneOffset."""
    schema = json.dumps(
        {
            "name": "ts",
            "namespace": "nifi",
            "type": "record",
            "fields": [
                {"name": "created", "type": {"type": "long", "logicalType": "timestamp-millis"}}
            ],
        }
    )
    local = datetime(2020, 1, 1, 12, 0, 0).astimezone()
    offset = local.strftime("%z")
    zone = "Z" if offset == "+0000" else f"{offset[:3]}:{offset[3:]}"
    serialized = "2020-01-01 12:00:00" + zone
    timestamp_format = {"Timestamp Format": "yyyy-MM-dd HH:mm:ssZZZZZ"}
    runner = validate(
        make_runner,
        {
            "Schema Access Strategy": SCHEMA_TEXT,
            "Schema Text": schema,
            "Strict Type Checking": "true",
        },
        reader={
            "Schema Access Strategy": SCHEMA_TEXT,
            "Schema Text": schema,
            "Treat First Line as Header": "false",
            **timestamp_format,
        },
        writer={
            "Schema Write Strategy": "full-schema-attribute",
            "Include Header Line": "false",
            **timestamp_format,
        },
        invalid_writer=None,
    )
    runner.set_property("Record Writer for Invalid Records", "writer")
    runner.enqueue(serialized)
    runner.run()
    valid = only(runner, "valid")
    assert valid.text().strip() == serialized  # type: ignore[attr-defined]


def test_nifi_validate_maps(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testValidateMaps."""
    schema = resource("TestValidateRecord/int-maps-schema.avsc")
    runner = validate(
        make_runner,
        {
            "Schema Access Strategy": SCHEMA_TEXT,
            "Schema Text": schema,
            "Allow Extra Fields": "false",
        },
        reader_type="JsonTreeReader",
        reader={"Schema Access Strategy": SCHEMA_TEXT, "Schema Text": schema},
        writer_type="AvroRecordSetWriter",
        invalid_writer=None,
    )
    runner.set_property("Record Writer for Invalid Records", "writer")
    runner.enqueue(resource("TestValidateRecord/int-maps-data.json"))
    runner.run()
    valid = only(runner, "valid")
    records = list(fastavro.reader(io.BytesIO(valid.content)))  # type: ignore[attr-defined]
    record = records[0]
    values = list(record.values())
    assert values[0] == "uuid"
    assert len(values[1]) == 2
    assert len(values[2]) == 3
    assert all(len(item["points"]) == 2 for item in values[2])


def test_nifi_validations_details_attribute_for_invalid_records(
    make_runner: RunnerFactory,
) -> None:
    """NiFi TestValidateRecord.testValidationsDetailsAttributeForInvalidRecords."""
    runner = people_runner(
        make_runner,
        {
            "Allow Extra Fields": "false",
            "Maximum Validation Details Length": "150",
            "Validation Details Attribute Name": "valDetails",
        },
    )
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    invalid = only(runner, "invalid")
    invalid.assert_attribute_equals("record.count", "1")  # type: ignore[attr-defined]
    invalid.assert_content_equals('"id","name"\n"Three","Jack Doe"\n')  # type: ignore[attr-defined]
    invalid.assert_attribute_equals("valDetails", DETAILS)  # type: ignore[attr-defined]


def test_nifi_validation_for_null_element_array_and_map(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testValidationForNullElementArrayAndMap."""
    runner = validate(
        make_runner,
        {
            "Allow Extra Fields": "false",
            "Maximum Validation Details Length": "150",
            "Validation Details Attribute Name": "valDetails",
        },
        reader_type="AvroReader",
        writer_type="JsonRecordSetWriter",
    )
    runner.enqueue(
        (RESOURCES / "TestValidateRecord/array-and-map-with-null-element.avro").read_bytes()
    )
    runner.run()
    runner.assert_transfer_count("invalid", 0)
    runner.assert_transfer_count("failure", 0)
    valid = only(runner, "valid")
    valid.assert_attribute_equals("record.count", "1")  # type: ignore[attr-defined]
    # MockRecordWriter writes "[text, null],{key=null}"; the JSON writer writes the same
    # values as JSON.
    assert list(json.loads(valid.text())[0].values()) == [["text", None], {"key": None}]  # type: ignore[attr-defined]


def registry_runner(
    make_runner: RunnerFactory, branch: str | None, version: str | None
) -> TestRunner:
    """NiFi's schema-name tests: the schema ``record`` from a registry (a branch and a
    version named as NiFi's tests name them; AvroSchemaRegistry looks a schema up by name)."""
    reader = {"Schema Access Strategy": SCHEMA_TEXT, "Schema Text": PERSON_WITH_NAME_STRING}
    properties = {
        "Schema Access Strategy": "schema-name",
        "Schema Name": "record",
        "Allow Extra Fields": "false",
        "Maximum Validation Details Length": "150",
        "Validation Details Attribute Name": "valDetails",
    }
    if branch is not None:
        properties["Schema Branch"] = branch
    if version is not None:
        properties["Schema Version"] = version
    runner = make_runner(
        "ValidateRecord",
        reader={**reader, "Treat First Line as Header": "false"},
        writer=reader,
    )
    runner.add_controller_service(
        "registry", "AvroSchemaRegistry", {"record": PERSON_WITH_NAME_STRING}
    )
    runner.add_controller_service("invalid-writer", "CSVRecordSetWriter", QUOTE_ALL)
    runner.set_property("Record Writer for Invalid Records", "invalid-writer")
    runner.set_property("Schema Registry", "registry")
    for name, value in properties.items():
        runner.set_property(name, value)
    return runner


def assert_schema_name_outcome(runner: TestRunner) -> None:
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    invalid = only(runner, "invalid")
    invalid.assert_attribute_equals("record.count", "1")  # type: ignore[attr-defined]
    invalid.assert_content_equals('"id","name"\n"Three","Jack Doe"\n')  # type: ignore[attr-defined]
    invalid.assert_attribute_equals("valDetails", DETAILS)  # type: ignore[attr-defined]


def test_nifi_schema_name_access(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testSchemaNameAccess."""
    assert_schema_name_outcome(registry_runner(make_runner, None, None))


def test_nifi_schema_name_access_with_branch(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testSchemaNameAccessWithBranch."""
    assert_schema_name_outcome(registry_runner(make_runner, "branch", None))


def test_nifi_schema_name_access_with_version(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testSchemaNameAccessWithVersion."""
    assert_schema_name_outcome(registry_runner(make_runner, None, "1"))


def test_nifi_schema_name_access_with_branch_and_version(make_runner: RunnerFactory) -> None:
    """NiFi TestValidateRecord.testSchemaNameAccessWithBranchAndVersion."""
    assert_schema_name_outcome(registry_runner(make_runner, "branch", "1"))


def test_nifi_migrate_properties() -> None:
    """NiFi TestValidateRecord.testMigrateProperties."""
    renamed = {
        "record-reader": "Record Reader",
        "record-writer": "Record Writer",
        "invalid-record-writer": "Record Writer for Invalid Records",
        "allow-extra-fields": "Allow Extra Fields",
        "strict-type-checking": "Strict Type Checking",
        "coerce-types": "Force Types From Reader Schema",
        "validation-details-attribute-name": "Validation Details Attribute Name",
        "maximum-validation-details-length": "Maximum Validation Details Length",
        "schema-registry": "Schema Registry",
        "schema-name": "Schema Name",
        "schema-branch": "Schema Branch",
        "schema-version": "Schema Version",
        "schema-text": "Schema Text",
        "schema-access-strategy": "Schema Access Strategy",
    }
    for old, new in renamed.items():
        assert migrated("ValidateRecord", old) == new
