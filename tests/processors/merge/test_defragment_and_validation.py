"""MergeRecord: Defragment (spec A.9) and property validation (A.2)."""

from __future__ import annotations

import pytest

from flowcore.testing import TestRunner
from processors.merge.bins import FRAGMENTS_INCONSISTENT


def fragment(index: int, count: str | None, ident: str = "f1") -> dict[str, str]:
    attributes = {"fragment.identifier": ident, "fragment.index": str(index)}
    if count is not None:
        attributes["fragment.count"] = count
    return attributes


@pytest.fixture
def defrag(runner: TestRunner) -> TestRunner:
    runner.set_property("Merge Strategy", "Defragment")
    return runner


def test_defragment_merges_in_arrival_order_across_schemas(defrag: TestRunner) -> None:
    defrag.enqueue("name,age\nC,3\n", fragment(2, "3"))
    defrag.enqueue("name,age\nA,1\n", fragment(0, "3"))
    defrag.enqueue("name,age\nB,2\n", fragment(1, None))  # only the first needs the count
    defrag.run(1)
    out = defrag.get_flowfiles_for_relationship("merged")
    assert len(out) == 1
    out[0].assert_content_equals("name,age\nC,3\nA,1\nB,2\n")  # fragment.index is not read
    out[0].assert_attribute_equals("merge.completion.reason", "Bin is full")
    out[0].assert_attribute_equals("fragment.identifier", "f1")
    out[0].assert_attribute_not_exists("fragment.index")
    out[0].assert_attribute_not_exists("fragment.count")  # not on every input
    defrag.assert_transfer_count("original", 3)


def test_defragment_ignores_schema_and_min_records(defrag: TestRunner) -> None:
    defrag.set_property("Minimum Number of Records", "100")
    defrag.enqueue("name,age\nA,1\n", fragment(0, "2"))
    defrag.enqueue("name,color\nB,blue\n", fragment(1, "2"))
    defrag.run(1)
    out = defrag.get_flowfiles_for_relationship("merged")
    assert len(out) == 1
    out[0].assert_attribute_equals("merge.count", "2")
    out[0].assert_attribute_equals("fragment.count", "2")


@pytest.mark.parametrize("count", [None, "x"])
def test_defragment_first_fragment_without_valid_count_fails(
    defrag: TestRunner, count: str | None
) -> None:
    defrag.enqueue("name,age\nA,1\n", fragment(0, count))
    defrag.run(1)
    defrag.assert_transfer_count("failure", 1)
    defrag.assert_transfer_count("merged", 0)
    failed = defrag.get_flowfiles_for_relationship("failure")[0]
    failed.assert_attribute_not_exists("merge.uuid")
    failed.assert_attribute_equals("merge.failure.reason", FRAGMENTS_INCONSISTENT)


def test_defragment_mismatched_count_fails_the_whole_bin(defrag: TestRunner) -> None:
    defrag.enqueue("name,age\nA,1\n", fragment(0, "3"))
    defrag.enqueue("name,age\nB,2\n", fragment(1, "2"))
    defrag.run(1)
    defrag.assert_transfer_count("failure", 2)
    defrag.assert_transfer_count("merged", 0)
    assert not [e for e in defrag.get_provenance_events() if e.event_type == "JOIN"]
    for failed in defrag.get_flowfiles_for_relationship("failure"):
        failed.assert_attribute_equals("merge.failure.reason", FRAGMENTS_INCONSISTENT)


def test_defragment_incomplete_bin_evicted_goes_to_failure(defrag: TestRunner) -> None:
    defrag.set_property("Maximum Number of Bins", "1")
    defrag.enqueue("name,age\nA,1\n", fragment(0, "2", "one"))
    defrag.enqueue("name,age\nB,1\n", fragment(0, "2", "two"))
    defrag.run(1)
    failed = defrag.get_flowfiles_for_relationship("failure")
    assert [f.attributes["fragment.identifier"] for f in failed] == ["one"]
    assert defrag.queue_size == 1  # "two" was rolled back on stop


