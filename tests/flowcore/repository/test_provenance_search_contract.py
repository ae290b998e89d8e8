"""Search: every criterion alone, criteria together, order, limit and the cursor."""

from __future__ import annotations

from typing import Any

import pytest

from flowcore.model.provenance import ProvenanceEventType
from flowcore.repository import ProvenanceQuery

T0 = 1_700_000_000_000
# JSON-path and JSON-pointer syntax, a quote and a backslash in one attribute name.
ODD_NAME = 'a.b/c~0\\"d$[0]'


@pytest.fixture
def indexed(provenance_factory: Any, journal: Any, event: Any) -> Any:
    """A repository holding events 0..9 (ids in the comments below)."""
    journal.append(
        [
            # 0
            event(
                "RECEIVE",
                "A",
                event_time=T0,
                component_id="get",
                details="Received 100%",
                updated_attributes={"filename": "a.csv", "path": "/in/"},
            ),
            # 1
            event(
                "ATTRIBUTES_MODIFIED",
                "A",
                event_time=T0 + 10,
                component_id="update",
                previous_attributes={"filename": "a.csv", "path": "/in/"},
                updated_attributes={"filename": "renamed.csv", "path": None},
            ),
            # 2: FORK of A into B and C, indexed under the children too
            event(
                "FORK",
                "A",
                event_time=T0 + 20,
                component_id="split",
                parent_uuids=["A"],
                child_uuids=["B", "C"],
                previous_attributes={"filename": "renamed.csv"},
                details="Split into 2",
            ),
            # 3
            event(
                "ROUTE",
                "B",
                event_time=T0 + 30,
                component_id="route",
                relationship="x",
                previous_attributes={"filename": "renamed.csv", ODD_NAME: "odd"},
            ),
            # 4
            event(
                "ROUTE",
                "C",
                event_time=T0 + 40,
                component_id="route",
                details="low_prio",
                previous_attributes={"filename": "renamed.csv", "prio": "low"},
            ),
            # 5: JOIN of B and C into D, indexed under the parents too
            event(
                "JOIN",
                "D",
                event_time=T0 + 50,
                component_id="merge",
                parent_uuids=["B", "C"],
                child_uuids=["D"],
                updated_attributes={"filename": "merged.csv"},
                details="MERGED 2",
            ),
            # 6
            event(
                "SEND",
                "D",
                event_time=T0 + 60,
                component_id="put",
                previous_attributes={"filename": "merged.csv"},
                details="sent to s3",
            ),
            # 7
            event("DROP", "B", event_time=T0 + 60, component_id="merge"),
            # 8
            event("DROP", "C", event_time=T0 + 70, component_id="merge"),
            # 9
            event(
                "CREATE",
                "E",
                event_time=T0 + 80,
                component_id="get",
                details="lowest",
                updated_attributes={"filename": "a.csv"},
            ),
        ]
    )
    repository = provenance_factory(index_batch_size=4)
    assert repository.index_pending() == 10
    return repository


def found(repository: Any, **criteria: Any) -> list[int]:
    return [e.event_id for e in repository.search(ProvenanceQuery(**criteria))]


def test_no_criteria_returns_everything_newest_first(indexed: Any) -> None:
    assert found(indexed) == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]


def test_flowfile_uuid_matches_own_parent_and_child_events(indexed: Any) -> None:
    assert found(indexed, flowfile_uuid="A") == [2, 1, 0]
    # B is a FORK child, a JOIN parent and has events of its own.
    assert found(indexed, flowfile_uuid="B") == [7, 5, 3, 2]
    assert found(indexed, flowfile_uuid="D") == [6, 5]
    assert found(indexed, flowfile_uuid="nope") == []


def test_event_type_matches_exactly_in_any_case(indexed: Any) -> None:
    assert found(indexed, event_type="ROUTE") == [4, 3]
    assert found(indexed, event_type="drop") == [8, 7]
    assert found(indexed, event_type=ProvenanceEventType.JOIN) == [5]


def test_component_id(indexed: Any) -> None:
    assert found(indexed, component_id="merge") == [8, 7, 5]
    assert found(indexed, component_id="merg") == []


def test_time_range_is_inclusive_at_both_ends(indexed: Any) -> None:
    assert found(indexed, start_ms=T0 + 60) == [9, 8, 7, 6]
    assert found(indexed, end_ms=T0 + 20) == [2, 1, 0]
    assert found(indexed, start_ms=T0 + 40, end_ms=T0 + 60) == [7, 6, 5, 4]


def test_details_is_a_case_insensitive_substring_with_no_wildcards(indexed: Any) -> None:
    assert found(indexed, details="merged") == [5]
    assert found(indexed, details="LOW") == [9, 4]
    assert found(indexed, details="100%") == [0]
    assert found(indexed, details="_") == [4]
    assert found(indexed, details="%") == [0]


def test_attributes_match_the_effective_value(indexed: Any) -> None:
    # Event 1 renamed a.csv: its effective filename is the updated one.
    assert found(indexed, attributes={"filename": "a.csv"}) == [9, 0]
    assert found(indexed, attributes={"filename": "renamed.csv"}) == [4, 3, 2, 1]
    # JOIN: only updated attributes; SEND: only previous ones.
    assert found(indexed, attributes={"filename": "merged.csv"}) == [6, 5]
    # Event 1 removed "path": the removal hides the previous value.
    assert found(indexed, attributes={"path": "/in/"}) == [0]
    assert found(indexed, attributes={"path": ""}) == []


def test_several_attributes_must_all_match(indexed: Any) -> None:
    assert found(indexed, attributes={"filename": "renamed.csv", "prio": "low"}) == [4]
    assert found(indexed, attributes={"filename": "a.csv", "prio": "low"}) == []


def test_attribute_names_may_hold_any_character(indexed: Any) -> None:
    assert found(indexed, attributes={ODD_NAME: "odd"}) == [3]
    assert found(indexed, attributes={"a.b/c~": "odd"}) == []


def test_criteria_are_anded(indexed: Any) -> None:
    assert found(indexed, flowfile_uuid="C", event_type="ROUTE") == [4]
    assert found(indexed, component_id="merge", start_ms=T0 + 60, end_ms=T0 + 65) == [7]
    assert found(
        indexed, flowfile_uuid="A", details="split", attributes={"filename": "renamed.csv"}
    ) == [2]
    assert found(indexed, flowfile_uuid="A", event_type="SEND") == []


def test_limit_and_cursor_page_through_results(indexed: Any) -> None:
    pages: list[list[int]] = []
    cursor = None
    while True:
        page = found(indexed, limit=3, before_event_id=cursor)
        if not page:
            break
        pages.append(page)
        cursor = page[-1]
    assert pages == [[9, 8, 7], [6, 5, 4], [3, 2, 1], [0]]
    assert found(indexed, component_id="merge", limit=2, before_event_id=8) == [7, 5]
    assert found(indexed, limit=0) == []


def test_user_values_are_never_sql(indexed: Any) -> None:
    assert found(indexed, component_id="x' OR '1'='1") == []
    assert found(indexed, attributes={"filename') OR (1=1": "a.csv"}) == []
    assert found(indexed, details="'; DROP TABLE provenance_events; --") == []
    assert indexed.event_count() == 10
