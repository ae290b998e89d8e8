"""MergeRecord through the TestRunner with the real CSV reader and writer (spec Part A)."""

from __future__ import annotations

import json

from flowcore.testing import TestRunner
from flowcore.testing.mock_flowfile import MockFlowFile
from flowcore.testing.runner import INPUT

TWO = "name,age\nJohn,35\nJane,34\n"  # CSV writer output for it: 25 bytes
TWO_MORE = "name,age\nJake,3\nJimmy,4\n"


def joins(runner: TestRunner) -> list[str | None]:
    return [e.details for e in runner.get_provenance_events() if e.event_type == "JOIN"]


def merged(runner: TestRunner) -> list[MockFlowFile]:
    return runner.get_flowfiles_for_relationship("merged")


def test_full_enough_on_empty_trigger_with_attributes_and_join(runner: TestRunner) -> None:
    first = runner.enqueue(TWO, {"record.count": "2", "common": "x", "differs": "1"})
    second = runner.enqueue(TWO_MORE, {"record.count": "2", "common": "x", "differs": "2"})
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("merged", 0)  # full enough only merges on an empty trigger
    runner.run(1)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 2)
    runner.assert_transfer_count("failure", 0)
    out = merged(runner)[0]
    out.assert_content_equals("name,age\nJohn,35\nJane,34\nJake,3\nJimmy,4\n")
    out.assert_attribute_equals("record.count", "4")
    out.assert_attribute_equals("mime.type", "text/csv")
    out.assert_attribute_equals("merge.count", "2")
    out.assert_attribute_equals("merge.bin.age", "0")
    out.assert_attribute_equals("merge.completion.reason", "Bin is full enough")
    out.assert_attribute_equals("common", "x")
    out.assert_attribute_not_exists("differs")
    out.assert_attribute_not_exists("merge.reason")
    assert out.uuid not in (first.uuid, second.uuid)
    originals = runner.get_flowfiles_for_relationship("original")
    assert [o.uuid for o in originals] == [first.uuid, second.uuid]
    for original in originals:
        original.assert_attribute_equals("merge.uuid", out.uuid)
    events = [e for e in runner.get_provenance_events() if e.event_type == "JOIN"]
    assert len(events) == 1
    assert events[0].details == "Records Merged due to: Bin is full enough"
    assert sorted(events[0].parent_uuids) == sorted([first.uuid, second.uuid])
    assert events[0].child_uuids == [out.uuid]
    assert not [e for e in runner.get_provenance_events() if e.event_type == "CREATE"]


def test_bin_is_full_and_max_records_is_soft(runner: TestRunner) -> None:
    runner.set_property("Maximum Number of Records", "3")
    runner.enqueue(TWO)
    runner.enqueue(TWO_MORE)
    runner.enqueue(TWO)
    runner.run(1, stop_on_finish=False)
    out = merged(runner)
    assert len(out) == 1
    out[0].assert_attribute_equals("record.count", "4")  # soft: all of the second FlowFile
    out[0].assert_attribute_equals("merge.completion.reason", "Bin is full")
    assert joins(runner) == ["Records Merged due to: Bin is full"]
    runner.run(1)
    out = merged(runner)
    assert len(out) == 2
    out[1].assert_attribute_equals("record.count", "2")
    out[1].assert_attribute_equals("merge.completion.reason", "Bin is full enough")


def test_bin_is_older_than_max_bin_age_text(runner: TestRunner) -> None:
    runner.set_property("Minimum Number of Records", "100")
    runner.set_property("Max Bin Age", "500 millis")
    runner.enqueue(TWO)
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("merged", 0)
    runner.advance_time(0.75)
    runner.enqueue(TWO_MORE)
    runner.run(1)
    out = merged(runner)
    assert len(out) == 1
    out[0].assert_attribute_equals("merge.completion.reason", "Bin is older than 500 millis")
    out[0].assert_attribute_equals("merge.bin.age", "750")
    out[0].assert_attribute_equals("record.count", "4")
    assert joins(runner) == ["Records Merged due to: Bin is older than 500 millis"]


def test_bin_has_reached_max_bin_age_on_empty_trigger(runner: TestRunner) -> None:
    runner.set_property("Minimum Number of Records", "100")
    runner.set_property("Max Bin Age", "1 sec")
    runner.enqueue(TWO)
    runner.run(1, stop_on_finish=False)
    runner.advance_time(1.0)  # age == max age is not expired (strictly greater)
    runner.run(1, stop_on_finish=False)
    runner.assert_transfer_count("merged", 0)
    runner.advance_time(0.001)
    runner.run(1)
    out = merged(runner)
    assert len(out) == 1
    out[0].assert_attribute_equals("merge.completion.reason", "Bin has reached Max Bin Age")
    out[0].assert_attribute_equals("merge.bin.age", "1001")
    assert joins(runner) == ["Records Merged due to: Bin has reached Max Bin Age"]


