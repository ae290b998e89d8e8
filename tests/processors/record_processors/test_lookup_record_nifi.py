"""NiFi's TestLookupRecord, ported (MockRecordParser -> JsonTreeReader with the schema,
MockRecordWriter(null) -> CSVRecordSetWriter without a header line; NiFi's test lookup
services become the lookup services below). NiFi's test resources are in
``nifi_resources/TestLookupRecord``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from flowcore.processor import ControllerService
from flowcore.testing import TestRunner
from tests.processors.record_processors.nifi_ports import (
    avro_schema,
    json_reader,
    json_records,
    migrated,
    resource,
)

RunnerFactory = Callable[..., TestRunner]
PEOPLE_SCHEMA = avro_schema([("name", "string"), ("age", "int"), ("sport", "string")])
PEOPLE = json_records(
    ["name", "age", "sport"],
    ("John Doe", 48, None),
    ("Jane Doe", 47, None),
    ("Jimmy Doe", 14, None),
)
MATCHED_UNMATCHED = "route-to-matched-unmatched"
ROUTE_TO_SUCCESS = "route-to-success"
RECORD_FIELDS = "record-fields"
REPLACE_EXISTING = "replace-existing-values"


class MapLookup(ControllerService):
    """NiFi's test MapLookup: a string lookup on the coordinate ``lookup``."""

    property_descriptors = ()

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        self.values: dict[str, Any] = dict(values or {})

    @property
    def required_keys(self) -> frozenset[str]:
        return frozenset({"lookup"})

    def lookup(
        self, coordinates: Mapping[str, Any], context: Mapping[str, str] | None = None
    ) -> Any | None:
        key = coordinates.get("lookup")
        return None if key is None else self.values.get(str(key))


class MapLookupForInPlaceReplacement(MapLookup):
    """NiFi's MapLookupForInPlaceReplacement: looks up the first coordinate's value."""

    def lookup(
        self, coordinates: Mapping[str, Any], context: Mapping[str, str] | None = None
    ) -> Any | None:
        key = next(iter(coordinates.values()))
        return None if key is None else self.values.get(str(key))


def mock_lookup(
    make_runner: RunnerFactory,
    values: Mapping[str, Any] | None = None,
    schema: str = PEOPLE_SCHEMA,
    routing: str = MATCHED_UNMATCHED,
) -> TestRunner:
    """NiFi's setup: records of ``schema`` in, CSV without a header out, MapLookup on
    ``lookup`` = ``/name``, Result RecordPath ``/sport``."""
    runner = make_runner(
        "LookupRecord",
        reader_type="JsonTreeReader",
        reader=json_reader(schema),
        writer={"Include Header Line": "false"},
    )
    runner.add_controller_service("lookup", MapLookup(values))
    runner.set_property("Lookup Service", "lookup")
    runner.set_property("lookup", "/name")
    runner.set_property("Result RecordPath", "/sport")
    runner.set_property("Routing Strategy", routing)
    return runner


SPORTS = {"John Doe": "Soccer", "Jane Doe": "Basketball", "Jimmy Doe": "Football"}
# NiFi's MapLookup keys a Timestamp coordinate by its toString(); this one by str().
TIMESTAMP_KEY = str(datetime.fromtimestamp(0, UTC))
MIME_TYPES = {"file1.txt": "text/plain", "file2.pdf": "application/pdf", "file3.jpg": "image/jpeg"}


def root_runner(make_runner: RunnerFactory, routing: str = ROUTE_TO_SUCCESS) -> TestRunner:
    """NiFi's setupForRootElement: JSON in and out (pretty printed), Root Record Path
    ``/fileSet/files[*]``, ``lookup`` = ``/filename`` into ``/mimeType``."""
    runner = make_runner(
        "LookupRecord",
        reader_type="JsonTreeReader",
        reader={"Schema Access Strategy": "infer-schema"},
        writer_type="JsonRecordSetWriter",
        writer={"Pretty Print JSON": "true"},
    )
    runner.add_controller_service("lookup", MapLookup(MIME_TYPES))
    runner.set_property("Lookup Service", "lookup")
    runner.set_property("Root Record Path", "/fileSet/files[*]")
    runner.set_property("Result RecordPath", "/mimeType")
    runner.set_property("Routing Strategy", routing)
    runner.set_property("lookup", "/filename")
    return runner


