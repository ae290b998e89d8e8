"""NiFi's TestPartitionRecord, ported (MockRecordParser -> JsonTreeReader with the schema,
MockRecordWriter(null) -> CSVRecordSetWriter without a header line)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flowcore.testing import TestRunner
from tests.processors.record_processors.nifi_ports import (
    avro_schema,
    json_reader,
    json_records,
    migrated,
)

RunnerFactory = Callable[..., TestRunner]
NAMES = ["name", "age", "sports"]
SCHEMA = avro_schema(
    [("name", "string"), ("age", "int"), ("sports", {"type": "array", "items": "string"})]
)


def partition(make_runner: RunnerFactory, properties: dict[str, str]) -> TestRunner:
    return make_runner(
        "PartitionRecord",
        properties,
        reader_type="JsonTreeReader",
        reader=json_reader(SCHEMA),
        writer={"Include Header Line": "false"},
    )


def run(runner: TestRunner, *rows: tuple[Any, ...]) -> None:
    runner.enqueue(json_records(NAMES, *rows))
    runner.run()


def test_nifi_group_by_string_mixed_number_of_records(make_runner: RunnerFactory) -> None:
    """NiFi TestPartitionRecord.groupByStringMixedNumberOfRecords."""
    runner = partition(make_runner, {"person-name": "/name"})
    run(
        runner,
        ("John", 28, None),
        ("Jake", 49, None),
        ("Mark", 19, None),
        ("Jane", 20, None),
        ("Jake", 14, None),
    )
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("success", 4)
    out = runner.get_flowfiles_for_relationship("success")
    assert sum(1 for ff in out if ff.get_attribute("record.count") == "1") == 3
    assert sum(1 for ff in out if ff.get_attribute("record.count") == "2") == 1
    for ff in out:
        ff.assert_attribute_equals("fragment.count", "4")
        ff.assert_attribute_equals(
            "fragment.identifier", out[0].get_attribute("fragment.identifier")
        )
    for index in range(4):
        assert sum(1 for ff in out if ff.get_attribute("fragment.index") == str(index)) == 1
    for ff in out:
        if ff.get_attribute("record.count") == "2":
            ff.assert_content_equals("Jake,49,\nJake,14,\n")
    for name in ("John", "Jake", "Mark", "Jane"):
        assert sum(1 for ff in out if ff.get_attribute("person-name") == name) == 1


def test_nifi_group_by_is_empty(make_runner: RunnerFactory) -> None:
    """NiFi TestPartitionRecord.groupByIsEmpty."""
    runner = partition(
        make_runner,
        {"unknown-age": "isEmpty( /age )", "another-unknown": "isEmpty( /nonExistentField )"},
    )
    run(
        runner,
        ("John", 28, None),
        ("Jake", 49, None),
        ("Mark", None, None),
        ("Jane", 20, None),
        ("Jake", 14, None),
    )
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("success", 2)
    out = runner.get_flowfiles_for_relationship("success")
    assert sorted(ff.get_attribute("record.count") or "" for ff in out) == ["1", "4"]
    assert sorted(ff.get_attribute("unknown-age") or "" for ff in out) == ["false", "true"]
    for ff in out:
        ff.assert_attribute_equals("another-unknown", "true")


def test_nifi_expression_as_path(make_runner: RunnerFactory) -> None:
    """NiFi TestPartitionRecord.testExpressionAsPath."""
    runner = partition(make_runner, {"adult": "/age >= 18"})
    run(
        runner,
        ("John", 28, None),
        ("Jake", 49, None),
        ("Mark", None, None),
        ("Jane", 20, None),
        ("Jake", 14, None),
    )
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("success", 2)
    out = runner.get_flowfiles_for_relationship("success")
    assert sorted(ff.get_attribute("record.count") or "" for ff in out) == ["2", "3"]
    assert sorted(ff.get_attribute("adult") or "" for ff in out) == ["false", "true"]


def test_nifi_group_by_int_all_records_together(make_runner: RunnerFactory) -> None:
    """NiFi TestPartitionRecord.testGroupByIntAllRecordsTogether."""
    runner = partition(make_runner, {"age": "/age"})
    run(
        runner,
        ("John", 30, None),
        ("Jake", 30, None),
        ("Mark", 30, None),
        ("Jane", 30, None),
        ("Jake", 30, None),
    )
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_attribute_equals("record.count", "5")
    out.assert_content_equals("John,30,\nJake,30,\nMark,30,\nJane,30,\nJake,30,\n")
    out.assert_attribute_equals("age", "30")


def test_nifi_group_by_multiple_fields(make_runner: RunnerFactory) -> None:
    """NiFi TestPartitionRecord.testGroupByMultipleFields."""
    runner = partition(make_runner, {"age": "/age", "name": "/name"})
    run(runner, ("John", 30, None), ("Jane", 30, None), ("John", 30, None), ("John", 31, None))
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("success", 3)
    out = runner.get_flowfiles_for_relationship("success")
    found = sorted((ff.text(), ff.get_attribute("age"), ff.get_attribute("name")) for ff in out)
    assert found == [
        ("Jane,30,\n", "30", "Jane"),
        ("John,30,\nJohn,30,\n", "30", "John"),
        ("John,31,\n", "31", "John"),
    ]


ARRAY_ROWS = (
    ("John", 30, ["baseball"]),
    ("Jane", 30, ["baseball"]),
    ("John", 30, ["basketball"]),
    ("John", 31, ["football"]),
)


def test_nifi_group_by_array_field(make_runner: RunnerFactory) -> None:
    """NiFi TestPartitionRecord.testGroupByArrayField."""
    runner = partition(make_runner, {"sports": "/sports"})
    run(runner, *ARRAY_ROWS)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("success", 3)
    out = runner.get_flowfiles_for_relationship("success")
    assert sorted(ff.text() for ff in out) == [
        "John,30,[baseball]\nJane,30,[baseball]\n",
        "John,30,[basketball]\n",
        "John,31,[football]\n",
    ]
    # No sports attribute: the value is not a scalar.
    assert all("sports" not in ff.attributes for ff in out)


def test_nifi_read_failure(make_runner: RunnerFactory) -> None:
    """NiFi TestPartitionRecord.testReadFailure (the third record is malformed here)."""
    runner = partition(make_runner, {"sports": "/sports"})
    content = json_records(NAMES, *ARRAY_ROWS[:2])[:-1] + ', {"name": "John", "age": }]'
    runner.enqueue(content)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(content)


def test_nifi_value_wrapper_equality_with_arrays(make_runner: RunnerFactory) -> None:
    """NiFi TestPartitionRecord.testValueWrapperEqualityWithArrays: two equal arrays (not
    the same object) are one partition value."""
    runner = partition(make_runner, {"sports": "/sports"})
    run(runner, ("John", 30, ["baseball"]), ("Jane", 31, ["baseball"]))
    runner.assert_transfer_count("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals("record.count", "2")


def test_nifi_migrate_properties() -> None:
    """NiFi TestPartitionRecord.testMigrateProperties (the NiFi import's renames)."""
    assert migrated("PartitionRecord", "record-reader") == "Record Reader"
    assert migrated("PartitionRecord", "record-writer") == "Record Writer"
