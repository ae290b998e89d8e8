"""Everyday processors with four concurrent tasks: the outcome is exactly that of one task.

These processors keep nothing across triggers that a second task could corrupt (their
configuration is compiled when they are scheduled; UpdateAttribute's Store State is read
and committed by one task at a time; DetectDuplicate's check-and-put is one cache
transaction; LookupRecord's cache lives for one FlowFile). The interpreter switches
threads every microsecond so that the tasks interleave.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from flowcore.settings import EngineSettings
from flowcore.testing import MockFlowFile, TestRunner

Check = Callable[[TestRunner], None]


@dataclass(frozen=True)
class Case:
    """A processor set up with its input (``prepare``), the triggers to run and the exact
    outcome (``check``)."""

    type_name: str
    prepare: Callable[[TestRunner, Path], None]
    runs: int
    check: Check


def _out(runner: TestRunner, relationship: str) -> list[MockFlowFile]:
    flowfiles = runner.get_flowfiles_for_relationship(relationship)
    assert len({f.uuid for f in flowfiles}) == len(flowfiles)
    return flowfiles


# -- UpdateAttribute (batches of 1,000: 4,000 FlowFiles give four tasks at once) ----------

MANY = 4000


def _update_attribute(runner: TestRunner, _: Path) -> None:
    runner.set_property("double", "${n:multiply(2)}")
    runner.set_property("Delete Attributes Expression", "tmp.*")
    for n in range(MANY):
        runner.enqueue("", {"n": str(n), "tmp.n": "x"})


def _check_update_attribute(runner: TestRunner) -> None:
    out = _out(runner, "success")
    assert sorted((int(f.attributes["n"]), f.attributes["double"]) for f in out) == [
        (n, str(2 * n)) for n in range(MANY)
    ]
    assert not any("tmp.n" in f.attributes for f in out)


def _update_attribute_stateful(runner: TestRunner, _: Path) -> None:
    runner.set_property("Store State", "Store state locally")
    runner.set_property("Stateful Variables Initial Value", "0")
    runner.set_property("count", "${getStateValue('count'):plus(1)}")
    runner.set_property("sum", "${getStateValue('sum'):plus(${n})}")
    for n in range(MANY):
        runner.enqueue("", {"n": str(n)})


def _check_update_attribute_stateful(runner: TestRunner) -> None:
    out = _out(runner, "success")
    assert sorted(int(f.attributes["count"]) for f in out) == list(range(1, MANY + 1))
    assert runner.state == {"count": str(MANY), "sum": str(sum(range(MANY)))}


# -- RouteOnAttribute ---------------------------------------------------------------------


def _route_on_attribute(runner: TestRunner, _: Path) -> None:
    runner.set_property("even", "${n:mod(2):equals(0)}")
    for n in range(MANY):
        runner.enqueue("", {"n": str(n)})


def _check_route_on_attribute(runner: TestRunner) -> None:
    even = sorted(int(f.attributes["n"]) for f in _out(runner, "even"))
    odd = sorted(int(f.attributes["n"]) for f in _out(runner, "unmatched"))
    assert even == list(range(0, MANY, 2))
    assert odd == list(range(1, MANY, 2))
    assert all(f.attributes["RouteOnAttribute.Route"] == "even" for f in _out(runner, "even"))


# -- one FlowFile per trigger -------------------------------------------------------------

FEW = 200


def _replace_text(runner: TestRunner, _: Path) -> None:
    runner.set_property("Search Value", "(\\d+)")
    runner.set_property("Replacement Value", "<$1>")
    for n in range(FEW):
        runner.enqueue(f"item {n}\nnext {n + 1}\n")


def _check_replace_text(runner: TestRunner) -> None:
    contents = Counter(f.content.decode() for f in _out(runner, "success"))
    assert contents == Counter({f"item <{n}>\nnext <{n + 1}>\n": 1 for n in range(FEW)})


def _attributes_to_json(runner: TestRunner, _: Path) -> None:
    runner.set_property("Attributes List", "n,name")
    for n in range(FEW):
        runner.enqueue("", {"n": str(n), "name": f"x{n}", "other": "y"})


def _check_attributes_to_json(runner: TestRunner) -> None:
    found = sorted(
        (int(f.attributes["n"]), json.loads(f.attributes["JSONAttributes"]))
        for f in _out(runner, "success")
    )
    assert found == [(n, {"n": str(n), "name": f"x{n}"}) for n in range(FEW)]


def _evaluate_json_path(runner: TestRunner, _: Path) -> None:
    runner.set_property("Destination", "flowfile-attribute")
    runner.set_property("found", "$.name")
    for n in range(FEW):
        runner.enqueue(json.dumps({"n": n, "name": f"x{n}"}))


def _check_evaluate_json_path(runner: TestRunner) -> None:
    found = Counter(f.attributes["found"] for f in _out(runner, "matched"))
    assert found == Counter({f"x{n}": 1 for n in range(FEW)})


KEYS = 50


def _detect_duplicate(runner: TestRunner, tmp_path: Path) -> None:
    runner.add_controller_service(
        "cache", "LmdbMapCacheService", {"Persistence Directory": str(tmp_path / "cache")}
    )
    runner.set_property("Distributed Cache Service", "cache")
    runner.set_property("Cache Entry Identifier", "${key}")
    runner.set_property("FlowFile Description", "${n}")
    for n in range(FEW):
        runner.enqueue("", {"key": f"k{n % KEYS}", "n": str(n)})


def _check_detect_duplicate(runner: TestRunner) -> None:
    first = {f.attributes["key"]: f.attributes["n"] for f in _out(runner, "non-duplicate")}
    assert sorted(first) == sorted(f"k{n}" for n in range(KEYS))
    duplicates = _out(runner, "duplicate")
    assert len(duplicates) == FEW - KEYS
    for flowfile in duplicates:
        key = flowfile.attributes["key"]
        assert flowfile.attributes["original.flowfile.description"] == first[key]
    runner.assert_transfer_count("failure", 0)


def _lookup_record(runner: TestRunner, _: Path) -> None:
    runner.add_controller_service("reader", "CSVReader", {"Treat First Line as Header": "true"})
    runner.add_controller_service("writer", "CSVRecordSetWriter", {})
    runner.add_controller_service(
        "lookup", "SimpleKeyValueLookupService", {f"k{k}": f"v{k}" for k in range(10)}
    )
    runner.set_property("Record Reader", "reader")
    runner.set_property("Record Writer", "writer")
    runner.set_property("Lookup Service", "lookup")
    runner.set_property("Cache Size", "3")
    runner.set_property("key", "/key")
    runner.set_property("Result RecordPath", "/value")
    runner.set_property("Routing Strategy", "Route to 'matched' or 'unmatched'")
    for n in range(FEW):
        rows = "".join(f"{n},k{(n + r) % 12},\n" for r in range(6))
        runner.enqueue("n,key,value\n" + rows)


def _check_lookup_record(runner: TestRunner) -> None:
    def expected(n: int, matched: bool) -> str:
        keys = [(n + r) % 12 for r in range(6)]
        rows = [f"{n},k{k},{f'v{k}' if k < 10 else ''}\n" for k in keys if (k < 10) == matched]
        return "n,key,value\n" + "".join(rows) if rows else ""

    for relationship, matched in (("matched", True), ("unmatched", False)):
        contents = Counter(f.content.decode() for f in _out(runner, relationship))
        wanted = Counter(expected(n, matched) for n in range(FEW))
        del wanted[""]
        assert contents == wanted


CASES = {
    "UpdateAttribute": Case("UpdateAttribute", _update_attribute, 8, _check_update_attribute),
    "UpdateAttribute, Store State": Case(
        "UpdateAttribute", _update_attribute_stateful, 8, _check_update_attribute_stateful
    ),
    "RouteOnAttribute": Case("RouteOnAttribute", _route_on_attribute, 8, _check_route_on_attribute),
    "ReplaceText": Case("ReplaceText", _replace_text, FEW, _check_replace_text),
    "AttributesToJSON": Case(
        "AttributesToJSON", _attributes_to_json, FEW, _check_attributes_to_json
    ),
    "EvaluateJsonPath": Case(
        "EvaluateJsonPath", _evaluate_json_path, FEW, _check_evaluate_json_path
    ),
    "DetectDuplicate": Case("DetectDuplicate", _detect_duplicate, FEW, _check_detect_duplicate),
    "LookupRecord, Cache Size": Case("LookupRecord", _lookup_record, FEW, _check_lookup_record),
}


@pytest.mark.parametrize("name", list(CASES))
def test_four_concurrent_tasks_give_the_outcome_of_one(
    name: str, tmp_path: Path, switching_often: None
) -> None:
    case = CASES[name]
    with TestRunner(case.type_name, settings=EngineSettings(data_dir=tmp_path / "node")) as runner:
        case.prepare(runner, tmp_path)
        runner.set_thread_count(4)
        runner.run(case.runs)

        runner.assert_queue_empty()
        case.check(runner)
