"""CSVRecordSetWriter.render_bulk: any run or selection of records cut from lines
rendered together is byte for byte what a writer of its own writes (through whichever of
its paths: values rendered in Python for a few records, pyarrow's writer when nothing
needs quotes, the kernels otherwise), with the same WriteResult."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Mapping

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from processors.record.bulk_write import BulkRecordSetWriterFactory, RenderedRows
from processors.record.csv_format import CSVRecordSetWriter
from tests.processors.record.conftest import enable_service, write_all

texts = st.text(alphabet=st.sampled_from(list('abXY09 -_.é,;"\r\n#!\\\t|')), max_size=6)
KINDS: dict[str, tuple[st.SearchStrategy[object], pa.DataType]] = {
    "int": (st.integers(-(2**63), 2**63 - 1), pa.int64()),
    "float": (st.floats(allow_nan=True, allow_infinity=True), pa.float64()),
    "bool": (st.booleans(), pa.bool_()),
    "ts": (
        st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2200, 1, 1)),  # noqa: DTZ001
        pa.timestamp("s"),
    ),
    "text": (texts, pa.string()),
}


@st.composite
def records(draw: st.DrawFn) -> pa.Table:
    rows = draw(st.integers(0, 700))
    kinds = draw(st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=4))
    columns = []
    for kind in kinds:
        values, arrow = KINDS[kind]
        pattern = draw(st.lists(st.one_of(st.none(), values), min_size=1, max_size=7))
        columns.append(pa.array((pattern * (rows // len(pattern) + 1))[:rows], arrow))
    return pa.Table.from_arrays(columns, names=[f"c {i}" for i in range(len(kinds))])


@settings(max_examples=80, deadline=None)
@given(
    records(),
    st.fixed_dictionaries(
        {
            "Value Separator": st.sampled_from([",", ";", "\\t", "|"]),
            "Record Separator": st.sampled_from(["\\n", "\\r\\n"]),
            "Null String": st.sampled_from(["", "NULL"]),
            "Include Header Line": st.sampled_from(["true", "false"]),
        }
    ),
    st.data(),
)
def test_a_run_cut_from_lines_rendered_together_is_what_a_writer_alone_writes(
    table: pa.Table, properties: Mapping[str, str], data: st.DataObject
) -> None:
    # no Null String is the property left unset: NiFi refuses an empty one (NON_EMPTY)
    properties = {name: value for name, value in properties.items() if value}
    writers = enable_service(CSVRecordSetWriter(), properties)
    assert isinstance(writers, BulkRecordSetWriterFactory)
    batch = pa.RecordBatch.from_arrays(
        [column.combine_chunks() for column in table.columns], schema=table.schema
    )
    rendered = writers.render_bulk(table.schema, batch)
    assert rendered is not None
    rows = table.num_rows
    runs = [(0, rows), (rows, 0)] + [
        (start, data.draw(st.integers(0, rows - start)))
        for start in data.draw(st.lists(st.integers(0, rows), max_size=4))
    ]
    for start, length in runs:
        sink = io.BytesIO()
        result = rendered.write(start, length, sink, {})
        alone, expected = write_all(writers, table.slice(start, length))
        assert sink.getvalue() == alone, (start, length)
        assert result == expected
    assert isinstance(rendered, RenderedRows)
    picks = data.draw(st.lists(st.integers(0, rows - 1), max_size=30)) if rows else []
    sink = io.BytesIO()
    reordered = rendered.reordered(pa.array(picks, pa.int64()))
    result = reordered.write(0, len(picks), sink, {})
    alone, expected = write_all(writers, table.take(pa.array(picks, pa.int64())))
    assert sink.getvalue() == alone, picks
    assert result == expected
    if picks:  # a run of the reordered records is what a writer writes of them alone
        start = data.draw(st.integers(0, len(picks) - 1))
        length = data.draw(st.integers(0, len(picks) - start))
        run = pa.array(picks[start : start + length], pa.int64())
        sink = io.BytesIO()
        result = reordered.write(start, length, sink, {})
        alone, expected = write_all(writers, table.take(run))
        assert sink.getvalue() == alone, (picks, start, length)
        assert result == expected


def test_render_bulk_declines_what_it_does_not_render_alike() -> None:
    table = pa.table({"n": [1, 2]})
    batch = table.to_batches()[0]
    for properties in (
        {"Quote Mode": "Quote All Values"},
        {"Value Separator": "${separator}"},
    ):
        writers = enable_service(CSVRecordSetWriter(), properties)
        assert writers.render_bulk(table.schema, batch) is None, properties
