"""The merge rules (spec section 1 and the Sesam column of the edge-case table), exactly.

Each test applies units of entities through the processor's unit function
(``apply_unit``) on an in-memory keyed store, and checks what was emitted, in order.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from entities_helpers import (
    SEED_A,
    SEED_B,
    SEED_C,
    SEED_DATASETS,
    SEED_EQUALITY,
    SEED_OUTPUT,
    Merger,
    config,
    rebuilt_view,
    without_updated,
)

from processors.entities.bulk import rebuild_datasets
from processors.entities.components import Edges, connected_components
from processors.entities.config import ConfigError, parse_config
from processors.entities.expressions import compile_expression, value_key


def seed_merger(**properties: str) -> Merger:
    return Merger(config(SEED_DATASETS, equality=SEED_EQUALITY, **properties))


# -- the worked example (spec 1.8.1) ---------------------------------------------------------


def test_seed_example_one_unit() -> None:
    merger = seed_merger()
    assert merger.apply(("A", SEED_A), ("B", SEED_B), ("C", SEED_C)) == SEED_OUTPUT


def test_seed_example_bulk_rebuild() -> None:
    built = rebuild_datasets(
        config(SEED_DATASETS, equality=SEED_EQUALITY), {"C": SEED_C, "A": SEED_A, "B": SEED_B}
    )
    assert built.result.emitted == SEED_OUTPUT
    assert built.next_updated == 5


def test_seed_example_incremental_resolves_the_same_view() -> None:
    merger = seed_merger()
    assert merger.apply(("A", SEED_A)) == [
        {"$ids": ["a1"], "_id": "0|a1", "_updated": 0, "f1": 1},
        {"$ids": ["a2"], "_id": "0|a2", "_updated": 1, "f1": 2},
    ]
    assert merger.apply(("B", SEED_B)) == [
        {"$ids": ["a1", "b1"], "_id": "0|a1|1|b1", "_updated": 2, "f1": [1, 1], "f2": "x"},
        {"$ids": ["b2"], "_id": "1|b2", "_updated": 3, "f1": 3},
        {"_id": "0|a1", "_deleted": True, "$replaced": True, "_updated": 4},
    ]
    assert merger.apply(("C", SEED_C)) == [
        {"$ids": ["a1", "b1", "c1"], "_id": "0|a1|1|b1|2|c1", "_updated": 5,
         "f1": [1, 1], "f2": "x", "f3": "X"},
        {"$ids": ["c2"], "_deleted": True, "_id": "2|c2", "_updated": 6, "f3": "Y"},
        {"$ids": ["c3"], "_deleted": True, "_id": "2|c3", "_updated": 7, "f3": "X"},
        {"_id": "0|a1|1|b1", "_deleted": True, "$replaced": True, "_updated": 8},
    ]  # fmt: skip
    assert merger.view() == {e["_id"]: e for e in without_updated(SEED_OUTPUT)}


# -- strategies (spec 1.8.2) -------------------------------------------------------------------

STRATEGY_MEMBERS: list[dict[str, Any]] = [
    {"_id": "1", "x": 1},
    {"_id": "2", "y": [2, 1]},
    {"_id": "3", "y": 2, "z": [3, 3]},
]


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("default", {"x": 1, "y": [2, 1, 2], "z": [3, 3]}),
        ("compact", {"x": 1, "y": [2, 1], "z": 3}),
        (
            "list",
            {"$merged": [{"_id": "1", "x": 1}, {"_id": "2", "y": [2, 1]},
                         {"_id": "3", "y": 2, "z": [3, 3], "_ts": 7}]},
        ),
    ],
)  # fmt: skip
def test_strategy_examples(strategy: str, expected: dict[str, object]) -> None:
    members = [dict(m, k="same") for m in STRATEGY_MEMBERS]
    members[2]["_ts"] = 7
    merger = Merger(
        config("D d", equality_sets='[["d.k", "d.k"]]', strategy=strategy,
               include_internal_properties="true" if strategy == "list" else "false")
    )  # fmt: skip
    (output,) = merger.apply(("D", members))
    if strategy == "list":
        for item in expected["$merged"]:  # type: ignore[attr-defined]
            item["k"] = "same"
    else:
        expected = {**expected, "k": "same" if strategy == "compact" else ["same"] * 3}
    assert output == {**expected, "$ids": ["1", "2", "3"], "_id": "0|1|0|2|0|3", "_updated": 0}


def test_list_strategy_strips_internal_properties_but_keeps_id() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.k","b.k"]]', strategy="list"))
    output = merger.apply(
        ("A", [{"_id": "a1", "k": 1, "_ts": 5, "_hash": "h"}]), ("B", [{"_id": "b1", "k": 1}])
    )
    assert output == [
        {"$merged": [{"_id": "a1", "k": 1}, {"_id": "b1", "k": 1}],
         "$ids": ["a1", "b1"], "_id": "0|a1|1|b1", "_updated": 0},
    ]  # fmt: skip


def test_compact_keeps_null_drops_empty_lists_and_dedups_by_type() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.k","b.k"]]', strategy="compact"))
    (output,) = merger.apply(
        ("A", [{"_id": "a1", "k": 1, "n": None, "e": [], "t": [True, 1, "1"]}]),
        ("B", [{"_id": "b1", "k": 1, "n": None, "e": [], "t": [1, True]}]),
    )
    assert output == {"$ids": ["a1", "b1"], "_id": "0|a1|1|b1", "_updated": 0,
                      "k": 1, "n": None, "t": [True, 1, "1"]}  # fmt: skip


def test_default_keeps_nulls_and_scalars_of_single_contributors() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.k","b.k"]]'))
    (output,) = merger.apply(
        ("A", [{"_id": "a1", "k": 1, "n": None, "only": [1, 1]}]),
        ("B", [{"_id": "b1", "k": 1, "n": None, "e": []}]),
    )
    assert output == {"$ids": ["a1", "b1"], "_id": "0|a1|1|b1", "_updated": 0,
                      "k": [1, 1], "n": [None, None], "only": [1, 1], "e": []}  # fmt: skip


# -- identity and $ids ---------------------------------------------------------------------------


def test_composite_id_orders_by_offset_then_id_as_string() -> None:
    merger = Merger(config("one d1, two d2, three d3", equality_sets='[["d1.k","d2.k","d3.k"]]'))
    (output,) = merger.apply(
        ("three", [{"_id": "three3", "k": 1}]),
        ("two", [{"_id": "two2", "k": 1}, {"_id": "two10", "k": 1}]),
        ("one", [{"_id": "one1", "k": 1}]),
    )
    assert output["_id"] == "0|one1|1|two10|1|two2|2|three3"
    assert output["$ids"] == ["one1", "two10", "two2", "three3"]


def test_identity_first_and_content_change_without_replaced_delete() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.k","b.k"]]', identity="first"))
    assert merger.apply(("A", [{"_id": "a1", "k": 1}]), ("B", [{"_id": "b1", "k": 1}])) == [
        {"$ids": ["a1", "b1"], "_id": "a1", "_updated": 0, "k": [1, 1]}
    ]
    # b1 leaves: a1 keeps its id (content changed, no $replaced); b1 comes out alone.
    assert merger.apply(("B", [{"_id": "b1", "k": 2}])) == [
        {"$ids": ["a1"], "_id": "a1", "_updated": 1, "k": 1},
        {"$ids": ["b1"], "_id": "b1", "_updated": 2, "k": 2},
    ]
    # a0 joins through b1 and sorts first: the ids change, so a1 and b1 are replaced.
    assert merger.apply(("A", [{"_id": "a0", "k": 1}]), ("B", [{"_id": "b1", "k": 1}])) == [
        {"$ids": ["a0", "a1", "b1"], "_id": "a0", "_updated": 3, "k": [1, 1, 1]},
        {"_id": "a1", "_deleted": True, "$replaced": True, "_updated": 4},
        {"_id": "b1", "_deleted": True, "$replaced": True, "_updated": 5},
    ]


def test_identity_first_collision_without_id_equality_fails() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.k","b.k"]]', identity="first"))
    with pytest.raises(Exception, match=r"identity collision: .*'x'"):
        merger.apply(("A", [{"_id": "x", "k": 1}]), ("B", [{"_id": "x", "k": 2}]))
    merger.apply(("A", [{"_id": "x", "k": 1}]))
    with pytest.raises(Exception, match="identity collision"):
        merger.apply(("B", [{"_id": "x", "k": 2}]))
    assert merger.apply(("B", [{"_id": "y", "k": 2}]))[0]["_id"] == "y"


def test_identity_first_with_id_equality_merges_same_ids() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a._id","b._id"]]', identity="first"))
    assert merger.apply(("A", [{"_id": "x", "p": 1}]), ("B", [{"_id": "x", "p": 2}])) == [
        {"$ids": ["x"], "_id": "x", "_updated": 0, "p": [1, 2]}
    ]


def test_ids_rule_uses_ids_or_id_and_ids_union_dedups() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.ssn","b.$ids"]]'))
    out = merger.apply(
        ("A", [{"_id": "a1", "ssn": "p-1"}, {"_id": "a2", "ssn": "hr-9"}]),
        ("B", [{"_id": "p-1", "x": 1}, {"_id": "b2", "$ids": ["hr-9", "hr-9b", "a2"]}]),
    )
    assert out == [
        {"$ids": ["a1", "p-1"], "_id": "0|a1|1|p-1", "_updated": 0, "ssn": "p-1", "x": 1},
        {"$ids": ["a2", "hr-9", "hr-9b"], "_id": "0|a2|1|b2", "_updated": 1, "ssn": "hr-9"},
    ]


# -- equality ---------------------------------------------------------------------------------


def test_null_and_empty_values_never_match() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.k","b.k"]]'))
    out = merger.apply(
        ("A", [{"_id": "a1", "k": None}, {"_id": "a2", "k": []}, {"_id": "a3"},
               {"_id": "a4", "k": [None]}]),
        ("B", [{"_id": "b1", "k": None}, {"_id": "b2", "k": []}, {"_id": "b3"},
               {"_id": "b4", "k": [None]}]),
    )  # fmt: skip
    assert [e["_id"] for e in out] == ["0|a1", "0|a2", "0|a3", "0|a4",
                                       "1|b1", "1|b2", "1|b3", "1|b4"]  # fmt: skip


@pytest.mark.parametrize(
    ("left", "right", "merged"),
    [
        ("1", 1, False),
        (True, 1, False),
        (False, 0, False),
        (1, 1.0, True),  # numbers compare by value (our choice for the open point)
        (1.5, 1.5, True),
        ("x", "X", False),  # case-sensitive
        ({"a": 1, "b": [1]}, {"b": [1], "a": 1}, True),  # dicts by deep equality
        ({"a": True}, {"a": 1}, False),
        ([[1, 2]], [[1, 2]], True),  # a nested list is one value
        ([[1, 2]], [1, 2], False),
        ("~:hr:1", "hr:1", False),
    ],
)
def test_type_sensitive_keys(left: object, right: object, merged: bool) -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.k","b.k"]]'))
    out = merger.apply(("A", [{"_id": "a", "k": left}]), ("B", [{"_id": "b", "k": right}]))
    assert [e["_id"] for e in out] == (["0|a|1|b"] if merged else ["0|a", "1|b"])


def test_list_values_match_if_any_element_matches() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.values","b.value"]]'))
    out = merger.apply(
        ("A", [{"_id": "A", "values": [1, 2, 4, 5]}]),
        ("B", [{"_id": "B", "value": 4}, {"_id": "C", "value": 3}]),
    )
    assert [e["_id"] for e in out] == ["0|A|1|B", "1|C"]


def test_functions_lower_upper_string_integer() -> None:
    aliases = ["a"]
    entity = {"_id": "e", "s": ["Ab", 3, None], "n": ["12", " 7 ", "1.5", 2.9, True], "d": 1.0}
    assert compile_expression(["lower", "a.s"], aliases).evaluate(entity) == ["ab"]
    assert compile_expression(["upper", "a.s"], aliases).evaluate(entity) == ["AB"]
    assert compile_expression(["string", "a.s"], aliases).evaluate(entity) == ["Ab", "3"]
    assert compile_expression(["integer", "a.n"], aliases).evaluate(entity) == [12, 7, 2]
    assert compile_expression(["string", "a.d"], aliases).evaluate(entity) == ["1.0"]
    nested = {"_id": "e", "addr": [{"zip": "1"}, {"zip": ["2", None]}, "x"]}
    assert compile_expression("a.addr.zip", aliases).evaluate(nested) == ["1", "2"]
    assert value_key(True) != value_key(1) != value_key("1")


def test_integer_function_merges_across_types() -> None:
    merger = Merger(config("A a, B b", equality='[["eq",["integer","a.k"],"b.k"]]'))
    out = merger.apply(("A", [{"_id": "a", "k": "42"}]), ("B", [{"_id": "b", "k": 42}]))
    assert [e["_id"] for e in out] == ["0|a|1|b"]


def test_self_join_rule_within_one_dataset() -> None:
    merger = Merger(config("A a", equality='[["eq","a.email","a.alt"]]'))
    out = merger.apply(("A", [{"_id": "1", "email": "x@y"}, {"_id": "2", "alt": "x@y"},
                              {"_id": "3", "email": "x@y"}]))  # fmt: skip
    assert [e["_id"] for e in out] == ["0|1|0|2|0|3"]


def test_rules_are_not_transitive_between_keys_only_between_entities() -> None:
    # a.x = b.x and b.x = c.y, but a.x = c.y directly is not a rule: without a b, no merge.
    merger = Merger(config("A a, B b, C c", equality_sets='[["a.x","b.x","c.y"]]'))
    out = merger.apply(("A", [{"_id": "a", "x": 1}]), ("C", [{"_id": "c", "y": 1}]))
    assert [e["_id"] for e in out] == ["0|a", "2|c"]
    out = merger.apply(("B", [{"_id": "b", "x": 1}]))
    assert [e["_id"] for e in out] == ["0|a|1|b|2|c", "0|a", "2|c"]
    assert [e.get("$replaced") for e in out] == [None, True, True]


def test_equality_sets_equal_expanded_rules_including_overlaps() -> None:
    entities = {
        "A": [{"_id": "a1", "x": 1}, {"_id": "a2", "x": 9}],
        "B": [{"_id": "b1", "x": 1}, {"_id": "b2", "x": 5}],
        "C": [{"_id": "c1", "y": 1, "z": 7}, {"_id": "c2", "y": 5}],
        "D": [{"_id": "d1", "z": 7, "y": 5}, {"_id": "d2", "y": 9}],
    }
    names = "A a, B b, C c, D d"
    rules = config(names, equality='[["eq","a.x","b.x"],["eq","b.x","c.y"],["eq","c.z","d.z"]]')
    sets = config(names, equality_sets='[["a.x","b.x","c.y"],["c.z","d.z"]]')
    mixed = config(names, equality='[["eq","c.z","d.z"]]', equality_sets='[["a.x","b.x","c.y"]]')
    assert rebuilt_view(rules, entities) == rebuilt_view(sets, entities)
    assert rebuilt_view(rules, entities) == rebuilt_view(mixed, entities)
    overlapping = config(names, equality_sets='[["a.x","b.x","c.y"],["c.y","d.y"]]')
    single = config(names, equality_sets='[["a.x","b.x","c.y","d.y"]]')
    expanded = config(names, equality='[["eq","a.x","b.x"],["eq","b.x","c.y"],["eq","c.y","d.y"]]')
    assert rebuilt_view(overlapping, entities) == rebuilt_view(single, entities)
    assert rebuilt_view(overlapping, entities) == rebuilt_view(expanded, entities)
    assert sorted(rebuilt_view(single, entities)) == [
        "0|a1|1|b1|2|c1",
        "0|a2",
        "1|b2|2|c2|3|d1",
        "3|d2",
    ]  # fmt: skip  (a.x = d.y is not a rule: a2 and d2 stay apart)


# -- chains, splits, deletes -----------------------------------------------------------------


def chain() -> Merger:
    merger = Merger(config("A a, B b, C c", equality='[["eq","a.k","b.k"],["eq","b.m","c.m"]]'))
    merger.apply(
        ("A", [{"_id": "a", "k": 1}]),
        ("B", [{"_id": "b", "k": 1, "m": 2}]),
        ("C", [{"_id": "c", "m": 2}]),
    )
    return merger


def test_chain_across_datasets_and_bridge_changed_splits() -> None:
    merger = chain()
    assert [e["_id"] for e in merger.emitted] == ["0|a|1|b|2|c"]
    assert merger.apply(("B", [{"_id": "b", "k": 1, "m": 3}])) == [
        {"$ids": ["a", "b"], "_id": "0|a|1|b", "_updated": 1, "k": [1, 1], "m": 3},
        {"$ids": ["c"], "_id": "2|c", "_updated": 2, "m": 2},
        {"_id": "0|a|1|b|2|c", "_deleted": True, "$replaced": True, "_updated": 3},
    ]


def test_bridge_deleted_splits_and_comes_out_alone_deleted() -> None:
    merger = chain()
    assert merger.apply(("B", [{"_id": "b", "_deleted": True, "k": 1, "m": 2}])) == [
        {"$ids": ["a"], "_id": "0|a", "_updated": 1, "k": 1},
        {"$ids": ["b"], "_deleted": True, "_id": "1|b", "_updated": 2, "k": 1, "m": 2},
        {"$ids": ["c"], "_id": "2|c", "_updated": 3, "m": 2},
        {"_id": "0|a|1|b|2|c", "_deleted": True, "$replaced": True, "_updated": 4},
    ]
    # Deleted again with the same content: nothing changes, nothing is emitted.
    assert merger.apply(("B", [{"_id": "b", "_deleted": True, "k": 1, "m": 2}])) == []
    # Re-inserted: the old merged id comes back to life; the parts are replaced.
    assert merger.apply(("B", [{"_id": "b", "k": 1, "m": 2}])) == [
        {"$ids": ["a", "b", "c"], "_id": "0|a|1|b|2|c", "_updated": 5,
         "k": [1, 1], "m": [2, 2]},
        {"_id": "0|a", "_deleted": True, "$replaced": True, "_updated": 6},
        {"_id": "1|b", "_deleted": True, "$replaced": True, "_updated": 7},
        {"_id": "2|c", "_deleted": True, "$replaced": True, "_updated": 8},
    ]  # fmt: skip


def test_unchanged_entities_are_not_emitted_again() -> None:
    merger = chain()
    assert merger.apply(("A", [{"_id": "a", "k": 1}])) == []
    assert merger.apply(("C", [{"_id": "c", "m": 2, "extra": True}])) == [
        {"$ids": ["a", "b", "c"], "_id": "0|a|1|b|2|c", "_updated": 1,
         "k": [1, 1], "m": [2, 2], "extra": True}
    ]  # fmt: skip


def test_last_change_of_a_member_in_a_unit_wins() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.k","b.k"]]'))
    out = merger.apply(
        ("A", [{"_id": "a", "k": 1}, {"_id": "a", "k": 2}]), ("B", [{"_id": "b", "k": 1}])
    )
    assert [e["_id"] for e in out] == ["0|a", "1|b"]


def test_max_merged_exceeded_raises_and_bulk_agrees() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.k","b.k"]]', max_merged="3"))
    merger.apply(("A", [{"_id": "a1", "k": 1}, {"_id": "a2", "k": 1}]))
    before = dict(merger.store.data)
    with pytest.raises(Exception, match=r"max_merged exceeded: 4 entities .*max_merged is 3"):
        merger.apply(("B", [{"_id": "b1", "k": 1}, {"_id": "b2", "k": 1}]))
    assert merger.store.data == before, "nothing of the failed unit is kept"
    with pytest.raises(Exception, match="max_merged exceeded"):
        rebuild_datasets(
            merger.config,
            {"A": [{"_id": f"a{i}", "k": 1} for i in range(2)],
             "B": [{"_id": f"b{i}", "k": 1} for i in range(2)]},
        )  # fmt: skip
    assert merger.apply(("B", [{"_id": "b1", "k": 1}]))[0]["_id"] == "0|a1|0|a2|1|b1"


def test_connected_components_labels_by_smallest_member() -> None:
    edges = Edges()
    for a, b in [(4, 1), (3, 5), (5, 0), (2, 2)]:
        edges.add(a, b)
    assert connected_components(7, edges) == [0, 1, 2, 0, 1, 0, 6]


# -- configuration ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("properties", "message"),
    [
        ({"version": "1"}, "only version 2 of the merge source is supported"),
        ({"equality": "[[eq"}, "equality is not valid JSON"),
        ({"equality": '[["eq","a.x",["trim","b.x"]]]'}, "unknown function 'trim'"),
        ({"equality": '[["eq","a.x","z.x"]]'}, "unknown dataset alias 'z'"),
        ({"equality": '[["eq","a.x","x"]]'}, "not an alias-qualified property path"),
        ({"equality": '[["eq","a.x","b.x","c.x"]]'}, 'is not an ["eq", left, right] rule'),
        ({"equality_sets": '[["a.x"],[]]'}, "must be a JSON array of non-empty arrays"),
        ({"datasets": "A a, B"}, "is not of the form"),
        ({"datasets": "A a, A b"}, "lists the dataset 'A' more than once"),
        ({"identity": "last"}, "identity must be"),
    ],
)
def test_config_errors(properties: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"datasets": "A a, B b", **properties})
    assert message in str(caught.value)


def test_identity_first_deleting_one_same_id_member_keeps_the_live_entity() -> None:
    """A real delete of one member must not fail: the live entity keeps the id."""
    merger = Merger(config("A a, B b", equality='[["eq","a._id","b._id"]]', identity="first"))
    assert merger.apply(("A", [{"_id": "x", "p": 1}]), ("B", [{"_id": "x", "p": 2}])) == [
        {"$ids": ["x"], "_id": "x", "_updated": 0, "p": [1, 2]}
    ]
    # B's x is deleted: its standalone delete would also be "x"; the live A x wins and is
    # re-emitted with its changed content; no delete of "x", no failure.
    assert merger.apply(("B", [{"_id": "x", "_deleted": True, "p": 2}])) == [
        {"$ids": ["x"], "_id": "x", "_updated": 1, "p": 1}
    ]
    # A's x is deleted too: of the deleted ones alone, the first in merge order (A) wins.
    assert merger.apply(("A", [{"_id": "x", "_deleted": True, "p": 1}])) == [
        {"$ids": ["x"], "_deleted": True, "_id": "x", "_updated": 2, "p": 1}
    ]
    # B's x comes back: live again, it takes the id over from the deleted A x.
    assert merger.apply(("B", [{"_id": "x", "p": 3}])) == [
        {"$ids": ["x"], "_id": "x", "_updated": 3, "p": 3}
    ]
    final = {"A": [{"_id": "x", "_deleted": True, "p": 1}], "B": [{"_id": "x", "p": 3}]}
    assert merger.view() == rebuilt_view(merger.config, final)
    # In one unit (the bulk path) the same choice is made.
    fresh = Merger(merger.config)
    assert without_updated(fresh.apply(("A", final["A"]), ("B", final["B"]))) == [
        {"$ids": ["x"], "_id": "x", "p": 3}
    ]


def test_identity_first_two_live_entities_with_one_id_still_fail() -> None:
    merger = Merger(config("A a, B b", equality='[["eq","a.k","b.k"]]', identity="first"))
    merger.apply(("A", [{"_id": "x", "k": 1}]), ("B", [{"_id": "x", "_deleted": True}]))
    assert merger.view() == {"x": {"$ids": ["x"], "_id": "x", "k": 1}}
    with pytest.raises(Exception, match="identity collision"):
        merger.apply(("B", [{"_id": "x", "k": 2}]))
