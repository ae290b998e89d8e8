"""UpdateRecord: TestUpdateRecord's scenarios through the TestRunner."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
PERSON = "id,name,age\n1,John Doe,30\n2,Jane Doe,17\n"


def _json_runner(make_runner: RunnerFactory, properties: dict[str, str]) -> TestRunner:
    return make_runner(
        "UpdateRecord",
        properties,
        reader_type="JsonTreeReader",
        writer_type="JsonRecordSetWriter",
        writer={"Output Grouping": "One Line Per Object"},
    )


def _lines(runner: TestRunner, relationship: str = "success") -> list[dict[str, object]]:
    content = runner.get_flowfiles_for_relationship(relationship)[0].content.decode()
    return [json.loads(line) for line in content.splitlines() if line]


def test_literal_value(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateRecord", {"/name": "Jane Doe"})
    runner.enqueue(PERSON)
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("id,name,age\n1,Jane Doe,30\n2,Jane Doe,17\n")
    out.assert_attribute_equals("record.count", "2")
    out.assert_attribute_equals("mime.type", "text/csv")
    types = [e.event_type for e in runner.get_provenance_events()]
    assert ProvenanceEventType.CONTENT_MODIFIED in types


def test_literal_with_attribute_expression(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateRecord", {"/name": "${newName}"})
    runner.enqueue(PERSON, {"newName": "Ann"})
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(
        "id,name,age\n1,Ann,30\n2,Ann,17\n"
    )


def test_field_value_variables(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "UpdateRecord",
        {"/name": "${field.value:toUpper()}-${field.name}-${field.type}-${record.index}"},
    )
    runner.enqueue(PERSON)
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(
        "id,name,age\n1,JOHN DOE-name-STRING-1,30\n2,JANE DOE-name-STRING-2,17\n"
    )


def test_literal_number_keeps_field_type(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"/age": "${field.value:plus(1)}"})
    runner.enqueue('{"name":"a","age":30}\n{"name":"b","age":17}\n')
    runner.run()
    assert _lines(runner) == [{"name": "a", "age": 31}, {"name": "b", "age": 18}]


def test_record_path_value_copies_field(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"/name": "/address/city"})
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue('{"name":"a","address":{"city":"Paris"}}\n')
    runner.run()
    assert _lines(runner) == [{"name": "Paris", "address": {"city": "Paris"}}]


def test_record_path_value_concat_into_new_field(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"/fullName": "concat(/first, ' ', /last)"})
    runner.set_property("Replacement Value Strategy", "record-path-value")
    runner.enqueue('{"first":"John","last":"Doe"}\n')
    runner.run()
    assert _lines(runner) == [{"first": "John", "last": "Doe", "fullName": "John Doe"}]


def test_relative_record_path_per_field(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"/people[*]/name": "toUpperCase(.)"})
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue('{"people":[{"name":"ann"},{"name":"bob"}]}\n')
    runner.run()
    assert _lines(runner) == [{"people": [{"name": "ANN"}, {"name": "BOB"}]}]


def test_descendant_literal_update(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"//txId": "1111-1111"})
    runner.enqueue('{"txId":"a","inner":{"txId":"b","x":1}}\n')
    runner.run()
    assert _lines(runner) == [{"txId": "1111-1111", "inner": {"txId": "1111-1111", "x": 1}}]


def test_replace_root_with_child_record(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"/": "/person"})
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue('{"person":{"name":"a","age":3},"other":1}\n')
    runner.run()
    assert _lines(runner) == [{"name": "a", "age": 3}]


def test_predicate_selects_fields_to_update(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"/people[*][./age >= 18]/adult": "yes"})
    runner.enqueue('{"people":[{"age":30,"adult":"?"},{"age":12,"adult":"?"}]}\n')
    runner.run()
    assert _lines(runner) == [{"people": [{"age": 30, "adult": "yes"}, {"age": 12, "adult": "?"}]}]


def test_multiple_values_become_a_record(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"/both": "/*[. = 'x']"})
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue('{"a":"x","b":"x","c":"y"}\n')
    runner.run()
    assert _lines(runner) == [{"a": "x", "b": "x", "c": "y", "both": {"a": "x", "b": "x"}}]


def test_bad_record_path_value_goes_to_failure(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateRecord", {"/name": "${path}"})
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue(PERSON, {"path": "/name["})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    failed = runner.get_flowfiles_for_relationship("failure")[0]
    failed.assert_content_equals(PERSON)
    assert "record.error.message" in failed.attributes


def test_malformed_content_goes_to_failure(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"/name": "x"})
    runner.enqueue('{"name": ')
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_validation(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateRecord")
    assert runner.validation_errors() == [
        "'User-defined Properties' is invalid because At least one RecordPath must be specified"
    ]
    runner.set_property("name", "x")
    assert "Invalid RecordPath" in runner.validation_errors()[0]
    runner.remove_property("name")
    runner.set_property("/name", "x")
    runner.assert_valid()
    runner.set_property("Replacement Value Strategy", "nope")
    runner.assert_not_valid()


def test_zero_records(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateRecord", {"/name": "x"})
    runner.enqueue("id,name,age\n")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals("record.count", "0")


def test_descriptors_follow_nifi(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateRecord", services=False)
    assert [(d.name, d.display_name, d.default) for d in runner.processor.property_descriptors] == [
        ("record-reader", "Record Reader", None),
        ("record-writer", "Record Writer", None),
        ("Replacement Value Strategy", "Replacement Value Strategy", "literal-value"),
    ]
    assert [r.name for r in runner.processor.relationships] == ["success", "failure"]


def test_record_index_counts_from_one(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateRecord", {"/id": "${record.index}"})
    runner.enqueue("id,name\n,a\n,b\n,c\n")
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(
        "id,name\n1,a\n2,b\n3,c\n"
    )


def test_filter_function_as_replacement(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateRecord", {"/hasAge": "not(isEmpty(/age))"})
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue("name,age\nJohn Doe,35\n")
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(
        "name,age,hasAge\nJohn Doe,35,true\n"
    )


def test_relative_parent_path(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateRecord", {"/name": "../nickname"})
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue("name,nickname\nJohn Doe,Johnny\n")
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_content_equals(
        "name,nickname\nJohnny,Johnny\n"
    )


def test_missing_replacement_path_sets_null(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"/name": "/siblings[0]/name"})
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue('{"name":"John Doe","siblings":[]}\n')
    runner.run()
    assert _lines(runner) == [{"name": None, "siblings": []}]


def test_concat_into_array_elements(make_runner: RunnerFactory) -> None:
    runner = _json_runner(
        make_runner, {"/addresses[*]/full": "concat(../street, ' ', ../city, ' ', ../state)"}
    )
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue(
        '{"addresses":[{"street":"1 Main","city":"Town","state":"NY"},'
        '{"street":"2 High","city":"City","state":"CA"}]}\n'
    )
    runner.run()
    assert _lines(runner) == [
        {
            "addresses": [
                {"street": "1 Main", "city": "Town", "state": "NY", "full": "1 Main Town NY"},
                {"street": "2 High", "city": "City", "state": "CA", "full": "2 High City CA"},
            ]
        }
    ]


def test_update_in_array_and_null_array(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"/address[*]/city": "newCity"})
    runner.enqueue(
        '{"name":"a","address":[{"city":"x"},{"city":"y"}]}\n{"name":"b","address":null}\n'
    )
    runner.run()
    assert _lines(runner) == [
        {"name": "a", "address": [{"city": "newCity"}, {"city": "newCity"}]},
        {"name": "b", "address": None},
    ]


@pytest.mark.parametrize(
    ("destination", "value"),
    [
        ("/", "/name/*"),
        ("/", "/name"),
        ("/name/..", "/name/*"),
        ("/", "unescapeJson(/text, 'true')"),
    ],
)
def test_set_root(make_runner: RunnerFactory, destination: str, value: str) -> None:
    runner = _json_runner(make_runner, {destination: value})
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue(
        '{"id":1,"name":{"first":"John","last":"Doe"},'
        '"text":"{\\"first\\":\\"John\\",\\"last\\":\\"Doe\\"}"}\n'
    )
    runner.run()
    assert _lines(runner) == [{"first": "John", "last": "Doe"}]


def test_set_root_to_a_map_makes_a_record_of_the_field(make_runner: RunnerFactory) -> None:
    """unescapeJson without convert-to-record gives a Map, not a Record: the root becomes
    a record of the selected field (NiFi's UpdateRecord)."""
    runner = _json_runner(make_runner, {"/": "unescapeJson(/text)"})
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    runner.enqueue('{"id":1,"text":"{\\"first\\":\\"John\\",\\"last\\":\\"Doe\\"}"}\n')
    runner.run()
    assert _lines(runner) == [{"text": {"first": "John", "last": "Doe"}}]


def test_field_value_in_nested_field(make_runner: RunnerFactory) -> None:
    runner = _json_runner(make_runner, {"/name/last": "${field.value:toUpper()}"})
    runner.enqueue('{"id":1,"name":{"first":"John","last":"Doe"}}\n')
    runner.run()
    assert _lines(runner) == [{"id": 1, "name": {"first": "John", "last": "DOE"}}]


TIMED_SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "r",
        "fields": [
            {"name": "s", "type": ["null", "string"]},
            {"name": "at", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}]},
            {"name": "x", "type": ["null", "double"]},
        ],
    }
)
TIMED_READER = {"Schema Access Strategy": "schema-text-property", "Schema Text": TIMED_SCHEMA}


