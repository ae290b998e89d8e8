"""EvaluateJsonPath: NiFi's TestEvaluateJsonPath scenarios through the TestRunner."""

from __future__ import annotations

import json
from collections.abc import Callable

from flowcore.model import ProvenanceEventType
from flowcore.testing import MockFlowFile, TestRunner

RunnerFactory = Callable[..., TestRunner]
SNIPPET = json.dumps(
    [
        {
            "_id": "54df94072d5dbf7dc6340cc5",
            "isActive": True,
            "balance": 1.5,
            "name": {"first": "Shaffer", "last": "Pearson"},
            "friends": [{"id": 0, "name": "a"}, {"id": 1, "name": "b"}, {"id": 2, "name": "c"}],
        }
    ]
)
ATTRIBUTE = "flowfile-attribute"


def _run(
    make_runner: RunnerFactory, content: str, relationship: str, **properties: str
) -> MockFlowFile:
    runner = make_runner("EvaluateJsonPath", properties=properties)
    runner.enqueue(content)
    runner.run()
    runner.assert_all_flowfiles_transferred(relationship, 1)
    return runner.get_flowfiles_for_relationship(relationship)[0]


def test_invalid_configuration(make_runner: RunnerFactory) -> None:
    make_runner("EvaluateJsonPath", properties={"bad": "$..[]"}).assert_not_valid()
    make_runner("EvaluateJsonPath", properties={"bad": " "}).assert_not_valid()
    make_runner("EvaluateJsonPath", properties={"a": "$.a", "b": "$.b"}).assert_not_valid()
    make_runner(
        "EvaluateJsonPath", properties={"Destination": ATTRIBUTE, "a": "$.a", "b": "$.b"}
    ).assert_valid()


def test_invalid_json_goes_to_failure(make_runner: RunnerFactory) -> None:
    out = _run(make_runner, "not json", "failure", **{"Destination": ATTRIBUTE, "a": "$.a"})
    out.assert_attribute_not_exists("a")


def test_extract_to_attributes(make_runner: RunnerFactory) -> None:
    out = _run(
        make_runner,
        SNIPPET,
        "matched",
        **{
            "Destination": ATTRIBUTE,
            "Return Type": "json",
            "evaluatejson.id": "$[0]._id",
            "evaluatejson.name": "$[0].name",
            "active": "$[0].isActive",
            "balance": "$[0].balance",
        },
    )
    out.assert_attribute_equals("evaluatejson.id", "54df94072d5dbf7dc6340cc5")
    out.assert_attribute_equals("evaluatejson.name", '{"first":"Shaffer","last":"Pearson"}')
    out.assert_attribute_equals("active", "true")
    out.assert_attribute_equals("balance", "1.5")


def test_path_not_found_behaviours(make_runner: RunnerFactory) -> None:
    properties = {"Destination": ATTRIBUTE, "id": "$[0]._id", "missing": "$[0].name.nonexistent"}
    for behaviour in ("warn", "ignore"):
        out = _run(
            make_runner, SNIPPET, "matched", **properties, **{"Path Not Found Behavior": behaviour}
        )
        out.assert_attribute_equals("id", "54df94072d5dbf7dc6340cc5")
        out.assert_attribute_equals("missing", "")
    out = _run(make_runner, SNIPPET, "matched", **properties, **{"Path Not Found Behavior": "skip"})
    out.assert_attribute_not_exists("missing")


def test_extract_to_content(make_runner: RunnerFactory) -> None:
    runner = make_runner("EvaluateJsonPath", properties={"JsonPath": "$[0]._id"})
    runner.enqueue(SNIPPET)
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("matched")
    out.assert_content_equals("54df94072d5dbf7dc6340cc5")
    modified = [
        e
        for e in runner.get_provenance_events()
        if e.event_type == ProvenanceEventType.CONTENT_MODIFIED
    ]
    assert len(modified) == 1
    out = _run(make_runner, SNIPPET, "matched", list="$[0].friends.[*].id")
    out.assert_content_equals("[0,1,2]")
    out = _run(make_runner, SNIPPET, "matched", list="$[0].friends[?(@.id < 3)].id")
    out.assert_content_equals("[0,1,2]")


def test_no_match_and_scalar_failure_keep_content(make_runner: RunnerFactory) -> None:
    out = _run(make_runner, SNIPPET, "unmatched", jsonPath="$[0].nonexistent.key")
    out.assert_content_equals(SNIPPET)
    out = _run(
        make_runner,
        SNIPPET,
        "failure",
        **{"Return Type": "scalar", "list": "$[0].friends[?(@.id < 3)].id"},
    )
    out.assert_content_equals(SNIPPET)
    # auto-detect is scalar for attributes
    _run(make_runner, SNIPPET, "failure", **{"Destination": ATTRIBUTE, "name": "$[0].name"})


def test_null_value_representation(make_runner: RunnerFactory) -> None:
    content = '{"stringField": "String Value", "nullField": null}'
    properties = {
        "Destination": ATTRIBUTE,
        "Return Type": "json",
        "stringField": "$.stringField",
        "missingField": "$.missingField",
        "nullField": "$.nullField",
    }
    out = _run(make_runner, content, "matched", **properties)
    out.assert_attribute_equals("stringField", "String Value")
    out.assert_attribute_equals("missingField", "")
    out.assert_attribute_equals("nullField", "")
    out = _run(
        make_runner,
        content,
        "matched",
        **properties,
        **{"Null Value Representation": "the string 'null'"},
    )
    out.assert_attribute_equals("missingField", "")
    out.assert_attribute_equals("nullField", "null")


def test_max_string_length(make_runner: RunnerFactory) -> None:
    content = json.dumps({"text": "x" * 100})
    _run(make_runner, content, "failure", **{"Max String Length": "50 B", "t": "$.text"})
    _run(make_runner, content, "matched", **{"Max String Length": "100 B", "t": "$.text"})


def test_lone_surrogate_escape_becomes_a_question_mark(make_runner: RunnerFactory) -> None:
    """A lone "\\udc00": "?" in the content (Java's getBytes) and in the attribute, which
    cannot hold a lone surrogate (the session refused to commit it)."""
    for destination in ("flowfile-content", "flowfile-attribute"):
        runner = make_runner("EvaluateJsonPath", properties={"Destination": destination})
        runner.set_property("x", "$.a")
        runner.enqueue(b'{"a": "b\\udc00c"}')
        runner.run()
        (out,) = runner.get_flowfiles_for_relationship("matched")
        if destination == "flowfile-content":
            out.assert_content_equals("b?c")
        else:
            out.assert_attribute_equals("x", "b?c")
