"""Reading the records of many FlowFiles in one parser call.

Parsing 100 records costs a CSV or JSON parser about as much in fixed overhead as parsing
10,000, so a processor that reads many small FlowFiles (MergeRecord) asks its reader
service to parse their contents together. The answer must be exactly what reading each
FlowFile alone would give: the same schema (inferred per FlowFile, as NiFi does) and the
same records. A service answers for the FlowFiles it can prove that for and leaves the
others (``rest``) to be read one by one with ``create_reader``, which also gives them
their own errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import pyarrow as pa


@dataclass(slots=True)
class BulkGroup:
    """FlowFiles parsed in one call that share one schema; each one's rows are a slice."""

    schema: pa.Schema
    schema_text: str | None
    records: pa.RecordBatch
    slices: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Input position -> (first row, row count) in ``records``."""

    def batch(self, position: int) -> pa.RecordBatch:
        """The records of the input at ``position`` (a zero-copy slice)."""
        start, length = self.slices[position]
        return self.records.slice(start, length)


@dataclass(slots=True)
class BulkRead:
    """Which inputs were read in bulk (and where their records are), which were not."""

    groups: list[BulkGroup] = field(default_factory=list)
    rest: list[int] = field(default_factory=list)

    def locate(self) -> dict[int, BulkGroup]:
        """Input position -> the group holding its records."""
        return {position: group for group in self.groups for position in group.slices}


@runtime_checkable
class BulkRecordReaderFactory(Protocol):
    """A reader service that can read many FlowFiles' contents in one call.

    ``read_bulk`` never raises for bad content: a content it cannot vouch for goes to
    ``rest``, to be read alone (and to fail alone) through ``create_reader``.
    """

    def read_bulk(
        self, contents: Sequence[bytes], attributes: Sequence[Mapping[str, str]]
    ) -> BulkRead: ...
