"""NiFi's TestSplitRecord, ported (MockRecordParser -> JsonTreeReader with the schema,
MockRecordWriter("header") -> CSVRecordSetWriter, whose MIME type is text/csv where the
mock's is text/plain)."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from flowcore.testing import TestRunner
from tests.processors.record_processors.nifi_ports import avro_schema, json_reader, json_records

RunnerFactory = Callable[..., TestRunner]
NAMES = ["name", "age"]
SCHEMA = avro_schema([("name", "string"), ("age", "int")])
PEOPLE = json_records(NAMES, ("John Doe", 48), ("Jane Doe", 47), ("Jimmy Doe", 14))


def split(make_runner: RunnerFactory, per_split: str) -> TestRunner:
    return make_runner(
        "SplitRecord",
        {"Records Per Split": per_split},
        reader_type="JsonTreeReader",
        reader=json_reader(SCHEMA),
    )


def test_nifi_individual_record_per_split(make_runner: RunnerFactory) -> None:
    """NiFi TestSplitRecord.testIndividualRecordPerSplit."""
    runner = split(make_runner, "1")
    original = runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_transfer_count("splits", 3)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    out = runner.get_flowfiles_for_relationship("splits")
    fragment_id = out[0].get_attribute("fragment.identifier")
    assert fragment_id
    for index, ff in enumerate(out):
        ff.assert_attribute_equals("fragment.identifier", fragment_id)
        ff.assert_attribute_equals("fragment.count", "3")
        ff.assert_attribute_equals("fragment.index", str(index))
        ff.assert_attribute_equals("segment.original.filename", original.get_attribute("filename"))
        ff.assert_attribute_equals("record.count", "1")
        ff.assert_attribute_equals("mime.type", "text/csv")
    assert sorted(ff.text() for ff in out) == sorted(
        ["name,age\nJohn Doe,48\n", "name,age\nJane Doe,47\n", "name,age\nJimmy Doe,14\n"]
    )
    kept = runner.get_flowfiles_for_relationship("original")[0]
    kept.assert_attribute_equals("fragment.count", "3")
    kept.assert_attribute_equals("fragment.identifier", fragment_id)


def test_nifi_multiple_records_per_split(make_runner: RunnerFactory) -> None:
    """NiFi TestSplitRecord.testMultipleRecordsPerSplit."""
    runner = split(make_runner, "2")
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_transfer_count("splits", 2)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    out = runner.get_flowfiles_for_relationship("splits")
    assert sum(1 for ff in out if ff.get_attribute("record.count") == "1") == 1
    assert all(ff.get_attribute("mime.type") == "text/csv" for ff in out)
    assert sorted(ff.text() for ff in out) == [
        "name,age\nJimmy Doe,14\n",
        "name,age\nJohn Doe,48\nJane Doe,47\n",
    ]


def test_nifi_all_splits_one_destination(make_runner: RunnerFactory) -> None:
    """NiFi TestSplitRecord.testAllSplitsOneDestination."""
    runner = split(make_runner, "3")
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_transfer_count("splits", 1)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    out = runner.get_flowfiles_for_relationship("splits")[0]
    out.assert_attribute_equals("record.count", "3")
    out.assert_attribute_equals("mime.type", "text/csv")
    out.assert_content_equals("name,age\nJohn Doe,48\nJane Doe,47\nJimmy Doe,14\n")


def test_nifi_read_failure(make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture) -> None:
    """NiFi TestSplitRecord.testReadFailure (the third record is malformed here)."""
    runner = split(make_runner, "1")
    content = PEOPLE[:-1].rsplit(", {", 1)[0] + ', {"name": "Jimmy Doe", "age": }]'
    original = runner.enqueue(content)
    with caplog.at_level(logging.ERROR):
        runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    failed = runner.get_flowfiles_for_relationship("failure")[0]
    assert failed.uuid == original.uuid
    failed.assert_content_equals(content)
    assert any(
        "Failed to split FlowFile" in r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.ERROR
    )
