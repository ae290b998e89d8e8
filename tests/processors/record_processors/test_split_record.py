"""SplitRecord: splits of N records, 0-based fragment.index, FORK, failure, zero records."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "r",
        "fields": [{"name": "id", "type": "int"}, {"name": "name", "type": "string"}],
    }
)
CSV = "id,name\n1,a\n2,b\n3,c\n4,d\n5,e\n"


def test_splits_of_two_records(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitRecord", {"Records Per Split": "2"})
    original = runner.enqueue(CSV, {"filename": "pos.csv"})
    runner.run()
    runner.assert_transfer_count("splits", 3)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    splits = runner.get_flowfiles_for_relationship("splits")
    assert [s.content.decode() for s in splits] == [
        "id,name\n1,a\n2,b\n",
        "id,name\n3,c\n4,d\n",
        "id,name\n5,e\n",
    ]
    assert [s.attributes["record.count"] for s in splits] == ["2", "2", "1"]
    assert [s.attributes["fragment.index"] for s in splits] == ["0", "1", "2"]
    identifiers = {s.attributes["fragment.identifier"] for s in splits}
    assert len(identifiers) == 1
    for split in splits:
        split.assert_attribute_equals("fragment.count", "3")
        split.assert_attribute_equals("segment.original.filename", "pos.csv")
        split.assert_attribute_equals("mime.type", "text/csv")
        split.assert_attribute_equals("filename", "pos.csv")
    kept = runner.get_flowfiles_for_relationship("original")[0]
    kept.assert_content_equals(CSV)
    kept.assert_attribute_equals("fragment.count", "3")
    kept.assert_attribute_equals("fragment.identifier", identifiers.pop())
    forks = [e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.FORK]
    assert len(forks) == 1
    assert forks[0].flowfile_uuid == original.uuid
    assert sorted(forks[0].child_uuids) == sorted(s.uuid for s in splits)


def test_splits_across_reader_batches_as_json(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "SplitRecord",
        {"Records Per Split": "3"},
        reader={"Record Batch Size": "2"},
        writer_type="JsonRecordSetWriter",
        writer={"Output Grouping": "One Line Per Object"},
    )
    runner.enqueue(CSV)
    runner.run()
    splits = runner.get_flowfiles_for_relationship("splits")
    assert [s.content.decode() for s in splits] == [
        '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n{"id":3,"name":"c"}\n',
        '{"id":4,"name":"d"}\n{"id":5,"name":"e"}\n',
    ]
    assert [s.attributes["mime.type"] for s in splits] == ["application/json"] * 2


def test_records_per_split_from_expression_language(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitRecord", {"Records Per Split": "${per.split}"})
    runner.enqueue(CSV, {"per.split": "4"})
    runner.enqueue(CSV, {"per.split": "1"})
    runner.run(2)
    counts = [s.attributes["record.count"] for s in runner.get_flowfiles_for_relationship("splits")]
    assert counts == ["4", "1", "1", "1", "1", "1", "1"]


def test_records_per_split_not_an_integer_goes_to_failure(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitRecord", {"Records Per Split": "${per.split}"})
    runner.enqueue(CSV, {"per.split": "many"})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_malformed_record_removes_splits_and_fails(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "SplitRecord", {"Records Per Split": "1"}, reader={"Record Batch Size": "1"}
    )
    content = "id,name\n1,a\n2,b\n3\n4,d\n"
    runner.enqueue(content)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    failed = runner.get_flowfiles_for_relationship("failure")[0]
    failed.assert_content_equals(content)
    assert "fragment.count" not in failed.attributes
    types = [e.event_type for e in runner.get_provenance_events()]
    assert ProvenanceEventType.FORK not in types


def test_zero_records_no_splits(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitRecord", {"Records Per Split": "10"})
    runner.enqueue("id,name\n")
    runner.run()
    runner.assert_all_flowfiles_transferred("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "0"
    )
    types = [e.event_type for e in runner.get_provenance_events()]
    assert ProvenanceEventType.FORK not in types


def test_validation_messages(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitRecord")
    assert runner.validation_errors() == [
        "'Records Per Split' is invalid because Records Per Split is required"
    ]
    runner.set_property("Records Per Split", "0")
    assert runner.validation_errors() == [
        "'Records Per Split' validated against '0' is invalid because not a positive value"
    ]
    runner.set_property("Records Per Split", "${x}")
    runner.assert_valid()


def test_descriptors_follow_nifi(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitRecord", services=False)
    names = [d.display_name for d in runner.processor.property_descriptors]
    assert names == ["Record Reader", "Record Writer", "Records Per Split"]
    assert [r.name for r in runner.processor.relationships] == ["splits", "original", "failure"]


def test_bad_value_after_some_splits_removes_them(
    make_runner: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    runner = make_runner(
        "SplitRecord",
        {"Records Per Split": "1"},
        reader={
            "Record Batch Size": "1",
            "Schema Access Strategy": "Use 'Schema Text' Property",
            "Schema Text": SCHEMA,
        },
    )
    content = "id,name\n1,a\n2,b\nx,c\n4,d\n"
    runner.enqueue(content)
    with caplog.at_level(logging.ERROR):
        runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(content)
    assert "invalid value 'x'" in caplog.text
    types = [e.event_type for e in runner.get_provenance_events()]
    assert ProvenanceEventType.FORK not in types
    assert ProvenanceEventType.CREATE not in types
