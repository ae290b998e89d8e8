"""MergeRecord with a reader that parses a polled batch in one call (CSVReader.read_bulk):
the same bins, contents, attributes, provenance and failures as reading one by one."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from flowcore.testing import TestRunner
from processors.record import csv_bulk, json_bulk
from processors.record.bulk import BulkRead
from tests.processors.record.alone_reader import AloneReader

INPUTS: list[tuple[str, dict[str, str]]] = [
    ("id,name\n1,ann\n2,bob\n", {"k": "a"}),
    ("name,id\ncid,3\n", {"k": "a"}),  # another header: another schema, another bin
    ("id,name\n4,dan\n", {"k": "b"}),
    ("", {"k": "a"}),  # empty: no records, a schema of its own
    ('id,name\n5,"eve\nsecond line"\n6,"fay, jr"\n', {"k": "a"}),
    ("id,name\n7,gus,extra\n", {"k": "a"}),  # malformed: to failure alone
    ("id,name\n8,\n", {"k": "a"}),  # name all null alone: a string column, same schema
    ("id,name\n9.5,hal\n", {"k": "a"}),  # id a double alone: another bin
    ("id,name\n10,ivy", {"k": "a"}),  # no newline at the end
]


_NAMED = re.compile(r"FlowFile\[[^\]]*\]")


def _runner(bulk: bool, fmt: str = "csv", **properties: str) -> Iterator[TestRunner]:
    with TestRunner("MergeRecord") as runner:
        if fmt == "csv":
            reader: Any = runner.add_controller_service(
                "csv", "CSVReader", {"Treat First Line as Header": "true"}
            )
            runner.add_controller_service("writer", "CSVRecordSetWriter", {})
        else:
            reader = runner.add_controller_service("csv", "JsonTreeReader", {})
            runner.add_controller_service("writer", "JsonRecordSetWriter", {})
        if not bulk:
            runner.add_controller_service("alone", AloneReader(reader))
        runner.set_property("Record Reader", "csv" if bulk else "alone")
        runner.set_property("Record Writer", "writer")
        for name, value in properties.items():
            runner.set_property(name, value)
        yield runner


def _outcome(runner: TestRunner) -> dict[str, Any]:
    """What a user sees, without uuids and ids."""
    merged = runner.get_flowfiles_for_relationship("merged")
    failed = runner.get_flowfiles_for_relationship("failure")
    originals = runner.get_flowfiles_for_relationship("original")
    joins = sorted(
        (e.details or "", len(e.parent_uuids))
        for e in runner.get_provenance_events()
        if e.event_type == "JOIN"
    )
    drop = {"uuid", "merge.uuid", "filename"}
    return {
        "merged": sorted(
            (m.text(), json.dumps({k: v for k, v in m.attributes.items() if k not in drop}))
            for m in merged
        ),
        "failed": sorted(
            (f.text(), _NAMED.sub("FlowFile[...]", f.attributes.get("merge.failure.reason", "")))
            for f in failed
        ),
        "originals": sorted(o.text() for o in originals),
        "joins": joins,
    }


def _run(
    bulk: bool, inputs: list[tuple[str, dict[str, str]]], fmt: str = "csv", **properties: str
) -> Any:
    for runner in _runner(bulk, fmt, **properties):
        for content, attributes in inputs:
            runner.enqueue(content, attributes)
        runner.run(2)
        return _outcome(runner)
    raise AssertionError("no runner")


@pytest.mark.parametrize(
    "properties",
    [
        {},
        {"Correlation Attribute Name": "k", "Minimum Number of Records": "2"},
        {"Maximum Number of Records": "2"},
        {"Minimum Bin Size": "20 B", "Maximum Bin Size": "40 B"},
    ],
)
def test_bulk_and_one_by_one_give_the_same_outcome(
    properties: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed_together: list[int] = []

    def spy(*args: Any) -> BulkRead:
        result = real(*args)
        parsed_together.extend(result.locate())
        return result

    real = csv_bulk.read_bulk
    monkeypatch.setattr(csv_bulk, "read_bulk", spy)
    assert _run(True, INPUTS, **properties) == _run(False, INPUTS, **properties)
    # 3 (empty) and 5 (malformed) are read alone; 8, parsed with 7, has its id column a
    # double, which its only id (10) does not prove it would be alone: it is parsed again
    # without 7
    assert sorted(parsed_together) == [0, 1, 2, 4, 6, 7, 8]


def test_headers_that_differ_are_not_merged_together() -> None:
    outcome = _run(True, INPUTS[:3])
    texts = [text for text, _ in outcome["merged"]]
    assert texts == ["id,name\n1,ann\n2,bob\n4,dan\n", "name,id\ncid,3\n"]


def test_a_malformed_flowfile_fails_alone_with_its_reason_and_the_rest_merges() -> None:
    inputs = [INPUTS[0], INPUTS[5], INPUTS[2]]
    outcome = _run(True, inputs)
    assert [text for text, _ in outcome["merged"]] == ["id,name\n1,ann\n2,bob\n4,dan\n"]
    [(text, reason)] = outcome["failed"]
    assert text == "id,name\n7,gus,extra\n"
    assert reason.startswith("cannot read records: malformed record in FlowFile[...]")
    assert "Expected 2 columns, got 3" in reason
    assert outcome["joins"] == [("Records Merged due to: Bin is full enough", 2)]


def test_quoted_newlines_and_a_missing_last_newline_keep_every_record() -> None:
    outcome = _run(True, [INPUTS[4], INPUTS[8]])
    [(text, attributes)] = outcome["merged"]
    # Quote Mode MINIMAL quotes only the values that need it (NiFi's Commons CSV rules)
    assert text == 'id,name\n5,"eve\nsecond line"\n6,"fay, jr"\n10,ivy\n'
    assert json.loads(attributes)["record.count"] == "3"
    assert json.loads(attributes)["merge.count"] == "2"


def test_a_flowfile_inferring_another_type_goes_to_another_bin() -> None:
    outcome = _run(True, [INPUTS[0], INPUTS[7], INPUTS[6]])
    texts = sorted(text for text, _ in outcome["merged"])
    assert texts == ["id,name\n1,ann\n2,bob\n8,\n", "id,name\n9.5,hal\n"]


def test_a_write_error_at_the_merge_fails_the_bin_with_its_reason() -> None:
    """A writer that holds the records fails when it writes them, at the merge: the bin's
    FlowFiles go to failure with the reason instead of being rolled back again and again."""
    for runner in _runner(True):
        runner.add_controller_service("none", "CSVRecordSetWriter", {"Quote Mode": "NONE"})
        runner.set_property("Record Writer", "none")
        runner.enqueue('id,name\n1,"a, b"\n')
        runner.enqueue("id,name\n2,c\n")
        runner.run(2)
        runner.assert_transfer_count("merged", 0)
        runner.assert_transfer_count("failure", 2)
        for failed in runner.get_flowfiles_for_relationship("failure"):
            reason = failed.attributes["merge.failure.reason"]
            assert reason.startswith("cannot write the merged records: ProcessException")


def test_json_arrays_and_json_lines_merge_into_one_array() -> None:
    with TestRunner("MergeRecord") as runner:
        runner.add_controller_service("json", "JsonTreeReader", {})
        runner.add_controller_service("writer", "JsonRecordSetWriter", {})
        runner.set_property("Record Reader", "json")
        runner.set_property("Record Writer", "writer")
        runner.enqueue('[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]')
        runner.enqueue('{"id": 3, "name": "c"}\n{"id": 4, "name": "d"}\n')
        runner.enqueue('[{"id": 5, "name": "e"}]')
        runner.run(2)
        [out] = runner.get_flowfiles_for_relationship("merged")
        assert json.loads(out.text()) == [
            {"id": i, "name": n} for i, n in zip(range(1, 6), "abcde", strict=True)
        ]
        out.assert_attribute_equals("record.count", "5")
        out.assert_attribute_equals("merge.count", "3")


JSON_INPUTS: list[tuple[str, dict[str, str]]] = [
    ('{"id": 1, "name": "ann"}\n{"id": 2, "name": "bob"}\n', {}),
    ('[{"id": 3, "name": "cid"}]', {}),  # an array: read alone, same schema, same bin
    ('{"name": "dan", "id": 4}\n', {}),  # another field order: another bin
    ("", {}),
    ('{"id": 5, "name": "eve"}\n{"id": 6, "name": "fay"', {}),  # malformed
    ('{"id": 7.5, "name": "gus"}\n', {}),  # a double: another bin
    ('{"id": 8, "name": "hal"}', {}),
]


def test_json_bulk_and_one_by_one_give_the_same_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed_together: list[int] = []

    def spy(*args: Any) -> BulkRead:
        result = real(*args)
        parsed_together.extend(result.locate())
        return result

    real = json_bulk.read_bulk
    monkeypatch.setattr(json_bulk, "read_bulk", spy)
    together = _run(True, JSON_INPUTS, "json")
    assert together == _run(False, JSON_INPUTS, "json")
    # 0 and 6 were parsed with 5, whose id makes the column a double that they alone are
    # not (4, whose last line is not a whole object, is parsed apart and fails alone)
    assert sorted(parsed_together) == [5]
    [(failed_text, reason)] = together["failed"]
    assert failed_text.startswith('{"id": 5')
    assert reason.startswith("cannot read records: malformed record in FlowFile[...]")
    assert len(together["merged"]) == 3


def test_contents_read_together_from_one_file_and_a_damaged_one_fails_alone() -> None:
    """The polled contents come from one resource-claim file, read together; a damaged one
    among them fails alone, as when each was read alone, and the rest merge."""
    with TestRunner("MergeRecord", repositories="durable") as runner:
        runner.add_controller_service("csv", "CSVReader", {"Treat First Line as Header": "true"})
        runner.add_controller_service("writer", "CSVRecordSetWriter", {})
        runner.set_property("Record Reader", "csv")
        runner.set_property("Record Writer", "writer")
        texts = [f"id,name\n{n},name {n}\n" for n in range(8)]
        enqueued = [runner.enqueue(text) for text in texts]
        claims = [e.flowfile.claim for e in enqueued]
        assert len({c.resource for c in claims if c is not None}) == 1
        damaged = enqueued[5].flowfile
        assert damaged.claim is not None
        resource = damaged.claim.resource
        path = runner.settings.content_containers[int(resource.container)]
        with (path / resource.section / resource.id).open("r+b") as handle:
            handle.seek(damaged.claim.offset + 9)
            handle.write(b"X")

        runner.run(2)
        (failed,) = runner.get_flowfiles_for_relationship("failure")
        assert failed.uuid == enqueued[5].uuid
        reason = failed.get_attribute("merge.failure.reason") or ""
        assert reason.startswith("cannot read records: content claim")
        assert "is damaged" in reason
        (merged,) = runner.get_flowfiles_for_relationship("merged")
        merged.assert_content_equals(
            "id,name\n" + "".join(t.split("\n", 1)[1] for n, t in enumerate(texts) if n != 5)
        )
        assert sorted(o.uuid for o in runner.get_flowfiles_for_relationship("original")) == sorted(
            e.uuid for n, e in enumerate(enqueued) if n != 5
        )
