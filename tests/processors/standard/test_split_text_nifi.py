"""NiFi's own split_text tests, ported to the TestRunner."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.testing import TestRunner
from tests.processors.standard.nifi_resources import resource

RunnerFactory = Callable[..., TestRunner]
ORIGINAL_FILENAME = "original.txt"
FILE = resource("TestSplitText/original.txt")
TEST_INPUT_DATA = (
    "HeaderLine1\nLine2SpacesAtEnd  \nLine3\nLine4\n\n\nLine8\nLine9\n\n\n"
    "13\n14\n15    EndofLine15\n16\n" + "\n" * 33 + "LastLine\n"
)


def test_nifi_last_line_exceeds_size_limit(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testLastLineExceedsSizeLimit."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "0")
    runner.set_property("Line Split Count", "2")
    runner.set_property("Maximum Fragment Size", "20 B")
    runner.enqueue("Line #1\nLine #2\nLine #3\nLong line exceeding limit")
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    original_flow_file = runner.get_flowfiles_for_relationship("original")[0]
    original_flow_file.assert_attribute_equals("fragment.count", "3")
    original_flow_file.assert_attribute_exists("fragment.identifier")
    runner.assert_transfer_count("splits", 3)


def test_nifi_incomplete_header(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testIncompleteHeader."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "2")
    runner.set_property("Line Split Count", "2")
    runner.set_property("Maximum Fragment Size", "50 B")
    runner.enqueue("Header Line #1")
    runner.run()
    runner.assert_transfer_count("failure", 1)
    runner.assert_transfer_count("original", 0)
    runner.assert_transfer_count("splits", 0)


def test_nifi_single_character_header_marker(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testSingleCharacterHeaderMarker."""
    runner = make_runner("SplitText")
    runner.set_property("Line Split Count", "7")
    runner.set_property("Header Line Marker Characters", "H")
    runner.set_property("Remove Trailing Newlines", "false")
    runner.enqueue(FILE, {"filename": ORIGINAL_FILENAME})
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "2"
    )
    runner.assert_transfer_count("splits", 2)
    splits = runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_attribute_equals("text.line.count", "7")
    splits[0].assert_attribute_equals("fragment.size", "86")
    splits[1].assert_attribute_equals("text.line.count", "3")
    splits[1].assert_attribute_equals("fragment.size", "54")
    fragment_uuid = splits[0].get_attribute("fragment.identifier")
    for i in range(0, len(splits)):
        split = splits[i]
        split.assert_attribute_equals("fragment.index", str(i + 1))
        split.assert_attribute_equals("fragment.identifier", fragment_uuid)
        split.assert_attribute_equals("fragment.count", str(len(splits)))
        split.assert_attribute_equals("segment.original.filename", ORIGINAL_FILENAME)


def test_nifi_multiple_header_indicators(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testMultipleHeaderIndicators."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "1")
    runner.set_property("Header Line Marker Characters", "Head")
    runner.set_property("Line Split Count", "5")
    runner.set_property("Remove Trailing Newlines", "false")
    runner.enqueue(FILE, {"filename": ORIGINAL_FILENAME})
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "3"
    )
    runner.assert_transfer_count("splits", 3)
    splits = runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_attribute_equals("text.line.count", "5")
    splits[0].assert_attribute_equals("fragment.size", "62")
    splits[1].assert_attribute_equals("text.line.count", "5")
    splits[1].assert_attribute_equals("fragment.size", "55")
    splits[2].assert_attribute_equals("text.line.count", "1")
    splits[2].assert_attribute_equals("fragment.size", "23")
    fragment_uuid = splits[0].get_attribute("fragment.identifier")
    for i in range(0, len(splits)):
        split = splits[i]
        split.assert_attribute_equals("fragment.index", str(i + 1))
        split.assert_attribute_equals("fragment.identifier", fragment_uuid)
        split.assert_attribute_equals("fragment.count", str(len(splits)))
        split.assert_attribute_equals("segment.original.filename", ORIGINAL_FILENAME)


