"""NiFi's TestMergeRecord, ported: the same observable behaviour on flowcore's MergeRecord.

NiFi's CommaSeparatedRecordReader becomes the real CSVReader (header line, fields trimmed)
and its MockRecordWriter("header") the real CSVRecordSetWriter, so NiFi's expected
``header\\nJohn,35\\n`` reads ``Name,Age\\nJohn,35\\n`` here. See docs/nifi-tests.md.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import processors.merge
import processors.record  # noqa: F401 - registers the record services
from flowcore.flow.nifi.mapping import nifi_mapping
from flowcore.testing import TestRunner
from flowcore.testing.mock_flowfile import MockFlowFile
from processors.merge.merge_record import MergeRecord

HEADER = "Name,Age\n"


@pytest.fixture
def runner() -> Iterator[TestRunner]:
    with TestRunner("MergeRecord") as test_runner:
        test_runner.add_controller_service(
            "reader", "CSVReader", {"Treat First Line as Header": "true", "Trim Fields": "true"}
        )
        test_runner.add_controller_service("writer", "CSVRecordSetWriter", {})
        test_runner.set_property("Record Reader", "reader")
        test_runner.set_property("Record Writer", "writer")
        yield test_runner


def merged(runner: TestRunner) -> list[MockFlowFile]:
    return runner.get_flowfiles_for_relationship("merged")


def count_merged(runner: TestRunner, records: str, content: str) -> int:
    return sum(
        1
        for ff in merged(runner)
        if ff.get_attribute("record.count") == records and ff.text() == content
    )


def bin_count(runner: TestRunner) -> int:
    processor = runner.processor
    assert isinstance(processor, MergeRecord)
    return len(processor._bins)


def fragment(fragment_id: str, index: str | None, count: str = "2") -> dict[str, str]:
    attributes = {"fragment.count": count, "fragment.identifier": fragment_id}
    if index is not None:
        attributes["fragment.index"] = index
    return attributes


def assert_originals_point_at(runner: TestRunner, out: MockFlowFile) -> None:
    for original in runner.get_flowfiles_for_relationship("original"):
        original.assert_attribute_equals("merge.uuid", out.uuid)


def test_nifi_small_output_is_flushed(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testSmallOutputIsFlushed."""
    runner.set_property("Minimum Number of Records", "1")
    runner.set_property("Maximum Number of Records", "1")
    runner.enqueue("Name, Age\nJohn, 35\nJane, 34")
    runner.run(1)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 1)
    out = merged(runner)[0]
    out.assert_attribute_equals("record.count", "2")
    out.assert_content_equals(HEADER + "John,35\nJane,34\n")
    assert_originals_point_at(runner, out)
    out.assert_attribute_equals("merge.completion.reason", "Bin is full")


def test_nifi_merge_simple(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testMergeSimple."""
    runner.enqueue("Name, Age\nJohn, 35")
    runner.enqueue("Name, Age\nJane, 34")
    runner.run(2)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 2)
    out = merged(runner)[0]
    out.assert_attribute_equals("record.count", "2")
    out.assert_content_equals(HEADER + "John,35\nJane,34\n")
    assert_originals_point_at(runner, out)
    out.assert_attribute_equals("merge.completion.reason", "Bin is full enough")


def test_nifi_merge_simple_different_write_schema(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testMergeSimpleDifferentWriteSchema."""
    runner.add_controller_service(
        "differentWriter",
        "CSVRecordSetWriter",
        {
            "Schema Access Strategy": "schema-text-property",
            "Schema Text": '{"type": "record", "name": "w", "fields": '
            '[{"name": "Name", "type": "string"}]}',
        },
    )
    runner.set_property("Record Writer", "differentWriter")
    runner.enqueue("Name, Age\nJohn, 35")
    runner.enqueue("Name, Age\nJane, 34")
    runner.run(2)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 2)
    out = merged(runner)[0]
    out.assert_attribute_equals("record.count", "2")
    out.assert_content_equals("Name\nJohn\nJane\n")
    assert_originals_point_at(runner, out)


