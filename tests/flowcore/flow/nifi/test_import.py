"""NiFi flow definitions (JSON written to nifi-api's Versioned* schema) where flowcore
flows are expected: flattening, ports, funnels, parameters, services, what is unsupported,
and running the result on a real node."""

from __future__ import annotations

import copy
import gzip
import json
import time
from pathlib import Path
from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import DeterministicScheduler, Node
from flowcore.engine.processor_node import RunState
from flowcore.flow import load_flow, parse_flow, read_flow_document
from flowcore.flow.definition import FlowDefinitionError
from flowcore.flow.nifi import UnsupportedComponentsError, import_nifi
from flowcore.settings import EngineSettings

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


def links(flow: dict[str, Any]) -> list[tuple[str, tuple[str, ...], str]]:
    return [(c["from"], tuple(c.get("relationships", [])), c["to"]) for c in flow["connections"]]


def test_nested_groups_are_flattened_with_qualified_names() -> None:
    flow = import_nifi(fixture("nested_groups.json")).document["flow"]

    assert list(flow["processors"]) == [
        "Generate",
        "Write",
        "Funnel",
        "rejected",
        "Enrich/Tag",
        "Enrich/Route",
        "Enrich/Batch/Merge",
    ]
    assert flow["processors"]["Enrich/Batch/Merge"]["type"] == "MergeRecord"
    assert flow["processors"]["Enrich/Tag"]["type"] == "UpdateAttribute"


def test_connections_through_ports_reach_the_components_at_their_ends() -> None:
    flow = import_nifi(fixture("nested_groups.json")).document["flow"]

    assert links(flow) == [
        ("Generate", ("success",), "Enrich/Tag"),  # root -> Enrich/in -> Tag
        ("Funnel", ("success",), "Write"),
        ("Enrich/Tag", ("success",), "Enrich/Route"),
        ("Enrich/Route", ("in.region",), "Enrich/Batch/Merge"),  # via Batch/records
        ("Enrich/Route", ("unmatched",), "rejected"),  # Enrich/other -> root output port
        ("Enrich/Batch/Merge", ("merged",), "Funnel"),  # Batch/merged -> enriched -> funnel
    ]


def test_queue_settings_come_from_the_connection_in_front_of_the_destination() -> None:
    flow = import_nifi(fixture("nested_groups.json")).document["flow"]
    by_link = {(c["from"], c["to"]): c for c in flow["connections"]}

    # Group default 5000 becomes the flow's default; a queue at the default says nothing.
    assert flow["defaults"] == {"back_pressure": {"object_threshold": 5000}}
    to_write = by_link[("Funnel", "Write")]
    assert to_write["name"] == "to write"
    assert to_write["prioritizers"] == [
        "NewestFlowFileFirstPrioritizer",
        "PriorityAttributePrioritizer",
    ]
    assert to_write["back_pressure"] == {"object_threshold": 200, "data_size_threshold": "10 MB"}
    into_tag = by_link[("Generate", "Enrich/Tag")]
    assert into_tag["prioritizers"] == ["OldestFlowFileFirstPrioritizer"]  # in -> Tag
    assert by_link[("Enrich/Route", "Enrich/Batch/Merge")]["back_pressure"] == {
        "object_threshold": 20
    }
    assert "back_pressure" not in by_link[("Enrich/Batch/Merge", "Funnel")]


def test_processor_settings_and_properties_are_mapped() -> None:
    flow = import_nifi(fixture("nested_groups.json")).document["flow"]
    generate, write = flow["processors"]["Generate"], flow["processors"]["Write"]
    merge, tag = flow["processors"]["Enrich/Batch/Merge"], flow["processors"]["Enrich/Tag"]

    assert generate["schedule"] == {"period": "1 min"}
    assert generate["properties"]["Custom Text"] == "id,name\n1,#{greeting}\n"
    assert "Maximum File Count" not in write["properties"]  # null in NiFi: unset
    assert write["schedule"] == {"concurrent_tasks": 2}
    assert write["penalty_duration"] == "10 sec"
    assert write["auto_terminate"] == ["success", "failure"]
    assert flow["processors"]["Enrich/Route"]["yield_duration"] == "2 sec"
    # API names (merge-strategy, max-bin-age, ...) become flowcore's property names;
    # service identifiers become the services' names.
    assert merge["properties"]["Record Reader"] == "CSV Reader"
    assert merge["properties"]["Merge Strategy"] == "Bin-Packing Algorithm"
    assert merge["properties"]["Max Bin Age"] == "5 min"
    assert merge["properties"]["Maximum Number of Bins"] == "5"
    # NiFi properties at their defaults that flowcore lacks are dropped, dynamic ones kept.
    assert tag["properties"] == {
        "region": "#{region}",
        "filename": "orders-${region}.csv",
        "Store State": "Do not store state",
    }
    reader = flow["controller_services"]["CSV Reader"]
    assert reader["type"] == "CSVReader"
    assert reader["properties"]["Treat First Line as Header"] == "true"
    assert "CSV Format" not in reader["properties"]


