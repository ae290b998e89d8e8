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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from flowcore.model import FlowFile
from flowcore.session import ProcessSession
from processors.record.api import RecordReaderFactory
from processors.record.serialized import sliced

SAMPLE = 8
"""Values per part the type checks look at first."""

Rows = npt.NDArray[np.int64]
"""Row positions or counts, one per part."""

Proof = Callable[[pa.ChunkedArray | pa.Array], Any]
"""A per-value test over a column (a Boolean array; null counts as false)."""


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
        return sliced(self.records, start, length)


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


def read_in_bulk(
    session: ProcessSession, readers: RecordReaderFactory, flowfiles: Sequence[FlowFile]
) -> dict[int, BulkGroup]:
    """Where each polled FlowFile's records are, when the reader service parsed their
    contents together (position in ``flowfiles`` -> group); empty when it reads one at a
    time. A FlowFile whose content cannot be read here, or that the service does not
    vouch for, is absent: it is read alone, which reports its error."""
    if len(flowfiles) < 2 or not isinstance(readers, BulkRecordReaderFactory):
        return {}
    try:
        contents = session.read_many(flowfiles)
    except Exception:
        contents = []
        for flowfile in flowfiles:
            try:
                contents.append(session.read(flowfile))
            except Exception:
                contents.append(b"")  # read alone again, and failed there
    return readers.read_bulk(contents, [f.attributes for f in flowfiles]).locate()


def per_part(mask: pa.ChunkedArray | pa.Array, starts: Rows, lengths: Rows) -> Rows:
    """How many rows of each part the mask marks (nulls count as unmarked)."""
    marks = pc.fill_null(mask, False).to_numpy(zero_copy_only=False).astype(np.int64)
    totals: Rows = np.concatenate((np.zeros(1, np.int64), np.cumsum(marks)))
    counts: Rows = totals[starts + lengths] - totals[starts]
    return counts


def valid(values: pa.ChunkedArray | pa.Array) -> Any:
    """The proof of a type that nothing earlier in the inference chain accepts: a value."""
    return pc.is_valid(values)


def same_inference(
    table: pa.Table,
    starts: Rows,
    lengths: Rows,
    proof_for: Callable[[pa.DataType], Proof | None],
    *,
    nulls_alike: bool = True,
) -> npt.NDArray[np.bool_]:
    """Per part (rows ``starts[i]`` to ``starts[i] + lengths[i]``): whether inferring its
    rows alone provably gives ``table``'s column types.

    ``proof_for(type)`` gives a per-value test whose truth for one value of a part proves
    that the part alone infers that type (None: nothing proves it, the parts are read
    alone). With ``nulls_alike`` (a format where a part's all-null column is a string
    column, as CSV), a null column is the same for every part and a string column for a
    part whose values are all null. The test runs on the first few values of each
    part, then on the whole column only for the parts those did not settle."""
    same = np.ones(len(starts), dtype=bool)
    picks = (starts[:, None] + np.minimum(np.arange(SAMPLE), lengths[:, None] - 1)).ravel()
    for column in table.columns:
        kind = column.type
        if pa.types.is_null(kind) and nulls_alike:
            continue  # every part is all null too: a string column, as the whole
        proof = proof_for(kind)
        if proof is None:
            same[:] = False
            continue
        if proof is valid and column.null_count == 0:
            continue  # every part has a value, which proves the type
        sampled = pc.fill_null(proof(column.take(picks)), False).to_numpy(zero_copy_only=False)
        settled = sampled.reshape(len(starts), SAMPLE).any(axis=1)
        if settled.all():
            continue
        proven = per_part(proof(column), starts, lengths) > 0
        if pa.types.is_string(kind) and nulls_alike:  # all null alone: a string column too
            proven |= per_part(column.is_valid(), starts, lengths) == 0
        same &= settled | proven
    return same
