"""AttributesToJSON: NiFi's TestAttributesToJSON scenarios through the TestRunner."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from flowcore.testing import MockFlowFile, TestRunner

RunnerFactory = Callable[..., TestRunner]


def _run(
    make_runner: RunnerFactory,
    attributes: dict[str, str],
    relationship: str = "success",
    **properties: str,
) -> MockFlowFile:
    runner = make_runner("AttributesToJSON", properties=properties)
    runner.enqueue("original", attributes)
    runner.run()
    runner.assert_all_flowfiles_transferred(relationship, 1)
    return runner.get_flowfiles_for_relationship(relationship)[0]


def _json(flowfile: MockFlowFile) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(flowfile.get_attribute("JSONAttributes") or "")
    return value


def test_invalid_configuration(make_runner: RunnerFactory) -> None:
    make_runner("AttributesToJSON", properties={"Attributes List": ""}).assert_not_valid()
    make_runner(
        "AttributesToJSON", properties={"Include Core Attributes": "maybe"}
    ).assert_not_valid()
    make_runner(
        "AttributesToJSON", properties={"Attributes Regular Expression": "("}
    ).assert_not_valid()


def test_missing_listed_attribute_null_or_empty(make_runner: RunnerFactory) -> None:
    out = _run(make_runner, {}, **{"Attributes List": "NonExistingAttribute", "Null Value": "true"})
    assert _json(out) == {"NonExistingAttribute": None}
    out = _run(make_runner, {}, **{"Attributes List": "NonExistingAttribute"})
    assert _json(out) == {"NonExistingAttribute": ""}
    out.assert_content_equals("original")


def test_all_attributes_to_attribute_and_content(make_runner: RunnerFactory) -> None:
    out = _run(make_runner, {"filename": "f.txt", "test": "value"})
    values = _json(out)
    assert values["test"] == "value"
    assert values["filename"] == "f.txt"
    assert "uuid" in values and "path" in values

    out = _run(
        make_runner,
        {"filename": "f.txt", "test": "value"},
        **{"Destination": "flowfile-content", "Include Core Attributes": "false"},
    )
    assert json.loads(out.text()) == {"test": "value"}
    out.assert_attribute_equals("mime.type", "application/json")
    out.assert_attribute_not_exists("JSONAttributes")


def test_listed_attributes_keep_core_ones(make_runner: RunnerFactory) -> None:
    out = _run(
        make_runner,
        {"test": "value", "path": "value"},
        **{"Attributes List": " test , path ", "Include Core Attributes": "false"},
    )
    assert _json(out) == {"test": "value", "path": "value"}
    out = _run(
        make_runner,
        {"test": "value", "path": "value"},
        **{"Attributes Regular Expression": "path.*", "Include Core Attributes": "false"},
    )
    assert _json(out) == {"path": "value"}


def test_attributes_regex_with_list(
    make_runner: RunnerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("regex", "delimited\\.header\\.column\\.[0-9]+")
    attributes = {
        "delimited.header.column.1": "Registry",
        "delimited.header.column.2": "Assignment",
        "delimited.footer.column.1": "not included",
        "test": "test",
        "test1": "test1",
    }
    out = _run(
        make_runner,
        attributes,
        **{"Attributes Regular Expression": "${regex}", "Attributes List": "test, test1"},
    )
    assert _json(out) == {
        "test": "test",
        "test1": "test1",
        "delimited.header.column.1": "Registry",
        "delimited.header.column.2": "Assignment",
    }


@pytest.mark.parametrize(
    ("nested", "kind"), [('{"key":"value"}', dict), ('[{"key":"value"}]', list), (" [1] ", list)]
)
def test_nested_json(make_runner: RunnerFactory, nested: str, kind: type) -> None:
    out = _run(
        make_runner,
        {"test": nested},
        **{"Attributes List": "test", "JSON Handling Strategy": "NESTED"},
    )
    assert isinstance(_json(out)["test"], kind)
    escaped = _run(make_runner, {"test": nested}, **{"Attributes List": "test"})
    assert _json(escaped)["test"] == nested


@pytest.mark.parametrize("look_alike", ["[THIS IS NOT JSON]", "{THIS IS NOT JSON}"])
def test_look_alike_json_fails(make_runner: RunnerFactory, look_alike: str) -> None:
    _run(
        make_runner,
        {"test": look_alike},
        "failure",
        **{"Destination": "flowfile-content", "JSON Handling Strategy": "Nested"},
    ).assert_content_equals("original")


def test_pretty_print(make_runner: RunnerFactory) -> None:
    out = _run(
        make_runner,
        {"a": "1", "b": '{"c":[1,2]}'},
        **{
            "Attributes List": "a,b",
            "Destination": "flowfile-content",
            "Pretty Print": "true",
            "JSON Handling Strategy": "NESTED",
        },
    )
    assert out.text() == '{\n  "a" : "1",\n  "b" : {\n    "c" : [ 1, 2 ]\n  }\n}'
