"""Connected components of the bulk rebuild: numpy and DuckDB agree with a union-find."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from processors.entities.bulk_components import (
    EDGE_SCHEMA,
    active_links,
    components_duckdb,
    components_local,
)

Row = tuple[int, int, int, bytes]


def edge_table(rows: list[Row]) -> pa.Table:
    member, rule, side, value = (
        (list(column) for column in zip(*rows, strict=True))
        if rows
        else (
            [],
            [],
            [],
            [],
        )
    )
    return pa.table([member, rule, side, value], schema=EDGE_SCHEMA)


def union_find(rows: list[Row], member_count: int) -> list[int]:
    """Smallest member of each member's component: members meet on a key with both sides."""
    parent = list(range(member_count))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    by_key: dict[tuple[int, bytes], list[tuple[int, int]]] = {}
    for member, rule, side, value in rows:
        by_key.setdefault((rule, value), []).append((member, side))
    for members in by_key.values():
        if len({side for _, side in members}) < 2:
            continue
        for member, _ in members[1:]:
            a, b = find(members[0][0]), find(member)
            parent[max(a, b)] = min(a, b)
    return [find(m) for m in range(member_count)]


def test_members_on_one_side_of_a_rule_do_not_match_each_other() -> None:
    rows: list[Row] = [(0, 0, 0, b"x"), (1, 0, 0, b"x"), (2, 0, 1, b"y")]
    assert components_local(edge_table(rows), 3).tolist() == [0, 1, 2]
    assert components_duckdb(edge_table(rows), 3).tolist() == [0, 1, 2]
    assert active_links(edge_table(rows)).num_rows == 0


def test_a_chain_through_two_rules_is_one_component_labelled_by_its_smallest_member() -> None:
    # 3 =rule0= 1 =rule1= 0; 2 is alone; 4 meets 3 through a value on both sides.
    rows: list[Row] = [
        (3, 0, 0, b"a"),
        (1, 0, 1, b"a"),
        (1, 1, 0, b"b"),
        (0, 1, 1, b"b"),
        (2, 1, 0, b"c"),
        (4, 0, 1, b"a"),
    ]
    assert components_local(edge_table(rows), 5).tolist() == [0, 0, 2, 0, 0]
    assert components_duckdb(edge_table(rows), 5).tolist() == [0, 0, 2, 0, 0]


rows_strategy = st.integers(1, 30).flatmap(
    lambda members: st.tuples(
        st.just(members),
        st.lists(
            st.tuples(
                st.integers(0, members - 1),
                st.integers(0, 2),
                st.integers(0, 1),
                st.binary(min_size=1, max_size=1).map(lambda b: bytes([b[0] % 6])),
            ),
            max_size=60,
        ),
    )
)


@settings(max_examples=60, deadline=None)
@given(rows_strategy)
def test_numpy_and_duckdb_equal_a_union_find(case: tuple[int, list[Row]]) -> None:
    members, rows = case
    expected = union_find(rows, members)
    assert components_local(edge_table(rows), members).tolist() == expected
    assert components_duckdb(edge_table(rows), members).tolist() == expected


def test_collector_pauses_nest_and_the_last_one_resumes_it() -> None:
    import gc

    from processors.entities.bulk import collector_paused

    assert gc.isenabled()
    outer = collector_paused()
    inner = collector_paused()
    outer.__enter__()
    inner.__enter__()
    assert not gc.isenabled()
    outer.__exit__(None, None, None)  # the first to start ends first: still paused
    assert not gc.isenabled()
    inner.__exit__(None, None, None)
    assert gc.isenabled()