def test_parameters_follow_inheritance_and_sensitive_ones_are_noted() -> None:
    result = import_nifi(fixture("nested_groups.json"))
    parameters = result.document["flow"]["parameters"]

    assert parameters == {"out_dir": "out", "greeting": "ann", "api_token": "", "region": "eu"}
    assert any("'api_token' is sensitive" in note for note in result.notes)


def test_a_root_output_port_becomes_a_stopped_funnel_so_flowfiles_wait() -> None:
    result = import_nifi(fixture("nested_groups.json"))
    rejected = result.document["flow"]["processors"]["rejected"]

    assert rejected == {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"}
    assert any("output port 'rejected'" in note for note in result.notes)


def test_a_group_with_another_parameter_context_gets_its_values_written_in() -> None:
    data = fixture("nested_groups.json")
    batch = data["flowContents"]["processGroups"][0]["processGroups"][0]
    batch["parameterContextName"] = "Other"
    batch["processors"][0]["properties"]["max-bin-age"] = "#{age}"
    data["parameterContexts"]["Other"] = {
        "name": "Other",
        "parameters": [{"name": "age", "value": "9 sec", "sensitive": False}],
        "inheritedParameterContexts": [],
    }
    result = import_nifi(data)

    merge = result.document["flow"]["processors"]["Enrich/Batch/Merge"]
    assert merge["properties"]["Max Bin Age"] == "9 sec"
    assert "age" not in result.document["flow"]["parameters"]


def test_the_imported_flow_runs_end_to_end(tmp_path: Path) -> None:
    source = tmp_path / "flow.json"
    source.write_text((FIXTURES / "nested_groups.json").read_text("utf-8"), "utf-8")
    document = read_flow_document(source)
    document["flow"]["parameters"]["out_dir"] = str(tmp_path / "out")
    document["flow"]["processors"]["Generate"]["schedule"]["max_runs"] = 1
    clock = ManualClock(int(time.time() * 1000))
    node = Node.from_flow(EngineSettings(data_dir=tmp_path / "data"), parse_flow(document), clock)
    try:
        assert node.processors["rejected"].run_state is RunState.STOPPED
        summary = DeterministicScheduler(node).run_until_idle(max_triggers=10_000)
        assert summary.idle
        assert all(c.queue.size == 0 for c in node.connections.values())
    finally:
        node.close()
    (written,) = (tmp_path / "out").iterdir()
    # Both generated FlowFiles, routed through the groups and merged into one file.
    assert written.read_text("utf-8").splitlines() == ["id,name", "1,ann", "1,ann"]


def test_a_registry_snapshot_loads_and_disabled_means_stopped(tmp_path: Path) -> None:
    definition = load_flow(FIXTURES / "snapshot.json")

    assert definition.flow.name == "Heartbeat"
    assert definition.flow.processors["Generate"].run_state == "RUNNING"  # ENABLED
    assert definition.flow.processors["Log"].run_state == "STOPPED"  # DISABLED
    assert definition.flow.processors["Generate"].schedule.period == "10 sec"
    Node.from_flow(EngineSettings(data_dir=tmp_path), definition, ManualClock()).close()


def test_gzipped_flow_json_is_read_too(tmp_path: Path) -> None:
    path = tmp_path / "flow.json.gz"
    path.write_bytes(gzip.compress((FIXTURES / "snapshot.json").read_bytes()))

    assert load_flow(path).flow.name == "Heartbeat"


def test_unsupported_components_are_refused_one_line_each() -> None:
    with pytest.raises(UnsupportedComponentsError) as info:
        load_flow(FIXTURES / "unsupported.json")

    lines = [c.line for c in info.value.components]
    assert lines == [
        "Controller Service 'Excel Reader' (org.apache.nifi.csv.CSVReader): "
        "property 'CSV Format' = 'excel' is not supported",
        "Processor 'Script' (org.apache.nifi.processors.script.ExecuteScript): "
        "no flowcore processor of this type",
        "Processor 'Convert' (org.apache.nifi.processors.standard.ConvertRecord): "
        "uses controller service 'Excel Reader', which is not supported",
        "Processor 'Log' (org.apache.nifi.processors.standard.LogAttribute): "
        "property 'Made Up' is not supported",
    ]
    message = str(info.value)
    assert "--allow-unsupported" in message
    assert all(line in message for line in lines)
    assert isinstance(info.value, FlowDefinitionError)


def test_allow_unsupported_stubs_them_stopped_and_the_rest_runs(tmp_path: Path) -> None:
    definition = load_flow(FIXTURES / "unsupported.json", allow_unsupported=True)
    script = definition.flow.processors["Script"]

    assert script.type == "Unsupported"
    assert script.run_state == "STOPPED"
    assert script.properties["Component Type"] == "org.apache.nifi.processors.script.ExecuteScript"
    assert script.properties["Relationships"] == "failure,success"
    assert "JSON Writer" in definition.flow.controller_services
    assert "Excel Reader" not in definition.flow.controller_services
    definition.flow.processors["Generate"].schedule.max_runs = 1
    node = Node.from_flow(EngineSettings(data_dir=tmp_path), definition, ManualClock())
    try:
        assert {n for n, p in node.processors.items() if p.run_state is RunState.STOPPED} == {
            "Script",
            "Convert",
            "Log",
        }
        DeterministicScheduler(node).run_until_idle(max_triggers=1_000)
        waiting = node.connections["Generate.success->Script"].queue.size
        assert waiting == 1  # held in front of the stopped stub, not lost
    finally:
        node.close()


def test_an_external_controller_service_is_unsupported() -> None:
    data = fixture("nested_groups.json")
    merge = data["flowContents"]["processGroups"][0]["processGroups"][0]["processors"][0]
    merge["properties"]["record-reader"] = "ext-1"
    data["externalControllerServices"] = {"ext-1": {"identifier": "ext-1", "name": "Shared"}}
    lines = [c.line for c in import_nifi(data).unsupported]

    assert (
        "Controller Service 'Shared' (external controller service): defined outside " in (lines[0])
    )
    assert lines[1] == (
        "Processor 'Enrich/Batch/Merge' (org.apache.nifi.processors.standard.MergeRecord): "
        "uses controller service 'Shared', which is not supported"
    )


def test_cron_scheduling_is_unsupported() -> None:
    data = fixture("snapshot.json")
    data["flowContents"]["processors"][0]["schedulingStrategy"] = "CRON_DRIVEN"

    (component,) = import_nifi(data).unsupported
    assert component.line.endswith("scheduling strategy CRON_DRIVEN")


def test_a_malformed_nifi_document_is_refused_by_key(tmp_path: Path) -> None:
    data = fixture("snapshot.json")
    del data["flowContents"]["processors"][0]["type"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), "utf-8")

    with pytest.raises(FlowDefinitionError) as info:
        load_flow(path)
    assert info.value.key == f"{path}: flowContents.processors.0.type"
    assert "not a NiFi flow definition" in info.value.reason


