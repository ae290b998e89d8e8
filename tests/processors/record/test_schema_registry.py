"""AvroSchemaRegistry and the "Use 'Schema Name' Property" strategy of the record services,
as NiFi's (AvroSchemaRegistry, SchemaNamePropertyStrategy, SchemaAccessUtils)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from flowcore.errors import ConfigurationError
from flowcore.testing import TestRunner
from processors.record.api import SchemaIdentifier, SchemaNotFoundError
from processors.record.schema_registry import AvroSchemaRegistry

USER = json.dumps(
    {
        "type": "record",
        "name": "User",
        "namespace": "example.avro",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "name", "type": ["null", "string"]},
        ],
    }
)


def _schema(namespace: str = "example.avro", name: str = "User", **field: object) -> str:
    fields = [{"name": "name", "type": ["string", "null"]}, {"name": "foo", "type": "int"}]
    fields[1].update(field)
    return json.dumps({"namespace": namespace, "type": "record", "name": name, "fields": fields})


REFUSED_WHEN_VALIDATED = {
    "namespace separator other than a period": _schema(namespace="example-avro"),
    "illegal character in record name": _schema(name="$User"),
    "illegal character in field name": _schema(name="User").replace(
        '"name": "name"', '"name": "@name"'
    ),
    "default of another type": _schema(default="NAN"),
    "union default of another type": _schema(type=["int", "null"], default="NAN"),
}


def _registry(runner: TestRunner, properties: dict[str, str]) -> AvroSchemaRegistry:
    service = runner.add_controller_service("registry", "AvroSchemaRegistry", properties)
    assert isinstance(service, AvroSchemaRegistry)
    return service


def _convert(reader: str = "CSVReader", writer: str = "JsonRecordSetWriter") -> TestRunner:
    runner = TestRunner("ConvertRecord")
    _registry(runner, {"users": USER})
    by_name = {
        "Schema Access Strategy": "Use 'Schema Name' Property",
        "Schema Registry": "registry",
    }
    runner.add_controller_service(
        "reader",
        reader,
        {**by_name, "Treat First Line as Header": "true"} if reader == "CSVReader" else by_name,
    )
    runner.add_controller_service("writer", writer, by_name)
    runner.set_property("Record Reader", "reader")
    runner.set_property("Record Writer", "writer")
    return runner


def test_registry_gives_each_dynamic_property_as_a_schema_by_its_name() -> None:
    registry = _registry(TestRunner("ConvertRecord"), {"users": USER})
    found = registry.retrieve_schema(SchemaIdentifier("users", branch="b", version=3))
    assert found.text == USER
    assert found.name == "users"
    assert found.schema.names == ["id", "name"]
    assert found.schema.field("id").type == pa.int64()


def test_registry_refuses_a_name_it_does_not_hold_with_nifis_message() -> None:
    registry = _registry(TestRunner("ConvertRecord"), {"users": USER})
    with pytest.raises(SchemaNotFoundError, match=r"^Unable to find schema with name 'barSchema'$"):
        registry.retrieve_schema(SchemaIdentifier("barSchema"))


@pytest.mark.parametrize("schema", REFUSED_WHEN_VALIDATED.values(), ids=REFUSED_WHEN_VALIDATED)
def test_schemas_avro_refuses_are_invalid_naming_the_property(schema: str) -> None:
    runner = TestRunner("ConvertRecord")
    with pytest.raises(
        ConfigurationError, match=r"'fooSchema' validated against .* Not a valid Avro Schema: "
    ):
        _registry(runner, {"fooSchema": schema})


@pytest.mark.parametrize("schema", REFUSED_WHEN_VALIDATED.values(), ids=REFUSED_WHEN_VALIDATED)
def test_with_validate_field_names_false_they_are_accepted(schema: str) -> None:
    registry = _registry(
        TestRunner("ConvertRecord"), {"Validate Field Names": "false", "fooSchema": schema}
    )
    assert registry.retrieve_schema(SchemaIdentifier("fooSchema")).text == schema


@pytest.mark.parametrize("validate", ["true", "false"])
def test_a_field_named_twice_is_invalid_whatever_the_validation(validate: str) -> None:
    twice = _schema().replace('"name": "foo"', '"name": "name"')
    with pytest.raises(ConfigurationError, match="Duplicate field name"):
        _registry(TestRunner("ConvertRecord"), {"Validate Field Names": validate, "s": twice})


def test_csv_to_json_by_schema_name_and_an_unknown_name_goes_to_failure() -> None:
    runner = _convert()
    runner.enqueue("id,name\n1,ann\n2,\n", {"schema.name": "users"})
    runner.enqueue("id,name\n3,bob\n", {"schema.name": "nobody"})
    runner.run(2)
    runner.assert_transfer_count("success", 1)
    runner.assert_transfer_count("failure", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert json.loads(out.content) == [{"id": 1, "name": "ann"}, {"id": 2, "name": None}]
    failed = runner.get_flowfiles_for_relationship("failure")[0]
    assert failed.attributes["schema.name"] == "nobody"
    runner.assert_queue_empty()
    assert failed.attributes["record.error.message"] == "Unable to find schema with name 'nobody'"


def test_a_flowfile_without_schema_name_fails_with_nifis_message() -> None:
    runner = _convert()
    runner.enqueue("id,name\n1,ann\n")
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    failed = runner.get_flowfiles_for_relationship("failure")[0]
    assert failed.attributes["record.error.message"] == (
        "${schema.name} did not provide appropriate Schema Name"
    )


def test_the_registry_schema_types_the_records() -> None:
    runner = _convert(reader="JsonTreeReader", writer="CSVRecordSetWriter")
    runner.enqueue('[{"id": "7", "name": "x", "extra": 1}]', {"schema.name": "users"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert runner.get_flowfiles_for_relationship("success")[0].content.decode() == "id,name\n7,x\n"


def test_a_fixed_schema_name_and_a_version_are_taken() -> None:
    runner = TestRunner("ConvertRecord")
    _registry(runner, {"users": USER})
    props = {
        "Schema Access Strategy": "schema-name",
        "Schema Registry": "registry",
        "Schema Name": "users",
        "Schema Version": "2",
    }
    runner.add_controller_service(
        "reader", "CSVReader", {**props, "Treat First Line as Header": "true"}
    )
    runner.add_controller_service("writer", "AvroRecordSetWriter", props)
    runner.set_property("Record Reader", "reader")
    runner.set_property("Record Writer", "writer")
    runner.enqueue("id,name\n5,e\n")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)


def test_a_non_numeric_version_fails_the_flowfile() -> None:
    runner = TestRunner("ConvertRecord")
    _registry(runner, {"users": USER})
    props = {
        "Schema Access Strategy": "schema-name",
        "Schema Registry": "registry",
        "Schema Version": "${v}",
        "Treat First Line as Header": "true",
    }
    runner.add_controller_service("reader", "CSVReader", props)
    runner.add_controller_service("writer", "JsonRecordSetWriter")
    runner.set_property("Record Reader", "reader")
    runner.set_property("Record Writer", "writer")
    runner.enqueue("id,name\n5,e\n", {"schema.name": "users", "v": "XYZ"})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    failed = runner.get_flowfiles_for_relationship("failure")[0]
    assert failed.attributes["record.error.message"] == (
        "Could not retrieve schema with name 'users' because a non-numeric version was "
        "supplied 'XYZ'"
    )


@pytest.mark.parametrize(
    "service",
    [
        "CSVReader",
        "JsonTreeReader",
        "AvroReader",
        "CSVRecordSetWriter",
        "JsonRecordSetWriter",
        "AvroRecordSetWriter",
        "ParquetRecordSetWriter",
    ],
)
def test_schema_name_without_a_registry_is_invalid_naming_the_property(service: str) -> None:
    runner = TestRunner("ConvertRecord")
    with pytest.raises(
        ConfigurationError,
        match=r"'Schema Registry' is invalid because The 'Use 'Schema Name' Property' Schema "
        r"Access Strategy requires that the Schema Registry property be set\.",
    ):
        runner.add_controller_service("svc", service, {"Schema Access Strategy": "schema-name"})


def test_schema_branch_and_version_together_are_invalid() -> None:
    runner = TestRunner("ConvertRecord")
    _registry(runner, {"users": USER})
    with pytest.raises(
        ConfigurationError, match="Schema Branch and Schema Version cannot be specified together"
    ):
        runner.add_controller_service(
            "svc",
            "CSVReader",
            {
                "Schema Access Strategy": "schema-name",
                "Schema Registry": "registry",
                "Schema Branch": "main",
                "Schema Version": "1",
            },
        )


def test_set_schema_name_attribute_writes_the_registry_name_of_an_inherited_schema() -> None:
    runner = _convert()
    runner.add_controller_service(
        "named", "JsonRecordSetWriter", {"Schema Write Strategy": "Set 'schema.name' Attribute"}
    )
    runner.add_controller_service(
        "texted", "JsonRecordSetWriter", {"Schema Write Strategy": "full-schema-attribute"}
    )
    for writer in ("named", "texted"):
        runner.set_property("Record Writer", writer)
        runner.enqueue("id,name\n1,ann\n", {"schema.name": "users"})
        runner.run()
    named, texted = runner.get_flowfiles_for_relationship("success")
    assert named.attributes["schema.name"] == "users"
    assert "avro.schema" not in named.attributes
    assert texted.attributes["avro.schema"] == USER


def test_set_schema_name_attribute_fails_a_schema_from_no_registry() -> None:
    runner = TestRunner("ConvertRecord")
    runner.add_controller_service("reader", "CSVReader", {"Treat First Line as Header": "true"})
    runner.add_controller_service(
        "writer", "JsonRecordSetWriter", {"Schema Write Strategy": "schema-name"}
    )
    runner.set_property("Record Reader", "reader")
    runner.set_property("Record Writer", "writer")
    runner.enqueue("id,name\n1,ann\n")
    runner.enqueue("id,name\n2,bob\n")
    runner.run(2)
    runner.assert_all_flowfiles_transferred("failure", 2)
    for failed in runner.get_flowfiles_for_relationship("failure"):
        assert failed.attributes["record.error.message"] == (
            "Cannot write Schema Name As Attribute because the Schema Name is not known"
        )
