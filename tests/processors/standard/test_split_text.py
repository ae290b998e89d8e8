"""SplitText: validation, splits pointing into the original claim, headers, limits, FORK."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner
from processors.standard.split_text import compute_splits, iter_lines, read_header

RunnerFactory = Callable[..., TestRunner]


def _contents(runner: TestRunner, relationship: str = "splits") -> list[bytes]:
    return [m.content for m in runner.get_flowfiles_for_relationship(relationship)]


# -- validation ---------------------------------------------------------------------------


def test_line_split_count_is_required(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitText")
    runner.assert_not_valid()
    assert "'Line Split Count' is invalid because Line Split Count is required" in (
        runner.validation_errors()
    )


def test_invalid_values_are_reported(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "SplitText",
        properties={
            "Line Split Count": "-1",
            "Maximum Fragment Size": "ten",
            "Header Line Count": "x",
            "Remove Trailing Newlines": "maybe",
        },
    )
    errors = runner.validation_errors()
    assert (
        "'Line Split Count' validated against '-1' is invalid because value is negative" in errors
    )
    assert any(
        e.startswith(
            "'Maximum Fragment Size' validated against 'ten' is invalid "
            "because Must be of format <Data Size> <Data Unit>"
        )
        for e in errors
    )
    assert (
        "'Header Line Count' validated against 'x' is invalid because value is not a valid "
        "integer" in errors
    )
    assert (
        "'Remove Trailing Newlines' validated against 'maybe' is invalid because Given "
        "value not found in allowed set 'true, false'" in errors
    )


def test_zero_line_count_needs_a_maximum_fragment_size(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitText", properties={"Line Split Count": "0"})
    assert runner.validation_errors() == [
        "'Maximum Fragment Size' is invalid because Property must be specified when Line "
        "Split Count is 0"
    ]
    runner.set_property("Maximum Fragment Size", "1 KB")
    runner.assert_valid()


# -- splitting without a header: ranges of the original claim ----------------------------


def test_splits_point_into_the_original_claim(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitText", properties={"Line Split Count": "2"})
    original = runner.enqueue("a\nbb\nccc\ndddd\ne\n", {"filename": "data.txt"})
    runner.run()

    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("failure", 0)
    splits = runner.get_flowfiles_for_relationship("splits")
    assert [s.content for s in splits] == [b"a\nbb", b"ccc\ndddd", b"e"]
    assert original.flowfile.claim is not None
    for split in splits:
        assert split.flowfile.claim == original.flowfile.claim  # no copy
    assert [s.flowfile.claim_offset for s in splits] == [0, 5, 14]

    fragment_id = splits[0].get_attribute("fragment.identifier")
    assert fragment_id
    for index, split in enumerate(splits, start=1):
        split.assert_attribute_equals("fragment.identifier", fragment_id)
        split.assert_attribute_equals("fragment.index", str(index))
        split.assert_attribute_equals("fragment.count", "3")
        split.assert_attribute_equals("fragment.size", str(len(split.content)))
        split.assert_attribute_equals("segment.original.filename", "data.txt")
    assert [s.get_attribute("text.line.count") for s in splits] == ["2", "2", "1"]

    out = runner.get_flowfiles_for_relationship("original")[0]
    out.assert_attribute_equals("fragment.identifier", fragment_id)
    out.assert_attribute_equals("fragment.count", "3")
    out.assert_content_equals("a\nbb\nccc\ndddd\ne\n")


def test_fork_event_names_every_split(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitText", properties={"Line Split Count": "1"})
    original = runner.enqueue("1\n2\n3\n")
    runner.run()
    splits = runner.get_flowfiles_for_relationship("splits")
    forks = [e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.FORK]
    assert len(forks) == 1
    assert forks[0].flowfile_uuid == original.uuid
    assert forks[0].parent_uuids == [original.uuid]
    assert sorted(forks[0].child_uuids) == sorted(s.uuid for s in splits)


def test_keeping_trailing_newlines(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "SplitText", properties={"Line Split Count": "2", "Remove Trailing Newlines": "false"}
    )
    runner.enqueue("a\nb\nc\n\n\n")
    runner.run()
    assert _contents(runner) == [b"a\nb\n", b"c\n\n", b"\n"]
    splits = runner.get_flowfiles_for_relationship("splits")
    assert [s.get_attribute("text.line.count") for s in splits] == ["2", "1", "0"]


def test_splits_of_only_empty_lines_are_dropped(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitText", properties={"Line Split Count": "2"})
    runner.enqueue("a\n\n\n\nb")
    runner.run()
    splits = runner.get_flowfiles_for_relationship("splits")
    assert [s.content for s in splits] == [b"a", b"b"]
    assert [s.get_attribute("fragment.index") for s in splits] == ["1", "2"]
    assert {s.get_attribute("fragment.count") for s in splits} == {"2"}
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "2"
    )


def test_all_line_endings(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "SplitText", properties={"Line Split Count": "1", "Remove Trailing Newlines": "false"}
    )
    runner.enqueue(b"a\r\nb\rc\nd")
    runner.run()
    assert _contents(runner) == [b"a\r\n", b"b\r", b"c\n", b"d"]


def test_maximum_fragment_size(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "SplitText", properties={"Line Split Count": "0", "Maximum Fragment Size": "8 B"}
    )
    runner.enqueue("aaa\nbbb\nccccccccccc\nd\ne\n")
    runner.run()
    # a line longer than the maximum is a split of its own
    assert _contents(runner) == [b"aaa\nbbb", b"ccccccccccc", b"d\ne"]


def test_line_count_and_size_whichever_comes_first(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "SplitText", properties={"Line Split Count": "3", "Maximum Fragment Size": "6 B"}
    )
    runner.enqueue("a\nb\nc\nd\neeee\nf\n")
    runner.run()
    assert _contents(runner) == [b"a\nb\nc", b"d", b"eeee", b"f"]


def test_empty_flowfile_goes_to_original_without_splits(make_runner: RunnerFactory) -> None:
    runner = make_runner("SplitText", properties={"Line Split Count": "1"})
    runner.enqueue(b"")
    runner.run()
    runner.assert_transfer_count("splits", 0)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "0"
    )


def test_large_content_is_streamed_in_chunks(make_runner: RunnerFactory) -> None:
    line = b"x" * 99 + b"\r\n"  # 101 bytes: "\r\n" pairs straddle the 1 MB chunk borders
    content = line * 30_000  # about 3 MB, more than two chunks
    runner = make_runner("SplitText", properties={"Line Split Count": "7000"})
    runner.enqueue(content)
    runner.run()
    splits = runner.get_flowfiles_for_relationship("splits")
    assert [s.get_attribute("text.line.count") for s in splits] == [
        "7000",
        "7000",
        "7000",
        "7000",
        "2000",
    ]
    assert b"\r\n".join(s.content for s in splits) + b"\r\n" == content


# -- headers ------------------------------------------------------------------------------


def test_header_line_count_is_repeated_in_every_split(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "SplitText", properties={"Line Split Count": "2", "Header Line Count": "1"}
    )
    original = runner.enqueue("id,name\n1,a\n2,b\n3,c\n")
    runner.run()
    splits = runner.get_flowfiles_for_relationship("splits")
    assert [s.content for s in splits] == [b"id,name\n1,a\n2,b", b"id,name\n3,c"]
    assert [s.get_attribute("text.line.count") for s in splits] == ["2", "1"]
    assert [s.get_attribute("fragment.size") for s in splits] == ["15", "11"]
    for split in splits:  # written as new content
        assert split.flowfile.claim != original.flowfile.claim
    forks = [e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.FORK]
    assert sorted(forks[0].child_uuids) == sorted(s.uuid for s in splits)


def test_header_marker_characters(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "SplitText", properties={"Line Split Count": "1", "Header Line Marker Characters": "#"}
    )
    runner.enqueue("# one\n# two\nx\ny")
    runner.run()
    assert _contents(runner) == [b"# one\n# two\nx", b"# one\n# two\ny"]


def test_header_only_split_is_a_range_without_its_last_line_ending(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner(
        "SplitText", properties={"Line Split Count": "1", "Header Line Count": "2"}
    )
    original = runner.enqueue("h1\nh2\n")
    runner.run()
    [split] = runner.get_flowfiles_for_relationship("splits")
    split.assert_content_equals("h1\nh2")
    split.assert_attribute_equals("text.line.count", "0")
    assert split.flowfile.claim == original.flowfile.claim


def test_insufficient_header_lines_go_to_failure(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "SplitText", properties={"Line Split Count": "1", "Header Line Count": "3"}
    )
    runner.enqueue("h1\nh2\n")
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals("h1\nh2\n")


def test_header_larger_than_maximum_fragment_size_goes_to_failure(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner(
        "SplitText",
        properties={
            "Line Split Count": "1",
            "Header Line Count": "1",
            "Maximum Fragment Size": "4 B",
        },
    )
    runner.enqueue("header\nx\n")
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    assert runner.get_provenance_events() == []


# -- the line scanner ---------------------------------------------------------------------


def _reference_lines(data: bytes) -> list[bytes]:
    lines, start, i = [], 0, 0
    while i < len(data):
        if data[i : i + 2] == b"\r\n":
            lines.append(data[start : i + 2])
            i += 2
            start = i
        elif data[i : i + 1] in (b"\r", b"\n"):
            lines.append(data[start : i + 1])
            i += 1
            start = i
        else:
            i += 1
    if start < len(data):
        lines.append(data[start:])
    return lines


@given(
    st.binary(max_size=60).map(lambda b: b.replace(b"\x00", b"\r")),
    st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=20),
)
def test_iter_lines_matches_a_reference_whatever_the_chunking(
    data: bytes, sizes: list[int]
) -> None:
    chunks, position, index = [], 0, 0
    while position < len(data):
        size = sizes[index % len(sizes)]
        chunks.append(data[position : position + size])
        position += size
        index += 1
    found = list(iter_lines(chunks))
    assert [data[start:end] for start, _, end in found] == _reference_lines(data)
    for start, content_end, end in found:
        assert data[start:content_end].rstrip(b"\r\n") == data[start:content_end]
        assert data[content_end:end] in (b"", b"\n", b"\r", b"\r\n")


def test_read_header_over_chunks() -> None:
    header = read_header([b"#a", b"\r", b"\n#", b"b\nc"], 0, b"#")
    assert header is not None
    assert (header.content, header.lines, header.last_eol) == (b"#a\r\n#b\n", 2, 1)
    assert read_header([b"x\ny\n"], 0, b"#") is None
    counted = read_header([b"a\nb"], 5, None)
    assert counted is not None and counted.lines == 2


def test_compute_splits_trims_trailing_line_endings() -> None:
    data = b"a\n\nb\n\n"
    [split] = compute_splits(iter_lines([data]), 0, 0, 10, 1 << 40)
    assert (split.start, split.length, split.trimmed, split.lines) == (0, 6, 4, 2)
