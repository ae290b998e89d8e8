"""The YAML flow definition: valid flows parse, invalid ones are refused by key and reason.

Schema and reference errors come from ``parse_flow``; errors that need the processor
types (unknown type, invalid property, relationships, prioritizers) come from
``Node.from_flow``. Every refusal names the dotted key of the offending value.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flowcore.engine import Node
from flowcore.flow import load_flow, parse_flow
from flowcore.flow.definition import FlowDefinition, FlowDefinitionError
from flowcore.settings import EngineSettings

SettingsFactory = Callable[..., EngineSettings]


def base_flow(out_dir: str = "/nonexistent/out") -> dict[str, Any]:
    return {
        "version": 1,
        "flow": {
            "name": "demo",
            "parameters": {"size": "1 KB"},
            "input_ports": ["incoming"],
            "processors": {
                "gen": {
                    "type": "GenerateFlowFile",
                    "properties": {"File Size": "#{size}", "Batch Size": 2},
                    "schedule": {"period": "10 sec", "max_runs": 3},
                },
                "tag": {
                    "type": "UpdateAttribute",
                    "properties": {"stage": "tagged", "size.copy": "${fileSize}"},
                    "penalty_duration": "5 sec",
                    "yield_duration": "250 millis",
                },
                "put": {
                    "type": "PutFile",
                    "properties": {"Directory": out_dir},
                    "auto_terminate": ["success", "failure"],
                },
            },
            "connections": [
                {"from": "gen", "relationships": ["success"], "to": "tag"},
                {"from": "incoming", "to": "tag", "name": "from-port"},
                {
                    "from": "tag",
                    "relationships": ["success"],
                    "to": "put",
                    "prioritizers": ["PriorityAttributePrioritizer", "FirstInFirstOut"],
                    "back_pressure": {"object_threshold": 50, "data_size_threshold": "10 MB"},
                },
            ],
        },
    }


def refused(data: Any) -> FlowDefinitionError:
    with pytest.raises(FlowDefinitionError) as info:
        parse_flow(data)
    return info.value


def mutated(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    data = copy.deepcopy(base_flow())
    change(data)
    return data


def flow_of(data: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = data["flow"]
    return result


# -- valid flows ----------------------------------------------------------------------------


def test_valid_flow_parses_with_nifi_values_kept() -> None:
    definition = parse_flow(base_flow())

    assert isinstance(definition, FlowDefinition)
    flow = definition.flow
    assert flow.name == "demo"
    assert list(flow.processors) == ["gen", "tag", "put"]
    assert list(flow.input_ports) == ["incoming"]
    gen = flow.processors["gen"]
    assert gen.type == "GenerateFlowFile"
    assert gen.schedule.period == "10 sec"
    assert gen.schedule.max_runs == 3
    assert gen.schedule.concurrent_tasks == 1
    assert gen.run_state == "RUNNING"
    # Parameters are substituted; non-string YAML values become text; EL is left alone.
    assert gen.properties == {"File Size": "1 KB", "Batch Size": "2"}
    assert flow.processors["tag"].properties["size.copy"] == "${fileSize}"
    assert flow.processors["tag"].penalty_duration == "5 sec"
    assert flow.processors["put"].auto_terminate == ["success", "failure"]
    first, port, last = flow.connections
    assert first.identifier == "gen.success->tag"
    assert port.identifier == "from-port"
    assert port.relationships == []
    assert last.back_pressure is not None
    assert last.back_pressure.object_threshold == 50
    assert last.back_pressure.data_size_threshold == "10 MB"
    assert last.prioritizers == ["PriorityAttributePrioritizer", "FirstInFirstOut"]


def test_valid_flow_defaults() -> None:
    definition = parse_flow(
        {"flow": {"name": "tiny", "processors": {"g": {"type": "GenerateFlowFile"}}}}
    )
    spec = definition.flow.processors["g"]
    assert definition.version == 1
    assert spec.schedule.strategy == "TIMER_DRIVEN"
    assert spec.schedule.period == "0 sec"
    assert spec.schedule.max_runs is None
    assert spec.penalty_duration == "30 sec"
    assert spec.yield_duration == "1 sec"
    assert spec.properties == {}
    assert definition.flow.connections == []


def test_input_ports_as_mapping_and_booleans_as_nifi_text() -> None:
    data = {
        "flow": {
            "name": "ports",
            "input_ports": {"a": None, "b": {"description": "second"}},
            "processors": {
                "g": {"type": "GenerateFlowFile", "properties": {"Unique FlowFiles": True}}
            },
        }
    }
    flow = parse_flow(data).flow
    assert flow.input_ports["a"].description == ""
    assert flow.input_ports["b"].description == "second"
    assert flow.processors["g"].properties["Unique FlowFiles"] == "true"


def test_valid_flow_builds_a_node(settings_factory: SettingsFactory, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    node = Node.from_flow(settings_factory(), parse_flow(base_flow(str(out))))
    try:
        assert set(node.processors) == {"gen", "tag", "put"}
        assert set(node.connections) == {"gen.success->tag", "from-port", "tag.success->put"}
        assert node.processors["gen"].schedule.period_ms == 10_000
        assert node.processors["gen"].schedule.max_runs == 3
        assert node.processors["tag"].schedule.penalty_ms == 5_000
        assert node.processors["tag"].schedule.yield_ms == 250
        assert node.connections["tag.success->put"].queue.snapshot().back_pressure is False
    finally:
        node.close()


# -- schema errors (parse_flow) -----------------------------------------------------------


def test_top_level_must_be_a_mapping() -> None:
    error = refused(["not", "a", "mapping"])
    assert error.key == "flow"
    assert "mapping" in error.reason


def test_missing_type() -> None:
    error = refused(mutated(lambda d: flow_of(d)["processors"]["tag"].pop("type")))
    assert error.key == "flow.processors.tag.type"
    assert "required" in error.reason.lower()
    assert str(error).startswith("flow.processors.tag.type: ")


@pytest.mark.parametrize(
    ("change", "key"),
    [
        (lambda d: d.update(extra=1), "extra"),
        (lambda d: flow_of(d).update(colour="red"), "flow.colour"),
        (
            lambda d: flow_of(d)["processors"]["gen"].update(colour="red"),
            "flow.processors.gen.colour",
        ),
        (
            lambda d: flow_of(d)["processors"]["gen"]["schedule"].update(cron="* * *"),
            "flow.processors.gen.schedule.cron",
        ),
        (lambda d: flow_of(d)["connections"][0].update(label="x"), "flow.connections.0.label"),
        (
            lambda d: flow_of(d)["connections"][2]["back_pressure"].update(objects=3),
            "flow.connections.2.back_pressure.objects",
        ),
    ],
)
def test_unknown_key_is_forbidden(change: Callable[[dict[str, Any]], object], key: str) -> None:
    error = refused(mutated(change))
    assert error.key == key
    assert "Extra inputs are not permitted" in error.reason


def test_bad_time_period_in_schedule_period() -> None:
    error = refused(
        mutated(lambda d: flow_of(d)["processors"]["gen"]["schedule"].update(period="10 parsecs"))
    )
    assert error.key == "flow.processors.gen.schedule.period"
    assert "'10 parsecs' is not a valid time period" in error.reason


@pytest.mark.parametrize("field", ["penalty_duration", "yield_duration"])
def test_bad_time_period_in_durations(field: str) -> None:
    error = refused(mutated(lambda d: flow_of(d)["processors"]["tag"].update({field: "soon"})))
    assert error.key == f"flow.processors.tag.{field}"
    assert "'soon' is not a valid time period" in error.reason


def test_bad_data_size_in_back_pressure() -> None:
    error = refused(
        mutated(
            lambda d: flow_of(d)["connections"][2]["back_pressure"].update(
                data_size_threshold="1 XB"
            )
        )
    )
    assert error.key == "flow.connections.2.back_pressure.data_size_threshold"
    assert "'1 XB' is not a valid data size" in error.reason


def test_bad_data_size_in_default_back_pressure() -> None:
    error = refused(
        mutated(
            lambda d: flow_of(d).update(defaults={"back_pressure": {"data_size_threshold": "lots"}})
        )
    )
    assert error.key == "flow.defaults.back_pressure.data_size_threshold"
    assert "'lots' is not a valid data size" in error.reason


def test_negative_object_threshold() -> None:
    error = refused(
        mutated(lambda d: flow_of(d)["connections"][2]["back_pressure"].update(object_threshold=-1))
    )
    assert error.key == "flow.connections.2.back_pressure.object_threshold"


def test_zero_concurrent_tasks() -> None:
    error = refused(
        mutated(lambda d: flow_of(d)["processors"]["gen"]["schedule"].update(concurrent_tasks=0))
    )
    assert error.key == "flow.processors.gen.schedule.concurrent_tasks"


def test_unsupported_version() -> None:
    error = refused(mutated(lambda d: d.update(version=2)))
    assert error.key == "version"


def test_connection_from_unknown_processor() -> None:
    error = refused(mutated(lambda d: flow_of(d)["connections"][0].update({"from": "ghost"})))
    assert error.key == "flow.connections.0.from"
    assert error.reason == "no processor or input port named 'ghost'"


def test_connection_to_unknown_processor() -> None:
    error = refused(mutated(lambda d: flow_of(d)["connections"][2].update({"to": "ghost"})))
    assert error.key == "flow.connections.2.to"
    assert error.reason == "no processor named 'ghost'"


def test_connection_to_an_input_port_is_refused() -> None:
    error = refused(mutated(lambda d: flow_of(d)["connections"][0].update({"to": "incoming"})))
    assert error.key == "flow.connections.0.to"


def test_processor_connection_without_relationships() -> None:
    error = refused(mutated(lambda d: flow_of(d)["connections"][0].update(relationships=[])))
    assert error.key == "flow.connections.0.relationships"
    assert error.reason == "a connection from a processor needs relationships"


def test_port_connection_with_relationships() -> None:
    error = refused(
        mutated(lambda d: flow_of(d)["connections"][1].update(relationships=["success"]))
    )
    assert error.key == "flow.connections.1.relationships"
    assert error.reason == "a connection from an input port takes no relationships"


def test_duplicate_connection_names() -> None:
    def twice(data: dict[str, Any]) -> None:
        flow_of(data)["connections"].append(
            {"from": "gen", "relationships": ["success"], "to": "put", "name": "from-port"}
        )

    error = refused(mutated(twice))
    assert error.key == "flow.connections.3.name"
    assert error.reason == "connection name 'from-port' is used twice"


def test_duplicate_derived_connection_names() -> None:
    def twice(data: dict[str, Any]) -> None:
        flow_of(data)["connections"].append(
            {"from": "gen", "relationships": ["success"], "to": "tag"}
        )

    error = refused(mutated(twice))
    assert error.key == "flow.connections.3.name"
    assert "'gen.success->tag'" in error.reason


def test_unknown_parameter() -> None:
    error = refused(
        mutated(lambda d: flow_of(d)["processors"]["tag"]["properties"].update(x="#{missing}"))
    )
    assert error.key == "flow.processors.tag.properties.x"
    assert error.reason == "unknown parameter '#{missing}'"


def test_input_port_and_processor_share_a_name() -> None:
    error = refused(mutated(lambda d: flow_of(d).update(input_ports=["gen"])))
    assert error.key == "flow"
    assert "'gen' names both an input port and a processor" in error.reason


# -- errors found while building the node --------------------------------------------------


def node_refuses(settings: EngineSettings, data: dict[str, Any]) -> FlowDefinitionError:
    definition = parse_flow(data)
    with pytest.raises(FlowDefinitionError) as info:
        Node.from_flow(settings, definition)
    return info.value


def test_unknown_processor_type(settings_factory: SettingsFactory) -> None:
    data = mutated(lambda d: flow_of(d)["processors"]["tag"].update(type="NoSuchProcessor"))
    error = node_refuses(settings_factory(), data)
    assert error.key == "flow.processors.tag.type"
    assert "unknown processor type 'NoSuchProcessor'" in error.reason
    assert "UpdateAttribute" in error.reason  # the known types are listed


def test_invalid_property_value(settings_factory: SettingsFactory) -> None:
    data = mutated(
        lambda d: flow_of(d)["processors"]["gen"]["properties"].update({"File Size": "huge"})
    )
    error = node_refuses(settings_factory(), data)
    assert error.key == "flow.processors.gen.properties.File Size"
    assert error.reason.startswith("'File Size' validated against 'huge' is invalid because ")


def test_missing_required_property(settings_factory: SettingsFactory) -> None:
    data = mutated(lambda d: flow_of(d)["processors"]["put"].update(properties={}))
    error = node_refuses(settings_factory(), data)
    assert error.key == "flow.processors.put.properties.Directory"
    assert error.reason == "'Directory' is invalid because Directory is required"


def test_unsupported_property(settings_factory: SettingsFactory) -> None:
    data = mutated(lambda d: flow_of(d)["processors"]["put"]["properties"].update(Colour="red"))
    error = node_refuses(settings_factory(), data)
    assert error.key == "flow.processors.put.properties.Colour"
    assert "'Colour' is not a supported property" in error.reason


def test_relationship_neither_connected_nor_auto_terminated(
    settings_factory: SettingsFactory,
) -> None:
    data = mutated(lambda d: flow_of(d)["processors"]["put"].update(auto_terminate=["success"]))
    error = node_refuses(settings_factory(), data)
    assert error.key == "flow.processors.put"
    assert "failure" in error.reason
    assert "neither connected nor auto-terminated" in error.reason


def test_auto_terminate_unknown_relationship(settings_factory: SettingsFactory) -> None:
    data = mutated(lambda d: flow_of(d)["processors"]["put"]["auto_terminate"].append("retry"))
    error = node_refuses(settings_factory(), data)
    assert error.key == "flow.processors.put.auto_terminate"
    assert error.reason == "'PutFile' has no relationship 'retry'"


def test_connection_with_unknown_relationship(settings_factory: SettingsFactory) -> None:
    data = mutated(
        lambda d: flow_of(d)["connections"][0].update(relationships=["success", "bogus"])
    )
    error = node_refuses(settings_factory(), data)
    assert error.key == "flow.connections.0.relationships"
    assert error.reason == "'gen' has no relationship 'bogus'"


def test_unknown_prioritizer(settings_factory: SettingsFactory) -> None:
    data = mutated(lambda d: flow_of(d)["connections"][2].update(prioritizers=["Random"]))
    error = node_refuses(settings_factory(), data)
    assert error.key == "flow.connections.2.prioritizers"
    assert "unknown prioritizer 'Random'" in error.reason


def test_refused_node_releases_its_repositories(settings_factory: SettingsFactory) -> None:
    """A refused flow closes the node, so a corrected flow can open the same data dir."""
    settings = settings_factory()
    bad = mutated(lambda d: flow_of(d)["processors"]["tag"].update(type="NoSuchProcessor"))
    node_refuses(settings, bad)
    node = Node.from_flow(settings, parse_flow(base_flow()))
    node.close()


# -- files ----------------------------------------------------------------------------------


def test_load_flow_from_file(tmp_path: Path) -> None:
    path = tmp_path / "flow.yaml"
    path.write_text(
        "flow:\n"
        "  name: from-file\n"
        "  processors:\n"
        "    gen:\n"
        "      type: GenerateFlowFile\n"
        "      schedule: {period: 1 min}\n"
        "      auto_terminate: [success]\n",
        encoding="utf-8",
    )
    definition = load_flow(path)
    assert definition.flow.name == "from-file"
    assert definition.flow.processors["gen"].schedule.period == "1 min"


def test_load_flow_yaml_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("flow:\n  name: [unclosed\n  processors: {}\n", encoding="utf-8")
    with pytest.raises(FlowDefinitionError) as info:
        load_flow(path)
    assert info.value.key == str(path)
    assert info.value.reason.startswith("not valid YAML")


def test_load_flow_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.yaml"
    with pytest.raises(FlowDefinitionError) as info:
        load_flow(path)
    assert info.value.key == str(path)
    assert info.value.reason == "no such file"


def test_load_flow_empty_file_is_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("", encoding="utf-8")
    with pytest.raises(FlowDefinitionError) as info:
        load_flow(path)
    assert info.value.key == str(path)
    assert "mapping" in info.value.reason


def test_load_flow_reports_schema_errors_by_key(tmp_path: Path) -> None:
    path = tmp_path / "flow.yaml"
    path.write_text(
        "flow:\n  name: x\n  processors:\n    gen:\n      properties: {}\n", encoding="utf-8"
    )
    with pytest.raises(FlowDefinitionError) as info:
        load_flow(path)
    assert info.value.key == "flow.processors.gen.type"


def test_invalid_controller_service_properties_name_the_key(tmp_path: Path) -> None:
    from flowcore.clock import ManualClock
    from flowcore.engine import Node
    from flowcore.settings import EngineSettings

    flow = parse_flow(
        {
            "flow": {
                "name": "f",
                "controller_services": {
                    "reader": {
                        "type": "CSVReader",
                        "properties": {"Treat First Line as Header": "sometimes"},
                    }
                },
            }
        }
    )
    with pytest.raises(FlowDefinitionError) as caught:
        Node.from_flow(EngineSettings(data_dir=tmp_path), flow, ManualClock())
    assert (
        caught.value.key == "flow.controller_services.reader.properties.Treat First Line as Header"
    )
    assert "'Treat First Line as Header' validated against 'sometimes' is invalid" in str(
        caught.value
    )


# -- every problem at once ----------------------------------------------------------------


def test_schema_errors_are_all_reported() -> None:
    def change(d: dict[str, Any]) -> None:
        flow_of(d)["processors"]["gen"]["schedule"]["period"] = "soon"
        flow_of(d)["processors"]["tag"]["penalty_duration"] = "later"
        flow_of(d)["connections"][0]["colour"] = "red"

    error = refused(mutated(change))
    keys = {p.key for p in error.problems}
    assert {
        "flow.processors.gen.schedule.period",
        "flow.processors.tag.penalty_duration",
        "flow.connections.0.colour",
    } <= keys
    for key in keys:
        assert key in str(error)


def test_reference_and_parameter_errors_are_all_reported() -> None:
    def change(d: dict[str, Any]) -> None:
        flow_of(d)["connections"][0]["to"] = "nowhere"
        flow_of(d)["processors"]["tag"]["properties"]["x"] = "#{missing}"

    error = refused(mutated(change))
    assert [p.key for p in error.problems] == [
        "flow.connections.0.to",
        "flow.processors.tag.properties.x",
    ]


def test_every_invalid_property_of_every_component_is_reported(
    settings_factory: SettingsFactory,
) -> None:
    def change(d: dict[str, Any]) -> None:
        flow_of(d)["processors"]["gen"]["properties"]["File Size"] = "huge"
        flow_of(d)["processors"]["gen"]["properties"]["Batch Size"] = "many"
        flow_of(d)["processors"]["put"]["properties"] = {"Colour": "red"}

    error = node_refuses(settings_factory(), mutated(change))
    assert [p.key for p in error.problems] == [
        "flow.processors.gen.properties.File Size",
        "flow.processors.gen.properties.Batch Size",
        "flow.processors.put.properties.Colour",
        "flow.processors.put.properties.Directory",
    ]
    assert str(error).startswith("4 problems:")


def merge_flow(writer: str) -> dict[str, Any]:
    return {
        "flow": {
            "name": "merge",
            "controller_services": {
                "reader": {"type": "CSVReader"},
                "writer": {"type": "CSVRecordSetWriter"},
            },
            "processors": {
                "merge": {
                    "type": "MergeRecord",
                    "properties": {"Record Reader": "reader", "Record Writer": writer},
                    "auto_terminate": ["merged", "original", "failure"],
                }
            },
        }
    }


@pytest.mark.parametrize(
    ("writer", "explanation"),
    [
        ("absent", "absent is not a valid Controller Service Identifier"),
        ("reader", "reader is not a RecordSetWriterFactory"),
    ],
)
def test_controller_service_property_must_name_a_service_of_its_interface(
    settings_factory: SettingsFactory, writer: str, explanation: str
) -> None:
    error = node_refuses(settings_factory(), merge_flow(writer))
    assert error.key == "flow.processors.merge.properties.Record Writer"
    assert f"Invalid Controller Service: {explanation}" in error.reason


def test_controller_service_property_naming_a_service_of_its_interface_is_valid(
    settings_factory: SettingsFactory,
) -> None:
    Node.from_flow(settings_factory(), parse_flow(merge_flow("writer"))).close()


def test_parameter_overrides_replace_and_add_parameters() -> None:
    from flowcore.flow.definition import parameter_overrides

    def change(d: dict[str, Any]) -> None:
        flow_of(d)["processors"]["tag"]["properties"]["secret"] = "#{api.key}"

    with parameter_overrides({"SIZE": "2 KB", "api.key": "s3cret"}):
        definition = parse_flow(mutated(change))

    assert definition.flow.processors["gen"].properties["File Size"] == "2 KB"
    assert definition.flow.processors["tag"].properties["secret"] == "s3cret"
    # Outside the block the flow's own values are back.
    assert parse_flow(base_flow()).flow.processors["gen"].properties["File Size"] == "1 KB"
