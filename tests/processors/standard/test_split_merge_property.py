"""SplitText and MergeContent over arbitrary bytes: CR, LF, CRLF and mixed line endings,
empty lines and content, no final line ending, bytes that are not UTF-8, lines longer
than the Maximum Fragment Size, headers longer than the content.

* SplitText gives what a plain model of NiFi's rules gives (``expected_splits``), with
  NiFi's fragment attributes, and loses no FlowFile.
* Without Remove Trailing Newlines and without a header, SplitText then MergeContent
  (Defragment) gives back exactly the original bytes and name.
* Binary Concatenation is header + contents joined by the demarcator + footer.

The content is streamed in chunks of a few bytes, so line endings ("\\r\\n" above all)
straddle chunk borders.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner
from tests.processors.standard.chunked_streams import streamed_in_chunks_of

_EOL = re.compile(rb"\r\n|\r|\n")

pieces = st.sampled_from(
    [b"a", b"b", b"#", b" ", b"\n", b"\r", b"\r\n", b"\n\r", b"\xc3\xa9", b"\xff", b"\xc3"]
)
texts = st.one_of(
    st.lists(pieces, max_size=40).map(b"".join),
    st.builds(  # a huge line among short ones
        lambda head, size, tail: head + b"x" * size + tail,
        st.lists(pieces, max_size=6).map(b"".join),
        st.integers(100, 3000),
        st.lists(pieces, max_size=6).map(b"".join),
    ),
)
settings_split = st.fixed_dictionaries(
    {
        "line_count": st.sampled_from([0, 1, 1, 2, 3, 7]),
        "max_size": st.one_of(st.none(), st.integers(1, 40)),
        "header_count": st.sampled_from([0, 0, 0, 1, 2, 5]),
        "marker": st.sampled_from([None, None, "#", "a#", " ", "é"]),
        "remove": st.booleans(),
    }
).filter(lambda s: s["line_count"] > 0 or s["max_size"] is not None)


def lines_of(data: bytes) -> list[bytes]:
    """The lines of ``data``, each with its ending ("\\r\\n", "\\r" or "\\n")."""
    lines, start = [], 0
    for match in _EOL.finditer(data):
        lines.append(data[start : match.end()])
        start = match.end()
    if start < len(data):
        lines.append(data[start:])
    return lines


def expected_splits(
    data: bytes,
    line_count: int,
    max_size: int | None,
    header_count: int,
    marker: str | None,
    remove: bool,
) -> list[tuple[bytes, int]] | None:
    """NiFi's SplitText rules on a list of lines: ``None`` for failure, else each split's
    content and ``text.line.count``.

    The header is the first Header Line Count lines (too few in non-empty content:
    failure), else the leading lines starting with the marker; a header larger than the
    Maximum Fragment Size fails. Lines join a split until it holds Line Split Count lines
    or the next line would take header + split past the maximum (a lone line longer than
    that is a split of its own). Remove Trailing Newlines strips the split's trailing
    line endings; an emptied split is dropped, or with a header is the header without its
    last line ending (as is the one split of content that is all header).
    ``text.line.count`` counts the split's non-empty lines.
    """
    limit = (1 << 62) if max_size is None else max_size
    lines = lines_of(data)
    header: list[bytes] = []
    if header_count:
        header = lines[:header_count]
        if lines and len(header) < header_count:
            return None
    elif marker:
        for line in lines:
            if not line.startswith(marker.encode()):
                break
            header.append(line)
    head = b"".join(header)
    if len(head) > limit:
        return None
    groups: list[list[bytes]] = []
    current: list[bytes] = []
    for line in lines[len(header) :]:
        if current and len(head) + len(b"".join(current)) + len(line) > limit:
            groups.append(current)
            current = []
        current.append(line)
        if line_count and len(current) >= line_count:
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    head_only = head[: len(head) - _ending(header[-1])] if header else b""
    if header and not groups:
        return [(head_only, 0)]
    out = []
    for group in groups:
        body = b"".join(group)
        if remove:
            body = body.rstrip(b"\r\n")
        count = sum(1 for line in group if line.rstrip(b"\r\n"))
        if header:
            out.append((head + body if body else head_only, count))
        elif body:
            out.append((body, count))
    return out


def _ending(line: bytes) -> int:
    return len(line) - len(line.rstrip(b"\r\n"))


def _split(runner: TestRunner, data: bytes, chosen: dict[str, object]) -> None:
    runner.set_property("Line Split Count", str(chosen["line_count"]))
    if chosen["max_size"] is not None:
        runner.set_property("Maximum Fragment Size", f"{chosen['max_size']} B")
    runner.set_property("Header Line Count", str(chosen["header_count"]))
    if chosen["marker"] is not None:
        runner.set_property("Header Line Marker Characters", str(chosen["marker"]))
    runner.set_property("Remove Trailing Newlines", "true" if chosen["remove"] else "false")
    runner.enqueue(data, {"filename": "in.txt"})
    runner.run()


@settings(max_examples=200, deadline=None)
@given(texts, settings_split, st.integers(1, 9))
def test_split_text_follows_nifi_rules(data: bytes, chosen: dict[str, object], chunk: int) -> None:
    expected = expected_splits(data, **chosen)  # type: ignore[arg-type]
    with streamed_in_chunks_of(chunk), TestRunner("SplitText") as runner:
        _split(runner, data, chosen)
        failed = runner.get_flowfiles_for_relationship("failure")
        splits = runner.get_flowfiles_for_relationship("splits")
        originals = runner.get_flowfiles_for_relationship("original")
        if expected is None:
            assert (len(failed), splits, originals) == (1, [], [])
            assert failed[0].content == data
            return
        assert failed == []
        assert [(s.content, int(s.get_attribute("text.line.count") or -1)) for s in splits] == (
            expected
        )
        (out,) = originals
        assert out.content == data
        fragment_id = out.get_attribute("fragment.identifier")
        out.assert_attribute_equals("fragment.count", str(len(splits)))
        for index, split in enumerate(splits, start=1):
            split.assert_attribute_equals("fragment.identifier", fragment_id)
            split.assert_attribute_equals("fragment.index", str(index))
            split.assert_attribute_equals("fragment.count", str(len(splits)))
            split.assert_attribute_equals("fragment.size", str(len(split.content)))
            split.assert_attribute_equals("segment.original.filename", "in.txt")
        children = {
            child
            for event in runner.get_provenance_events()
            if event.event_type in (ProvenanceEventType.FORK, ProvenanceEventType.CLONE)
            for child in event.child_uuids
        }
        assert children == {split.uuid for split in splits}


@settings(max_examples=200, deadline=None)
@given(
    texts,
    st.sampled_from([0, 1, 2, 3, 7]),
    st.one_of(st.none(), st.integers(1, 30)),
    st.integers(1, 9),
    st.randoms(use_true_random=False),
)
def test_split_then_defragment_gives_the_original_back(
    data: bytes, line_count: int, max_size: int | None, chunk: int, order: object
) -> None:
    if not line_count and max_size is None:
        line_count = 1
    chosen = {
        "line_count": line_count,
        "max_size": max_size,
        "header_count": 0,
        "marker": None,
        "remove": False,
    }
    with streamed_in_chunks_of(chunk), TestRunner("SplitText") as splitter:
        _split(splitter, data, chosen)
        splits = [
            (s.content, dict(s.attributes))
            for s in splitter.get_flowfiles_for_relationship("splits")
        ]
    assert b"".join(content for content, _ in splits) == data
    if not splits:
        assert data == b""
        return
    order.shuffle(splits)  # type: ignore[attr-defined]
    with streamed_in_chunks_of(chunk), TestRunner("MergeContent") as merger:
        merger.set_property("Merge Strategy", "Defragment")
        merger.set_property("Merge Format", "Binary Concatenation")
        for content, attributes in splits:
            merger.enqueue(content, attributes)
        merger.run(2)
        assert merger.get_flowfiles_for_relationship("failure") == []
        (merged,) = merger.get_flowfiles_for_relationship("merged")
        assert merged.content == data
        merged.assert_attribute_equals("filename", "in.txt")
        merged.assert_attribute_equals("merge.count", str(len(splits)))
        originals = merger.get_flowfiles_for_relationship("original")
        assert len(originals) == len(splits)
        (join,) = [
            event
            for event in merger.get_provenance_events()
            if event.event_type == ProvenanceEventType.JOIN
        ]
        assert sorted(join.parent_uuids) == sorted(original.uuid for original in originals)
        assert join.child_uuids == [merged.uuid]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(texts, min_size=1, max_size=6),
    st.sampled_from(["Do Not Use Delimiters", "Text"]),
    st.text(alphabet="ab\n\r é", max_size=3),
    st.text(alphabet="ab\n\r é,", max_size=3),
    st.text(alphabet="ab\n\r é", max_size=3),
    st.integers(1, 9),
)
def test_binary_concatenation_with_header_demarcator_footer(
    contents: list[bytes], strategy: str, header: str, demarcator: str, footer: str, chunk: int
) -> None:
    with streamed_in_chunks_of(chunk), TestRunner("MergeContent") as merger:
        merger.set_property("Minimum Number of Entries", str(len(contents)))
        merger.set_property("Delimiter Strategy", strategy)
        for name, value in (("Header", header), ("Demarcator", demarcator), ("Footer", footer)):
            if value:
                merger.set_property(name, value)
        for content in contents:
            merger.enqueue(content)
        merger.run(2)
        (merged,) = merger.get_flowfiles_for_relationship("merged")
        assert len(merger.get_flowfiles_for_relationship("original")) == len(contents)
    if strategy == "Text":
        expected = header.encode() + demarcator.encode().join(contents) + footer.encode()
    else:
        expected = b"".join(contents)
    assert merged.content == expected
