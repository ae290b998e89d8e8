"""LookupRecord: TestLookupRecord's scenarios through the TestRunner, with the lookup
services of the record layer."""

from __future__ import annotations

import json
from collections.abc import Callable

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
PEOPLE = "name,age,sport\nJohn Doe,48,\nJane Doe,47,\nJimmy Doe,14,\n"
SPORTS = {"John Doe": "Soccer", "Jane Doe": "Basketball"}


def _runner(
    make_runner: RunnerFactory,
    properties: dict[str, str],
    entries: dict[str, str] | None = None,
    json_io: bool = False,
) -> TestRunner:
    kwargs: dict[str, object] = {}
    if json_io:
        kwargs = {
            "reader_type": "JsonTreeReader",
            "writer_type": "JsonRecordSetWriter",
            "writer": {"Output Grouping": "One Line Per Object"},
        }
    runner = make_runner("LookupRecord", **kwargs)
    runner.add_controller_service(
        "lookup", "SimpleKeyValueLookupService", entries if entries is not None else SPORTS
    )
    runner.set_property("Lookup Service", "lookup")
    for name, value in properties.items():
        runner.set_property(name, value)
    return runner


def _content(runner: TestRunner, relationship: str) -> str:
    return runner.get_flowfiles_for_relationship(relationship)[0].content.decode()


def test_matched_and_unmatched(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        {
            "key": "/name",
            "Result RecordPath": "/sport",
            "Routing Strategy": "Route to 'matched' or 'unmatched'",
        },
    )
    original = runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    assert _content(runner, "matched") == (
        "name,age,sport\nJohn Doe,48,Soccer\nJane Doe,47,Basketball\n"
    )
    assert _content(runner, "unmatched") == "name,age,sport\nJimmy Doe,14,\n"
    matched = runner.get_flowfiles_for_relationship("matched")[0]
    matched.assert_attribute_equals("record.count", "2")
    matched.assert_attribute_equals("mime.type", "text/csv")
    events = runner.get_provenance_events()
    assert any(
        e.event_type == ProvenanceEventType.FORK and e.flowfile_uuid == original.uuid
        for e in events
    )


def test_route_to_success_enriches_in_place(make_runner: RunnerFactory) -> None:
    runner = _runner(make_runner, {"key": "/name", "Result RecordPath": "/sport"})
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    assert _content(runner, "success") == (
        "name,age,sport\nJohn Doe,48,Soccer\nJane Doe,47,Basketball\nJimmy Doe,14,\n"
    )
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals("record.count", "3")


def test_all_match_gives_one_flowfile(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        {"key": "/name", "Routing Strategy": "route-to-matched-unmatched"},
        {"John Doe": "x", "Jane Doe": "y", "Jimmy Doe": "z"},
    )
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_all_flowfiles_transferred("matched", 1)
    assert _content(runner, "matched") == PEOPLE


def test_no_result_path_only_routes(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner, {"key": "/name", "Routing Strategy": "route-to-matched-unmatched"}
    )
    runner.enqueue(PEOPLE)
    runner.run()
    assert _content(runner, "matched") == "name,age,sport\nJohn Doe,48,\nJane Doe,47,\n"


def test_result_into_new_field(make_runner: RunnerFactory) -> None:
    runner = _runner(make_runner, {"key": "/name", "Result RecordPath": "/favorite"}, json_io=True)
    runner.enqueue('{"name":"John Doe"}\n{"name":"Nobody"}\n')
    runner.run()
    lines = [json.loads(x) for x in _content(runner, "success").splitlines()]
    assert lines == [
        {"name": "John Doe", "favorite": "Soccer"},
        {"name": "Nobody", "favorite": None},
    ]


def test_multiple_values_for_a_coordinate_do_not_match(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        {"key": "/names[*]", "Routing Strategy": "route-to-matched-unmatched"},
        json_io=True,
    )
    runner.enqueue('{"names":["John Doe","Jane Doe"]}\n{"names":["John Doe"]}\n')
    runner.run()
    assert _content(runner, "unmatched") == '{"names":["John Doe","Jane Doe"]}\n'
    assert _content(runner, "matched") == '{"names":["John Doe"]}\n'


