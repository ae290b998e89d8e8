"""MergeRecord writes straight into the content repository, counts records, cleans up."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pyarrow as pa

from flowcore.session.session import OpenContent
from flowcore.testing import TestRunner
from processors.record.api import BinarySink, RecordSetWriter
from processors.record.csv_format import CSVRecordSetWriter

TWO = "name,age\nJohn,35\nJane,34\n"
TWO_MORE = "name,age\nJake,3\nJimmy,4\n"


class _RecordingWriter(CSVRecordSetWriter):
    """The CSV writer, remembering the sinks it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.sinks: list[BinarySink] = []

    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter:
        self.sinks.append(sink)
        return super().create_writer(schema, sink, attributes)


def event_types(runner: TestRunner) -> list[str]:
    return [e.event_type for e in runner.get_provenance_events()]


def test_records_merged_counter(runner: TestRunner) -> None:
    runner.set_property("Maximum Number of Records", "4")
    for _ in range(3):
        runner.enqueue(TWO)
        runner.enqueue(TWO_MORE)
    assert runner.get_counter_value("Records Merged") is None
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("merged", 3)
    assert runner.get_counter_value("Records Merged") == 12


def test_writer_sink_is_the_open_content_of_the_merged_flowfile(runner: TestRunner) -> None:
    recording = _RecordingWriter()
    runner.add_controller_service("recording", recording)
    runner.set_property("Record Writer", "recording")
    runner.enqueue(TWO)
    runner.enqueue(TWO_MORE)
    runner.run(2)
    assert len(recording.sinks) == 1
    assert isinstance(recording.sinks[0], OpenContent)
    out = runner.get_flowfiles_for_relationship("merged")
    assert len(out) == 1
    out[0].assert_content_equals("name,age\nJohn,35\nJane,34\nJake,3\nJimmy,4\n")
    # Created with create() and joined at merge: one JOIN, no CREATE for the merged FlowFile.
    joins = [e for e in runner.get_provenance_events() if e.event_type == "JOIN"]
    assert len(joins) == 1
    assert joins[0].child_uuids == [out[0].uuid]
    assert len(joins[0].parent_uuids) == 2
    assert "CREATE" not in event_types(runner)


AGES = json.dumps(
    {
        "type": "record",
        "name": "person",
        "fields": [{"name": "name", "type": "string"}, {"name": "age", "type": "int"}],
    }
)


def test_failed_bin_leaves_no_merged_flowfile(runner: TestRunner) -> None:
    # A given schema: the records stream into the bin, and a value past the first
    # megabyte that is no int fails the bin after it has written some.
    runner.add_controller_service(
        "typed",
        "CSVReader",
        {
            "Treat First Line as Header": "true",
            "Schema Access Strategy": "Use 'Schema Text' Property",
            "Schema Text": AGES,
        },
    )
    runner.set_property("Record Reader", "typed")
    runner.set_property("Minimum Number of Records", "100")
    runner.enqueue(TWO)
    runner.enqueue(TWO_MORE)
    runner.enqueue("name,age\n" + "".join(f"n{i},{i}\n" for i in range(100_000)) + "x,abc\n")
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("failure", 3)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    types = event_types(runner)
    assert "CREATE" not in types
    assert "JOIN" not in types
    assert "DROP" not in types
    assert runner.get_counter_value("Records Merged") is None
    # The processor keeps working afterwards.
    runner.set_property("Minimum Number of Records", "2")
    runner.enqueue(TWO)
    runner.run(2)
    runner.assert_transfer_count("merged", 1)
    assert runner.get_counter_value("Records Merged") == 2


def test_stop_discards_the_open_content(runner: TestRunner) -> None:
    runner.set_property("Minimum Number of Records", "100")
    runner.enqueue(TWO)
    runner.enqueue(TWO_MORE)
    runner.run(1)
    assert runner.queue_size == 2
    assert "CREATE" not in event_types(runner)
    assert runner.get_counter_value("Records Merged") is None
    runner.set_property("Minimum Number of Records", "4")
    runner.run(2)
    out = runner.get_flowfiles_for_relationship("merged")
    assert len(out) == 1
    out[0].assert_content_equals("name,age\nJohn,35\nJane,34\nJake,3\nJimmy,4\n")


def test_merged_flowfile_starts_its_lineage_with_the_earliest_original(
    runner: TestRunner,
) -> None:
    first = runner.enqueue(TWO)
    runner.advance_time(30)
    runner.enqueue(TWO_MORE)
    runner.advance_time(30)
    runner.run(2)
    merged = runner.get_flowfiles_for_relationship("merged")
    assert len(merged) == 1
    assert merged[0].flowfile.lineage_start_date == first.flowfile.lineage_start_date
