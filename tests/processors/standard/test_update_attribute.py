"""UpdateAttribute: EL values, deletes, batches, provenance, run-time errors, Store State."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flowcore.model import ProvenanceEventType
from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner
from flowcore.testing.runner import UNDER_TEST

RunnerFactory = Callable[..., TestRunner]


def test_sets_attributes_from_expressions(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "UpdateAttribute",
        properties={
            "greeting": "hello ${name:toUpper()}",
            "constant": "fixed",
            "copy": "${name}",
            "missing": "${nothing}",
        },
    )
    runner.assert_valid()
    flowfile = runner.enqueue("content", {"name": "ada"})
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    out.assert_attribute_equals("greeting", "hello ADA")
    out.assert_attribute_equals("constant", "fixed")
    out.assert_attribute_equals("copy", "ada")
    out.assert_attribute_equals("missing", "")
    out.assert_content_equals("content")
    assert out.uuid == flowfile.uuid

    events = runner.get_provenance_events()
    assert [(e.event_type, e.flowfile_uuid) for e in events] == [
        (ProvenanceEventType.ATTRIBUTES_MODIFIED, flowfile.uuid)
    ]
    assert events[0].updated_attributes["greeting"] == "hello ADA"


def test_expressions_see_the_arriving_attributes(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateAttribute", properties={"a": "new", "b": "${a}"})
    runner.enqueue("", {"a": "old"})
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    out.assert_attribute_equals("a", "new")
    out.assert_attribute_equals("b", "old")


def test_uuid_cannot_be_changed(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateAttribute", properties={"uuid": "mine"})
    flowfile = runner.enqueue("")
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals(
        "uuid", flowfile.uuid
    )


def test_delete_attributes_expression(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "UpdateAttribute",
        properties={
            "Delete Attributes Expression": "tmp\\..*|uuid",
            "tmp.kept": "updated",
            "added": "x",
        },
    )
    flowfile = runner.enqueue("", {"tmp.a": "1", "tmp.kept": "2", "keep": "3"})
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    out.assert_attribute_not_exists("tmp.a")
    out.assert_attribute_not_exists("tmp.kept")  # deleted even though updated (NiFi)
    out.assert_attribute_equals("keep", "3")
    out.assert_attribute_equals("added", "x")
    out.assert_attribute_equals("uuid", flowfile.uuid)  # never deleted
    [event] = runner.get_provenance_events()
    assert event.updated_attributes["tmp.a"] is None


def test_delete_expression_with_expression_language(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "UpdateAttribute", properties={"Delete Attributes Expression": "${prefix}.*"}
    )
    runner.enqueue("", {"prefix": "x_", "x_1": "a", "y_1": "b"})
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    out.assert_attribute_not_exists("x_1")
    out.assert_attribute_equals("y_1", "b")


def test_unchanged_flowfiles_report_nothing(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateAttribute", properties={"same": "value"})
    runner.enqueue("", {"same": "value"})
    runner.run()
    runner.assert_transfer_count("success", 1)
    assert runner.get_provenance_events() == []


def test_processes_batches_of_a_thousand(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateAttribute", properties={"n": "${index:plus(1)}"})
    for index in range(2500):
        runner.enqueue("", {"index": str(index)})
    runner.run()
    runner.assert_transfer_count("success", 1000)
    runner.run(2)
    out = runner.get_flowfiles_for_relationship("success")
    assert len(out) == 2500
    assert sorted(int(str(m.get_attribute("n"))) for m in out) == list(range(1, 2501))


def test_alternate_identifier_reports_addinfo(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateAttribute", properties={"alternate.identifier": "urn:isbn:${isbn}"})
    runner.enqueue("", {"isbn": "0451450523"})
    runner.run()
    events = runner.get_provenance_events()
    assert [e.event_type for e in events] == [ProvenanceEventType.ADDINFO]
    assert events[0].alternate_identifier == "urn:isbn:0451450523"


def test_run_time_failure_returns_only_that_flowfile(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateAttribute", properties={"first": "${word:fromRadix(16)}"})
    runner.enqueue("", {"word": "ff"})
    runner.enqueue("", {"word": "xyz"})  # not a hexadecimal number
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    out.assert_attribute_equals("first", "255")
    assert runner.queue_size == 1  # penalized and back in its queue


def test_validation(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "UpdateAttribute", properties={"bad": "${nope()}", "Delete Attributes Expression": "("}
    )
    runner.assert_not_valid()
    errors = runner.validation_errors()
    assert (
        "'bad' validated against '${nope()}' is invalid because Unknown Expression "
        "Language function 'nope' at position 2" in errors
    )
    assert any(
        e.startswith(
            "'Delete Attributes Expression' validated against '(' is invalid "
            "because Specified expression is not valid"
        )
        for e in errors
    )


def test_reconfiguring_takes_effect_on_the_next_schedule(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateAttribute", properties={"v": "one"})
    runner.enqueue("")
    runner.run()
    runner.set_property("v", "two")
    runner.enqueue("")
    runner.run()
    assert [m.get_attribute("v") for m in runner.get_flowfiles_for_relationship("success")] == [
        "one",
        "two",
    ]


def test_an_attribute_can_be_set_to_the_empty_string(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateAttribute", properties={"blank": ""})
    runner.assert_valid()
    runner.enqueue("", {"blank": "full"})
    runner.run()
    runner.get_flowfiles_for_relationship("success")[0].assert_attribute_equals("blank", "")


def test_user_text_in_an_error_log_has_its_control_characters_escaped(
    make_runner: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    runner = make_runner("UpdateAttribute", properties={"Delete Attributes Expression": "${bad}"})
    runner.enqueue("", {"filename": "name\x00\nERROR forged line", "bad": "["})
    runner.run()
    [record] = [r for r in caplog.records if r.name.startswith("flowcore.processor.")]
    message = record.getMessage()
    assert "\x00" not in message and "\n" not in message
    assert "name\\x00\\nERROR forged line" in message


def _counter(runner: TestRunner) -> None:
    runner.set_property("Store State", "Store state locally")
    runner.set_property("Stateful Variables Initial Value", "0")
    runner.set_property("count", "${getStateValue('count'):plus(1)}")
    runner.set_property("sum", "${getStateValue('sum'):plus(${amount})}")


def test_store_state_counts_across_flowfiles_and_triggers(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateAttribute")
    _counter(runner)
    for amount in ("5", "7", "10"):
        runner.enqueue("", {"amount": amount})
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")
    assert [f.attributes["count"] for f in out] == ["1", "2", "3"]
    assert [f.attributes["sum"] for f in out] == ["5", "12", "22"]
    assert runner.state == {"count": "3", "sum": "22"}
    runner.enqueue("", {"amount": "1"})
    runner.run()
    assert runner.get_flowfiles_for_relationship("success")[-1].attributes["count"] == "4"
    assert runner.state == {"count": "4", "sum": "23"}


def test_store_state_survives_a_restart(tmp_path: Path) -> None:
    settings = EngineSettings(data_dir=tmp_path / "node")
    first = TestRunner("UpdateAttribute", settings=settings, repositories="durable")
    _counter(first)
    first.enqueue("", {"amount": "2"})
    first.enqueue("", {"amount": "3"})
    first.run()
    first.close()

    second = TestRunner("UpdateAttribute", settings=settings, repositories="durable")
    try:
        _counter(second)
        assert second.state == {"count": "2", "sum": "5"}
        second.enqueue("", {"amount": "4"})
        second.run()
        # The first run's output was recovered into the capture queue too.
        [out] = [
            f
            for f in second.get_flowfiles_for_relationship("success")
            if f.attributes["amount"] == "4"
        ]
        out.assert_attribute_equals("count", "3")
        out.assert_attribute_equals("sum", "9")
        assert second.state == {"count": "3", "sum": "9"}
    finally:
        second.close()


def test_store_state_skips_a_failing_flowfile(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateAttribute")
    runner.set_property("Store State", "Store state locally")
    runner.set_property("Stateful Variables Initial Value", "")
    runner.set_property("last", "${word:fromRadix(16)}")
    runner.enqueue("", {"word": "a"})
    runner.enqueue("", {"word": "zz"})  # fails: penalized, state untouched
    runner.run()
    runner.assert_transfer_count("success", 1)
    assert runner.queue_size == 1
    assert runner.state == {"last": "10"}


def test_store_state_needs_an_initial_value_and_adds_a_relationship(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner("UpdateAttribute", properties={"Store State": "Store state locally"})
    assert runner.validation_errors() == [
        "'Stateful Variables Initial Value' is invalid because initial state value must be set "
        "if the processor is configured to store state."
    ]
    properties = {"Store State": "Store state locally"}
    names = [r.name for r in runner.processor.get_relationships(properties)]
    assert names == ["success", "set state fail"]


def test_get_state_value_is_null_without_store_state(make_runner: RunnerFactory) -> None:
    runner = make_runner("UpdateAttribute", properties={"s": "${getStateValue('s'):isNull()}"})
    runner.enqueue("")
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    out.assert_attribute_equals("s", "true")
    assert runner.state == {}


def test_delete_attributes_expression_is_a_java_regex(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "UpdateAttribute", properties={"Delete Attributes Expression": "tmp\\p{Digit}++"}
    )
    runner.enqueue("", {"tmp1": "x", "tmp22": "y", "tmpx": "z"})
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    assert "tmp1" not in out.attributes and "tmp22" not in out.attributes
    out.assert_attribute_equals("tmpx", "z")


def test_store_state_loses_no_update_between_overlapping_sessions(
    make_runner: RunnerFactory,
) -> None:
    """Two tasks' triggers overlap: the second must read the state the first wrote."""
    runner = make_runner("UpdateAttribute")
    _counter(runner)
    runner.run()  # schedules the processor (nothing queued yet)
    work = runner.node.processors[UNDER_TEST]
    context = work.context()
    sessions = []
    for amount in ("1", "2"):
        runner.enqueue("", {"amount": amount})
        session = runner.node.session_for(work.binding)
        runner.processor.on_trigger(context, session)  # the other task has not returned yet
        sessions.append(session)
    for session in sessions:
        session.commit()
    assert runner.state == {"count": "2", "sum": "3"}
