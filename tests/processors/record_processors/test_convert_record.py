"""ConvertRecord: conversion in place, failure with record.error.message, zero records."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
JSON_LINES = {"Output Grouping": "One Line Per Object"}


def test_csv_to_json_lines(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", writer_type="JsonRecordSetWriter", writer=JSON_LINES)
    original = runner.enqueue('id,name\n1,Zoë\n2,"a,b"\n', {"filename": "in.csv"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert out.content.decode() == '{"id":1,"name":"Zoë"}\n{"id":2,"name":"a,b"}\n'
    out.assert_attribute_equals("record.count", "2")
    out.assert_attribute_equals("mime.type", "application/json")
    out.assert_attribute_equals("filename", "in.csv")
    assert out.uuid == original.uuid
    events = runner.get_provenance_events()
    assert [e.event_type for e in events] == [ProvenanceEventType.CONTENT_MODIFIED]
    assert events[0].flowfile_uuid == original.uuid


def test_csv_to_csv_with_other_delimiter(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", writer={"Value Separator": ";"})
    runner.enqueue("a,b\n1,x\n2,y\n")
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert out.content.decode() == "a;b\n1;x\n2;y\n"
    out.assert_attribute_equals("mime.type", "text/csv")


def test_malformed_record_goes_to_failure_unchanged_with_reason(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner("ConvertRecord", writer_type="JsonRecordSetWriter")
    content = "id,name\n1,x\n2\n3,z\n"
    runner.enqueue(content, {"filename": "bad.csv"})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    failed = runner.get_flowfiles_for_relationship("failure")[0]
    failed.assert_content_equals(content)
    message = failed.attributes["record.error.message"]
    assert message.startswith("malformed record in FlowFile[filename=bad.csv")
    assert "row" in message
    assert "record.count" not in failed.attributes
    types = [e.event_type for e in runner.get_provenance_events()]
    assert ProvenanceEventType.CONTENT_MODIFIED not in types


def test_zero_records_included_by_default(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", writer_type="JsonRecordSetWriter")
    runner.enqueue("id,name\n")
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert out.content.decode() == "[]"
    out.assert_attribute_equals("record.count", "0")
    out.assert_attribute_equals("mime.type", "application/json")


def test_zero_records_dropped_when_not_included(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "ConvertRecord",
        {"Include Zero Record FlowFiles": "false"},
        writer_type="JsonRecordSetWriter",
    )
    runner.enqueue("id,name\n")
    runner.enqueue("id,name\n1,x\n")
    runner.run(2)
    runner.assert_all_flowfiles_transferred("success", 1)
    assert runner.get_flowfiles_for_relationship("success")[0].attributes["record.count"] == "1"
    types = [e.event_type for e in runner.get_provenance_events()]
    assert ProvenanceEventType.DROP in types


def test_empty_content_is_zero_records(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", writer_type="JsonRecordSetWriter")
    runner.enqueue(b"")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals("record.count", "0")


def test_validation_messages(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", services=False)
    errors = runner.validation_errors()
    assert "'Record Reader' is invalid because Record Reader is required" in errors
    assert "'Record Writer' is invalid because Record Writer is required" in errors
    runner.set_property("Include Zero Record FlowFiles", "maybe")
    assert (
        "'Include Zero Record FlowFiles' validated against 'maybe' is invalid because Given "
        "value not found in allowed set 'true, false'" in runner.validation_errors()
    )


def test_unknown_or_wrong_service_is_invalid(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord")
    runner.assert_valid()
    runner.set_property("Record Reader", "nope")
    runner.set_property("Record Writer", "reader")
    errors = runner.validation_errors()
    assert (
        "'Record Reader' validated against 'nope' is invalid because Invalid Controller "
        "Service: nope is not a valid Controller Service Identifier" in errors
    )
    assert (
        "'Record Writer' validated against 'reader' is invalid because Invalid Controller "
        "Service: reader is not a RecordSetWriterFactory" in errors
    )


def test_descriptors_follow_nifi(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord", services=False)
    descriptors = {d.display_name: d for d in runner.processor.property_descriptors}
    assert list(descriptors) == [
        "Record Reader",
        "Record Writer",
        "Include Zero Record FlowFiles",
    ]
    assert descriptors["Include Zero Record FlowFiles"].default == "true"
    assert [r.name for r in runner.processor.relationships] == ["success", "failure"]