def file_set(*files: tuple[str, int]) -> str:
    return json.dumps(
        {
            "fileSet": {
                "id": "11223344",
                "source": "external",
                "files": [{"filename": name, "size": size} for name, size in files],
            }
        }
    )


def pretty_file_set(*files: tuple[str, int, str | None] | tuple[str, int]) -> str:
    """The pretty-printed output NiFi's tests expect (Jackson's layout)."""
    entries = []
    for entry in files:
        lines = [f'"filename" : "{entry[0]}"', f'"size" : {entry[1]}']
        if len(entry) == 3:
            lines.append('"mimeType" : ' + ("null" if entry[2] is None else f'"{entry[2]}"'))
        entries.append("{\n      " + ",\n      ".join(lines) + "\n    }")
    return (
        '[ {\n  "fileSet" : {\n    "id" : "11223344",\n    "source" : "external",\n'
        '    "files" : [ ' + ", ".join(entries) + " ]\n  }\n} ]"
    )


def only(runner: TestRunner, relationship: str) -> Any:
    runner.assert_all_flowfiles_transferred(relationship, 1)
    return runner.get_flowfiles_for_relationship(relationship)[0]


def test_nifi_root_record_success_some_matches(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testRootRecordSuccessSomeMatches."""
    runner = root_runner(make_runner)
    runner.enqueue(
        file_set(("file1.txt", 4810), ("file2.pdf", 47203782), ("unknown-file.unk", 278102))
    )
    runner.run()
    assert only(runner, "success").text() == pretty_file_set(
        ("file1.txt", 4810, "text/plain"),
        ("file2.pdf", 47203782, "application/pdf"),
        ("unknown-file.unk", 278102, None),
    )


def test_nifi_root_record_success_all_match(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testRootRecordSuccessAllMatch."""
    runner = root_runner(make_runner)
    runner.enqueue(file_set(("file1.txt", 4810), ("file2.pdf", 47203782)))
    runner.run()
    assert only(runner, "success").text() == pretty_file_set(
        ("file1.txt", 4810, "text/plain"), ("file2.pdf", 47203782, "application/pdf")
    )


def test_nifi_root_record_success_none_match(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testRootRecordSuccessNoneMatch."""
    runner = root_runner(make_runner)
    runner.enqueue(file_set(("abc.abc", 4810), ("xyz.xyz", 47203782)))
    runner.run()
    assert only(runner, "success").text() == pretty_file_set(
        ("abc.abc", 4810), ("xyz.xyz", 47203782)
    )


def test_nifi_root_record_route_to_matched_unmatched_all_match(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testRootRecordRouteToMatchedUnmatchedAllMatch."""
    runner = root_runner(make_runner, MATCHED_UNMATCHED)
    runner.enqueue(file_set(("file1.txt", 4810), ("file2.pdf", 47203782)))
    runner.run()
    assert only(runner, "matched").text() == pretty_file_set(
        ("file1.txt", 4810, "text/plain"), ("file2.pdf", 47203782, "application/pdf")
    )


def test_nifi_root_record_route_to_matched_unmatched_some_match(
    make_runner: RunnerFactory,
) -> None:
    """NiFi TestLookupRecord.testRootRecordRouteToMatchedUnmatchedSomeMatch."""
    runner = root_runner(make_runner, MATCHED_UNMATCHED)
    runner.enqueue(file_set(("file1.txt", 4810), ("xyz.xyz", 47203782)))
    runner.run()
    assert only(runner, "unmatched").text() == pretty_file_set(
        ("file1.txt", 4810, "text/plain"), ("xyz.xyz", 47203782, None)
    )


def test_nifi_root_record_pointing_to_array(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testRootRecordPointingToArray."""
    runner = root_runner(make_runner)
    runner.set_property("Root Record Path", "/fileSet/files")
    runner.enqueue(file_set(("file1.txt", 4810), ("file2.pdf", 47203782)))
    runner.run()
    assert only(runner, "success").text() == pretty_file_set(
        ("file1.txt", 4810, "text/plain"), ("file2.pdf", 47203782, "application/pdf")
    )


def test_nifi_all_match(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testAllMatch."""
    runner = mock_lookup(make_runner, SPORTS)
    runner.enqueue(PEOPLE)
    runner.run()
    out = only(runner, "matched")
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("mime.type", "text/csv")
    assert out.text() == "John Doe,48,Soccer\nJane Doe,47,Basketball\nJimmy Doe,14,Football\n"


def test_nifi_lookup_with_timestamp(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testLookupWithTimestamp."""
    schema = avro_schema(
        [
            ("name", "string"),
            ("age", "int"),
            ("sport", "string"),
            ("record_timestamp", {"type": "long", "logicalType": "timestamp-millis"}),
        ]
    )
    runner = mock_lookup(make_runner, {TIMESTAMP_KEY: "Bowling"}, schema)
    # MockRecordWriter writes a timestamp in its type's default format; the CSV writer
    # writes epoch milliseconds unless given that format.
    writer = runner.add_controller_service(
        "timestamp-writer",
        "CSVRecordSetWriter",
        {"Include Header Line": "false", "Timestamp Format": "yyyy-MM-dd HH:mm:ss"},
    )
    assert writer is not None
    runner.set_property("Record Writer", "timestamp-writer")
    runner.set_property("lookup", "/record_timestamp")
    rows = [(n, a, None, None) for n, a in (("John Doe", 48), ("Jane Doe", 47), ("Jimmy Doe", 14))]
    rows.append(("Jason Doe", 15, None, 0))
    runner.enqueue(json_records(["name", "age", "sport", "record_timestamp"], *rows))
    runner.run()
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    out = runner.get_flowfiles_for_relationship("matched")[0]
    out.assert_attribute_equals("record.count", "1")
    out.assert_attribute_equals("mime.type", "text/csv")
    assert re.fullmatch(
        r"Jason Doe,15,Bowling,19[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\n",
        out.text(),
    )


def test_nifi_flowfile_attributes_passed(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testFlowfileAttributesPassed."""
    runner = mock_lookup(make_runner, SPORTS)
    service = ContextCheckingLookup(
        SPORTS, {"schema.name": "person", "something_something": "test"}
    )
    runner.add_controller_service("context-lookup", service)
    runner.set_property("Lookup Service", "context-lookup")
    runner.enqueue(PEOPLE, {"schema.name": "person", "something_something": "test"})
    runner.run()
    out = only(runner, "matched")
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("mime.type", "text/csv")
    assert out.text() == "John Doe,48,Soccer\nJane Doe,47,Basketball\nJimmy Doe,14,Football\n"
    assert service.contexts and all(
        {"schema.name": "person", "something_something": "test"}.items() <= c.items()
        for c in service.contexts
    )


def test_nifi_all_unmatched(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testAllUnmatched."""
    runner = mock_lookup(make_runner)
    runner.enqueue(PEOPLE)
    runner.run()
    out = only(runner, "unmatched")
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("mime.type", "text/csv")
    assert out.text() == "John Doe,48,\nJane Doe,47,\nJimmy Doe,14,\n"


def test_nifi_mixture_of_match(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testMixtureOfMatch."""
    runner = mock_lookup(make_runner, {"John Doe": "Soccer", "Jimmy Doe": "Football"})
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("matched", 1)
    runner.assert_transfer_count("unmatched", 1)
    matched = runner.get_flowfiles_for_relationship("matched")[0]
    matched.assert_attribute_equals("record.count", "2")
    matched.assert_attribute_equals("mime.type", "text/csv")
    assert matched.text() == "John Doe,48,Soccer\nJimmy Doe,14,Football\n"
    unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    unmatched.assert_attribute_equals("record.count", "1")
    unmatched.assert_attribute_equals("mime.type", "text/csv")
    assert unmatched.text() == "Jane Doe,47,\n"


def test_nifi_all_match_but_first_route_to_success(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testAllMatchButFirstRouteToSuccess."""
    values = {"Jane Doe": "Soccer", "Jimmy Doe": "Football"}
    runner = mock_lookup(make_runner, values, routing=ROUTE_TO_SUCCESS)
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    out = only(runner, "success")
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("mime.type", "text/csv")
    assert out.text() == "John Doe,48,\nJane Doe,47,Soccer\nJimmy Doe,14,Football\n"


def test_nifi_result_path_not_found(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testResultPathNotFound."""
    runner = mock_lookup(make_runner, SPORTS)
    runner.set_property("Result RecordPath", "/other")
    runner.enqueue(PEOPLE)
    runner.run()
    out = only(runner, "matched")
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("mime.type", "text/csv")
    assert out.text() == "John Doe,48,,Soccer\nJane Doe,47,,Basketball\nJimmy Doe,14,,Football\n"


def test_nifi_lookup_path_not_found(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testLookupPathNotFound."""
    runner = mock_lookup(make_runner)
    runner.set_property("lookup", "/other")
    runner.enqueue(PEOPLE)
    runner.run()
    out = only(runner, "unmatched")
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("mime.type", "text/csv")
    assert out.text() == "John Doe,48,\nJane Doe,47,\nJimmy Doe,14,\n"


def test_nifi_unparseable_data(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testUnparseableData."""
    runner = mock_lookup(make_runner)
    # MockRecordParser.failAfter(1): the second record cannot be read.
    runner.enqueue('[{"name": "John Doe", "age": 48}, {"name": ')
    runner.run()
    out = only(runner, "failure")
    out.assert_attribute_not_exists("record.count")
    assert out.text() == '[{"name": "John Doe", "age": 48}, {"name": '


def test_nifi_no_result_path(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testNoResultPath."""
    runner = mock_lookup(make_runner, SPORTS)
    runner.remove_property("Result RecordPath")
    runner.enqueue(PEOPLE)
    runner.run()
    out = only(runner, "matched")
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("mime.type", "text/csv")
    assert out.text() == "John Doe,48,\nJane Doe,47,\nJimmy Doe,14,\n"


def test_nifi_multiple_lookup_paths(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testMultipleLookupPaths."""
    runner = mock_lookup(make_runner, SPORTS)
    runner.set_property("lookup", "/*")
    runner.enqueue(PEOPLE)
    runner.run()
    out = only(runner, "unmatched")
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("mime.type", "text/csv")
    assert out.text() == "John Doe,48,\nJane Doe,47,\nJimmy Doe,14,\n"


def test_nifi_invalid_unless_all_required_properties_added(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testInvalidUnlessAllRequiredPropertiesAdded."""
    runner = mock_lookup(make_runner)
    runner.remove_property("lookup")
    runner.set_property("hello", "/name")
    runner.assert_not_valid()
    runner.set_property("lookup", "xx")
    runner.assert_not_valid()
    runner.set_property("lookup", "/name")
    runner.assert_valid()


def record_lookup_runner(
    make_runner: RunnerFactory, schema: str, routing: str = MATCHED_UNMATCHED
) -> TestRunner:
    """NiFi's RecordLookup: John Doe -> the record {favorite: basketball, least: soccer}."""
    runner = mock_lookup(make_runner, schema=schema, routing=routing)
    runner.add_controller_service(
        "record-lookup", MapLookup({"John Doe": {"favorite": "basketball", "least": "soccer"}})
    )
    runner.set_property("Lookup Service", "record-lookup")
    runner.set_property("Record Result Contents", RECORD_FIELDS)
    return runner


def test_nifi_add_fields_to_existing_record(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testAddFieldsToExistingRecord."""
    schema = avro_schema(
        [("name", "string"), ("age", "int"), ("favorite", "string"), ("least", "string")]
    )
    runner = record_lookup_runner(make_runner, schema)
    runner.set_property("Result RecordPath", "/")
    runner.enqueue(
        json_records(["name", "age", "favorite", "least"], ("John Doe", 48, None, "baseball"))
    )
    runner.run()
    assert only(runner, "matched").text() == "John Doe,48,basketball,soccer\n"


def test_nifi_add_fields_to_existing_record_route_to_success(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testAddFieldsToExistingRecordRouteToSuccess."""
    schema = avro_schema([("name", "string"), ("age", "int")])
    runner = record_lookup_runner(make_runner, schema, ROUTE_TO_SUCCESS)
    runner.set_property("Result RecordPath", "/")
    runner.enqueue(json_records(["name", "age"], ("John Doe", 48), ("Jane Doe", 47)))
    runner.run()
    # NiFi's MockRecordWriter writes each record's own fields; the CSV writer writes the
    # schema's (enriched) columns, empty where a record has no value.
    assert only(runner, "success").text() == "John Doe,48,basketball,soccer\nJane Doe,47,,\n"


def in_place_runner(
    make_runner: RunnerFactory,
    values: Mapping[str, str],
    coordinates: Mapping[str, str],
    routing: str = ROUTE_TO_SUCCESS,
    writer: Mapping[str, str] | None = None,
) -> TestRunner:
    """NiFi's in-place replacement tests: JSON inferred in, JSON inheriting the schema out."""
    writer_props = {"Schema Access Strategy": "inherit-record-schema", **(writer or {})}
    runner = make_runner(
        "LookupRecord",
        reader_type="JsonTreeReader",
        reader={"Schema Access Strategy": "infer-schema"},
        writer_type="JsonRecordSetWriter",
        writer=writer_props,
    )
    runner.add_controller_service("lookup", MapLookupForInPlaceReplacement(values))
    runner.set_property("Lookup Service", "lookup")
    runner.set_property("Routing Strategy", routing)
    runner.set_property("Record Update Strategy", REPLACE_EXISTING)
    for name, path in coordinates.items():
        runner.set_property(name, path)
    return runner


def test_nifi_lookup_array(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testLookupArray."""
    values = {"FR": "France", "CA": "Canada", "fr": "French", "key": "value"}
    coordinates = {
        "lookupLanguage": "/locales[*]/language",
        "lookupRegion": "/locales[*]/region",
        "lookupFoo": "/foo/foo",
    }
    runner = in_place_runner(make_runner, values, coordinates)
    runner.enqueue(resource("TestLookupRecord/lookup-array-input.json"))
    runner.run()
    assert only(runner, "success").text() == resource("TestLookupRecord/lookup-array-output.json")


def test_nifi_lookup_empty_array(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testLookupEmptyArray."""
    values = {
        "CA": "Canada",
        "CAD": "Canadian dollar",
        "en": "English",
        "EUR": "Euro",
        "ja": "Japanese",
        "JP": "Japan",
        "JPY": "Japanese yen",
        "US": "United States",
        "USD": "United States Dollar",
        "fr": "French",
        "FR": "France",
        "original": "updated",
        "orgValue": "newValue",
        "orgValue2": "newValue2",
    }
    coordinates = {
        "lookupLanguage": "/locales[*]/language",
        "lookupRegion": "/locales[*]/region",
        "lookupCurrency": "/currencies[*]/currency",
        "lookupFoo": "/foo/foo",
        "lookupBar": "/bar",
    }
    runner = in_place_runner(make_runner, values, coordinates)
    runner.enqueue(resource("TestLookupRecord/lookup-array-input-empty-array.json"))
    runner.run()
    assert only(runner, "success").text() == resource(
        "TestLookupRecord/lookup-array-output-empty-array.json"
    )


def test_nifi_lookup_missing_json_field(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testLookupMissingJsonField."""
    runner = in_place_runner(
        make_runner,
        {"original": "updated"},
        {"lookupFoo": "/foo/foo"},
        MATCHED_UNMATCHED,
        {"Suppress Null Values": "always-suppress"},
    )
    runner.enqueue(resource("TestLookupRecord/lookup-array-input-missing.json"))
    runner.run()
    runner.assert_transfer_count("unmatched", 1)
    runner.assert_transfer_count("matched", 1)
    unmatched = runner.get_flowfiles_for_relationship("unmatched")[0]
    assert unmatched.text() == resource(
        "TestLookupRecord/lookup-array-output-missing-unmatched.json"
    )
    matched = runner.get_flowfiles_for_relationship("matched")[0]
    assert matched.text() == resource("TestLookupRecord/lookup-array-output-missing-matched.json")


def test_nifi_lookup_array_key_not_in_lrs(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testLookupArrayKeyNotInLRS."""
    values = {"FR": "France", "fr": "French", "badkey": "value"}
    coordinates = {
        "lookupLanguage": "/locales[*]/language",
        "lookupRegion": "/locales[*]/region",
        "lookupFoo": "/foo/foo",
    }
    runner = in_place_runner(make_runner, values, coordinates, MATCHED_UNMATCHED)
    runner.enqueue(resource("TestLookupRecord/lookup-array-input-unmatched.json"))
    runner.run()
    assert only(runner, "unmatched").text() == resource(
        "TestLookupRecord/lookup-array-output-unmatched.json"
    )


def test_nifi_literal_coordinate(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testLiteralCoordinate."""
    runner = mock_lookup(make_runner, {"lookupKey": "lookupValue"})
    runner.set_property("lookup", "toString('lookupKey', 'UTF-8')")
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_all_flowfiles_transferred("matched", 1)


def test_nifi_migrate_properties() -> None:
    """NiFi TestLookupRecord.testMigrateProperties."""
    renamed = {
        "record-reader": "Record Reader",
        "record-writer": "Record Writer",
        "lookup-service": "Lookup Service",
        "result-contents": "Record Result Contents",
        "routing-strategy": "Routing Strategy",
        "record-update-strategy": "Record Update Strategy",
        "result-record-path": "Result RecordPath",
        "record-path-lookup-miss-result-cache-size": "Cache Size",
    }
    for old, new in renamed.items():
        assert migrated("LookupRecord", old) == new


class ContextCheckingLookup(MapLookup):
    """NiFi's MapLookup with an expected context: records the FlowFile attributes it is
    given with each lookup."""

    def __init__(self, values: Mapping[str, Any], expected: Mapping[str, str]) -> None:
        super().__init__(values)
        self.expected = dict(expected)
        self.contexts: list[dict[str, str]] = []

    def lookup(
        self, coordinates: Mapping[str, Any], context: Mapping[str, str] | None = None
    ) -> Any | None:
        self.contexts.append(dict(context or {}))
        return super().lookup(coordinates)


def test_nifi_add_fields_to_non_existent_record(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testAddFieldsToNonExistentRecord."""
    sport = {"type": "record", "name": "sport", "fields": []}
    schema = avro_schema([("name", "string"), ("age", "int"), ("sport", sport)])
    runner = record_lookup_runner(make_runner, schema)
    runner.set_property("Result RecordPath", "/sport")
    # MockRecordWriter writes the record as MapRecord's toString(); the JSON writer, as JSON.
    runner.add_controller_service("json-writer", "JsonRecordSetWriter", {})
    runner.set_property("Record Writer", "json-writer")
    runner.enqueue(json_records(["name", "age", "sport"], ("John Doe", 48, None)))
    runner.run()
    assert json.loads(only(runner, "matched").text()) == [
        {"name": "John Doe", "age": 48, "sport": {"favorite": "basketball", "least": "soccer"}}
    ]


def test_nifi_add_fields_to_non_record_field(make_runner: RunnerFactory) -> None:
    """NiFi TestLookupRecord.testAddFieldsToNonRecordField."""
    runner = record_lookup_runner(make_runner, PEOPLE_SCHEMA)
    runner.set_property("Result RecordPath", "/sport")
    runner.add_controller_service("json-writer", "JsonRecordSetWriter", {})
    runner.set_property("Record Writer", "json-writer")
    runner.enqueue(json_records(["name", "age", "sport"], ("John Doe", 48, None)))
    runner.run()
    assert json.loads(only(runner, "matched").text()) == [
        {"name": "John Doe", "age": 48, "sport": {"favorite": "basketball", "least": "soccer"}}
    ]
