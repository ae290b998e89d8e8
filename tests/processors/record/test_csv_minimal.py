"""The CSV writer's text of sliced columns: made once per parent, the same as alone."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from processors.record.csv_minimal import SliceTexts, _as_text
from processors.record.temporal_text import JavaPattern, TemporalFormats, is_date_time

PARENTS = [
    pa.array([0.5, None, -1.25, 1e20, 3.0, None, 7.125, 0.1] * 5),
    pa.array([1_714_564_800 + i for i in range(40)], pa.timestamp("s")),
    pa.array([None if i % 3 else i * 1000 for i in range(40)], pa.timestamp("ms", tz="UTC")),
    pa.array([19_723 + i % 28 for i in range(40)], pa.date32()),
    pa.array([i % 2 == 0 for i in range(40)]),  # bit-packed: cast directly
    pa.array([f"v{i}" for i in range(40)]),  # not fixed width: cast directly
]


@pytest.mark.parametrize("parent", PARENTS, ids=lambda a: str(a.type))
def test_slices_have_the_text_of_a_cast(parent: pa.Array) -> None:
    texts = SliceTexts()
    middle = parent.slice(5, 30)  # a slice of a slice: offsets add up
    for column in (parent.slice(0, 10), parent.slice(10, 10), middle.slice(3, 7), parent):
        assert texts.of(column).to_pylist() == _as_text(column).to_pylist()
        if not pa.types.is_floating(column.type) and not is_date_time(column.type):
            assert texts.of(column).to_pylist() == pc.cast(column, pa.string()).to_pylist()
    if pa.types.is_floating(parent.type):  # Java's Double.toString
        assert texts.of(parent.slice(0, 5)).to_pylist() == ["0.5", None, "-1.25", "1.0E20", "3.0"]
    if is_date_time(parent.type):  # epoch milliseconds (no Date/Timestamp Format)
        assert texts.of(parent.slice(2, 2)).to_pylist() == EPOCH_MILLIS[str(parent.type)]


EPOCH_MILLIS = {
    "timestamp[s]": ["1714564802000", "1714564803000"],
    "timestamp[ms, tz=UTC]": [None, "3000"],
    "date32[day]": ["1704240000000", "1704326400000"],
}


def test_slices_of_a_parent_are_formatted_with_the_formats() -> None:
    formats = TemporalFormats(
        date=JavaPattern.compile("MM/dd/yyyy"), timestamp=JavaPattern.compile("HH:mm:ss")
    )
    texts = SliceTexts(formats)
    assert texts.of(PARENTS[1].slice(2, 2)).to_pylist() == ["12:00:02", "12:00:03"]
    assert texts.of(PARENTS[3].slice(2, 2)).to_pylist() == ["01/03/2024", "01/04/2024"]
    assert texts.of(PARENTS[3].slice(30, 1)).to_pylist() == ["01/03/2024"]


def test_a_parent_is_cast_once_for_its_slices() -> None:
    texts = SliceTexts()
    parent = PARENTS[0]
    first = texts.of(parent.slice(0, 10))
    second = texts.of(parent.slice(10, 10))
    assert first.buffers()[2].address == second.buffers()[2].address  # one cast's text


def test_another_validity_over_the_same_values_is_another_array() -> None:
    texts = SliceTexts()
    values = pa.array([1.5, 2.5, 3.5, 4.5] * 4)
    masked = pc.if_else(pa.array([True, False] * 8), values, None)
    other = pa.Array.from_buffers(
        values.type, len(values), [masked.buffers()[0], values.buffers()[1]]
    )
    assert texts.of(values.slice(0, 4)).to_pylist() == ["1.5", "2.5", "3.5", "4.5"]
    assert texts.of(other.slice(0, 4)).to_pylist() == ["1.5", None, "3.5", None]
