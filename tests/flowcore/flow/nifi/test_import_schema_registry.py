"""A NiFi flow whose record services take their schema by name from an AvroSchemaRegistry
imports and runs: the registry with its schemas (dynamic properties), the readers' and
writers' Schema Access Strategy, Schema Registry and Schema Name."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, Node
from flowcore.flow import parse_flow
from flowcore.flow.nifi import import_nifi
from flowcore.settings import EngineSettings

USERS = json.dumps(
    {
        "type": "record",
        "name": "User",
        "fields": [{"name": "id", "type": "long"}, {"name": "name", "type": "string"}],
    }
)
REGISTRY_ID = "5f0a7f0c-0000-4000-8000-000000000001"
READER_ID = "5f0a7f0c-0000-4000-8000-000000000002"
WRITER_ID = "5f0a7f0c-0000-4000-8000-000000000003"


def _service(
    identifier: str, name: str, kind: str, artifact: str, properties: dict[str, Any]
) -> dict[str, Any]:
    return {
        "identifier": identifier,
        "name": name,
        "type": kind,
        "bundle": {"group": "org.apache.nifi", "artifact": artifact, "version": "2.0.0"},
        "properties": properties,
        "propertyDescriptors": {
            key: {
                "name": key,
                "identifiesControllerService": key == "schema-registry",
                "dynamic": key == "users",
            }
            for key in properties
        },
        "scheduledState": "ENABLED",
        "componentType": "CONTROLLER_SERVICE",
    }


def _processor(
    identifier: str, name: str, kind: str, properties: dict[str, Any], auto: list[str]
) -> dict[str, Any]:
    return {
        "identifier": identifier,
        "name": name,
        "type": f"org.apache.nifi.processors.standard.{kind}",
        "bundle": {"group": "org.apache.nifi", "artifact": "nifi-standard-nar", "version": "2.0.0"},
        "properties": properties,
        "propertyDescriptors": {
            key: {"name": key, "dynamic": key == "schema.name"} for key in properties
        },
        "schedulingPeriod": "1 min",
        "autoTerminatedRelationships": auto,
        "scheduledState": "ENABLED",
        "componentType": "PROCESSOR",
    }


def _generate(identifier: str, name: str, schema_name: str) -> dict[str, Any]:
    return _processor(
        identifier,
        name,
        "GenerateFlowFile",
        {
            "File Size": "0B",
            "Batch Size": "1",
            "Data Format": "Text",
            "Unique FlowFiles": "false",
            "generate-ff-custom-text": "id,name\n1,ann\n2,bob\n",
            "character-set": "UTF-8",
            "mime-type": "text/csv",
            "schema.name": schema_name,
        },
        [],
    )


def _put(identifier: str, name: str) -> dict[str, Any]:
    return _processor(
        identifier,
        name,
        "PutFile",
        {"Directory": f"#{{{name}_dir}}", "Conflict Resolution Strategy": "replace"},
        ["success", "failure"],
    )


def _connection(
    identifier: str, source: str, destination: str, relationship: str
) -> dict[str, Any]:
    return {
        "identifier": identifier,
        "source": {"id": source, "type": "PROCESSOR", "groupId": "root"},
        "destination": {"id": destination, "type": "PROCESSOR", "groupId": "root"},
        "selectedRelationships": [relationship],
        "componentType": "CONNECTION",
    }


def _flow() -> dict[str, Any]:
    """A NiFi 2 flow definition: two GenerateFlowFile (schema.name users, and one the
    registry lacks) into ConvertRecord (CSV in, JSON out, both by schema name), success
    and failure each to a PutFile. The registry comes after the services naming it."""
    schema_by_name = {
        "schema-access-strategy": "schema-name",
        "schema-registry": REGISTRY_ID,
        "schema-name": "${schema.name}",
        "schema-version": None,
        "schema-branch": None,
        "schema-text": "${avro.schema}",
        "schema-reference-reader": None,
    }
    services = [
        _service(
            READER_ID,
            "CSV Reader",
            "org.apache.nifi.csv.CSVReader",
            "nifi-record-serialization-services-nar",
            {**schema_by_name, "Skip Header Line": "true", "csv-reader-csv-parser": "commons-csv"},
        ),
        _service(
            WRITER_ID,
            "JSON Writer",
            "org.apache.nifi.json.JsonRecordSetWriter",
            "nifi-record-serialization-services-nar",
            {**schema_by_name, "Schema Write Strategy": "no-schema", "schema-cache": None},
        ),
        _service(
            REGISTRY_ID,
            "Schemas",
            "org.apache.nifi.schemaregistry.services.AvroSchemaRegistry",
            "nifi-registry-nar",
            {"avro-reg-validated-field-names": "true", "users": USERS},
        ),
    ]
    processors = [
        _generate("gen-users", "Users", "users"),
        _generate("gen-nobody", "Nobody", "nobody"),
        _processor(
            "convert",
            "Convert",
            "ConvertRecord",
            {
                "record-reader": READER_ID,
                "record-writer": WRITER_ID,
                "include-zero-record-flowfiles": "true",
            },
            [],
        ),
        _put("put-out", "out"),
        _put("put-failed", "failed"),
    ]
    return {
        "flowContents": {
            "identifier": "root",
            "name": "By schema name",
            "processors": processors,
            "controllerServices": services,
            "connections": [
                _connection("c1", "gen-users", "convert", "success"),
                _connection("c2", "gen-nobody", "convert", "success"),
                _connection("c3", "convert", "put-out", "success"),
                _connection("c4", "convert", "put-failed", "failure"),
            ],
            "componentType": "PROCESS_GROUP",
        },
        "parameterContexts": {},
    }


def test_the_registry_and_the_schema_name_properties_are_mapped() -> None:
    result = import_nifi(_flow())

    assert result.unsupported == []
    services = result.document["flow"]["controller_services"]
    assert services["Schemas"] == {
        "type": "AvroSchemaRegistry",
        "properties": {"Validate Field Names": "true", "users": USERS},
    }
    reader = services["CSV Reader"]["properties"]
    assert reader["Schema Access Strategy"] == "schema-name"
    assert reader["Schema Registry"] == "Schemas"
    assert reader["Schema Name"] == "${schema.name}"
    assert services["JSON Writer"]["properties"]["Schema Registry"] == "Schemas"


def test_nifi_display_names_are_taken_too() -> None:
    data = _flow()
    registry = data["flowContents"]["controllerServices"][2]
    registry["properties"] = {"Validate Field Names": "false", "users": USERS}
    reader = data["flowContents"]["controllerServices"][0]
    reader["properties"] = {
        "Schema Access Strategy": "schema-name",
        "Schema Registry": REGISTRY_ID,
        "Schema Name": "users",
        "Schema Version": "1",
        "Skip Header Line": "true",
    }
    services = import_nifi(data).document["flow"]["controller_services"]

    assert services["Schemas"]["properties"] == {"Validate Field Names": "false", "users": USERS}
    assert services["CSV Reader"]["properties"]["Schema Registry"] == "Schemas"
    assert services["CSV Reader"]["properties"]["Schema Version"] == "1"


def test_the_imported_flow_converts_by_schema_name_and_fails_an_unknown_one(tmp_path: Path) -> None:
    document = import_nifi(_flow()).document
    out, failed = tmp_path / "out", tmp_path / "failed"
    document["flow"]["parameters"] = {"out_dir": str(out), "failed_dir": str(failed)}
    for name in ("Users", "Nobody"):
        document["flow"]["processors"][name]["schedule"] = {"period": "1 min", "max_runs": 1}
    clock = ManualClock(int(time.time() * 1000))
    node = Node.from_flow(EngineSettings(data_dir=tmp_path / "data"), parse_flow(document), clock)
    try:
        summary = DeterministicScheduler(node).run_until_idle(max_triggers=10_000)
        assert summary.idle
        assert all(c.queue.size == 0 for c in node.connections.values())
    finally:
        node.close()
    (converted,) = out.iterdir()
    assert json.loads(converted.read_text("utf-8")) == [
        {"id": 1, "name": "ann"},
        {"id": 2, "name": "bob"},
    ]
    (refused,) = failed.iterdir()
    assert refused.read_text("utf-8") == "id,name\n1,ann\n2,bob\n"


def test_a_registry_flowcore_lacks_is_dropped_from_a_reader_with_a_note() -> None:
    data = _flow()
    services = data["flowContents"]["controllerServices"]
    services[2]["type"] = "org.apache.nifi.confluent.schemaregistry.ConfluentSchemaRegistry"
    services[2]["properties"] = {"url": "http://localhost:8081"}
    for service in services[:2]:
        service["properties"]["schema-access-strategy"] = "inherit-record-schema"
    services[0]["properties"]["schema-access-strategy"] = "infer-schema"
    result = import_nifi(data)

    assert [c.line for c in result.unsupported] == [
        "Controller Service 'Schemas' (org.apache.nifi.confluent.schemaregistry."
        "ConfluentSchemaRegistry): no flowcore controller service of this type"
    ]
    reader = result.document["flow"]["controller_services"]["CSV Reader"]["properties"]
    assert "Schema Registry" not in reader
    assert (
        "property 'schema-registry' names controller service 'Schemas', which is not "
        "supported; dropped"
    ) in result.notes
