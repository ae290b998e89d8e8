"""A CSV larger than one block is typed as if it were read whole.

NiFi infers a CSV schema from the whole content. Contents that fit in the first block
are parsed whole here (and ``test_csv_inference_property`` checks every value against
NiFi's rules); a larger one is read twice, first as text to type each column from all
its values. Here the block is made small, so that random contents take the two reads,
and each must give exactly what the same content gives read whole, wherever in it the
value that decides a column's type lies.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from processors.record import csv_format
from tests.processors.record_processors import outcomes
from tests.processors.record_processors.outcomes import Converted
from tests.processors.record_processors.test_csv_inference_property import VALUES

SMALL_BLOCK = 256


def converted(content: str, writer_type: str) -> Converted:
    return outcomes.convert_one(
        content, "CSVReader", {"Treat First Line as Header": "true"}, writer_type
    )


def streamed(content: str, writer_type: str) -> Converted:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(csv_format, "_BLOCK", SMALL_BLOCK)
        return converted(content, writer_type)


def contents() -> st.SearchStrategy[str]:
    """Many rows of a few columns: most repeat one row, a few anywhere hold others (an
    ``id`` column first makes every content span several blocks)."""

    def build(columns: int) -> st.SearchStrategy[str]:
        row = st.lists(st.sampled_from(VALUES), min_size=columns, max_size=columns)
        return st.tuples(
            row,
            st.integers(40, 120),
            st.lists(st.tuples(st.integers(0, 119), row), max_size=4),
        ).map(lambda drawn: _content(columns, *drawn))

    return st.integers(1, 3).flatmap(build)


def _content(
    columns: int, common: list[str], count: int, others: list[tuple[int, list[str]]]
) -> str:
    rows = [list(common) for _ in range(count)]
    for at, row in others:
        rows[min(at, count - 1)] = row
    header = ",".join(["id", *(f"c{i}" for i in range(columns))])
    return header + "\n" + "".join(f"{n:06d}," + ",".join(row) + "\n" for n, row in enumerate(rows))


@settings(max_examples=200, deadline=None)
@given(contents(), st.sampled_from(["JsonRecordSetWriter", "CSVRecordSetWriter"]))
def test_a_content_read_in_blocks_is_typed_as_if_read_whole(content: str, writer: str) -> None:
    assert len(content.encode()) > SMALL_BLOCK
    assert streamed(content, writer) == converted(content, writer)


def _rows(count: int, line: str) -> Iterator[str]:
    return (line for _ in range(count))


@pytest.mark.parametrize(
    ("late", "first_json", "late_json"),
    [
        (
            "2.5,x,false,",
            '{"a":1.0,"b":"abc","c":true,"d":null}',
            '{"a":2.5,"b":"x","c":false,"d":null}',
        ),
        (
            "abc,x,true,",
            '{"a":"1","b":"abc","c":true,"d":null}',
            '{"a":"abc","b":"x","c":true,"d":null}',
        ),
        (
            "1,x,maybe,",
            '{"a":1,"b":"abc","c":"true","d":null}',
            '{"a":1,"b":"x","c":"maybe","d":null}',
        ),
        ("1,x,true,5", '{"a":1,"b":"abc","c":true,"d":null}', '{"a":1,"b":"x","c":true,"d":5}'),
        (
            "9223372036854775808,x,true,",
            '{"a":"1","b":"abc","c":true,"d":null}',
            '{"a":"9223372036854775808","b":"x","c":true,"d":null}',
        ),
    ],
)
def test_a_value_after_the_first_megabyte_types_its_column(
    late: str, first_json: str, late_json: str
) -> None:
    # Before, a fraction in a column of integers, a word in a column of numbers or
    # Booleans failed the FlowFile, and a column empty through the first 1 MB was text.
    content = "a,b,c,d\n" + "".join(_rows(100_000, "1,abc,true,\n")) + late + "\n"
    outcome = converted(content, "JsonRecordSetWriter")
    assert outcome.relationship == "success", outcome.text
    records = outcome.text[1:-1].split("},{")
    assert len(records) == 100_001
    assert "{" + records[0].lstrip("{") + "}" == first_json
    assert "{" + records[-1].rstrip("}") + "}" == late_json