def test_replace_existing_values(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        {"names": "/people[*]/name", "Record Update Strategy": "Replace Existing Values"},
        {"a": "Alice", "b": "Bob"},
        json_io=True,
    )
    runner.enqueue('{"people":[{"name":"a"},{"name":"b"}]}\n')
    runner.run()
    assert _content(runner, "success") == '{"people":[{"name":"Alice"},{"name":"Bob"}]}\n'


def test_root_record_path(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        {
            "key": "/name",
            "Root Record Path": "/people[*]",
            "Result RecordPath": "/sport",
            "Routing Strategy": "route-to-matched-unmatched",
        },
        json_io=True,
    )
    runner.enqueue(
        '{"people":[{"name":"John Doe","sport":null},{"name":"Jane Doe","sport":null}]}\n'
        '{"people":[{"name":"John Doe","sport":null},{"name":"X","sport":null}]}\n'
    )
    runner.run()
    assert json.loads(_content(runner, "matched")) == {
        "people": [
            {"name": "John Doe", "sport": "Soccer"},
            {"name": "Jane Doe", "sport": "Basketball"},
        ]
    }
    assert json.loads(_content(runner, "unmatched")) == {
        "people": [{"name": "John Doe", "sport": "Soccer"}, {"name": "X", "sport": None}]
    }


def test_insert_record_fields(make_runner: RunnerFactory) -> None:
    from processors.record.lookup import KEY

    class RecordLookup:
        required_keys = frozenset({KEY})

        def lookup(self, coordinates: dict[str, object], context: object = None) -> object | None:
            return {"city": "Paris", "zip": "75001"} if coordinates[KEY] == "a" else None

    from flowcore.processor import ControllerService

    class Service(ControllerService, RecordLookup):
        pass

    runner = make_runner(
        "LookupRecord",
        reader_type="JsonTreeReader",
        writer_type="JsonRecordSetWriter",
        writer={"Output Grouping": "One Line Per Object"},
    )
    runner.add_controller_service("lookup", Service())
    for name, value in {
        "Lookup Service": "lookup",
        "key": "/name",
        "Result RecordPath": "/address",
        "Record Result Contents": "Insert Record Fields",
    }.items():
        runner.set_property(name, value)
    runner.enqueue('{"name":"a","address":{"street":"Rue"}}\n')
    runner.run()
    assert json.loads(_content(runner, "success")) == {
        "name": "a",
        "address": {"street": "Rue", "city": "Paris", "zip": "75001"},
    }


def test_validation(make_runner: RunnerFactory) -> None:
    runner = _runner(make_runner, {})
    assert runner.validation_errors() == [
        "'User-Defined Properties' is invalid because At least one user-defined property must "
        "be specified."
    ]
    runner.set_property("other", "/name")
    errors = runner.validation_errors()
    assert len(errors) == 1
    assert "requires that a key be provided with the name 'key'" in errors[0]
    runner.set_property("key", "/name[")
    assert any("Invalid RecordPath" in e for e in runner.validation_errors())
    runner.set_property("key", "/name")
    runner.assert_valid()


def test_relationships_follow_routing_strategy(make_runner: RunnerFactory) -> None:
    runner = _runner(make_runner, {"key": "/name"})
    processor = runner.processor
    assert [r.name for r in processor.get_relationships({})] == ["success", "failure"]
    assert [
        r.name
        for r in processor.get_relationships({"routing-strategy": "route-to-matched-unmatched"})
    ] == ["matched", "unmatched", "failure"]


def test_bad_content_goes_to_failure(make_runner: RunnerFactory) -> None:
    runner = _runner(make_runner, {"key": "/name"}, json_io=True)
    runner.enqueue('{"name": ')
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals('{"name": ')


