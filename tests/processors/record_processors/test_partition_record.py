"""PartitionRecord: partitions by RecordPaths, attributes, fragments, FORK, failure."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable

import pyarrow as pa
import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner
from processors.record_processors.partition_record import (
    _groups_by_codes,
    _groups_by_table,
    _RowIndex,
)
from processors.record_processors.record_path import RecordPathError, compile_record_path

RunnerFactory = Callable[..., TestRunner]
POS = "storeId,item,amount\n1,apple,3\n2,pear,1\n1,plum,2\n,fig,5\n2,kiwi,4\n"


def _by_store(runner: TestRunner) -> list[tuple[str | None, str]]:
    return [
        (ff.attributes.get("storeId"), ff.content.decode())
        for ff in runner.get_flowfiles_for_relationship("success")
    ]


def test_partition_by_field(make_runner: RunnerFactory) -> None:
    runner = make_runner("PartitionRecord", {"storeId": "/storeId"})
    original = runner.enqueue(POS, {"filename": "pos.csv"})
    runner.run()
    runner.assert_transfer_count("success", 3)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    assert _by_store(runner) == [
        ("1", "storeId,item,amount\n1,apple,3\n1,plum,2\n"),
        ("2", "storeId,item,amount\n2,pear,1\n2,kiwi,4\n"),
        (None, "storeId,item,amount\n,fig,5\n"),
    ]
    children = runner.get_flowfiles_for_relationship("success")
    assert [c.attributes["record.count"] for c in children] == ["2", "2", "1"]
    assert [c.attributes["fragment.index"] for c in children] == ["0", "1", "2"]
    assert len({c.attributes["fragment.identifier"] for c in children}) == 1
    for child in children:
        child.assert_attribute_equals("fragment.count", "3")
        child.assert_attribute_equals("mime.type", "text/csv")
        child.assert_attribute_equals("segment.original.filename", "pos.csv")
    kept = runner.get_flowfiles_for_relationship("original")[0]
    kept.assert_content_equals(POS)
    assert "fragment.identifier" not in kept.attributes
    forks = [e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.FORK]
    assert len(forks) == 1
    assert forks[0].flowfile_uuid == original.uuid
    assert sorted(forks[0].child_uuids) == sorted(c.uuid for c in children)


def test_partitions_span_reader_batches(make_runner: RunnerFactory) -> None:
    rows = "".join(f"{i % 3},{i}\n" for i in range(50))
    runner = make_runner(
        "PartitionRecord",
        {"mod": "/k"},
        reader={"Record Batch Size": "4"},
        writer_type="JsonRecordSetWriter",
        writer={"Output Grouping": "One Line Per Object"},
    )
    runner.enqueue("k,v\n" + rows)
    runner.run()
    children = runner.get_flowfiles_for_relationship("success")
    assert [c.attributes["mod"] for c in children] == ["0", "1", "2"]
    for mod, child in enumerate(children):
        expected = "".join(f'{{"k":{mod},"v":{i}}}\n' for i in range(mod, 50, 3))
        assert child.content.decode() == expected
        assert child.attributes["record.count"] == str(len(range(mod, 50, 3)))
        child.assert_attribute_equals("mime.type", "application/json")


def test_two_paths_partition_by_combination(make_runner: RunnerFactory) -> None:
    runner = make_runner("PartitionRecord", {"store": "/storeId", "big": "/flag"})
    runner.enqueue("storeId,flag,n\n1,true,1\n1,false,2\n1,true,3\n2,true,4\n")
    runner.run()
    children = runner.get_flowfiles_for_relationship("success")
    assert [(c.attributes["store"], c.attributes["big"]) for c in children] == [
        ("1", "true"),
        ("1", "false"),
        ("2", "true"),
    ]
    assert [c.attributes["record.count"] for c in children] == ["2", "1", "1"]


def test_nested_record_path(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "PartitionRecord",
        {"region": "/customer/address/region"},
        reader_type="JsonTreeReader",
        writer_type="JsonRecordSetWriter",
        writer={"Output Grouping": "One Line Per Object"},
    )
    lines = [
        '{"id":1,"customer":{"address":{"region":"eu"}}}',
        '{"id":2,"customer":{"address":{"region":"us"}}}',
        '{"id":3,"customer":null}',
        '{"id":4,"customer":{"address":{"region":"eu"}}}',
    ]
    runner.enqueue("\n".join(lines) + "\n")
    runner.run()
    children = runner.get_flowfiles_for_relationship("success")
    assert [c.attributes.get("region") for c in children] == ["eu", "us", None]
    assert [c.attributes["record.count"] for c in children] == ["2", "1", "1"]
    assert '"id":4' in children[0].content.decode()


def test_path_to_missing_field_gives_one_partition_without_attribute(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner("PartitionRecord", {"nothing": "/absent"})
    runner.enqueue(POS)
    runner.run()
    runner.assert_transfer_count("success", 1)
    child = runner.get_flowfiles_for_relationship("success")[0]
    child.assert_attribute_not_exists("nothing")
    child.assert_attribute_equals("record.count", "5")
    child.assert_content_equals(POS)


def test_record_path_from_expression_language(make_runner: RunnerFactory) -> None:
    runner = make_runner("PartitionRecord", {"key": "/${partition.field}"})
    runner.enqueue(POS, {"partition.field": "item"})
    runner.run()
    runner.assert_transfer_count("success", 5)
    values = [c.attributes["key"] for c in runner.get_flowfiles_for_relationship("success")]
    assert values == ["apple", "pear", "plum", "fig", "kiwi"]


def test_expression_giving_bad_path_goes_to_failure(make_runner: RunnerFactory) -> None:
    runner = make_runner("PartitionRecord", {"key": "${partition.field}"})
    runner.enqueue(POS, {"partition.field": "item"})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_record_and_array_values_partition_without_attribute(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "PartitionRecord",
        {"customer": "/customer", "tags": "/tags"},
        reader_type="JsonTreeReader",
        writer_type="JsonRecordSetWriter",
        writer={"Output Grouping": "One Line Per Object"},
    )
    runner.enqueue(
        '{"customer":{"a":1},"tags":["x","y"]}\n'
        '{"customer":{"a":2},"tags":["x","y"]}\n'
        '{"customer":{"a":1},"tags":["x","y"]}\n'
        '{"customer":{"a":1},"tags":["z"]}\n'
    )
    runner.run()
    children = runner.get_flowfiles_for_relationship("success")
    assert [c.attributes["record.count"] for c in children] == ["2", "1", "1"]
    for child in children:
        child.assert_attribute_not_exists("customer")
        child.assert_attribute_not_exists("tags")
    assert children[0].content.decode().count('"a":1') == 2


def test_partition_by_array_element_and_function(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "PartitionRecord",
        {"first": "/tags[0]", "upper": "toUpperCase(/name)"},
        reader_type="JsonTreeReader",
        writer_type="JsonRecordSetWriter",
    )
    runner.enqueue(
        '{"name":"a","tags":["x","y"]}\n{"name":"A","tags":["x"]}\n{"name":"b","tags":["z"]}\n'
    )
    runner.run()
    children = runner.get_flowfiles_for_relationship("success")
    assert [(c.attributes["first"], c.attributes["upper"]) for c in children] == [
        ("x", "A"),
        ("z", "B"),
    ]
    assert [c.attributes["record.count"] for c in children] == ["2", "1"]


def test_malformed_record_removes_children_and_fails(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "PartitionRecord", {"storeId": "/storeId"}, reader={"Record Batch Size": "1"}
    )
    content = "storeId,item\n1,a\n2,b\n3\n"
    runner.enqueue(content)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(content)
    types = [e.event_type for e in runner.get_provenance_events()]
    assert ProvenanceEventType.FORK not in types


def test_zero_records_only_original(make_runner: RunnerFactory) -> None:
    runner = make_runner("PartitionRecord", {"storeId": "/storeId"})
    runner.enqueue("storeId,item\n")
    runner.run()
    runner.assert_all_flowfiles_transferred("original", 1)


def test_validation_messages(make_runner: RunnerFactory) -> None:
    runner = make_runner("PartitionRecord")
    assert runner.validation_errors() == [
        "'User-defined Properties' is invalid because At least one RecordPath must be added "
        "to this processor by adding a user-defined property"
    ]
    runner.set_property("bad", "/storeId[")
    errors = runner.validation_errors()
    assert len(errors) == 1
    assert errors[0].startswith(
        "'bad' validated against '/storeId[' is invalid because Invalid RecordPath: "
    )
    runner.set_property("bad", "storeId")
    assert "a path starts with '/' or '.'" in runner.validation_errors()[0]
    runner.set_property("bad", "/storeId")
    runner.assert_valid()


def test_missing_services_are_reported(make_runner: RunnerFactory) -> None:
    runner = make_runner("PartitionRecord", {"s": "/storeId"}, services=False)
    errors = runner.validation_errors()
    assert "'Record Reader' is invalid because Record Reader is required" in errors
    assert "'Record Writer' is invalid because Record Writer is required" in errors


def test_descriptors_follow_nifi(make_runner: RunnerFactory) -> None:
    runner = make_runner("PartitionRecord", services=False)
    descriptors = runner.processor.property_descriptors
    assert [(d.name, d.display_name) for d in descriptors] == [
        ("record-reader", "Record Reader"),
        ("record-writer", "Record Writer"),
    ]
    assert [r.name for r in runner.processor.relationships] == ["success", "original", "failure"]


@pytest.mark.parametrize("text", ["/a", " /a/b ", "/a_1/b-2/$c"])
def test_child_paths_are_vectorised(text: str) -> None:
    assert compile_record_path(text).vector is not None


@pytest.mark.parametrize("text", ["", "a", "/a[", "/a/", "nope(/a)", "substring(/a)", "/a[0"])
def test_invalid_record_paths(text: str) -> None:
    with pytest.raises(RecordPathError):
        compile_record_path(text)


def test_bad_value_after_some_partitions_removes_them(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    schema = json.dumps(
        {
            "type": "record",
            "name": "pos",
            "fields": [{"name": "storeId", "type": "int"}, {"name": "item", "type": "string"}],
        }
    )
    runner = make_runner(
        "PartitionRecord",
        {"storeId": "/storeId"},
        reader={
            "Record Batch Size": "1",
            "Schema Access Strategy": "Use 'Schema Text' Property",
            "Schema Text": schema,
        },
    )
    content = "storeId,item\n1,a\n2,b\nx,c\n"
    runner.enqueue(content)
    with caplog.at_level(logging.ERROR):
        runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(content)
    assert "invalid value 'x'" in caplog.text
    types = [e.event_type for e in runner.get_provenance_events()]
    assert ProvenanceEventType.FORK not in types
    assert ProvenanceEventType.CREATE not in types


@pytest.mark.parametrize(
    "kind", [pa.string(), pa.int64(), pa.float64(), pa.bool_(), pa.date32(), pa.large_string()]
)
def test_grouping_one_key_by_codes_is_grouping_by_table(kind: pa.DataType) -> None:
    """The one-column fast path groups exactly as Arrow's group-by: same groups in order of
    first appearance, same rows in each, same first rows; nulls one group."""
    rng = random.Random(11)
    pool = {
        "string": ["a", "b", "", "c"],
        "large_string": ["a", "b", "", "c"],
        "int64": [1, -2, 0, 7],
        "double": [0.5, -1.0, 0.0, 2.25],
        "bool": [True, False],
        "date32[day]": [0, 1, 19_000],
    }[str(kind)]
    for size in (1, 2, 17, 300):
        values = [None if rng.random() < 0.15 else rng.choice(pool) for _ in range(size)]
        keys = pa.array(values, kind)
        fast = _groups_by_codes(keys)
        general = _groups_by_table([keys], _RowIndex())
        assert fast.keys == general.keys
        assert fast.bounds == general.bounds
        assert fast.order.to_pylist() == general.order.to_pylist()
        assert fast.first_rows.to_pylist() == general.first_rows.to_pylist()
        assert fast.single == general.single


def test_partitions_come_in_the_order_their_first_record_appears(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner("PartitionRecord", {"storeId": "/storeId"})
    runner.enqueue("storeId,item\n,a\n1,b\n7,c\n0,d\n-2,e\n1,f\n0,g\n")
    runner.run()
    stores = [
        ff.attributes.get("storeId") for ff in runner.get_flowfiles_for_relationship("success")
    ]
    assert stores == [None, "1", "7", "0", "-2"]


def test_partition_attribute_is_data_type_utils_text(make_runner: RunnerFactory) -> None:
    """The attribute is DataTypeUtils.toString(value, null): a timestamp's epoch
    milliseconds, a double as Double.toString (Arrow's cast wrote ISO text and 3)."""
    schema = {
        "type": "record",
        "name": "r",
        "fields": [
            {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "x", "type": "double"},
        ],
    }
    runner = make_runner(
        "PartitionRecord",
        {"at": "/at", "x": "/x"},
        reader={
            "Schema Access Strategy": "schema-text-property",
            "Schema Text": json.dumps(schema),
        },
    )
    runner.enqueue("at,x\n2024-01-31T10:00:00.123Z,3.0\n")
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert (out.attributes["at"], out.attributes["x"]) == ("1706695200123", "3.0")