def test_duplicate_names_in_nifi_stay_apart() -> None:
    data = fixture("snapshot.json")
    twin = copy.deepcopy(data["flowContents"]["processors"][1])
    twin["identifier"] = "twin"
    data["flowContents"]["processors"].append(twin)
    flow = import_nifi(data).document["flow"]

    assert list(flow["processors"]) == ["Generate", "Log", "Log (2)"]


def test_a_nifi_instance_flow_json_gz_reads_with_its_run_states(tmp_path: Path) -> None:
    definition = fixture("nested_groups.json")
    root = definition["flowContents"]
    service = root.pop("controllerServices")[0]  # a controller-level service instead
    for processor in root["processors"]:
        processor["scheduledState"] = "RUNNING" if processor["name"] == "Generate" else "ENABLED"
    dataflow = {
        "encodingVersion": {"majorVersion": 2, "minorVersion": 0},
        "maxTimerDrivenThreadCount": 10,
        "registries": [],
        "parameterContexts": list(definition["parameterContexts"].values()),
        "parameterProviders": [],
        "controllerServices": [service],
        "reportingTasks": [],
        "rootGroup": root,
    }
    path = tmp_path / "flow.json.gz"
    path.write_bytes(gzip.compress(json.dumps(dataflow).encode()))

    # Without the writer service, the merge is unsupported; the rest maps as before.
    result = import_nifi(dataflow)
    assert [c.name for c in result.unsupported] == ["Enrich/Batch/Merge"]
    flow = result.document["flow"]
    assert flow["controller_services"]["CSV Reader"]["type"] == "CSVReader"
    assert flow["parameters"]["region"] == "eu"
    # In a running NiFi's own flow, ENABLED means stopped; only RUNNING runs.
    assert "run_state" not in flow["processors"]["Generate"]
    assert flow["processors"]["Write"]["run_state"] == "STOPPED"
    with pytest.raises(UnsupportedComponentsError):
        load_flow(path)


