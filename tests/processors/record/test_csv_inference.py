"""Column kinds over a whole CSV content (``csv_inference``), batch by batch."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from processors.record.csv_inference import ColumnKinds, Kind, java_trim, kind_of


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        (["1", "-0", "007", " 5", None], Kind.INTEGER),
        (["1", "2.5", ".5", "-.25 "], Kind.DOUBLE),
        (["9223372036854775807"], Kind.INTEGER),
        (["9223372036854775808"], Kind.TEXT),  # beyond long
        (["1e5"], Kind.TEXT),
        (["+5"], Kind.TEXT),
        (["5."], Kind.TEXT),
        (["0x1F"], Kind.TEXT),
        (["NaN"], Kind.TEXT),
        (["true", "FALSE", "tRuE"], Kind.BOOLEAN),
        (["true", "1"], Kind.TEXT),
        ([" true"], Kind.TEXT),
        (["2024-05-01"], Kind.TEXT),
        ([""], Kind.TEXT),  # a quoted empty value is text, not a null
        ([None, None], Kind.NOTHING),
    ],
)
def test_kind_of_values(values: list[str | None], kind: Kind) -> None:
    assert kind_of(pa.array(values, pa.string())).kind is kind


@pytest.mark.parametrize(
    ("first", "then", "widened"),
    [
        (Kind.INTEGER, Kind.DOUBLE, Kind.DOUBLE),
        (Kind.DOUBLE, Kind.INTEGER, Kind.DOUBLE),
        (Kind.NOTHING, Kind.BOOLEAN, Kind.BOOLEAN),
        (Kind.INTEGER, Kind.NOTHING, Kind.INTEGER),
        (Kind.INTEGER, Kind.BOOLEAN, Kind.TEXT),
        (Kind.BOOLEAN, Kind.DOUBLE, Kind.TEXT),
        (Kind.TEXT, Kind.INTEGER, Kind.TEXT),
    ],
)
def test_kinds_widen_as_nifi_merges_inferred_types(first: Kind, then: Kind, widened: Kind) -> None:
    assert first.widened(then) is widened


def test_columns_fold_batch_by_batch_and_a_column_without_values_is_text() -> None:
    kinds = ColumnKinds(4, {3: Kind.TEXT})
    kinds.fold(
        pa.record_batch(
            [pa.array(v, pa.string()) for v in (["1"], [None], ["true"], ["1"])],
            names=["a", "b", "c", "d"],
        )
    )
    kinds.fold(
        pa.record_batch(
            [pa.array(v, pa.string()) for v in (["2.5"], [None], ["maybe"], ["2"])],
            names=["a", "b", "c", "d"],
        )
    )
    assert kinds.schema(["a", "b", "c", "d"]) == pa.schema(
        [("a", pa.float64()), ("b", pa.string()), ("c", pa.string()), ("d", pa.string())]
    )
    assert kinds.undecided()  # a and b may still change
    kinds.fold(
        pa.record_batch(
            [pa.array(v, pa.string()) for v in (["x"], ["y"], ["z"], ["w"])],
            names=["a", "b", "c", "d"],
        )
    )
    assert not kinds.undecided()


@pytest.mark.parametrize(
    "batches",
    [
        [["1.5", "12345678901234567890"]],
        [["1.5"], ["9223372036854775807"]],  # a long, but 2^63 as a double
        [["9223372036854775807"], ["-2.5"]],
    ],
)
def test_a_column_of_numbers_as_large_as_two_to_the_63_with_fractions_is_text(
    batches: list[list[str]],
) -> None:
    kinds = ColumnKinds(1)
    for values in batches:
        kinds.fold(pa.record_batch([pa.array(values, pa.string())], names=["n"]))
    assert kinds.schema(["n"]) == pa.schema([("n", pa.string())])


def test_a_column_of_the_largest_longs_alone_is_integers() -> None:
    kinds = ColumnKinds(1)
    kinds.fold(pa.record_batch([pa.array(["9223372036854775807", "-1"])], names=["n"]))
    assert kinds.schema(["n"]) == pa.schema([("n", pa.int64())])


@given(
    st.lists(
        st.one_of(st.none(), st.text(alphabet=st.sampled_from("ab \t\x00\x1f\x20\xa0é😀\n"))),
        max_size=12,
    ),
    st.integers(0, 4),
    st.integers(0, 12),
    st.booleans(),
)
def test_java_trim_trims_as_string_trim_and_returns_untouched_text_as_is(
    values: list[str | None], start: int, length: int, large: bool
) -> None:
    """What Trim Fields gives equals Java's ``String.trim`` (characters up to a space) of
    every value, on slices and chunked arrays; text with nothing to trim is not copied."""
    array = pa.array(values, pa.large_string() if large else pa.string()).slice(start, length)
    expected = [
        None if v is None else v.strip("".join(map(chr, range(0x21)))) for v in array.to_pylist()
    ]
    assert java_trim(array).to_pylist() == expected
    chunked = pa.chunked_array([array, array])
    assert java_trim(chunked).to_pylist() == expected * 2
    if expected == array.to_pylist():
        assert java_trim(array) is array
