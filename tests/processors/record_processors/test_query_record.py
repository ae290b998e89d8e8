"""QueryRecord: SQL over the FlowFile's records in DuckDB, one relationship per query."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
JSON_LINES = {"Output Grouping": "One Line Per Object"}
PEOPLE = "name,age\nTom,49\nAlice,\n,36\n"


def _json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line]


def _query_runner(make_runner: RunnerFactory, **queries: str) -> TestRunner:
    runner = make_runner("QueryRecord", writer_type="JsonRecordSetWriter", writer=JSON_LINES)
    for name, sql in queries.items():
        runner.set_property(name, sql)
    return runner


def test_simple_select_with_where(make_runner: RunnerFactory) -> None:
    runner = make_runner("QueryRecord")
    runner.set_property("success", "select name, age from FLOWFILE WHERE name <> ''")
    original = runner.enqueue("name,age\nTom,49\n", {"filename": "p.csv"})
    runner.run()
    runner.assert_transfer_count("success", 1)
    runner.assert_transfer_count("original", 1)
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("name,age\nTom,49\n")
    out.assert_attribute_equals("QueryRecord.Route", "success")
    out.assert_attribute_equals("record.count", "1")
    out.assert_attribute_equals("mime.type", "text/csv")
    out.assert_attribute_equals("filename", "p.csv")
    kept = runner.get_flowfiles_for_relationship("original")[0]
    assert kept.uuid == original.uuid
    kept.assert_attribute_equals("QueryRecord.Route", "original")
    kept.assert_content_equals("name,age\nTom,49\n")


def test_nullable_values_pass_through(make_runner: RunnerFactory) -> None:
    runner = _query_runner(make_runner, success="select name, age from FLOWFILE")
    runner.enqueue(PEOPLE)
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert _json_lines(out.content.decode()) == [
        {"name": "Tom", "age": 49},
        {"name": "Alice", "age": None},
        {"name": None, "age": 36},
    ]


def test_each_property_is_a_relationship(make_runner: RunnerFactory) -> None:
    runner = _query_runner(
        make_runner,
        adults='SELECT * FROM FLOWFILE WHERE "age" >= 18',
        minors='SELECT * FROM FLOWFILE WHERE "age" < 18',
    )
    assert set(runner._node.relationship_names()) >= {"adults", "minors", "original", "failure"}
    runner.enqueue("name,age\nTom,49\nAnn,12\nBob,30\n")
    runner.run()
    adults = runner.get_flowfiles_for_relationship("adults")[0]
    minors = runner.get_flowfiles_for_relationship("minors")[0]
    assert [r["name"] for r in _json_lines(adults.content.decode())] == ["Tom", "Bob"]
    assert [r["name"] for r in _json_lines(minors.content.decode())] == ["Ann"]
    adults.assert_attribute_equals("record.count", "2")
    adults.assert_attribute_equals("QueryRecord.Route", "adults")
    minors.assert_attribute_equals("QueryRecord.Route", "minors")
    minors.assert_attribute_equals("mime.type", "application/json")


def test_provenance_fork_and_route_per_result(make_runner: RunnerFactory) -> None:
    runner = _query_runner(
        make_runner, a="SELECT name FROM FLOWFILE", b="SELECT count(*) AS n FROM FLOWFILE"
    )
    original = runner.enqueue("name,age\nTom,49\n")
    runner.run()
    events = runner.get_provenance_events()
    forks = [e for e in events if e.event_type == ProvenanceEventType.FORK]
    assert len(forks) == 1
    assert forks[0].flowfile_uuid == original.uuid
    children = {f.uuid for r in ("a", "b") for f in runner.get_flowfiles_for_relationship(r)}
    assert set(forks[0].child_uuids) == children
    routes = {
        (e.flowfile_uuid, e.relationship)
        for e in events
        if e.event_type == ProvenanceEventType.ROUTE
    }
    assert routes == {(runner.get_flowfiles_for_relationship(r)[0].uuid, r) for r in ("a", "b")}


def test_aggregate_with_subquery(make_runner: RunnerFactory) -> None:
    rows = "".join(f"Person {i},{i}\n" for i in range(100))
    runner = _query_runner(
        make_runner,
        success="SELECT name FROM FLOWFILE WHERE age > (SELECT AVG(age) FROM FLOWFILE)",
    )
    runner.enqueue("name,age\n" + rows)
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    names = [r["name"] for r in _json_lines(out.content.decode())]
    assert names == [f"Person {i}" for i in range(50, 100)]
    out.assert_attribute_equals("record.count", "50")


def test_group_by_sum(make_runner: RunnerFactory) -> None:
    runner = _query_runner(
        make_runner,
        success="SELECT title, name, sum(height) AS height_total FROM FLOWFILE "
        "GROUP BY title, name",
    )
    runner.enqueue("title,name,height\nEngineer,John,60.5\nEngineer,John,30\n")
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert _json_lines(out.content.decode()) == [
        {"title": "Engineer", "name": "John", "height_total": 90.5}
    ]


def test_nested_fields_and_collection_functions(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "QueryRecord",
        reader_type="JsonTreeReader",
        writer_type="JsonRecordSetWriter",
        writer=JSON_LINES,
    )
    runner.set_property(
        "success",
        "SELECT name, person.title AS title FROM FLOWFILE WHERE CARDINALITY(addresses) > 1",
    )
    records = [
        {"name": "John", "person": {"title": "Engineer"}, "addresses": ["a", "b"]},
        {"name": "Jane", "person": {"title": "Manager"}, "addresses": ["c"]},
    ]
    runner.enqueue(json.dumps(records))
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert _json_lines(out.content.decode()) == [{"name": "John", "title": "Engineer"}]


def test_zero_record_results_included_by_default(make_runner: RunnerFactory) -> None:
    runner = _query_runner(make_runner, none="SELECT * FROM FLOWFILE WHERE age > 1000")
    runner.enqueue(PEOPLE)
    runner.run()
    out = runner.get_flowfiles_for_relationship("none")[0]
    out.assert_attribute_equals("record.count", "0")
    out.assert_content_equals("")


def test_zero_record_results_dropped_when_not_included(make_runner: RunnerFactory) -> None:
    runner = _query_runner(
        make_runner,
        none="SELECT * FROM FLOWFILE WHERE age > 1000",
        some="SELECT * FROM FLOWFILE WHERE age > 40",
    )
    runner.set_property("Include Zero Record FlowFiles", "false")
    original = runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_transfer_count("none", 0)
    runner.assert_transfer_count("some", 1)
    runner.assert_transfer_count("original", 1)
    forks = [e for e in runner.get_provenance_events() if e.event_type == ProvenanceEventType.FORK]
    assert [e.flowfile_uuid for e in forks] == [original.uuid]
    assert len(forks[0].child_uuids) == 1


def test_unknown_column_sends_original_to_failure_without_children(
    make_runner: RunnerFactory,
) -> None:
    runner = _query_runner(
        make_runner, good="SELECT name FROM FLOWFILE", bad="SELECT points FROM FLOWFILE"
    )
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    failed = runner.get_flowfiles_for_relationship("failure")[0]
    failed.assert_attribute_equals("QueryRecord.Route", "failure")
    failed.assert_content_equals(PEOPLE)
    types = {e.event_type for e in runner.get_provenance_events()}
    assert ProvenanceEventType.FORK not in types


def test_malformed_records_go_to_failure(make_runner: RunnerFactory) -> None:
    runner = _query_runner(make_runner, success="SELECT * FROM FLOWFILE")
    runner.enqueue("name,age\nTom,49\nbroken\n")
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    runner.get_flowfiles_for_relationship("failure")[0].assert_attribute_equals(
        "QueryRecord.Route", "failure"
    )


def test_record_path_functions_are_not_available(make_runner: RunnerFactory) -> None:
    runner = _query_runner(make_runner, success="SELECT RPATH_STRING(name, '/x') FROM FLOWFILE")
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_invalid_sql_is_invalid_configuration(make_runner: RunnerFactory) -> None:
    runner = _query_runner(make_runner, success="SELECT * FRM FLOWFILE")
    problems = runner.validation_errors()
    assert any("Not a valid SQL Statement" in p for p in problems), problems


def test_expression_language_in_query(make_runner: RunnerFactory) -> None:
    runner = _query_runner(make_runner, success="SELECT * FROM FLOWFILE WHERE age > ${min.age}")
    runner.assert_valid()
    runner.enqueue(PEOPLE, {"min.age": "40"})
    runner.enqueue(PEOPLE, {"min.age": "30"})
    runner.run(2)
    outs = runner.get_flowfiles_for_relationship("success")
    assert [o.attributes["record.count"] for o in outs] == ["1", "2"]


def test_connection_reused_across_flowfiles_and_closed_on_stop(
    make_runner: RunnerFactory,
) -> None:
    runner = _query_runner(make_runner, success="SELECT count(*) AS n FROM FLOWFILE")
    for _ in range(3):
        runner.enqueue(PEOPLE)
    runner.run(3)
    outs = runner.get_flowfiles_for_relationship("success")
    assert [_json_lines(o.content.decode()) for o in outs] == [[{"n": 3}]] * 3
    processor = runner.processor
    assert len(processor._connections) == 0  # closed when the run stopped


def test_failure_leaves_the_connection_usable(make_runner: RunnerFactory) -> None:
    runner = _query_runner(make_runner, success="SELECT CAST(name AS INTEGER) AS n FROM FLOWFILE")
    runner.enqueue("name\n1\nx\n")
    runner.enqueue("name\n1\n2\n")
    runner.run(2, stop_on_finish=False)
    runner.assert_transfer_count("failure", 1)
    runner.assert_transfer_count("success", 1)


def test_only_select_statements_are_valid(make_runner: RunnerFactory) -> None:
    runner = _query_runner(make_runner, success="CREATE TABLE t AS SELECT * FROM FLOWFILE")
    problems = runner.validation_errors()
    assert any("a SELECT statement is required, not CREATE" in p for p in problems), problems


def test_statement_from_expression_language_must_be_a_select(make_runner: RunnerFactory) -> None:
    runner = _query_runner(make_runner, success="${sql}")
    runner.enqueue(PEOPLE, {"sql": "CREATE TABLE t AS SELECT 1"})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_sql_cannot_read_files(make_runner: RunnerFactory, tmp_path: Path) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n1\n")
    runner = _query_runner(make_runner, success=f"SELECT * FROM read_csv('{secret}')")
    runner.enqueue(PEOPLE)
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)


def test_counters(make_runner: RunnerFactory) -> None:
    runner = _query_runner(
        make_runner, a="SELECT * FROM FLOWFILE", b="SELECT * FROM FLOWFILE WHERE age > 40"
    )
    runner.enqueue(PEOPLE)
    runner.run()
    assert runner.get_counter_value("Records Read") == 3
    assert runner.get_counter_value("Records Written") == 4


def test_instants_come_back_in_utc_whatever_the_machine_zone(
    make_runner: RunnerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TZ", "Europe/Oslo")
    time.tzset()
    try:
        schema = json.dumps(
            {
                "type": "record",
                "name": "r",
                "fields": [
                    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}}
                ],
            }
        )
        runner = make_runner(
            "QueryRecord",
            reader_type="JsonTreeReader",
            reader={"Schema Access Strategy": "schema-text-property", "Schema Text": schema},
            writer_type="JsonRecordSetWriter",
            writer={**JSON_LINES, "Timestamp Format": "yyyy-MM-dd HH:mm:ss"},
        )
        runner.set_property("success", 'SELECT "at" FROM FLOWFILE')
        runner.enqueue('{"at": "2024-01-31T10:00:00Z"}\n')
        runner.run()
        out = runner.get_flowfiles_for_relationship("success")[0]
        assert out.content.decode() == '{"at":"2024-01-31 10:00:00"}\n'
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