def test_nifi_zero_lines_no_max_size(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testZeroLinesNoMaxSize."""
    runner = make_runner("SplitText")
    runner.set_property("Line Split Count", "0")
    runner.assert_not_valid()


def test_nifi_multiple_split_directives(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testMultipleSplitDirectives."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "2")
    runner.set_property("Line Split Count", "2")
    runner.set_property("Maximum Fragment Size", "50 B")
    runner.set_property("Remove Trailing Newlines", "false")
    runner.enqueue(
        "Header Line #1\nHeader Line #2\nLine #1\nLine #2\n"
        + "Line #3 This line has additional text added so that it exceeds the maximum "
        "fragment size\n" + "Line #4\nLine #5\nLine #6\nLine #7\nLine #8\nLine #9\nLine #10\n"
    )
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "6"
    )
    runner.assert_transfer_count("splits", 6)
    splits = runner.get_flowfiles_for_relationship("splits")
    assert splits[0].size == 46
    assert splits[1].size == 119
    assert splits[2].size == 46
    assert splits[3].size == 46
    assert splits[4].size == 46
    assert splits[5].size == 39


def test_nifi_flow_file_is_only_header(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testFlowFileIsOnlyHeader."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "0")
    runner.set_property("Line Split Count", "2")
    runner.set_property("Maximum Fragment Size", "50 B")
    runner.set_property("Header Line Marker Characters", "Head")
    runner.enqueue("Header Line #1\nHeaderLine#2\n")
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "1"
    )
    runner.assert_transfer_count("splits", 1)
    # repeat with header cou8nt versus header marker
    runner.clear_transfer_state()
    runner.set_property("Header Line Count", "2")
    runner.set_property("Line Split Count", "2")
    runner.set_property("Maximum Fragment Size", "50 B")
    runner.enqueue("Header Line #1\nHeaderLine #2\n")
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "1"
    )
    runner.assert_transfer_count("splits", 1)
    # repeat single header line with no newline characters
    runner.clear_transfer_state()
    runner.set_property("Header Line Count", "1")
    runner.set_property("Line Split Count", "2")
    runner.set_property("Maximum Fragment Size", "50 B")
    runner.enqueue("Header Line #1")
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "1"
    )
    runner.assert_transfer_count("splits", 1)


def test_nifi_max_size_exceeded(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testMaxSizeExceeded."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "2")
    runner.set_property("Line Split Count", "0")
    runner.set_property("Maximum Fragment Size", "71 B")
    runner.set_property("Remove Trailing Newlines", "false")
    runner.enqueue(FILE, {"filename": ORIGINAL_FILENAME})
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "2"
    )
    runner.assert_transfer_count("splits", 2)
    splits = runner.get_flowfiles_for_relationship("splits")
    fragment_uuid = splits[0].get_attribute("fragment.identifier")
    for i in range(0, len(splits)):
        split = splits[i]
        split.assert_attribute_equals("text.line.count", "5")
        split.assert_attribute_equals("fragment.size", "70")
        split.assert_attribute_equals("fragment.index", str(i + 1))
        split.assert_attribute_equals("fragment.identifier", fragment_uuid)
        split.assert_attribute_equals("fragment.count", str(len(splits)))
        split.assert_attribute_equals("segment.original.filename", ORIGINAL_FILENAME)

    # Repeat test without header
    runner.clear_transfer_state()
    runner.set_property("Header Line Count", "0")
    runner.set_property("Line Split Count", "0")
    runner.set_property("Maximum Fragment Size", "71 B")
    runner.set_property("Remove Trailing Newlines", "false")
    runner.enqueue(FILE, {"filename": ORIGINAL_FILENAME})
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "2"
    )
    runner.assert_transfer_count("splits", 2)
    splits = runner.get_flowfiles_for_relationship("splits")
    fragment_uuid = splits[0].get_attribute("fragment.identifier")
    splits[0].assert_content_equals(
        "Header Line #1\nHeader Line #2\nLine #1\nLine #2\nLine #3\nLine #4\nLine #5\n"
    )
    splits[1].assert_content_equals("Line #6\nLine #7\nLine #8\nLine #9\nLine #10")
    splits[0].assert_attribute_equals("text.line.count", "7")
    splits[0].assert_attribute_equals("fragment.size", "70")
    splits[0].assert_attribute_equals("fragment.index", "1")
    splits[0].assert_attribute_equals("fragment.identifier", fragment_uuid)
    splits[0].assert_attribute_equals("fragment.count", "2")
    splits[0].assert_attribute_equals("segment.original.filename", ORIGINAL_FILENAME)
    splits[1].assert_attribute_equals("text.line.count", "5")
    splits[1].assert_attribute_equals("fragment.size", "40")
    splits[1].assert_attribute_equals("fragment.index", "2")
    splits[1].assert_attribute_equals("fragment.identifier", fragment_uuid)
    splits[1].assert_attribute_equals("fragment.count", "2")
    splits[1].assert_attribute_equals("segment.original.filename", ORIGINAL_FILENAME)


def test_nifi_split_with_only_carriage_return(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testSplitWithOnlyCarriageReturn."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "2")
    runner.set_property("Line Split Count", "3")
    runner.enqueue("H1\rH2\r1\r2\r3\r\r\r\r\r\r\r10\r11\r12\r")
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "4"
    )
    runner.assert_transfer_count("splits", 4)
    splits = runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("H1\rH2\r1\r2\r3")
    splits[1].assert_content_equals("H1\rH2")
    splits[2].assert_content_equals("H1\rH2")
    splits[3].assert_content_equals("H1\rH2\r10\r11\r12")
    runner.clear_transfer_state()
    runner.set_property("Header Line Count", "0")
    runner.set_property("Line Split Count", "3")
    runner.enqueue("1\r2\r3\r\r\r\r\r\r\r10\r11\r12\r")
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "2"
    )
    runner.assert_transfer_count("splits", 2)
    splits_with_no_header = runner.get_flowfiles_for_relationship("splits")
    splits_with_no_header[0].assert_content_equals("1\r2\r3")
    splits_with_no_header[1].assert_content_equals("10\r11\r12")


def test_nifi_split_with_carriage_return_and_new_lines(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testSplitWithCarriageReturnAndNewLines."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "2")
    runner.set_property("Line Split Count", "3")
    runner.enqueue("H1\r\nH2\r\n1\r\n2\r\n3\r\n\r\n\r\n\r\n\r\n\r\n\r\n10\r\n11\r\n12\r\n")
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "4"
    )
    runner.assert_transfer_count("splits", 4)
    splits = runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("H1\r\nH2\r\n1\r\n2\r\n3")
    splits[1].assert_content_equals("H1\r\nH2")
    splits[2].assert_content_equals("H1\r\nH2")
    splits[3].assert_content_equals("H1\r\nH2\r\n10\r\n11\r\n12")
    runner.clear_transfer_state()
    runner.set_property("Header Line Count", "0")
    runner.set_property("Line Split Count", "3")
    runner.enqueue("1\r\n2\r\n3\r\n\r\n\r\n\r\n\r\n\r\n\r\n10\r\n11\r\n12\r\n")
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "2"
    )
    runner.assert_transfer_count("splits", 2)
    splits_with_no_header = runner.get_flowfiles_for_relationship("splits")
    splits_with_no_header[0].assert_content_equals("1\r\n2\r\n3")
    splits_with_no_header[1].assert_content_equals("10\r\n11\r\n12")


def test_nifi_routes_to_failure_if_header_lines_not_all_present(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testRoutesToFailureIfHeaderLinesNotAllPresent."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "100")
    runner.set_property("Line Split Count", "3")
    runner.enqueue(FILE, {"filename": ORIGINAL_FILENAME})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_nifi_zero_byte_output(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testZeroByteOutput."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "0")
    runner.set_property("Line Split Count", "3")
    runner.enqueue(FILE, {"filename": ORIGINAL_FILENAME})
    runner.run()
    runner.assert_transfer_count("splits", 4)


def test_nifi_zero_byte_input_without_header(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testZeroByteInputWithoutHeader."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "0")
    runner.set_property("Line Split Count", "1")
    runner.enqueue(b"")
    runner.run()
    runner.assert_transfer_count("splits", 0)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)


def test_nifi_zero_byte_input(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testZeroByteInput."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "1")
    runner.set_property("Line Split Count", "1")
    runner.enqueue(b"")
    runner.run()
    runner.assert_transfer_count("splits", 0)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)


def test_nifi_split_without_header(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testSplitWithoutHeader."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "0")
    runner.set_property("Line Split Count", "3")
    runner.enqueue(FILE, {"filename": ORIGINAL_FILENAME})
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "4"
    )
    runner.assert_transfer_count("splits", 4)
    splits = runner.get_flowfiles_for_relationship("splits")
    expected0 = "Header Line #1\nHeader Line #2\nLine #1"
    expected1 = "Line #2\nLine #3\nLine #4"
    expected2 = "Line #5\nLine #6\nLine #7"
    expected3 = "Line #8\nLine #9\nLine #10"
    splits[0].assert_content_equals(expected0)
    splits[1].assert_content_equals(expected1)
    splits[2].assert_content_equals(expected2)
    splits[3].assert_content_equals(expected3)


def test_nifi_one_line_split_without_header(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testOneLineSplitWithoutHeader."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "0")
    runner.set_property("Line Split Count", "1")
    runner.enqueue(TEST_INPUT_DATA)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "11"
    )
    runner.assert_transfer_count("splits", 11)
    splits = runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("HeaderLine1")
    splits[1].assert_content_equals("Line2SpacesAtEnd  ")
    splits[2].assert_content_equals("Line3")
    splits[3].assert_content_equals("Line4")
    splits[4].assert_content_equals("Line8")
    splits[5].assert_content_equals("Line9")
    splits[6].assert_content_equals("13")
    splits[7].assert_content_equals("14")
    splits[8].assert_content_equals("15    EndofLine15")
    splits[9].assert_content_equals("16")
    splits[10].assert_content_equals("LastLine")


def test_nifi_five_line_split_without_header(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testFiveLineSplitWithoutHeader."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "0")
    runner.set_property("Line Split Count", "5")
    runner.enqueue(TEST_INPUT_DATA)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("splits", 4)
    splits = runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("HeaderLine1\nLine2SpacesAtEnd  \nLine3\nLine4")
    splits[1].assert_content_equals("\nLine8\nLine9")
    splits[2].assert_content_equals("13\n14\n15    EndofLine15\n16")
    splits[3].assert_content_equals("\n\nLastLine")


def test_nifi_five_line_split_without_header_retain_newline(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testFiveLineSplitWithoutHeaderRetainNewline."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "0")
    runner.set_property("Line Split Count", "5")
    runner.set_property("Remove Trailing Newlines", "false")
    runner.enqueue(TEST_INPUT_DATA)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("splits", 10)
    splits = runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("HeaderLine1\nLine2SpacesAtEnd  \nLine3\nLine4\n\n")
    splits[1].assert_content_equals("\nLine8\nLine9\n\n\n")
    splits[2].assert_content_equals("13\n14\n15    EndofLine15\n16\n\n")
    splits[3].assert_content_equals("\n\n\n\n\n")
    splits[4].assert_content_equals("\n\n\n\n\n")
    splits[5].assert_content_equals("\n\n\n\n\n")
    splits[6].assert_content_equals("\n\n\n\n\n")
    splits[7].assert_content_equals("\n\n\n\n\n")
    splits[8].assert_content_equals("\n\n\n\n\n")
    splits[9].assert_content_equals("\n\nLastLine\n")


def test_nifi_five_line_split_with_header_retain_newline(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testFiveLineSplitWithHeaderRetainNewline."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "1")
    runner.set_property("Line Split Count", "5")
    runner.set_property("Remove Trailing Newlines", "false")
    runner.enqueue(TEST_INPUT_DATA)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("splits", 10)
    splits = runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("HeaderLine1\nLine2SpacesAtEnd  \nLine3\nLine4\n\n\n")
    splits[1].assert_content_equals("HeaderLine1\nLine8\nLine9\n\n\n13\n")
    splits[2].assert_content_equals("HeaderLine1\n14\n15    EndofLine15\n16\n\n\n")
    splits[3].assert_content_equals("HeaderLine1\n\n\n\n\n\n")
    splits[4].assert_content_equals("HeaderLine1\n\n\n\n\n\n")
    splits[5].assert_content_equals("HeaderLine1\n\n\n\n\n\n")
    splits[6].assert_content_equals("HeaderLine1\n\n\n\n\n\n")
    splits[7].assert_content_equals("HeaderLine1\n\n\n\n\n\n")
    splits[8].assert_content_equals("HeaderLine1\n\n\n\n\n\n")
    splits[9].assert_content_equals("HeaderLine1\n\nLastLine\n")


def test_nifi_five_line_split_with_header_not_retain_newline(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testFiveLineSplitWithHeaderNotRetainNewline."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "1")
    runner.set_property("Line Split Count", "5")
    runner.set_property("Remove Trailing Newlines", "true")
    runner.enqueue(TEST_INPUT_DATA)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("splits", 10)
    splits = runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("HeaderLine1\nLine2SpacesAtEnd  \nLine3\nLine4")
    splits[1].assert_content_equals("HeaderLine1\nLine8\nLine9\n\n\n13")
    splits[2].assert_content_equals("HeaderLine1\n14\n15    EndofLine15\n16")
    splits[3].assert_content_equals("HeaderLine1")
    splits[4].assert_content_equals("HeaderLine1")
    splits[5].assert_content_equals("HeaderLine1")
    splits[6].assert_content_equals("HeaderLine1")
    splits[7].assert_content_equals("HeaderLine1")
    splits[8].assert_content_equals("HeaderLine1")
    splits[9].assert_content_equals("HeaderLine1\n\nLastLine")


def test_nifi_one_line_split_with_header(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testOneLineSplitWithHeader."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "1")
    runner.set_property("Line Split Count", "1")
    runner.enqueue(TEST_INPUT_DATA)
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("splits", 47)
    splits = runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("HeaderLine1\nLine2SpacesAtEnd  ")
    splits[1].assert_content_equals("HeaderLine1\nLine3")
    splits[2].assert_content_equals("HeaderLine1\nLine4")
    splits[3].assert_content_equals("HeaderLine1")
    splits[4].assert_content_equals("HeaderLine1")
    splits[5].assert_content_equals("HeaderLine1\nLine8")
    splits[6].assert_content_equals("HeaderLine1\nLine9")
    splits[7].assert_content_equals("HeaderLine1")
    splits[8].assert_content_equals("HeaderLine1")
    splits[9].assert_content_equals("HeaderLine1\n13")
    splits[10].assert_content_equals("HeaderLine1\n14")
    splits[11].assert_content_equals("HeaderLine1\n15    EndofLine15")
    splits[12].assert_content_equals("HeaderLine1\n16")
    for i in range(13, 46):
        splits[i].assert_content_equals("HeaderLine1")
    splits[46].assert_content_equals("HeaderLine1\nLastLine")


def test_nifi_split_with_two_line_header(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testSplitWithTwoLineHeader."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "2")
    runner.set_property("Line Split Count", "3")
    runner.enqueue(FILE, {"filename": ORIGINAL_FILENAME})
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("splits", 4)
    splits = runner.get_flowfiles_for_relationship("splits")
    for i in range(0, len(splits)):
        split = splits[i]
        split.assert_content_equals(resource(f"TestSplitText/{i + 1}.txt"))
        split.assert_attribute_equals("fragment.index", str(i + 1))


def test_nifi_split_with_two_line_header_and_even_multiple_of_lines(
    make_runner: RunnerFactory,
) -> None:
    """NiFi: TestSplitText.testSplitWithTwoLineHeaderAndEvenMultipleOfLines."""
    runner = make_runner("SplitText")
    runner.set_property("Header Line Count", "2")
    runner.set_property("Line Split Count", "5")
    runner.enqueue(FILE, {"filename": ORIGINAL_FILENAME})
    runner.run()
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("splits", 2)
    splits = runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals(resource("TestSplitText/5.txt"))
    splits[0].assert_attribute_equals("fragment.index", str(1))
    splits[1].assert_content_equals(resource("TestSplitText/6.txt"))
    splits[1].assert_attribute_equals("fragment.index", str(2))


def test_nifi_split_then_merge(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testSplitThenMerge."""
    split_runner = make_runner("SplitText")
    split_runner.set_property("Line Split Count", "3")
    split_runner.set_property("Remove Trailing Newlines", "false")
    split_runner.enqueue(FILE, {"filename": ORIGINAL_FILENAME})
    split_runner.run()
    split_runner.assert_transfer_count("splits", 4)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits = split_runner.get_flowfiles_for_relationship("splits")
    for flow_file in splits:
        flow_file.assert_attribute_equals("segment.original.filename", ORIGINAL_FILENAME)
        flow_file.assert_attribute_equals("fragment.count", "4")

    merge_runner = make_runner("MergeContent")
    merge_runner.set_property("Merge Format", "Binary Concatenation")
    merge_runner.set_property("Merge Strategy", "Defragment")
    for split in splits:
        merge_runner.enqueue(split.content, split.attributes)
    merge_runner.run()
    merge_runner.assert_transfer_count("merged", 1)
    merge_runner.assert_transfer_count("original", 4)
    merge_runner.assert_transfer_count("failure", 0)
    packed = merge_runner.get_flowfiles_for_relationship("merged")
    flow_file = packed[0]
    flow_file.assert_attribute_equals("filename", ORIGINAL_FILENAME)
    assert flow_file.size == len(FILE)
    flow_file.assert_content_equals(FILE)


def test_nifi_split_with_only_new_lines(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testSplitWithOnlyNewLines."""
    split_runner = make_runner("SplitText")
    split_runner.set_property("Header Line Count", "2")
    split_runner.set_property("Line Split Count", "3")
    split_runner.set_property("Remove Trailing Newlines", "true")
    split_runner.enqueue("H1\nH2\n1\n2\n3\n\n\n\n\n\n\n10\n11\n12\n")
    split_runner.run()
    split_runner.assert_transfer_count("splits", 4)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits = split_runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("H1\nH2\n1\n2\n3")
    splits[1].assert_content_equals("H1\nH2")
    splits[2].assert_content_equals("H1\nH2")
    splits[3].assert_content_equals("H1\nH2\n10\n11\n12")
    split_runner.clear_transfer_state()
    split_runner.set_property("Header Line Count", "0")
    split_runner.set_property("Line Split Count", "3")
    split_runner.set_property("Remove Trailing Newlines", "true")
    split_runner.enqueue("1\n2\n3\n\n\n\n\n\n\n10\n11\n12\n")
    split_runner.run()
    split_runner.assert_transfer_count("splits", 2)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits_with_no_header = split_runner.get_flowfiles_for_relationship("splits")
    splits_with_no_header[0].assert_content_equals("1\n2\n3")
    splits_with_no_header[1].assert_content_equals("10\n11\n12")


def test_nifi_with_lots_of_blank_lines_at_end(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testWithLotsOfBlankLinesAtEnd."""
    # verify with header lines
    split_runner = make_runner("SplitText")
    split_runner.set_property("Header Line Count", "2")
    split_runner.set_property("Line Split Count", "10")
    split_runner.set_property("Remove Trailing Newlines", "true")
    split_runner.enqueue("H1\nH2\n1\n\n\n")
    split_runner.run()
    split_runner.assert_transfer_count("splits", 1)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits = split_runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("H1\nH2\n1")
    # verify without headers
    split_runner.clear_transfer_state()
    split_runner.set_property("Header Line Count", "0")
    split_runner.enqueue("1\n2\n\n\n\n")
    split_runner.run()
    split_runner.assert_transfer_count("splits", 1)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits_with_no_header = split_runner.get_flowfiles_for_relationship("splits")
    splits_with_no_header[0].assert_content_equals("1\n2")


def test_nifi_all_new_lines_trimmed(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testAllNewLinesTrimmed."""
    split_runner = make_runner("SplitText")
    split_runner.set_property("Header Line Count", "0")
    split_runner.set_property("Line Split Count", "3")
    split_runner.set_property("Remove Trailing Newlines", "true")
    split_runner.enqueue("1\n2\n\n\n\n\n\n\n\n")
    split_runner.run()
    split_runner.assert_transfer_count("splits", 1)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits = split_runner.get_flowfiles_for_relationship("splits")
    split0 = splits[0]
    split0.assert_content_equals("1\n2")
    split0.assert_attribute_equals("fragment.index", "1")
    split0.assert_attribute_equals("fragment.count", "1")
    split0.assert_attribute_equals("text.line.count", "2")


def test_nifi_fragment_count_is_actual_flow_file_count(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testFragmentCountIsActualFlowFileCount."""
    split_runner = make_runner("SplitText")
    split_runner.set_property("Header Line Count", "0")
    split_runner.set_property("Line Split Count", "1")
    split_runner.set_property("Remove Trailing Newlines", "true")
    split_runner.enqueue("1\n2\n\n\n\n\n\n\n\n")
    split_runner.run()
    split_runner.assert_transfer_count("splits", 2)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits = split_runner.get_flowfiles_for_relationship("splits")
    split0 = splits[0]
    split0.assert_content_equals("1")
    split0.assert_attribute_equals("fragment.index", "1")
    split0.assert_attribute_equals("fragment.count", "2")
    split0.assert_attribute_equals("text.line.count", "1")
    split1 = splits[1]
    split1.assert_content_equals("2")
    split1.assert_attribute_equals("fragment.index", "2")
    split1.assert_attribute_equals("fragment.count", "2")
    split1.assert_attribute_equals("text.line.count", "1")


def test_nifi_consistent_trailing_of_new_lines(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testConsistentTrailingOfNewLines."""
    split_runner = make_runner("SplitText")
    split_runner.set_property("Header Line Count", "1")
    split_runner.set_property("Line Split Count", "3")
    split_runner.set_property("Remove Trailing Newlines", "true")
    split_runner.enqueue("H1\n1\n\n\n\n\n\n\n\n")
    split_runner.run()
    split_runner.assert_transfer_count("splits", 3)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits = split_runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("H1\n1")
    splits[1].assert_content_equals("H1")
    splits[2].assert_content_equals("H1")


def test_nifi_with_split_that_starts_with_new_line(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testWithSplitThatStartsWithNewLine."""
    split_runner = make_runner("SplitText")
    split_runner.set_property("Header Line Count", "1")
    split_runner.set_property("Line Split Count", "3")
    split_runner.set_property("Remove Trailing Newlines", "true")
    split_runner.enqueue("H1\n1\n2\n3\n\n\n4\n")
    split_runner.run()
    split_runner.assert_transfer_count("splits", 2)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits = split_runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("H1\n1\n2\n3")
    splits[1].assert_content_equals("H1\n\n\n4")
    split_runner.clear_transfer_state()
    split_runner.set_property("Header Line Count", "0")
    split_runner.enqueue("1\n2\n3\n\n\n4\n")
    split_runner.run()
    split_runner.assert_transfer_count("splits", 2)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits_without_header = split_runner.get_flowfiles_for_relationship("splits")
    splits_without_header[0].assert_content_equals("1\n2\n3")
    splits_without_header[1].assert_content_equals("\n\n4")


def test_nifi_with_empty_header_lines(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testWithEmptyHeaderLines."""
    split_runner = make_runner("SplitText")
    split_runner.set_property("Header Line Count", "2")
    split_runner.set_property("Line Split Count", "3")
    split_runner.set_property("Remove Trailing Newlines", "true")
    split_runner.enqueue("\n\n1\n\n\n\n\n")
    split_runner.run()
    split_runner.assert_transfer_count("splits", 2)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits = split_runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("\n\n1")
    splits[1].assert_content_equals("\n")


def test_nifi_max_fragment_size_with_trimmed_endlines(make_runner: RunnerFactory) -> None:
    """NiFi: TestSplitText.testMaxFragmentSizeWithTrimmedEndlines."""
    split_runner = make_runner("SplitText")
    split_runner.set_property("Header Line Count", "2")
    split_runner.set_property("Line Split Count", "0")
    split_runner.set_property("Maximum Fragment Size", "30 B")
    split_runner.set_property("Remove Trailing Newlines", "true")
    split_runner.enqueue("header1\nheader2\nline1 longer than limit\nline2\nline3\n\n\n\n\n")
    split_runner.run()
    split_runner.assert_transfer_count("splits", 3)
    split_runner.assert_transfer_count("original", 1)
    split_runner.assert_transfer_count("failure", 0)
    splits = split_runner.get_flowfiles_for_relationship("splits")
    splits[0].assert_content_equals("header1\nheader2\nline1 longer than limit")
    splits[1].assert_content_equals("header1\nheader2\nline2\nline3")
    splits[2].assert_content_equals("header1\nheader2")


@pytest.mark.parametrize(
    ("content", "properties", "expected"),
    [
        (
            "x\ny\nz\n",
            {"Line Split Count": "1", "Header Line Marker Characters": "#"},
            ["x", "y", "z"],
        ),
        ("a\n\r\n", {"Line Split Count": "5"}, ["a"]),
        ("abc\nd\r\n", {"Line Split Count": "0", "Maximum Fragment Size": "5 B"}, ["abc", "d"]),
        (
            "aaaa\nbbbb\n",
            {"Line Split Count": "0", "Maximum Fragment Size": "5 B"},
            ["aaaa", "bbbb"],
        ),
        ("a\r\n\n", {"Line Split Count": "5"}, ["a"]),
        (
            "#h\nx\ny\nz\n",
            {"Line Split Count": "1", "Header Line Marker Characters": "#"},
            ["#h\nx", "#h\ny", "#h\nz"],
        ),
        (
            "#h\r\nx\ny\n\n\n",
            {"Line Split Count": "2", "Header Line Marker Characters": "#"},
            ["#h\r\nx\ny", "#h"],
        ),
    ],
)
def test_documented_departures_from_nifi_split_computation(
    make_runner: RunnerFactory, content: str, properties: dict[str, str], expected: list[str]
) -> None:
    """flowcore's side of the cases where NiFi's SplitText loses or misplaces data (the
    table in docs/processors/text_and_content.md)."""
    runner = make_runner("SplitText", properties=properties)
    runner.enqueue(content)
    runner.run()
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    assert [split.text() for split in runner.get_flowfiles_for_relationship("splits")] == expected


def test_documented_departures_from_nifi_split_attributes(make_runner: RunnerFactory) -> None:
    """flowcore's side of the attribute differences documented for SplitText: an empty line
    the size limit put first in a split is not counted in text.line.count (NiFi counts it:
    1 in the last split of testMaxFragmentSizeWithTrimmedEndlines), and the one split of
    content holding only a header has fragment.count (NiFi leaves it out)."""
    runner = make_runner(
        "SplitText",
        properties={
            "Header Line Count": "2",
            "Line Split Count": "0",
            "Maximum Fragment Size": "30 B",
            "Remove Trailing Newlines": "true",
        },
    )
    runner.enqueue("header1\nheader2\nline1 longer than limit\nline2\nline3\n\n\n\n\n")
    runner.run()
    counts = [
        s.get_attribute("text.line.count") for s in runner.get_flowfiles_for_relationship("splits")
    ]
    assert counts == ["1", "2", "0"]
    header_only = make_runner(
        "SplitText", properties={"Line Split Count": "1", "Header Line Count": "2"}
    )
    header_only.enqueue("h1\nh2\n")
    header_only.run()
    header_only.get_flowfiles_for_relationship("splits")[0].assert_attribute_equals(
        "fragment.count", "1"
    )