def test_nifi_different_schema(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testDifferentSchema."""
    runner.set_property("Minimum Number of Records", "2")
    runner.enqueue("Name, Age\nJohn, 35")
    runner.enqueue("Name, Color\nJane, Red")
    runner.run(1, False, True)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    runner.enqueue("Name, Age\nJane, 34")
    runner.enqueue("Name, Color\nJohn, Blue")
    runner.run(1, False, False)
    runner.run(1, True, False)
    runner.assert_transfer_count("merged", 2)
    runner.assert_transfer_count("original", 4)
    assert count_merged(runner, "2", HEADER + "John,35\nJane,34\n") == 1
    assert count_merged(runner, "2", "Name,Color\nJane,Red\nJohn,Blue\n") == 1


def test_nifi_failure_to_parse(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testFailureToParse."""
    runner.set_property("Minimum Number of Records", "3")
    runner.enqueue("Name, City\nJohn, Paris")
    runner.enqueue("Name, City\nJane, Rome")
    # NiFi's reader fails after two records have been read. Here the third FlowFile fails
    # while its records are added to the bin: its schema is known from its first block,
    # a malformed record (an unterminated quote) follows beyond that block.
    runner.enqueue("Name, City\n" + "Jake, Oslo\n" * 120_000 + '"Jim, Bern')
    runner.run()
    # Every FlowFile of the bin goes to failure, so no record moves on twice.
    runner.assert_all_flowfiles_transferred("failure", 3)


def test_nifi_defragment(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testDefragment."""
    runner.set_property("Merge Strategy", "Defragment")
    runner.enqueue("Name, Age\nJohn, 35", fragment("1", "0"))
    runner.enqueue("Name, Age\nJane, 34", fragment("1", "1"))
    runner.enqueue("Name, Age\nJay, 24", fragment("2", "0"))
    runner.enqueue("Name, Age\nJake, 3", fragment("3", "0"))
    runner.enqueue("Name, Age\nJan, 2", fragment("3", "1"))
    runner.run(1)
    assert runner.queue_size == 1, "Fragment id=2 should remain in the incoming connection"
    runner.assert_transfer_count("merged", 2)
    runner.assert_transfer_count("original", 4)
    assert count_merged(runner, "2", HEADER + "John,35\nJane,34\n") == 1
    assert count_merged(runner, "2", HEADER + "Jake,3\nJan,2\n") == 1


def test_nifi_defragment_over_multiple_calls(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testDefragmentOverMultipleCalls."""
    runner.set_property("Merge Strategy", "Defragment")
    runner.enqueue("Name, Age\nJohn, 35", fragment("1", "0"))
    runner.run(2)
    assert runner.queue_size == 1, "Fragment should remain in the incoming connection"
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    runner.assert_transfer_count("failure", 0)
    runner.enqueue("Name, Age\nJane, 34", fragment("1", "1"))
    runner.run(1)
    assert runner.queue_size == 0, "Fragments should merge"
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 2)
    runner.assert_transfer_count("failure", 0)
    assert count_merged(runner, "2", HEADER + "John,35\nJane,34\n") == 1


def test_nifi_defragment_with_multiple_records(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testDefragmentWithMultipleRecords."""
    runner.set_property("Merge Strategy", "Defragment")
    runner.enqueue("Name, Age\nJohn, 35\nJane, 34", {**fragment("1", "0"), "record.count": "2"})
    runner.enqueue("Name, Age\nJake, 3\nJan, 2", {**fragment("1", "1"), "record.count": "2"})
    runner.enqueue("Name, Age\nJay, 24\nJade, 28", {**fragment("2", "0"), "record.count": "2"})
    runner.run(1)
    assert runner.queue_size == 1, "Fragment id=2 should remain in the incoming connection"
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 2)
    assert count_merged(runner, "4", HEADER + "John,35\nJane,34\nJake,3\nJan,2\n") == 1


def test_nifi_defragment_with_multiple_records_over_multiple_calls(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testDefragmentWithMultipleRecordsOverMultipleCalls."""
    runner.set_property("Merge Strategy", "Defragment")
    runner.enqueue("Name, Age\nJohn, 35\nJane, 34", {**fragment("1", "0"), "record.count": "2"})
    runner.run(2)
    assert runner.queue_size == 1, "Fragment id=1 should remain in the incoming connection"
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    runner.enqueue("Name, Age\nJake, 3\nJan, 2", {**fragment("1", "1"), "record.count": "2"})
    runner.run(1)
    assert runner.queue_size == 0, "Fragment id=1 should be merged"
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 2)
    assert count_merged(runner, "4", HEADER + "John,35\nJane,34\nJake,3\nJan,2\n") == 1


def hundred_people() -> str:
    return "Name, Age\n" + "".join(f"Person {i}, {i}\n" for i in range(100))


def test_nifi_min_size(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testMinSize."""
    runner.set_property("Minimum Number of Records", "2")
    runner.set_property("Minimum Bin Size", "500 B")
    runner.enqueue("Name, Age\nJohn, 35")
    runner.enqueue("Name, Age\nJane, 34")
    runner.run()
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    runner.enqueue(hundred_people())
    runner.run(2)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 3)


def test_nifi_validation(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testValidation."""
    runner.set_property("Minimum Number of Records", "103")
    runner.set_property("Maximum Number of Records", "2")
    runner.set_property("Minimum Bin Size", "500 B")
    runner.assert_not_valid()
    runner.set_property("Minimum Number of Records", "2")
    runner.set_property("Maximum Number of Records", "103")
    runner.assert_valid()


def test_nifi_min_records(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testMinRecords."""
    runner.set_property("Minimum Number of Records", "103")
    runner.set_property("Minimum Bin Size", "500 B")
    runner.enqueue("Name, Age\nJohn, 35")
    runner.enqueue("Name, Age\nJane, 34")
    runner.enqueue(hundred_people())
    runner.run()
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    runner.enqueue("Name, Age\nJohn, 35")
    runner.run(2)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 4)


def test_nifi_max_records(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testMaxRecords."""
    runner.set_property("Minimum Number of Records", "5")
    runner.set_property("Maximum Number of Records", "10")
    for _ in range(34):
        runner.enqueue("Name, Age\nJohn, 35")
    runner.run()
    runner.assert_transfer_count("merged", 3)
    runner.assert_transfer_count("original", 30)
    assert runner.queue_size == 4
    for out in merged(runner):
        out.assert_attribute_equals("record.count", "10")


def test_nifi_max_size(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testMaxSize."""
    runner.set_property("Minimum Number of Records", "5")
    runner.set_property("Maximum Bin Size", "100 B")
    for _ in range(36):
        runner.enqueue("Name, Age\nJohnny, 5")
    runner.run()
    runner.assert_transfer_count("merged", 3)
    runner.assert_transfer_count("original", 33)
    assert runner.queue_size == 3


def test_nifi_timeout(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testTimeout (the manual clock instead of NiFi's sleep)."""
    runner.set_property("Minimum Number of Records", "500")
    runner.set_property("Max Bin Age", "500 millis")
    for _ in range(100):
        runner.enqueue("Name, Age\nJohnny, 5")
    runner.run(1, False)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    runner.advance_time(0.75)
    runner.run(1, True, False)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 100)


def test_nifi_bin_count(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testBinCount."""
    runner.set_property("Minimum Number of Records", "5")
    runner.set_property("Maximum Number of Records", "10")
    runner.set_property("Maximum Number of Bins", "5")
    runner.set_property("Correlation Attribute Name", "correlationId")
    for i in range(5):
        runner.enqueue(f"Name, Age\nJohn, 3{i}", {"correlationId": str(i)})
    runner.run(1, False)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    runner.assert_transfer_count("failure", 0)
    runner.enqueue("Name, Age\nJohn, 35", {"correlationId": "5"})
    assert bin_count(runner) == 5
    runner.run(1, False, False)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    assert bin_count(runner) == 5


def test_nifi_defragment_oldest_bin_fails_when_too_many_bins(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testDefragmentOldestBinFailsWhenTooManyBins."""
    runner.set_property("Maximum Number of Bins", "5")
    runner.set_property("Merge Strategy", "Defragment")
    for i in range(5):
        runner.enqueue(f"Name, Age\nJohn, 3{i}", fragment(str(i), None, "5"))
    runner.run(1, False)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    runner.assert_transfer_count("failure", 0)
    runner.enqueue("Name, Age\nJohn, 35", fragment("5", None, "5"))
    assert bin_count(runner) == 5
    runner.run(1, False, False)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    runner.assert_transfer_count("failure", 1)
    assert bin_count(runner) == 5


def test_nifi_defragment_expired_bin_fails_on_timeout(runner: TestRunner) -> None:
    """NiFi TestMergeRecord.testDefragmentExpiredBinFailsOnTimeout (the clock, no sleep)."""
    runner.set_property("Maximum Number of Bins", "5")
    runner.set_property("Merge Strategy", "Defragment")
    runner.set_property("Max Bin Age", "1 millis")
    runner.enqueue("Name, Age\nJohn, 30", fragment("0", None, "5"))
    runner.run(1, False)
    runner.advance_time(0.05)
    runner.run(1, False, False)
    runner.run(1, True, False)
    runner.assert_transfer_count("merged", 0)
    runner.assert_transfer_count("original", 0)
    runner.assert_transfer_count("failure", 1)


def test_nifi_merge_with_min_records_from_variable_registry(
    runner: TestRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NiFi TestMergeRecord.testMergeWithMinRecordsFromVariableRegistry."""
    monkeypatch.setenv("min_records", "3")
    monkeypatch.setenv("max_records", "3")
    runner.set_property("Minimum Number of Records", "${min_records}")
    runner.set_property("Maximum Number of Records", "3")
    runner.enqueue("Name, Age\nJohn, 35")
    runner.enqueue("Name, Age\nJane, 34")
    runner.enqueue("Name, Age\nAlex, 28")
    runner.run(1)
    runner.assert_transfer_count("merged", 1)
    runner.assert_transfer_count("original", 3)
    out = merged(runner)[0]
    out.assert_attribute_equals("record.count", "3")
    out.assert_content_equals(HEADER + "John,35\nJane,34\nAlex,28\n")
    runner.clear_transfer_state()

    runner.set_property("Minimum Number of Records", "1")
    runner.set_property("Maximum Number of Records", "${max_records}")
    for name, age in (("John", 35), ("Jane", 34), ("Alex", 28), ("Donna", 48), ("Joey", 45)):
        runner.enqueue(f"Name, Age\n{name}, {age}")
    runner.run(2)
    runner.assert_transfer_count("merged", 2)
    runner.assert_transfer_count("original", 5)
    first, second = merged(runner)
    first.assert_attribute_equals("record.count", "3")
    first.assert_content_equals(HEADER + "John,35\nJane,34\nAlex,28\n")
    second.assert_attribute_equals("record.count", "2")
    second.assert_content_equals(HEADER + "Donna,48\nJoey,45\n")


def test_nifi_negative_min_and_max_records_validators(
    runner: TestRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NiFi TestMergeRecord.testNegativeMinAndMaxRecordsValidators."""
    monkeypatch.setenv("min_records", "-3")
    monkeypatch.setenv("max_records", "-1")
    runner.set_property("Minimum Number of Records", "${min_records}")
    runner.set_property("Maximum Number of Records", "3")
    runner.assert_not_valid()
    runner.set_property("Minimum Number of Records", "${min_records}")
    runner.set_property("Maximum Number of Records", "${max_records}")
    runner.assert_not_valid()
    runner.set_property("Minimum Number of Records", "3")
    runner.set_property("Maximum Number of Records", "${max_records}")
    runner.assert_not_valid()
    runner.remove_property("Minimum Number of Records")  # its default, 1
    runner.set_property("Maximum Number of Records", "${max_records}")
    runner.assert_not_valid()
    monkeypatch.setenv("min_records", "-1")
    monkeypatch.setenv("max_records", "-3")
    runner.set_property("Minimum Number of Records", "${min_records}")
    runner.set_property("Maximum Number of Records", "${max_records}")
    runner.assert_not_valid()
    monkeypatch.setenv("min_records", "1")
    monkeypatch.setenv("max_records", "5")
    runner.set_property("Minimum Number of Records", "${min_records}")
    runner.set_property("Maximum Number of Records", "${max_records}")
    runner.assert_valid()


def test_nifi_migrate_properties() -> None:
    """NiFi TestMergeRecord.testMigrateProperties (the NiFi import's renames)."""
    mapping = nifi_mapping("org.apache.nifi.processors.standard.MergeRecord", "processor")
    assert mapping is not None
    assert dict(mapping.aliases) == {
        "record-reader": "Record Reader",
        "record-writer": "Record Writer",
        "merge-strategy": "Merge Strategy",
        "correlation-attribute-name": "Correlation Attribute Name",
        "min-bin-size": "Minimum Bin Size",
        "max-bin-size": "Maximum Bin Size",
        "min-records": "Minimum Number of Records",
        "max-records": "Maximum Number of Records",
        "max.bin.count": "Maximum Number of Bins",
        "max-bin-age": "Max Bin Age",
    }
