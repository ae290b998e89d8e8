"""SplitText: splits a text FlowFile into FlowFiles of at most N lines and/or M bytes.

Follows NiFi's SplitText. Choices made here:

* Without a header, each split is a range of the original's content claim
  (``session.clone(flowfile, offset, size)``): nothing is copied, and the session reports
  the FORK of the original into its splits. As in NiFi, a lone split that covers the whole
  content is a plain clone and is reported as CLONE.
* With a header, each split is the header followed by its lines, written as new content
  (streamed). A split without lines (only empty lines, with Remove Trailing Newlines)
  is the header alone without its last line ending, still a range of the original; a
  FlowFile with a header and no lines at all gives one such header-only split. Both as
  in NiFi.
* Lines end with "\\n", "\\r\\n" or "\\r". The content is scanned chunk by chunk with
  ``session.stream``; only split offsets are kept, never the content (the header, which
  every split repeats, is held in memory).
* Maximum Fragment Size counts the header and each line with its line ending; a single
  line longer than the maximum becomes a split of its own (NiFi).
* Remove Trailing Newlines strips every "\\r" and "\\n" at the end of a split; a split
  that is then empty (and has no header) is not emitted. ``text.line.count`` counts the
  split's non-empty lines, as NiFi does; ``fragment.index`` is 1-based and counts only
  emitted splits; ``fragment.count`` is their number, also set on the original together
  with ``fragment.identifier``.
* Failure (original only, nothing else emitted): fewer lines than Header Line Count in a
  non-empty FlowFile, or a header larger than Maximum Fragment Size. An empty FlowFile
  goes to original with ``fragment.count`` 0.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from flowcore.model import FlowFile
from flowcore.processor import (
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.standard._support import Writer

_EOL = re.compile(rb"\r\n|\r|\n")
_UNLIMITED = 1 << 62

LINE_SPLIT_COUNT = PropertyDescriptor(
    name="Line Split Count",
    display_name="Line Split Count",
    description="The number of lines that will be added to each split file, excluding header "
    "lines. A value of zero requires Maximum Fragment Size to be set, and line count will "
    "not be considered in determining splits.",
    required=True,
    validators=[validators.non_negative_integer],
)
FRAGMENT_MAX_SIZE = PropertyDescriptor(
    name="Maximum Fragment Size",
    display_name="Maximum Fragment Size",
    description="The maximum size of each split file, including header lines. NOTE: in the "
    "case where a single line exceeds this property (including headers, if applicable), "
    "that line will be output in a split of its own which exceeds this Maximum Fragment "
    "Size setting.",
    validators=[validators.data_size],
)
HEADER_LINE_COUNT = PropertyDescriptor(
    name="Header Line Count",
    display_name="Header Line Count",
    description="The number of lines that should be considered part of the header; the "
    "header lines will be duplicated to all split files",
    default="0",
    required=True,
    validators=[validators.non_negative_integer],
)
HEADER_MARKER = PropertyDescriptor(
    name="Header Line Marker Characters",
    display_name="Header Line Marker Characters",
    description="The first character(s) on the line of the datafile which signifies a header "
    "line. This value is ignored when Header Line Count is non-zero. The first line not "
    "containing the Header Line Marker Characters and all subsequent lines are considered "
    "non-header",
    validators=[validators.non_empty],
)
REMOVE_TRAILING_NEWLINES = PropertyDescriptor(
    name="Remove Trailing Newlines",
    display_name="Remove Trailing Newlines",
    description="Whether to remove newlines at the end of each split file. This should be "
    "false if you intend to merge the split files later. If this is set to 'true' and a "
    "FlowFile is generated that contains only 'empty lines' (i.e., consists only of \\r and "
    "\\n characters), the FlowFile will not be emitted. Note, however, that if header lines "
    "are specified, the resultant FlowFile will never be empty as it will consist of the "
    "header lines, so a FlowFile may be emitted that contains only the header lines.",
    default="true",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)

ORIGINAL = Relationship(
    "original",
    "The original input file will be routed to this "
    "destination when it has been successfully split into 1 or more files",
)
SPLITS = Relationship(
    "splits",
    "The split files will be routed to this destination when an "
    "input file is successfully split into 1 or more split files",
)
FAILURE = Relationship(
    "failure",
    "If a file cannot be split for some reason, the original "
    "file will be routed to this destination and nothing will be routed "
    "elsewhere",
)

SPLIT_LINE_COUNT = "text.line.count"
FRAGMENT_SIZE = "fragment.size"
FRAGMENT_ID = "fragment.identifier"
FRAGMENT_INDEX = "fragment.index"
FRAGMENT_COUNT = "fragment.count"
SEGMENT_ORIGINAL_FILENAME = "segment.original.filename"


class SplitError(Exception):
    """The FlowFile cannot be split; it goes to failure."""


@dataclass(frozen=True, slots=True)
class Header:
    content: bytes
    lines: int
    last_eol: int  # length of the last header line's ending


@dataclass(frozen=True, slots=True)
class Split:
    start: int
    length: int  # with every line ending
    trimmed: int  # without the line endings at the end
    lines: int  # non-empty lines


def iter_lines(chunks: Iterable[bytes]) -> Iterator[tuple[int, int, int]]:
    """``(start, content_end, end)`` of each line of the concatenated chunks.

    ``content_end`` excludes the line ending, ``end`` includes it. Nothing but the
    current chunk is held, so this walks content of any size.
    """
    position = 0  # offset of the current chunk
    line_start = 0
    pending_cr = False  # the previous chunk ended with "\r" (maybe half of "\r\n")
    for chunk in chunks:
        size = len(chunk)
        if not size:
            continue
        index = 0
        if pending_cr:
            pending_cr = False
            if chunk[0] == 0x0A:
                yield line_start, position - 1, position + 1
                line_start = position + 1
                index = 1
            else:
                yield line_start, position - 1, position
                line_start = position
        for match in _EOL.finditer(chunk, index):
            end = match.end()
            if end == size and chunk[end - 1] == 0x0D and match.start() == end - 1:
                pending_cr = True
                break
            yield line_start, position + match.start(), position + end
            line_start = position + end
        position += size
    if pending_cr:
        yield line_start, position - 1, position
        line_start = position
    if line_start < position:
        yield line_start, position, position


def read_header(chunks: Iterable[bytes], count: int, marker: bytes | None) -> Header | None:
    """The first ``count`` lines, or (count 0) the leading lines starting with ``marker``."""
    source = iter(chunks)
    buffer = bytearray()
    end = lines = last_eol = 0
    eof = False

    def fill() -> None:
        nonlocal eof
        chunk = next(source, None)
        if chunk is None:
            eof = True
        else:
            buffer.extend(chunk)

    while True:
        if end == len(buffer):
            if eof:
                break
            fill()
            continue
        if marker is not None:
            if len(buffer) - end < len(marker) and not eof:
                fill()
                continue
            if not buffer.startswith(marker, end):
                break
        match = _EOL.search(buffer, end)
        if match is None or (match.end() == len(buffer) and match.group() == b"\r" and not eof):
            if not eof:
                fill()
                continue
            end, lines, last_eol = len(buffer), lines + 1, 0
            break
        end, lines, last_eol = match.end(), lines + 1, match.end() - match.start()
        if count and lines == count:
            break
    if lines == 0:
        return None
    return Header(bytes(buffer[:end]), lines, last_eol)


def compute_splits(
    lines: Iterable[tuple[int, int, int]],
    skip_to: int,
    header_size: int,
    line_count: int,
    max_size: int,
) -> list[Split]:
    """The splits of the lines starting at or after ``skip_to``."""
    splits: list[Split] = []
    start = length = count = non_empty = 0
    content_end = -1  # end of the last non-empty line's text

    def close() -> None:
        trimmed = content_end - start if content_end > start else 0
        splits.append(Split(start, length, trimmed, non_empty))

    for line_start, line_content_end, line_end in lines:
        if line_start < skip_to:
            continue
        size = line_end - line_start
        if count and header_size + length + size > max_size:
            close()
            count = 0
        if count == 0:
            start, length, non_empty, content_end = line_start, 0, 0, -1
        length += size
        count += 1
        if line_content_end > line_start:
            non_empty += 1
            content_end = line_content_end
        if line_count and count >= line_count:
            close()
            count = 0
    if count:
        close()
    return splits


@processor("SplitText")
class SplitText(Processor):
    description = (
        "Splits a text file into multiple smaller text files on line boundaries limited by "
        "maximum number of lines or total size of fragment. Each output split file will "
        "contain no more than the configured number of lines or bytes. If both Line Split "
        "Count and Maximum Fragment Size are specified, the split occurs at whichever limit "
        "is reached first. If the first line of a fragment exceeds the Maximum Fragment "
        "Size, that line will be output in a single split file which exceeds the configured "
        "maximum size limit."
    )
    tags = ("split", "text")
    property_descriptors = (
        LINE_SPLIT_COUNT,
        FRAGMENT_MAX_SIZE,
        HEADER_LINE_COUNT,
        HEADER_MARKER,
        REMOVE_TRAILING_NEWLINES,
    )
    relationships = (ORIGINAL, SPLITS, FAILURE)

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        if (
            context.get_property(LINE_SPLIT_COUNT).as_int() == 0
            and not context.get_property(FRAGMENT_MAX_SIZE).is_set
        ):
            return [
                ValidationResult(
                    FRAGMENT_MAX_SIZE.label,
                    False,
                    None,
                    "Property must be specified when Line Split Count is 0",
                )
            ]
        return []

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        line_count = context.get_property(LINE_SPLIT_COUNT).as_int() or 0
        max_size = context.get_property(FRAGMENT_MAX_SIZE).as_data_size()
        max_size = _UNLIMITED if max_size is None else max_size
        header_count = context.get_property(HEADER_LINE_COUNT).as_int() or 0
        marker_text = context.get_property(HEADER_MARKER).value
        remove_newlines = context.get_property(REMOVE_TRAILING_NEWLINES).as_bool()
        try:
            header = None
            if header_count > 0:
                header = read_header(session.stream(flowfile), header_count, None)
                if header is not None and header.lines < header_count:
                    raise SplitError(
                        f"insufficient amount of header lines. Required "
                        f"{header_count} but was {header.lines}"
                    )
            elif marker_text:
                header = read_header(session.stream(flowfile), 0, marker_text.encode("utf-8"))
            if header is not None and len(header.content) > max_size:
                raise SplitError(
                    f"the header ({len(header.content)} bytes) is larger than the "
                    f"Maximum Fragment Size ({max_size} bytes)"
                )
        except SplitError as exc:
            self.logger.error(
                "Unable to split %s (uuid %s) due to %s. Routing to failure.",
                flowfile.attributes.get("filename"),
                flowfile.uuid,
                exc,
            )
            session.transfer(flowfile, FAILURE)
            return
        header_size = len(header.content) if header is not None else 0
        splits = compute_splits(
            iter_lines(session.stream(flowfile)), header_size, header_size, line_count, max_size
        )
        children = self._create_splits(session, flowfile, header, splits, remove_newlines)

        fragment_id = str(uuid.uuid4())
        filename = flowfile.attributes.get("filename", "")
        total = str(len(children))
        for index, (child, lines) in enumerate(children, start=1):
            child = session.put_all_attributes(
                child,
                {
                    SPLIT_LINE_COUNT: str(lines),
                    FRAGMENT_SIZE: str(child.size),
                    FRAGMENT_ID: fragment_id,
                    FRAGMENT_INDEX: str(index),
                    FRAGMENT_COUNT: total,
                    SEGMENT_ORIGINAL_FILENAME: filename,
                },
            )
            session.transfer(child, SPLITS)
        flowfile = session.put_all_attributes(
            flowfile, {FRAGMENT_ID: fragment_id, FRAGMENT_COUNT: total}
        )
        session.transfer(flowfile, ORIGINAL)
        self.logger.info(
            "Split %s into %d FlowFiles%s",
            flowfile.uuid,
            len(children),
            " containing headers" if header is not None else "",
        )

    @staticmethod
    def _create_splits(
        session: ProcessSession,
        flowfile: FlowFile,
        header: Header | None,
        splits: list[Split],
        remove_newlines: bool,
    ) -> list[tuple[FlowFile, int]]:
        children: list[tuple[FlowFile, int]] = []
        header_only = 0
        if header is not None:
            header_only = len(header.content) - header.last_eol
            if not splits:
                return [(session.clone(flowfile, 0, header_only), 0)]
        for split in splits:
            length = split.trimmed if remove_newlines else split.length
            if header is None:
                if length > 0:
                    children.append((session.clone(flowfile, split.start, length), split.lines))
            elif length == 0:
                children.append((session.clone(flowfile, 0, header_only), split.lines))
            else:
                child = session.clone(flowfile, split.start, length)
                child = session.write(child, _prepend(session, child, header.content))
                children.append((child, split.lines))
        return children


def _prepend(
    session: ProcessSession, flowfile: FlowFile, header: bytes
) -> Callable[[Writer], None]:
    def write(writer: Writer) -> None:
        writer.write(header)
        for chunk in session.stream(flowfile):
            writer.write(chunk)

    return write
