"""JSON lines larger than one block are typed as if read whole.

NiFi infers a JSON schema from the whole content. Contents that fit in the first block
are parsed whole (``test_json_inference_property`` checks every value against NiFi's
rules); a larger one is read twice, first piece by piece to merge each piece's schema
into the whole's. Here the block and the piece are made small, so that random contents
take the two reads, and each must give exactly what the same content gives read whole,
wherever in it a field first appears or changes its type.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from processors.record import json_format
from tests.processors.record_processors import outcomes
from tests.processors.record_processors.outcomes import Converted
from tests.processors.record_processors.test_json_inference_property import _MISSING, VALUES

SMALL_BLOCK = 256


def converted(content: str, writer_type: str) -> Converted:
    return outcomes.convert_one(content, "JsonTreeReader", {}, writer_type)


def streamed(content: str, writer_type: str) -> Converted:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_format, "_BLOCK", SMALL_BLOCK)
        patch.setattr(json_format, "_PIECE", SMALL_BLOCK)
        return converted(content, writer_type)


def _line(number: int, row: list[Any]) -> str:
    fields = {f"f{i}": v for i, v in enumerate(row) if v is not _MISSING}
    return json.dumps({"id": number, **fields})


def contents() -> st.SearchStrategy[str]:
    """Many lines: most repeat one record, a few anywhere are others (an ``id`` first
    makes every content span several blocks)."""

    def build(fields: int) -> st.SearchStrategy[str]:
        row = st.lists(st.sampled_from(VALUES), min_size=fields, max_size=fields)
        return st.tuples(
            row,
            st.integers(40, 100),
            st.lists(st.tuples(st.integers(0, 99), row), max_size=4),
        ).map(lambda drawn: _content(*drawn))

    return st.integers(1, 3).flatmap(build)


def _content(common: list[Any], count: int, others: list[tuple[int, list[Any]]]) -> str:
    rows = [common for _ in range(count)]
    for at, row in others:
        rows[min(at, count - 1)] = row
    return "".join(_line(n, row) + "\n" for n, row in enumerate(rows))


@settings(max_examples=200, deadline=None)
@given(contents(), st.sampled_from(["JsonRecordSetWriter", "CSVRecordSetWriter"]))
def test_lines_read_in_blocks_are_typed_as_if_read_whole(content: str, writer: str) -> None:
    assert len(content.encode()) > SMALL_BLOCK
    assert streamed(content, writer) == converted(content, writer)


LATE = [
    ('{"a":2.5,"b":"x","c":false,"d":null}', "1.0,abc,true,", "2.5,x,false,"),
    ('{"a":"abc","b":"x","c":true,"d":null}', "1,abc,true,", "abc,x,true,"),
    ('{"a":1,"b":"x","c":true,"d":5}', "1,abc,true,", "1,x,true,5"),
    ('{"a":1,"b":"x","c":"maybe","d":null}', "1,abc,true,", "1,x,maybe,"),
]


@pytest.mark.parametrize(("late", "first_csv", "late_csv"), LATE)
def test_a_record_after_the_first_megabyte_types_its_fields(
    late: str, first_csv: str, late_csv: str
) -> None:
    # Before, such a record failed the FlowFile ("changed from number to string").
    content = '{"a":1,"b":"abc","c":true,"d":null}\n' * 40_000 + late + "\n"
    outcome = converted(content, "CSVRecordSetWriter")
    assert outcome.relationship == "success", outcome.text
    lines = outcome.text.splitlines()
    assert lines[0] == "a,b,c,d"
    assert len(lines) == 40_002
    assert (lines[1], lines[-1]) == (first_csv, late_csv)


def test_a_field_first_seen_after_the_first_megabyte_is_read() -> None:
    # Before: "JSON parse error: unexpected field".
    content = '{"a":1}\n' * 200_000 + '{"a":2,"z":"late"}\n'
    outcome = converted(content, "CSVRecordSetWriter")
    assert outcome.relationship == "success", outcome.text
    lines = outcome.text.splitlines()
    assert lines[0] == "a,z"
    assert (lines[1], lines[-1]) == ("1,", "2,late")
