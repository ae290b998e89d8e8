"""Serialized forms travel with a batch through slices and selections, and leave with it."""

from __future__ import annotations

import gc

import pyarrow as pa

from processors.record import serialized
from processors.record.serialized import SerializedForms, attach, combined, forms_of, sliced, taken

MIME = "application/json"


def _batch(n: int) -> pa.RecordBatch:
    return pa.record_batch({"id": list(range(n))})


def test_slices_and_selections_carry_their_rows_forms() -> None:
    batch = attach(_batch(4), SerializedForms(MIME, pa.array(["a", "b", "c", "d"])))
    part = sliced(batch, 1, 2)
    picked = taken(batch, pa.array([3, 0]))
    assert forms_of(part) is not None and forms_of(part).texts.to_pylist() == ["b", "c"]  # type: ignore[union-attr]
    assert forms_of(picked).texts.to_pylist() == ["d", "a"]  # type: ignore[union-attr]
    assert forms_of(batch.slice(1, 2)) is None  # a batch cut any other way has none


def test_forms_are_made_when_first_used() -> None:
    made: list[int] = []

    def make() -> pa.Array:
        made.append(1)
        return pa.array(["a", "b"])

    batch = attach(_batch(2), SerializedForms(MIME, make))
    part = sliced(batch, 1)
    assert made == []
    assert combined([part], MIME).to_pylist() == ["b"]  # type: ignore[union-attr]
    assert made == [1]


def test_combined_fills_rows_without_forms_with_nulls() -> None:
    first = attach(_batch(2), SerializedForms(MIME, pa.array(["a", "b"])))
    other = _batch(1)
    assert combined([first, other], MIME).to_pylist() == ["a", "b", None]  # type: ignore[union-attr]
    assert combined([other], MIME) is None
    assert combined([first], "text/csv") is None


def test_forms_leave_with_their_batch() -> None:
    before = len(serialized._ATTACHED)
    batch = attach(_batch(1), SerializedForms(MIME, pa.array(["a"])))
    assert len(serialized._ATTACHED) == before + 1
    del batch
    gc.collect()
    assert len(serialized._ATTACHED) == before


def test_forms_must_be_one_per_row() -> None:
    import pytest

    with pytest.raises(ValueError, match="2 serialized forms for a batch of 3 rows"):
        attach(_batch(3), SerializedForms(MIME, pa.array(["a", "b"])))
