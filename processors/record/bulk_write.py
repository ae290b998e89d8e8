"""Writing the records of many FlowFiles with one pass of a writer service.

A processor that writes one output per small FlowFile (ConvertRecord) pays a writer's
fixed cost per FlowFile; when the records of many FlowFiles sit in one batch already (a
bulk read, ``processors.record.bulk``), a writer service that can render them all at
once does so, and each FlowFile's output is then cut from the rendered text. Each output
must be byte for byte what ``create_writer`` + ``write_batch`` + ``finish`` over that
FlowFile's records alone would give, with the same ``WriteResult``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pyarrow as pa

from processors.record.api import BinarySink, WriteResult


class RenderedRecords(Protocol):
    """Records rendered once; any run of consecutive records can be written as an output."""

    def write(
        self, start: int, length: int, sink: BinarySink, attributes: Mapping[str, str]
    ) -> WriteResult:
        """Write records ``start`` to ``start + length - 1`` as a whole output into
        ``sink`` (for a FlowFile with ``attributes``), as a writer of their own would."""
        ...


@runtime_checkable
class RenderedRows(RenderedRecords, Protocol):
    """Rendered records of which any selection, in any order, can be an output."""

    def reordered(self, rows: pa.Array) -> RenderedRecords:
        """The records at positions ``rows`` (int64), in that order, each rendered as
        here: any run of them is then an output, as a writer of their own would write it
        (PartitionRecord's partitions, one Arrow ``take`` for all of a FlowFile's)."""
        ...


@functools.cache
def renders_rows(kind: type) -> bool:
    """Whether rendered records of class ``kind`` are ``RenderedRows`` (the check of a
    runtime protocol, which costs microseconds, made once per class)."""
    return issubclass(kind, RenderedRows)


@runtime_checkable
class BulkRecordSetWriterFactory(Protocol):
    """A writer service that can render many FlowFiles' records in one pass.

    ``render_bulk`` returns None when it cannot (a layout it does not render in bulk,
    values it cannot write): each FlowFile is then written with a writer of its own,
    which also gives it its own error.
    """

    def render_bulk(self, schema: pa.Schema, records: pa.RecordBatch) -> RenderedRecords | None:
        """``records`` rendered as written with ``schema`` (the writer schema), or None."""
        ...


def row_bounds(rows: pa.Array) -> tuple[np.ndarray[Any, np.dtype[np.int32]], memoryview]:
    """The offsets (one more than the rows) and the bytes of a string array from
    a renderer (one row's text each): row ``i`` is ``data[offsets[i]:offsets[i + 1]]``."""
    buffers = rows.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int32)[rows.offset : rows.offset + len(rows) + 1]
    data = memoryview(buffers[2]) if buffers[2] is not None else memoryview(b"")
    return offsets, data
