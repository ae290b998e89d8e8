"""MergeRecord's bins: what a bin holds, when it is full or expired, and how it is given up.

A bin gathers FlowFiles that merge into one: their references, the open record writer and
the merged FlowFile's content it writes into (NiFi's way), or, when merging by key, their
records buffered as Arrow tables until the merge. ``merged_attributes`` computes the merged
FlowFile's inherited attributes by Attribute Strategy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from flowcore.model import FlowFile
from flowcore.session import ProcessSession
from flowcore.session.session import OpenContent
from processors.merge.mergers.schemas import UnionSchema
from processors.merge.mergers.spec import KeyedMergeSpec
from processors.merge.properties import FRAGMENT_COUNT, KEEP_UNIQUE, java_int
from processors.record.api import RecordSetWriter, RecordSetWriterFactory

# Why a defragment bin fails when ``validate_fragments`` says no.
FRAGMENTS_INCONSISTENT = (
    "fragment.count is missing, not a number, or not the same on every FlowFile of the bin"
)


class BinFailed(Exception):
    """The bin must be failed: all its FlowFiles go to failure."""


@dataclass(slots=True)
class BinThresholds:
    """When a bin is full enough, full or too old; read from the properties at its creation."""

    min_records: int
    max_records: int | None
    min_bytes: int
    max_bytes: int | None
    max_age_ms: int | None
    max_age_text: str


@dataclass(slots=True, eq=False)
class Bin:
    """FlowFiles that merge into one FlowFile, with what is needed to write it."""

    key: str | None
    session: ProcessSession
    created_ms: int
    thresholds: BinThresholds
    defragment: bool
    flowfiles: list[FlowFile] = field(default_factory=list)
    writer: RecordSetWriter | None = None
    merged: FlowFile | None = None
    content: OpenContent | None = None
    record_count: int = 0
    fragment_count: int | None = None
    closed: bool = False
    # Merging by key: the records are buffered (one table per FlowFile) until the merge.
    spec: KeyedMergeSpec | None = None
    writers: RecordSetWriterFactory | None = None
    parts: list[pa.Table] = field(default_factory=list)
    union: UnionSchema = field(default_factory=UnionSchema)
    input_bytes: int = 0
    # FlowFiles binned from a polling session and not yet migrated into ``session``
    # (moved together, in arrival order, by ``settle``).
    arrivals: list[FlowFile] = field(default_factory=list)
    arrivals_from: ProcessSession | None = None

    def settle(self) -> None:
        """Migrate the FlowFiles that arrived from the polling session into the bin's own
        session (one migration for many FlowFiles)."""
        arrivals, source = self.arrivals, self.arrivals_from
        if arrivals and source is not None:
            self.arrivals, self.arrivals_from = [], None
            source.migrate(self.session, arrivals)

    @property
    def bytes_written(self) -> int:
        """Writer output bytes; for a keyed bin, the input FlowFiles' content bytes."""
        if self.spec is not None:
            return self.input_bytes
        return 0 if self.writer is None else self.writer.bytes_written

    @property
    def counts_bytes(self) -> bool:
        """Whether a size threshold (Minimum or Maximum Bin Size) makes bytes matter."""
        return self.thresholds.min_bytes > 0 or self.thresholds.max_bytes is not None

    def full_enough(self) -> bool:
        if self.defragment:
            return self.fragment_count is not None and len(self.flowfiles) == self.fragment_count
        t = self.thresholds
        return (
            bool(self.flowfiles)
            and self.record_count >= t.min_records
            and self.bytes_written >= t.min_bytes
        )

    def full(self) -> bool:
        if not self.full_enough():
            return False
        if self.defragment:
            return True
        t = self.thresholds
        return (t.max_records is not None and self.record_count >= t.max_records) or (
            t.max_bytes is not None and self.bytes_written >= t.max_bytes
        )

    def expired(self, now_ms: int) -> bool:
        max_age = self.thresholds.max_age_ms
        return max_age is not None and now_ms - self.created_ms > max_age

    def validate_fragments(self) -> bool:
        """A.9: every member's fragment.count parses and agrees; at least one has it."""
        expected: int | None = None
        for flowfile in self.flowfiles:
            text = flowfile.attributes.get(FRAGMENT_COUNT)
            if text is None:
                continue
            number = java_int(text)
            if number is None:
                return False
            if expected is not None and number != expected:
                return False
            expected = number
        if expected is None:
            return False
        self.fragment_count = expected
        return True

    def discard_output(self, remove: bool) -> None:
        """Give up the writer and the open content; with ``remove`` drop the merged FlowFile."""
        if self.writer is not None:
            try:
                self.writer.abort()
            except Exception:
                pass
            self.writer = None
        if self.content is not None:
            self.content.abort()
            self.content = None
        if remove and self.merged is not None:
            self.session.remove(self.merged)
        self.merged = None


def merged_attributes(flowfiles: Sequence[FlowFile], strategy: str) -> dict[str, str]:
    """A.5 step 1: inherited attributes by Attribute Strategy, ``uuid`` excluded."""
    maps = [f.attributes for f in flowfiles]
    result: dict[str, str] = {}
    if strategy == KEEP_UNIQUE:
        conflicting: set[str] = set()
        for attributes in maps:
            for key, value in attributes.items():
                if key in conflicting:
                    continue
                if key in result and result[key] != value:
                    conflicting.add(key)
                    del result[key]
                else:
                    result[key] = value
    else:
        first, *rest = maps
        result = {k: v for k, v in first.items() if all(m.get(k) == v for m in rest)}
    result.pop("uuid", None)
    return result