def test_maximum_number_of_bins_evicts_oldest(runner: TestRunner) -> None:
    runner.set_property("Minimum Number of Records", "100")
    runner.set_property("Maximum Number of Bins", "2")
    runner.set_property("Correlation Attribute Name", "group")
    runner.enqueue(TWO, {"group": "a"})
    runner.advance_time(0.01)
    runner.run(1, stop_on_finish=False)
    runner.enqueue(TWO, {"group": "b"})
    runner.enqueue(TWO_MORE, {"group": "a"})
    runner.enqueue(TWO, {"group": "c"})
    runner.run(1, stop_on_finish=False)
    out = merged(runner)
    assert len(out) == 1
    out[0].assert_attribute_equals("group", "a")
    out[0].assert_attribute_equals("merge.count", "2")
    out[0].assert_attribute_equals(
        "merge.completion.reason", "Maximum number of bins has been exceeded"
    )
    assert joins(runner) == ["Records Merged due to: Maximum number of bins has been exceeded"]
    runner.stop()
    assert runner.queue_size == 2  # bins b and c rolled back


def test_stop_rolls_bins_back_to_queue(runner: TestRunner) -> None:
    runner.set_property("Minimum Number of Records", "100")
    runner.enqueue(TWO)
    runner.enqueue(TWO_MORE)
    runner.run(1)
    assert runner.queue_size == 2
    for relationship in ("merged", "original", "failure"):
        runner.assert_transfer_count(relationship, 0)
    assert joins(runner) == []
    # A restart starts with no bins; the FlowFiles bin again and merge.
    runner.set_property("Minimum Number of Records", "4")
    runner.run(2)
    runner.assert_transfer_count("merged", 1)
    merged(runner)[0].assert_attribute_equals("record.count", "4")


def test_min_records_not_reached_never_merges(runner: TestRunner) -> None:
    runner.set_property("Minimum Number of Records", "5")
    runner.set_property("Maximum Bin Size", "10 B")  # the minimums gate the maximums
    runner.enqueue(TWO)
    runner.enqueue(TWO_MORE)
    runner.run(3)
    runner.assert_transfer_count("merged", 0)
    assert runner.queue_size == 2


def test_max_bin_size_in_writer_output_bytes(runner: TestRunner) -> None:
    runner.set_property("Maximum Bin Size", "30 B")
    runner.enqueue(TWO)  # 25 bytes of output
    runner.enqueue(TWO_MORE)  # 41 bytes: full
    runner.enqueue(TWO)
    runner.run(1)
    out = merged(runner)
    assert len(out) == 1
    out[0].assert_attribute_equals("merge.completion.reason", "Bin is full")
    out[0].assert_attribute_equals("merge.count", "2")
    assert runner.queue_size == 1


def test_min_bin_size_in_writer_output_bytes(runner: TestRunner) -> None:
    runner.set_property("Minimum Bin Size", "40 B")
    runner.enqueue(TWO)  # 25 bytes < 40
    runner.run(2, stop_on_finish=False)
    runner.assert_transfer_count("merged", 0)
    runner.enqueue(TWO_MORE)  # 41 bytes
    runner.run(2)
    out = merged(runner)
    assert len(out) == 1
    out[0].assert_attribute_equals("merge.count", "2")
    out[0].assert_attribute_equals("merge.completion.reason", "Bin is full enough")


def test_different_schemas_never_share_a_bin(runner: TestRunner) -> None:
    runner.enqueue(TWO)
    runner.enqueue("name,color\nJohn,blue\n")
    runner.enqueue(TWO_MORE)
    runner.run(2)
    out = sorted(merged(runner), key=lambda f: f.attributes["record.count"])
    assert [f.attributes["record.count"] for f in out] == ["1", "4"]
    out[0].assert_content_equals("name,color\nJohn,blue\n")
    runner.assert_transfer_count("original", 3)


def test_correlation_attribute(runner: TestRunner) -> None:
    runner.set_property("Correlation Attribute Name", "store")
    runner.enqueue(TWO, {"store": "1"})
    runner.enqueue(TWO_MORE, {"store": "2"})
    runner.enqueue(TWO, {"store": "1"})
    runner.enqueue(TWO, {"store": ""})
    runner.enqueue(TWO_MORE)  # no attribute: shares the bin of the empty value
    runner.run(2)
    out = merged(runner)
    counts = sorted((f.attributes.get("store", "<none>"), f.attributes["merge.count"]) for f in out)
    assert counts == [("1", "2"), ("2", "1"), ("<none>", "2")]


def test_keep_all_unique_attributes(runner: TestRunner) -> None:
    runner.set_property("Attribute Strategy", "Keep All Unique Attributes")
    runner.enqueue(TWO, {"a": "1", "b": "x", "record.count": "2"})
    runner.enqueue(TWO_MORE, {"b": "y", "c": "3"})
    runner.run(2)
    out = merged(runner)[0]
    out.assert_attribute_equals("a", "1")
    out.assert_attribute_equals("c", "3")
    out.assert_attribute_not_exists("b")
    out.assert_attribute_equals("record.count", "4")


def test_keep_only_common_with_single_input_keeps_filename(runner: TestRunner) -> None:
    runner.enqueue(TWO, {"filename": "one.csv", "a": "1"})
    runner.run(2)
    out = merged(runner)[0]
    out.assert_attribute_equals("filename", "one.csv")
    out.assert_attribute_equals("a", "1")
    assert out.uuid != runner.get_flowfiles_for_relationship("original")[0].uuid


