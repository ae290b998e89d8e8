"""NiFi's own duplicate_flowfile tests, ported to the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
COPY_INDEX_ATTRIBUTE = "copy.index"


def test_nifi_test(make_runner: RunnerFactory) -> None:
    """NiFi: TestDuplicateFlowFile.test."""
    num_copies = 100
    runner = make_runner("DuplicateFlowFile")
    runner.set_property("Number of Copies", str(num_copies))
    runner.enqueue(b"hello")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", num_copies + 1)
    flow_files = runner.get_flowfiles_for_relationship("success")
    # copy.index starts with 1; the original has copy.index 0 and is transferred last
    for i in range(1, num_copies + 1):
        flow_files[i - 1].assert_attribute_equals(COPY_INDEX_ATTRIBUTE, str(i))
    flow_files[num_copies].assert_attribute_equals(COPY_INDEX_ATTRIBUTE, "0")


def test_nifi_number_of_copies_el(make_runner: RunnerFactory) -> None:
    """NiFi: TestDuplicateFlowFile.testNumberOfCopiesEL."""
    runner = make_runner("DuplicateFlowFile")
    runner.set_property("Number of Copies", "${num.copies}")
    runner.enqueue(b"hello", {"num.copies": "100"})
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 101)
