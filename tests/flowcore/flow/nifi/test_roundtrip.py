"""Export to NiFi and import back: a flowcore flow comes back identical, and a NiFi flow
imported, exported and imported again is stable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from flowcore.flow.definition import FlowDefinition, parse_flow
from flowcore.flow.nifi import export_nifi, import_nifi
from flowcore.flow.nifi.model import VersionedFlowDefinition

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLES = Path(__file__).resolve().parents[4] / "samples"


def full_flow() -> dict[str, Any]:
    """Every part of the flowcore format NiFi can hold."""
    return {
        "version": 1,
        "flow": {
            "name": "orders",
            "parameters": {"out_dir": "/data/out", "records": "500", "reader": "csv in"},
            "defaults": {
                "back_pressure": {"object_threshold": 2000, "data_size_threshold": "2 GB"}
            },
            "input_ports": {"incoming": {"description": "orders posted to the REST API"}},
            "controller_services": {
                "csv in": {
                    "type": "CSVReader",
                    "properties": {"Treat First Line as Header": "true"},
                },
                "json out": {
                    "type": "JsonRecordSetWriter",
                    "properties": {"Output Grouping": "output-oneline"},
                },
            },
            "processors": {
                "generate": {
                    "type": "GenerateFlowFile",
                    "properties": {
                        "Custom Text": "a,b\n1,2\n",
                        "Batch Size": "3",
                        "source": "test",
                    },
                    "schedule": {"period": "5 sec", "concurrent_tasks": 2},
                    "penalty_duration": "5 sec",
                    "yield_duration": "250 millis",
                },
                "ingest/tag": {"type": "UpdateAttribute", "properties": {"kind": "${filename}"}},
                "merge": {
                    "type": "MergeRecord",
                    "properties": {
                        "Record Reader": "csv in",
                        "Record Writer": "json out",
                        "Minimum Number of Records": "#{records}",
                        "Max Bin Age": "10 sec",
                        "Merge Engine": "local",
                    },
                    "auto_terminate": ["original", "failure"],
                },
                "partition": {
                    "type": "PartitionRecord",
                    "properties": {
                        "Record Reader": "csv in",
                        "Record Writer": "json out",
                        "k": "/a",
                    },
                    "auto_terminate": ["original", "failure"],
                },
                "join": {"type": "Funnel"},
                "parked": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
                "write": {
                    "type": "PutFile",
                    "properties": {"Directory": "#{out_dir}"},
                    "auto_terminate": ["success", "failure"],
                    "run_state": "STOPPED",
                },
                "script": {
                    "type": "Unsupported",
                    "properties": {
                        "Component Type": "org.apache.nifi.processors.script.ExecuteScript",
                        "Relationships": "failure,success",
                        "Script Engine": "Groovy",
                    },
                    "auto_terminate": ["failure"],
                    "run_state": "STOPPED",
                },
            },
            "connections": [
                {"from": "incoming", "to": "ingest/tag"},
                {"from": "generate", "relationships": ["success"], "to": "ingest/tag"},
                {
                    "from": "ingest/tag",
                    "relationships": ["success"],
                    "to": "merge",
                    "name": "to merge",
                    "prioritizers": ["PriorityAttributePrioritizer", "FirstInFirstOutPrioritizer"],
                    "back_pressure": {"object_threshold": 50, "data_size_threshold": "10 MB"},
                },
                {"from": "merge", "relationships": ["merged"], "to": "partition"},
                {"from": "partition", "relationships": ["success"], "to": "join"},
                {"from": "join", "relationships": ["success"], "to": "write"},
                {
                    "from": "join",
                    "relationships": ["success"],
                    "to": "script",
                    "back_pressure": {"object_threshold": 7},
                },
                {"from": "script", "relationships": ["success"], "to": "parked"},
            ],
        },
    }


def roundtrip(definition: FlowDefinition) -> FlowDefinition:
    exported = json.loads(json.dumps(export_nifi(definition).document))
    result = import_nifi(exported)
    assert result.unsupported == [] or all(c.nifi_type for c in result.unsupported)
    return FlowDefinition.model_validate(result.document)


def test_export_then_import_gives_the_same_flow() -> None:
    definition = FlowDefinition.model_validate(full_flow())
    parse_flow(full_flow())  # the flow itself is valid

    assert roundtrip(definition) == definition


def test_the_export_is_a_nifi_flow_definition() -> None:
    document = export_nifi(FlowDefinition.model_validate(full_flow())).document

    assert set(document) == {
        "flowContents",
        "externalControllerServices",
        "parameterContexts",
        "parameterProviders",
        "flowEncodingVersion",
        "latest",
    }
    group = document["flowContents"]
    assert group["parameterContextName"] == "orders"
    merge = next(p for p in group["processors"] if p["name"] == "merge")
    assert merge["type"] == "org.apache.nifi.processors.standard.MergeRecord"
    assert merge["bundle"]["artifact"] == "nifi-standard-nar"
    service_ids = {s["name"]: s["identifier"] for s in group["controllerServices"]}
    assert merge["properties"]["record-reader"] == service_ids["csv in"]
    assert merge["properties"]["min-records"] == "#{records}"
    assert merge["propertyDescriptors"]["record-reader"]["identifiesControllerService"] is True
    assert merge["scheduledState"] == "ENABLED"
    write = next(p for p in group["processors"] if p["name"] == "write")
    assert write["scheduledState"] == "DISABLED"
    script = next(p for p in group["processors"] if p["name"] == "script")
    assert script["type"] == "org.apache.nifi.processors.script.ExecuteScript"
    assert script["properties"] == {"Script Engine": "Groovy"}
    assert [f["name"] for f in group["funnels"]] == ["join", "parked"]
    to_merge = next(c for c in group["connections"] if c["name"] == "to merge")
    assert to_merge["prioritizers"] == [
        "org.apache.nifi.prioritizer.PriorityAttributePrioritizer",
        "org.apache.nifi.prioritizer.FirstInFirstOutPrioritizer",
    ]
    assert (to_merge["backPressureObjectThreshold"], to_merge["backPressureDataSizeThreshold"]) == (
        50,
        "10 MB",
    )
    from_port = next(c for c in group["connections"] if c["source"]["type"] == "INPUT_PORT")
    assert from_port["selectedRelationships"] == [""]
    VersionedFlowDefinition.model_validate(document)  # and it reads as one


def test_exporting_twice_gives_the_same_file() -> None:
    definition = FlowDefinition.model_validate(full_flow())

    assert export_nifi(definition).document == export_nifi(definition).document


@pytest.mark.parametrize("name", ["nested_groups.json", "unsupported.json", "snapshot.json"])
def test_import_export_import_is_stable(name: str) -> None:
    data = json.loads((FIXTURES / name).read_text("utf-8"))
    first = FlowDefinition.model_validate(import_nifi(data).document)

    assert roundtrip(first) == first


@pytest.mark.parametrize(
    "path", sorted(SAMPLES.glob("*/flow*.yaml")), ids=lambda p: p.parent.name + "/" + p.name
)
def test_every_sample_flow_round_trips_but_for_max_runs(path: Path) -> None:
    definition = FlowDefinition.model_validate(yaml.safe_load(path.read_text("utf-8")))
    definition.set_folder(path.parent)  # its python/extensions, if it has one
    result = export_nifi(definition)
    limited = [n for n, p in definition.flow.processors.items() if p.schedule.max_runs is not None]
    for name in limited:
        definition.flow.processors[name].schedule.max_runs = None

    assert roundtrip(definition) == definition
    assert [note.split("'")[1] for note in result.notes] == limited


def test_export_writes_the_json_writers_notation_nifi_would_migrate() -> None:
    """NiFi sets a JsonRecordSetWriter without Allow Scientific Notation to true; export
    writes flowcore's false, and import drops it again."""
    definition = FlowDefinition.model_validate(full_flow())
    exported = json.loads(json.dumps(export_nifi(definition).document))
    services = {s["name"]: s for s in exported["flowContents"]["controllerServices"]}
    assert services["json out"]["properties"]["Allow Scientific Notation"] == "false"
    again = import_nifi(exported).document["flow"]["controller_services"]["json out"]
    assert "Allow Scientific Notation" not in again["properties"]