def _timed_runner(
    make_runner: RunnerFactory, reader_type: str, writer: dict[str, str] | None = None
) -> TestRunner:
    runner = make_runner(
        "UpdateRecord",
        reader_type=reader_type,
        reader=TIMED_READER,
        writer_type="JsonRecordSetWriter",
        writer={"Output Grouping": "One Line Per Object", **(writer or {})},
    )
    runner.set_property("Replacement Value Strategy", "Record Path Value")
    if reader_type == "CSVReader":
        runner.enqueue("s,at,x\nx,2024-01-31T10:00:00.123Z,3.0\n")
    else:
        runner.enqueue('{"s": "x", "at": 1706695200123, "x": 3.0}')
    return runner


@pytest.mark.parametrize(
    ("reader_type", "writer", "expected"),
    [
        # NiFi's CSV records convert a value set on them to the field's type:
        # DataTypeUtils.toString gives the timestamp's epoch milliseconds, a double 3.0
        ("CSVReader", {}, {"at": "1706695200123", "x": "3.0"}),
        ("CSVReader", {"Timestamp Format": "yyyy-MM-dd"}, {"at": "1706695200123", "x": "3.0"}),
        # other records keep the value (the field becomes a CHOICE) and the writer writes
        # it as its own type: a timestamp by the writer's Timestamp Format, else epoch ms
        ("JsonTreeReader", {}, {"at": 1706695200123, "x": 3.0}),
        ("JsonTreeReader", {"Timestamp Format": "yyyy-MM-dd"}, {"at": "2024-01-31", "x": 3.0}),
    ],
)
def test_record_path_value_into_text_field(
    make_runner: RunnerFactory,
    reader_type: str,
    writer: dict[str, str],
    expected: dict[str, object],
) -> None:
    for source, value in expected.items():
        runner = _timed_runner(make_runner, reader_type, writer)
        runner.set_property("/s", f"/{source}")
        runner.run()
        runner.assert_all_flowfiles_transferred("success", 1)
        assert _lines(runner)[0]["s"] == value, source


def test_functions_give_timestamps_as_epoch_millis(make_runner: RunnerFactory) -> None:
    runner = _timed_runner(make_runner, "JsonTreeReader")
    runner.set_property("/s", "concat(substring(/at, 0, 4), '-', /at)")
    runner.run()
    assert _lines(runner)[0]["s"] == "1706-1706695200123"


def test_field_value_of_a_timestamp_is_epoch_millis(make_runner: RunnerFactory) -> None:
    """NiFi's field.value is DataTypeUtils.toString(value, null) of the field updated."""
    runner = _timed_runner(make_runner, "JsonTreeReader")
    runner.set_property("Replacement Value Strategy", "Literal Value")
    runner.set_property("/at", "${field.value:append('!')}")
    runner.run()
    assert _lines(runner)[0]["at"] == "1706695200123!"