AGES = json.dumps(
    {
        "type": "record",
        "name": "person",
        "fields": [{"name": "name", "type": "string"}, {"name": "age", "type": "int"}],
    }
)


def test_read_error_in_the_middle_fails_the_whole_bin() -> None:
    # With a given schema the records stream into the bin as they are read: a value that
    # is not an int, past the first megabyte, fails the bin and every FlowFile in it.
    with TestRunner("MergeRecord") as runner:
        runner.add_controller_service(
            "reader",
            "CSVReader",
            {
                "Treat First Line as Header": "true",
                "Schema Access Strategy": "Use 'Schema Text' Property",
                "Schema Text": AGES,
            },
        )
        runner.add_controller_service("writer", "CSVRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.set_property("Minimum Number of Records", "1000000")
        runner.set_property("Maximum Number of Records", "1000000")
        runner.enqueue(TWO)
        runner.enqueue(TWO_MORE)
        big = "name,age\n" + "".join(f"n{i},{i}\n" for i in range(200_000)) + "bad,abc\n"
        bad = runner.enqueue(big)
        runner.enqueue("name,age\nAfter,1\n")
        runner.run(1, stop_on_finish=False)
        failed = runner.get_flowfiles_for_relationship("failure")
        assert len(failed) == 3
        assert failed[-1].uuid == bad.uuid
        for flowfile in failed:
            flowfile.assert_attribute_not_exists("merge.uuid")
        runner.assert_transfer_count("merged", 0)
        runner.assert_transfer_count("original", 0)
        assert joins(runner) == []
        runner.stop()  # the FlowFile after the error started a new bin, now rolled back
        assert runner.queue_size == 1


def test_a_large_content_that_cannot_be_inferred_fails_alone(runner: TestRunner) -> None:
    # Inferring reads a large content whole first (as NiFi does): a content that cannot
    # be parsed fails before it joins a bin, alone, and the bin goes on.
    runner.set_property("Minimum Number of Records", "4")
    runner.enqueue(TWO)
    big = "name,age\n" + "".join(f"n{i},{i}\n" for i in range(200_000)) + "bad,3,x\nlast,4\n"
    bad = runner.enqueue(big)
    runner.enqueue(TWO_MORE)
    runner.run(2)
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    assert failed.uuid == bad.uuid
    assert failed.text() == big
    (out,) = merged(runner)
    out.assert_attribute_equals("record.count", "4")


def test_reader_cannot_be_created_fails_only_that_flowfile(runner: TestRunner) -> None:
    runner.add_controller_service(
        "strict",
        "CSVReader",
        {
            "Treat First Line as Header": "true",
            "Schema Access Strategy": "Use 'Schema Text' Property",
            "Schema Text": '{"type":"record","name":"r","fields":['
            '{"name":"name","type":"string"},{"name":"age","type":"int"}]}',
        },
    )
    runner.set_property("Record Reader", "strict")
    runner.enqueue(TWO)
    runner.enqueue("name,age\nJohn,notanumber\n")
    runner.enqueue(TWO_MORE)
    runner.run(2)
    runner.assert_transfer_count("failure", 1)
    out = merged(runner)
    assert len(out) == 1
    out[0].assert_attribute_equals("record.count", "4")


def test_zero_record_flowfiles_join_but_never_fill_a_bin(runner: TestRunner) -> None:
    runner.set_property("Max Bin Age", "1 sec")
    runner.enqueue("name,age\n")
    runner.enqueue("name,age\n")
    runner.run(2, stop_on_finish=False)
    runner.assert_transfer_count("merged", 0)
    runner.advance_time(2)
    runner.run(1)
    out = merged(runner)
    assert len(out) == 1
    out[0].assert_attribute_equals("record.count", "0")
    out[0].assert_attribute_equals("merge.count", "2")


def test_stop_returns_bins_flowfiles_to_the_queue_bin_by_bin_in_arrival_order(
    runner: TestRunner,
) -> None:
    """FlowFiles read together in one poll join their bins' sessions in arrival order, so a
    stop gives each bin's FlowFiles back in that order."""
    runner.set_property("Minimum Number of Records", "100")
    contents = ["a,b\n1,x\n", "b,a\ny,2\n", "a,b\n3,z\n", "b,a\nw,4\n", "a,b\n5,v\n"]
    for content in contents:
        runner.enqueue(content)
    runner.run(1)
    runner.stop()
    queue = runner.node.connections[INPUT].queue
    order = [
        runner.node.content.read(r.flowfile.claim, r.flowfile.claim_offset, r.flowfile.size)
        for r in queue.listing()
        if r.flowfile.claim is not None
    ]
    assert sorted(order) == sorted(c.encode() for c in contents)
    first_bin = [c.encode() for c in contents if c.startswith("a")]
    second_bin = [c.encode() for c in contents if c.startswith("b")]
    assert order in (first_bin + second_bin, second_bin + first_bin)
