"""Events go to DuckDB as JSON texts, one per event, whatever their values hold; DuckDB
parses them back into exactly the event's columns."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowcore.model.provenance import ContentRef, ProvenanceEvent
from repos.duckdb_provenance.arrow_batch import _json_column, build_batch
from repos.duckdb_provenance.rows import event_from_row
from repos.duckdb_provenance.schema import EVENTS_TABLE, SELECT_EVENT_COLUMNS
from repos.duckdb_provenance.store import ProvenanceStore

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
        '{"a":"line 1\\nline 2"}\n',
        "{}\n",
        '{"é\\n":"\u2028😀\\n"}\n',
        '{"b":null}\n',
    ]


texts = st.text(max_size=12)
optional_texts = st.one_of(st.none(), texts)
content_refs = st.one_of(
    st.none(),
    st.builds(
        ContentRef,
        texts,
        texts,
        texts,
        st.integers(0, 2**62),
        st.integers(0, 2**62),
        st.one_of(st.none(), st.integers(0, 2**64 - 1)),
    ),
)
events = st.builds(
    ProvenanceEvent,
    event_time=st.integers(0, 2**62),
    event_type=st.sampled_from(["CREATE", "FORK", "SEND", "DROP", "ATTRIBUTES_MODIFIED"]),
    flowfile_uuid=texts,
    component_id=texts,
    component_type=texts,
    entry_date=st.integers(0, 2**62),
    lineage_start_date=st.integers(0, 2**62),
    event_duration=st.integers(-1, 2**40),
    parent_uuids=st.lists(texts, max_size=3),
    child_uuids=st.lists(texts, max_size=3),
    previous_attributes=st.dictionaries(texts, texts, max_size=4),
    updated_attributes=st.dictionaries(texts, optional_texts, max_size=4),
    previous_content=content_refs,
    current_content=content_refs,
    details=optional_texts,
    relationship=optional_texts,
    transit_uri=optional_texts,
    source_system_flowfile_id=optional_texts,
    alternate_identifier=optional_texts,
    source_queue_id=optional_texts,
    size=st.integers(0, 2**62),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(events, min_size=1, max_size=6))
def test_every_field_of_every_event_reads_back_as_it_was(
    tmp_path: Path, made: list[ProvenanceEvent]
) -> None:
    for event_id, event in enumerate(made):
        event.event_id = event_id
    store = ProvenanceStore(Path(tempfile.mkdtemp(dir=tmp_path)) / "p.duckdb", 2048)
    try:
        store.insert(build_batch(made, 10_000))
        with store.reader() as cursor:
            rows = cursor.execute(
                f"SELECT {SELECT_EVENT_COLUMNS} FROM {EVENTS_TABLE} ORDER BY event_id"
            ).fetchall()
    finally:
        store.close()
    assert [event_from_row(row) for row in rows] == made


def test_attribute_values_over_the_limit_are_cut_on_write(tmp_path: Path) -> None:
    long = "x" * 50
    made = [
        ProvenanceEvent(
            event_id=0,
            event_time=1,
            event_type="CREATE",
            flowfile_uuid="ff",
            component_id="c",
            component_type="T",
            previous_attributes={"short": "ok", "long": long},
            updated_attributes={"long": long, "gone": None},
        )
    ]
    store = ProvenanceStore(tmp_path / "p.duckdb", 2048)
    try:
        store.insert(build_batch(made, 10))
        with store.reader() as cursor:
            [row] = cursor.execute(f"SELECT {SELECT_EVENT_COLUMNS} FROM {EVENTS_TABLE}").fetchall()
    finally:
        store.close()
    stored = event_from_row(row)
    assert stored.previous_attributes == {"short": "ok", "long": "x" * 10}
    assert stored.updated_attributes == {"long": "x" * 10, "gone": None}
