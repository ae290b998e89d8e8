"""SplitJson: NiFi's TestSplitJson scenarios through the TestRunner."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
SNIPPET = json.dumps(
    [
        {"_id": "a1", "tags": ["x", "y"], "name": {"first": "Shaffer"}},
        {"_id": "b2", "tags": [], "name": {"first": "Kristin"}},
    ]
)


def _runner(make_runner: RunnerFactory, path: str, **properties: str) -> TestRunner:
    return make_runner("SplitJson", properties={"JsonPath Expression": path, **properties})


def test_invalid_path_is_invalid(make_runner: RunnerFactory) -> None:
    _runner(make_runner, "$..[]").assert_not_valid()
    make_runner("SplitJson").assert_not_valid()


@pytest.mark.parametrize(
    ("content", "path"),
    [
        ("not json", "$"),
        (SNIPPET, "$[0]._id"),  # not an array
        (SNIPPET, "$[0].nonexistent"),
        ('{"stringField": "String Value", "nullField": null}', "$.nullField"),
        ("null", "$.*"),
    ],
)
def test_failures(make_runner: RunnerFactory, content: str, path: str) -> None:
    runner = _runner(make_runner, path)
    runner.enqueue(content)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_content_equals(content)


def test_split_array(make_runner: RunnerFactory) -> None:
    runner = _runner(make_runner, "$")
    original = runner.enqueue(SNIPPET, {"filename": "in.json"})
    runner.run()
    runner.assert_transfer_count("original", 1)
    runner.assert_transfer_count("split", 2)
    [kept] = runner.get_flowfiles_for_relationship("original")
    assert kept.uuid == original.uuid
    splits = runner.get_flowfiles_for_relationship("split")
    assert [json.loads(s.text()) for s in splits] == json.loads(SNIPPET)
    assert splits[0].text() == '{"_id":"a1","tags":["x","y"],"name":{"first":"Shaffer"}}'
    fragment = kept.get_attribute("fragment.identifier")
    assert fragment
    kept.assert_attribute_equals("fragment.count", "2")
    for index, split in enumerate(splits):
        split.assert_attribute_equals("fragment.identifier", fragment)
        split.assert_attribute_equals("fragment.index", str(index))
        split.assert_attribute_equals("fragment.count", "2")
        split.assert_attribute_equals("segment.original.filename", "in.json")
    forks = [e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.FORK]
    assert len(forks) == 1


def test_split_scalars_and_empty_array(make_runner: RunnerFactory) -> None:
    runner = _runner(make_runner, "$[*]._id")
    runner.enqueue(SNIPPET)
    runner.run()
    assert [s.text() for s in runner.get_flowfiles_for_relationship("split")] == ["a1", "b2"]

    runner = _runner(make_runner, "$[1].tags")
    runner.enqueue(SNIPPET)
    runner.run()
    runner.assert_transfer_count("split", 0)
    runner.get_flowfiles_for_relationship("original")[0].assert_attribute_equals(
        "fragment.count", "0"
    )


@pytest.mark.parametrize(
    ("representation", "expected"), [("empty string", ""), ("the string 'null'", "null")]
)
def test_array_of_nulls(make_runner: RunnerFactory, representation: str, expected: str) -> None:
    runner = _runner(make_runner, "$.arrayOfNulls", **{"Null Value Representation": representation})
    runner.enqueue('{"stringField": "String Value", "arrayOfNulls": [null, null, null]}')
    runner.run()
    splits = runner.get_flowfiles_for_relationship("split")
    assert [s.text() for s in splits] == [expected] * 3


def test_lone_surrogate_escape_is_written_as_java_writes_it(make_runner: RunnerFactory) -> None:
    """JSON may escape half a surrogate pair ("\\ud800"); NiFi's getBytes(UTF-8) writes it as
    "?" (flowcore raised an encoding error and the FlowFile never left the queue)."""
    runner = _runner(make_runner, "$.*")
    runner.enqueue(b'["a\\ud800", {"k\\udfff": ["\\ud83d\\ude00"]}]')
    runner.run()
    runner.assert_transfer_count("original", 1)
    contents = [f.content for f in runner.get_flowfiles_for_relationship("split")]
    assert contents == [b"a?", '{"k?":["\U0001f600"]}'.encode()]