def test_csv_file_lookup_service(make_runner: RunnerFactory, tmp_path: object) -> None:
    from pathlib import Path

    table = Path(str(tmp_path)) / "sports.csv"
    table.write_text("person,sport\nJohn Doe,Soccer\nJane Doe,Basketball\n")
    runner = make_runner("LookupRecord")
    runner.add_controller_service(
        "lookup",
        "SimpleCsvFileLookupService",
        {"CSV File": str(table), "Lookup Key Column": "person", "Lookup Value Column": "sport"},
    )
    for name, value in {
        "Lookup Service": "lookup",
        "key": "/name",
        "Result RecordPath": "/sport",
    }.items():
        runner.set_property(name, value)
    runner.enqueue(PEOPLE)
    runner.run()
    assert _content(runner, "success") == (
        "name,age,sport\nJohn Doe,48,Soccer\nJane Doe,47,Basketball\nJimmy Doe,14,\n"
    )


def test_route_to_success_creates_a_child_and_drops_the_original(
    make_runner: RunnerFactory,
) -> None:
    runner = _runner(make_runner, {"key": "/name", "Result RecordPath": "/sport"})
    original = runner.enqueue(PEOPLE)
    runner.run()
    child = runner.get_flowfiles_for_relationship("success")[0]
    assert child.uuid != original.uuid
    types = {e.event_type for e in runner.get_provenance_events()}
    assert ProvenanceEventType.FORK in types
    assert ProvenanceEventType.DROP in types


def test_zero_records_drop_the_flowfile(make_runner: RunnerFactory) -> None:
    runner = _runner(make_runner, {"key": "/name"})
    runner.enqueue("name,age,sport\n")
    runner.run()
    runner.assert_transfer_count("success", 0)
    runner.assert_transfer_count("failure", 0)
    runner.assert_queue_empty()


def test_root_record_path_to_an_array(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        {
            "key": "/name",
            "Root Record Path": "/people",
            "Result RecordPath": "/sport",
            "Routing Strategy": "route-to-matched-unmatched",
        },
        json_io=True,
    )
    runner.enqueue('{"people":[{"name":"John Doe","sport":null}]}\n{"people":[]}\n')
    runner.run()
    assert json.loads(_content(runner, "matched")) == {
        "people": [{"name": "John Doe", "sport": "Soccer"}]
    }
    assert json.loads(_content(runner, "unmatched")) == {"people": []}


def test_replace_existing_values_with_only_nulls_does_not_match(
    make_runner: RunnerFactory,
) -> None:
    runner = _runner(
        make_runner,
        {
            "names": "/name",
            "Record Update Strategy": "replace-existing-values",
            "Routing Strategy": "route-to-matched-unmatched",
        },
        json_io=True,
    )
    runner.enqueue('{"name":null}\n{"name":"John Doe"}\n')
    runner.run()
    assert _content(runner, "unmatched") == '{"name":null}\n'
    assert _content(runner, "matched") == '{"name":"Soccer"}\n'


def test_null_coordinate_values_are_ignored(make_runner: RunnerFactory) -> None:
    runner = _runner(
        make_runner,
        {"key": "/names[*]", "Routing Strategy": "route-to-matched-unmatched"},
        json_io=True,
    )
    runner.enqueue('{"names":[null,"Jane Doe"]}\n{"names":[null]}\n')
    runner.run()
    assert _content(runner, "matched") == '{"names":[null,"Jane Doe"]}\n'
    assert _content(runner, "unmatched") == '{"names":[null]}\n'


def test_cache_size_caches_within_a_flowfile(make_runner: RunnerFactory) -> None:
    from flowcore.processor import ControllerService
    from processors.record.lookup import KEY

    class Counting(ControllerService):
        required_keys = frozenset({KEY})

        def __init__(self) -> None:
            self.calls = 0

        def lookup(self, coordinates: dict[str, object], context: object = None) -> object | None:
            self.calls += 1
            return "x"

    service = Counting()
    runner = make_runner("LookupRecord")
    runner.add_controller_service("lookup", service)
    for name, value in {"Lookup Service": "lookup", "key": "/name", "Cache Size": "10"}.items():
        runner.set_property(name, value)
    runner.enqueue("name,age,sport\na,1,\na,2,\nb,3,\n")
    runner.enqueue("name,age,sport\na,1,\n")
    runner.run(2)
    assert service.calls == 3