def test_a_service_keeps_its_user_defined_properties() -> None:
    data = fixture("nested_groups.json")
    services = data["flowContents"]["controllerServices"]
    lookup = copy.deepcopy(services[0])
    lookup.update(
        identifier="lookup-1",
        name="Sports",
        type="org.apache.nifi.lookup.SimpleKeyValueLookupService",
        bundle={"group": "org.apache.nifi", "artifact": "nifi-lookup-services-nar"},
        properties={"John Doe": "Soccer", "Jane Doe": "Basketball"},
        propertyDescriptors={
            "John Doe": {"name": "John Doe", "dynamic": True},
            "Jane Doe": {"name": "Jane Doe", "dynamic": True},
        },
    )
    services.append(lookup)
    imported = import_nifi(data)
    assert not [c.line for c in imported.unsupported if "Sports" in c.line]
    service = imported.document["flow"]["controller_services"]["Sports"]
    assert service["type"] == "SimpleKeyValueLookupService"
    assert service["properties"] == {"John Doe": "Soccer", "Jane Doe": "Basketball"}


def _record_writer(
    properties: dict[str, str | None], kind: str = "json.JsonRecordSetWriter"
) -> dict[str, Any]:
    """The record writer ``kind`` (JSON by default) of ``nested_groups.json``'s flow with
    ``properties``, imported."""
    data = fixture("nested_groups.json")
    services = data["flowContents"]["controllerServices"]
    writer = copy.deepcopy(services[0])
    writer.update(
        identifier="writer-1",
        name="Writer Out",
        type=f"org.apache.nifi.{kind}",
        bundle={"group": "org.apache.nifi", "artifact": "nifi-record-serialization-services-nar"},
        properties=properties,
        propertyDescriptors={},
    )
    services.append(writer)
    imported = import_nifi(data)
    assert not [c.line for c in imported.unsupported if "Writer Out" in c.line]
    service: dict[str, Any] = imported.document["flow"]["controller_services"]["Writer Out"]
    return service


def test_the_json_writer_takes_number_and_temporal_properties() -> None:
    service = _record_writer(
        {
            "Allow Scientific Notation": "true",
            "Date Format": "yyyy-MM-dd",
            "Time Format": "HH:mm:ss",
            "Timestamp Format": "yyyy-MM-dd HH:mm:ss.SSS",
            "Timestamp Representation": "EPOCH_SECONDS",
            "Serialized JSON Input Handling": "DISABLED",
            "Compression Format": "none",
            "Compression Level": "1",
            "suppress-nulls": "never-suppress",
        }
    )
    assert service["properties"] == {
        "Allow Scientific Notation": "true",
        "Date Format": "yyyy-MM-dd",
        "Time Format": "HH:mm:ss",
        "Timestamp Format": "yyyy-MM-dd HH:mm:ss.SSS",
        "Timestamp Representation": "EPOCH_SECONDS",
        "Serialized JSON Input Handling": "DISABLED",
        "Compression Format": "none",
        "Compression Level": "1",
        "Suppress Null Values": "never-suppress",
    }


def test_the_json_writer_at_flowcores_default_notation_drops_it() -> None:
    service = _record_writer({"Allow Scientific Notation": "false", "Date Format": None})
    assert service.get("properties", {}) == {}


def test_the_csv_writer_takes_the_temporal_formats() -> None:
    formats = {
        "Date Format": "MM/dd/yyyy",
        "Time Format": "HH:mm:ss",
        "Timestamp Format": "yyyy-MM-dd HH:mm:ss",
    }
    service = _record_writer({**formats, "Quote Mode": "ALL"}, "csv.CSVRecordSetWriter")
    assert service["type"] == "CSVRecordSetWriter"
    assert service["properties"] == {**formats, "Quote Mode": "ALL"}
