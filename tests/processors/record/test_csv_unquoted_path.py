"""Quote Mode MINIMAL: a write in which no value needs quotes goes through pyarrow's own
writer; its bytes must be exactly what the kernels write."""

from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from processors.record import csv_minimal

ROWS = 300  # rows x columns above csv_minimal.SMALL: the kernels' path, not Python's

# Clean text never needs quotes (pyarrow's writer takes the write); any text may.
clean_texts = st.text(alphabet=st.sampled_from(list("abcXYZ019-_.é€")), min_size=1, max_size=8)
any_texts = st.text(alphabet=st.sampled_from(list('abcXYZ019 -_.é€,;"\r\n#!\\\t|')), max_size=8)
columns = st.sampled_from(
    ["int", "float", "bool", "ts", "date", "decimal", "text", "any text", "null"]
)


def _column(kind: str, draw: st.DrawFn) -> pa.Array:
    def values(strategy: st.SearchStrategy[object]) -> list[object]:
        return draw(st.lists(st.one_of(st.none(), strategy), min_size=3, max_size=3))

    pattern: list[object]
    if kind == "int":
        pattern, arrow = values(st.integers(-(2**63), 2**63 - 1)), pa.int64()
    elif kind == "float":
        pattern, arrow = values(st.floats(allow_nan=True, allow_infinity=True)), pa.float64()
    elif kind == "bool":
        pattern, arrow = values(st.booleans()), pa.bool_()
    elif kind == "ts":
        start, end = dt.datetime(1900, 1, 1), dt.datetime(2200, 1, 1)  # noqa: DTZ001
        pattern = values(st.datetimes(start, end))
        arrow = pa.timestamp("ms")
    elif kind == "date":
        pattern, arrow = values(st.dates()), pa.date32()
    elif kind == "decimal":
        pattern = values(st.decimals(-(10**6), 10**6, places=2, allow_nan=False))
        arrow = pa.decimal128(10, 2)
    elif kind == "null":
        return pa.nulls(ROWS)
    elif kind == "text":
        pattern, arrow = values(clean_texts), pa.string()
    else:
        pattern, arrow = values(any_texts), pa.string()
    return pa.array((pattern * ROWS)[:ROWS], arrow)


@st.composite
def batches(draw: st.DrawFn) -> pa.RecordBatch:
    kinds = draw(st.lists(columns, min_size=2, max_size=5))
    return pa.RecordBatch.from_arrays(
        [_column(kind, draw) for kind in kinds], names=[f"c{i}" for i in range(len(kinds))]
    )


def _render(
    batch: pa.RecordBatch, delimiter: str, eol: str, null_string: str, *, unquoted: bool
) -> bytes:
    quoting = csv_minimal.MinimalQuoting(delimiter, "\\")
    if unquoted:
        parts = csv_minimal.render(batch, quoting, delimiter, eol, null_string)
    else:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(csv_minimal, "_write_unquoted", lambda *_: None)
            parts = csv_minimal.render(batch, quoting, delimiter, eol, null_string)
    return b"".join(bytes(part) for part in parts)


@settings(max_examples=150, deadline=None)
@given(
    batches(),
    st.sampled_from([",", ";", "\t", "|"]),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from(["", "NULL"]),
)
def test_pyarrows_writer_writes_what_the_kernels_write(
    batch: pa.RecordBatch, delimiter: str, eol: str, null_string: str
) -> None:
    quoting = csv_minimal.MinimalQuoting(delimiter, "\\")
    clean = not any(
        quoting.mask(column).any() for column in batch.columns if pa.types.is_string(column.type)
    )
    event(f"nothing to quote: {clean}")
    assert _render(batch, delimiter, eol, null_string, unquoted=True) == _render(
        batch, delimiter, eol, null_string, unquoted=False
    )


def test_a_batch_with_nothing_to_quote_takes_pyarrows_writer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    batch = pa.RecordBatch.from_pydict(
        {
            "id": list(range(ROWS)),
            "name": [f"store-{i % 7}" for i in range(ROWS)],
            "price": [decimal.Decimal(i) / 4 for i in range(ROWS)],
        }
    )
    written = csv_minimal._write_unquoted
    taken: list[bool] = []

    def spy(*args: object) -> object:
        result = written(*args)  # type: ignore[arg-type]
        taken.append(result is not None)
        return result

    monkeypatch.setattr(csv_minimal, "_write_unquoted", spy)
    quoting = csv_minimal.MinimalQuoting(",", "\\")
    clean = b"".join(bytes(p) for p in csv_minimal.render(batch, quoting, ",", "\n", ""))
    with_comma = batch.set_column(1, "name", pa.array(["a, b"] * ROWS))
    quoted = b"".join(bytes(p) for p in csv_minimal.render(with_comma, quoting, ",", "\n", ""))
    assert taken == [True]  # the second write never asked pyarrow's writer
    assert clean.startswith(b"0,store-0,0.00\n") and quoted.startswith(b'0,"a, b",0.00\n')