def test_defragment_incomplete_bin_aged_out_goes_to_failure(defrag: TestRunner) -> None:
    defrag.set_property("Max Bin Age", "1 sec")
    defrag.enqueue("name,age\nA,1\n", fragment(0, "2"))
    defrag.run(1, stop_on_finish=False)
    defrag.advance_time(2)
    defrag.run(1)
    defrag.assert_transfer_count("failure", 1)
    defrag.assert_transfer_count("merged", 0)
    defrag.get_flowfiles_for_relationship("failure")[0].assert_attribute_equals(
        "merge.failure.reason", "the bin holds 1 of its 2 fragments"
    )


def test_defragment_extra_fragments_start_a_new_bin(defrag: TestRunner) -> None:
    for index in range(3):
        defrag.enqueue(f"name,age\nA,{index}\n", fragment(index, "2"))
    defrag.run(1)
    defrag.assert_transfer_count("merged", 1)
    assert defrag.queue_size == 1


# -- validation -----------------------------------------------------------------------------


def test_defaults_are_valid(runner: TestRunner) -> None:
    runner.assert_valid()


def test_max_records_smaller_than_min(runner: TestRunner) -> None:
    runner.set_property("Minimum Number of Records", "10")
    runner.set_property("Maximum Number of Records", "5")
    assert runner.validation_errors() == [
        "'Max Records' is invalid because <Maximum Number of Records> property cannot be "
        "smaller than <Minimum Number of Records> property"
    ]


def test_equal_min_and_max_are_valid(runner: TestRunner) -> None:
    runner.set_property("Minimum Number of Records", "5")
    runner.set_property("Maximum Number of Records", "5")
    runner.set_property("Minimum Bin Size", "1 KB")
    runner.set_property("Maximum Bin Size", "1024 B")
    runner.assert_valid()


def test_max_size_smaller_than_min(runner: TestRunner) -> None:
    runner.set_property("Minimum Bin Size", "2 KB")
    runner.set_property("Maximum Bin Size", "1 KB")
    assert runner.validation_errors() == [
        "'Max Size' is invalid because <Maximum Bin Size> property cannot be smaller than "
        "<Minimum Bin Size> property"
    ]


def test_el_min_records_evaluated_with_environment(
    runner: TestRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGE_MIN", "0")
    runner.set_property("Minimum Number of Records", "${MERGE_MIN}")
    assert runner.validation_errors() == [
        "'Min Records' is invalid because <Minimum Number of Records> property cannot be "
        "negative or zero"
    ]
    monkeypatch.setenv("MERGE_MIN", "2000")
    assert runner.validation_errors() == [
        "'Max Records' is invalid because <Maximum Number of Records> property cannot be "
        "smaller than <Minimum Number of Records> property"
    ]


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("Minimum Number of Records", "0", "not a positive value"),
        ("Maximum Number of Records", " 5", "not a valid integer"),
        ("Maximum Number of Bins", "abc", "not a valid integer"),
        ("Merge Strategy", "Bin Packing Algorithm", "Given value not found in allowed set"),
        ("Attribute Strategy", "Keep Everything", "Given value not found in allowed set"),
        ("Minimum Bin Size", "ten", "Must be of format <Data Size> <Data Unit>"),
        ("Max Bin Age", "soon", "Must be of format <duration> <TimeUnit>"),
        ("Correlation Attribute Name", "  ", "Invalid attribute key: <Empty String>"),
    ],
)
def test_property_validators(runner: TestRunner, name: str, value: str, message: str) -> None:
    runner.set_property(name, value)
    errors = runner.validation_errors()
    assert len(errors) == 1
    assert errors[0].startswith(f"'{name}' validated against '{value}' is invalid because")
    assert message in errors[0]


def test_reader_and_writer_are_required() -> None:
    import processors.merge  # noqa: F401

    with TestRunner("MergeRecord") as bare:
        errors = bare.validation_errors()
    assert "'Record Reader' is invalid because Record Reader is required" in errors
    assert "'Record Writer' is invalid because Record Writer is required" in errors
