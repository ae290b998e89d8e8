"""Attribute maps become JSON text, one per event, whatever their values hold."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from repos.duckdb_provenance.arrow_batch import _json_column

maps = st.lists(
    st.dictionaries(st.text(max_size=8), st.one_of(st.none(), st.text(max_size=20)), max_size=4),
    min_size=1,
    max_size=30,
)


@given(maps)
def test_each_map_round_trips_through_its_json_text(batch: list[dict[str, str | None]]) -> None:
    column = _json_column(batch)
    assert len(column) == len(batch)
    assert [json.loads(text) for text in column.to_pylist()] == batch


def test_newlines_and_multibyte_characters_inside_values_stay_inside_their_text() -> None:
    batch = [{"a": "line 1\nline 2"}, {}, {"é\n": "\u2028\U0001f600\n"}, {"b": None}]
    assert _json_column(batch).to_pylist() == [
        '{"a":"line 1\\nline 2"}',
        "{}",
        '{"é\\n":"\u2028😀\\n"}',
        '{"b":null}',
    ]
