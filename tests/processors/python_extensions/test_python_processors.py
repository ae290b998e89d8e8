"""NiFi Python processors written to NiFi's developer guide, run unmodified."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner

EXTENSIONS = Path(__file__).parent / "extensions"


def make_runner(tmp_path: Path, type_name: str) -> TestRunner:
    settings = EngineSettings(data_dir=tmp_path / "data", python_extensions_dir=EXTENSIONS)
    return TestRunner(type_name, settings=settings)


def test_flowfile_transform_writes_attributes_and_routes_to_custom_relationship(
    tmp_path: Path,
) -> None:
    runner = make_runner(tmp_path, "RouteByKeyword")
    runner.set_property("Keyword", "cat")
    runner.set_property("Uppercase Content", "true")
    runner.enqueue("a cat sat", {"filename": "one.txt"})
    runner.enqueue("a dog sat", {"filename": "two.txt"})
    runner.run(2)

    matched = runner.get_flowfiles_for_relationship("matched")
    assert len(matched) == 1
    matched[0].assert_content_equals("A CAT SAT")
    matched[0].assert_attribute_equals("keyword.found", "true")
    matched[0].assert_attribute_equals("keyword.size", "9")
    matched[0].assert_attribute_equals("keyword.scheduled", "1")  # onScheduled ran once
    unmatched = runner.get_flowfiles_for_relationship("unmatched")
    assert len(unmatched) == 1
    unmatched[0].assert_content_equals("a dog sat")  # None contents keep the content
    unmatched[0].assert_attribute_equals("keyword.found", "false")
    originals = runner.get_flowfiles_for_relationship("original")
    assert sorted(o.get_attribute("filename") or "" for o in originals) == ["one.txt", "two.txt"]
    for original in originals:
        original.assert_attribute_not_exists("keyword.found")
    assert runner.get_flowfiles_for_relationship("success") == []


def test_custom_relationships_replace_success(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "RouteByKeyword")
    assert sorted(runner._node.relationship_names()) == [
        "failure",
        "matched",
        "original",
        "unmatched",
    ]


def test_an_exception_routes_the_input_to_failure_unchanged(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "RouteByKeyword")
    runner.set_property("Keyword", "cat")
    runner.enqueue("explode the cat", {"filename": "boom.txt"})
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    failed = runner.get_flowfiles_for_relationship("failure")[0]
    failed.assert_content_equals("explode the cat")
    failed.assert_attribute_not_exists("keyword.found")


def test_required_property_and_allowable_values_are_validated(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "RouteByKeyword")
    assert runner.validation_errors() == ["'Keyword' is invalid because Keyword is required"]
    runner.set_property("Keyword", "cat")
    runner.set_property("Uppercase Content", "maybe")
    errors = runner.validation_errors()
    assert len(errors) == 1 and "Given value not found in allowed set 'true, false'" in errors[0]


def test_expression_language_and_validators(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "AddPrefix")
    runner.set_property("Prefix", "${tag}: ")
    runner.set_property("Repeat Count", "0")
    assert runner.validation_errors() == [
        "'Repeat Count' validated against '0' is invalid because not a positive value"
    ]
    runner.set_property("Repeat Count", "2")
    runner.enqueue("one\ntwo\n", {"tag": "x"})
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("x: x: one\nx: x: two")
    out.assert_attribute_not_exists("delay.visible")  # hidden by its dependency


def test_dependent_properties_are_required_only_when_shown(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "AddPrefix")
    runner.set_property("Prefix", "> ")
    runner.assert_valid()  # Delay is required, but depends on Add Timing = true
    runner.set_property("Add Timing", "true")
    assert runner.validation_errors() == ["'Delay' is invalid because Delay is required"]
    runner.set_property("Delay", "soon")
    assert "Must be of format <duration> <TimeUnit>" in runner.validation_errors()[0]
    runner.set_property("Delay", "2 sec")
    runner.enqueue("a")
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_attribute_equals("delay.millis", "2000")
    out.assert_attribute_equals("limit.bytes", "1024")


def _record_runner(tmp_path: Path) -> TestRunner:
    runner = make_runner(tmp_path, "PartitionByField")
    runner.add_controller_service("reader", "JsonTreeReader")
    runner.add_controller_service("writer", "JsonRecordSetWriter")
    runner.set_property("Record Reader", "reader")
    runner.set_property("Record Writer", "writer")
    return runner


def test_record_transform_partitions_by_field(tmp_path: Path) -> None:
    runner = _record_runner(tmp_path)
    runner.set_property("Field Name", "${by}")
    records = [
        {"id": 1, "color": "red"},
        {"id": 2, "color": "blue"},
        {"id": 3, "color": "red", "remove": True},
        {"id": 4, "color": "red"},
    ]
    for record in records:
        record.setdefault("remove", False)
    runner.enqueue(json.dumps(records), {"by": "color", "filename": "in.json"})
    runner.run()

    out = runner.get_flowfiles_for_relationship("success")
    by_color = {f.get_attribute("color"): f for f in out}
    assert sorted(by_color) == ["blue", "red"]
    red = json.loads(by_color["red"].content)
    assert [r["id"] for r in red] == [1, 4]
    assert all(r["seen_by"] == "python" for r in red)
    by_color["red"].assert_attribute_equals("record.count", "2")
    by_color["red"].assert_attribute_equals("mime.type", "application/json")
    by_color["red"].assert_attribute_equals("filename", "in.json")  # a child of the input
    by_color["blue"].assert_attribute_equals("record.count", "1")
    runner.assert_transfer_count("original", 1)
    assert runner.get_counter_value("Records Read") == 4
    assert runner.get_counter_value("Record Written") == 3


def test_record_transform_bad_input_goes_to_failure(tmp_path: Path) -> None:
    runner = _record_runner(tmp_path)
    runner.set_property("Field Name", "color")
    runner.enqueue("{not json")
    runner.run()
    runner.assert_all_flowfiles_transferred("failure", 1)
    assert runner.get_flowfiles_for_relationship("success") == []


def test_record_transform_requires_reader_and_writer(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "PartitionByField")
    runner.set_property("Field Name", "color")
    assert sorted(runner.validation_errors()) == [
        "'Record Reader' is invalid because Record Reader is required",
        "'Record Writer' is invalid because Record Writer is required",
    ]


def test_flowfile_source_creates_and_keeps_state(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "CreateGreeting")
    runner.set_property("Name", "flowcore")
    runner.run(3)
    out = runner.get_flowfiles_for_relationship("success")
    assert [f.content for f in out] == [b"Hello, flowcore", b"Hello, flowcore"]
    assert [f.get_attribute("greeting.number") for f in out] == ["1", "2"]
    out[0].assert_attribute_exists("uuid")
    out[0].assert_attribute_exists("filename")
    assert runner.state["count"] == "2"


def test_missing_requirement_is_a_validation_error_naming_it(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "NeedsMissingPackage")
    errors = runner.validation_errors()
    assert len(errors) == 1
    assert "flowcore-no-such-package==1.2.3" in errors[0]
    assert "not installed" in errors[0]


def test_unknown_type_lists_nothing_from_the_folder(tmp_path: Path) -> None:
    from flowcore.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="unknown processor type 'NoSuchProcessor'"):
        make_runner(tmp_path, "NoSuchProcessor")


def test_processor_details_dependencies_are_checked_too(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "UndeclaredImport")
    errors = runner.validation_errors()
    assert len(errors) == 1 and "flowcore-another-missing-package>=2" in errors[0]


def test_a_module_that_fails_to_import_names_the_reason(tmp_path: Path) -> None:
    from flowcore.errors import ConfigurationError
    from processors.python_extensions.discovery import scan_folder

    broken = tmp_path / "ext"
    broken.mkdir()
    text = (EXTENSIONS / "UndeclaredImport.py").read_text()
    (broken / "UndeclaredImport.py").write_text(
        text.replace("        dependencies = [", "        x = [")
    )
    assert [i.class_name for i in scan_folder(broken)] == ["UndeclaredImport"]
    settings = EngineSettings(data_dir=tmp_path / "data", python_extensions_dir=broken)
    with pytest.raises(ConfigurationError, match="No module named 'flowcore_undeclared_package'"):
        TestRunner("UndeclaredImport", settings=settings)


def test_only_classes_implementing_a_processor_interface_are_found() -> None:
    from processors.python_extensions.discovery import scan_folder

    found = {info.class_name: info for info in scan_folder(EXTENSIONS)}
    assert sorted(found) == [
        "AddPrefix",
        "CreateGreeting",
        "NeedsMissingPackage",
        "PartitionByField",
        "RouteByKeyword",
        "SetAttributes",
        "Shout",
        "UndeclaredImport",
    ]
    assert found["PartitionByField"].kind == "RecordTransform"
    assert found["CreateGreeting"].kind == "FlowFileSource"
    assert found["RouteByKeyword"].version == "1.0.0"
    assert found["NeedsMissingPackage"].requirements == ("flowcore-no-such-package==1.2.3",)
    assert found["NeedsMissingPackage"].package_dir == EXTENSIONS / "missing_bundle"


def test_a_package_imports_its_own_modules_when_its_requirements_are_met(tmp_path: Path) -> None:
    import pyarrow

    runner = make_runner(tmp_path, "Shout")
    runner.assert_valid()
    runner.enqueue("hey")
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_content_equals("HEY!")
    out.assert_attribute_equals("arrow.version", pyarrow.__version__)


def test_provenance_of_a_transform_and_a_record_transform(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "RouteByKeyword")
    runner.set_property("Keyword", "cat")
    runner.set_property("Uppercase Content", "true")
    runner.enqueue("cat")
    runner.run()
    kinds = sorted(str(e.event_type) for e in runner.get_provenance_events())
    assert kinds == ["CLONE", "CONTENT_MODIFIED"]  # attributes too: CONTENT_MODIFIED covers

    records = _record_runner(tmp_path / "records")
    records.set_property("Field Name", "k")
    records.enqueue(json.dumps([{"k": "a", "remove": False}, {"k": "b", "remove": False}]))
    records.run()
    forks = [e for e in records.get_provenance_events() if str(e.event_type) == "FORK"]
    assert len(forks) == 1 and len(forks[0].child_uuids) == 2


def test_no_clone_for_an_auto_terminated_original(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "RouteByKeyword")
    runner.set_property("Keyword", "cat")
    runner.set_relationship_auto_terminated("original")
    runner.enqueue("cat")
    runner.run()
    runner.assert_transfer_count("matched", 1)
    kinds = [str(e.event_type) for e in runner.get_provenance_events()]
    assert "CLONE" not in kinds and "DROP" not in kinds


def test_dynamic_properties_and_custom_validate(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "SetAttributes")
    assert runner.validation_errors() == [
        "'User-defined Properties' is invalid because At least one attribute must be added"
    ]
    runner.set_property("greeting", "hello ${name}")
    runner.set_property("Attribute Prefix", "x.")
    runner.assert_valid()
    runner.enqueue("", {"name": "world"})
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    out.assert_attribute_equals("x.greeting", "hello world")
    runner.set_property("empty", "")
    assert runner.validation_errors() == [
        "'empty' validated against '' is invalid because empty cannot be empty"
    ]


def test_a_source_that_raises_creates_nothing_and_logs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "ext"
    folder.mkdir()
    (folder / "Flaky.py").write_text(
        "from nifiapi.flowfilesource import FlowFileSource, FlowFileSourceResult\n"
        "class Flaky(FlowFileSource):\n"
        "    class Java:\n"
        "        implements = ['org.apache.nifi.python.processor.FlowFileSource']\n"
        "    def create(self, context):\n"
        "        raise RuntimeError('no source today')\n"
    )
    settings = EngineSettings(data_dir=tmp_path / "data", python_extensions_dir=folder)
    runner = TestRunner("Flaky", settings=settings)
    runner.run()
    assert runner.get_flowfiles_for_relationship("success") == []
    assert "Failed to create FlowFile: RuntimeError: no source today" in caplog.text


def test_record_groups_span_reader_batches(tmp_path: Path) -> None:
    from processors.record.api import DEFAULT_BATCH_ROWS

    total = DEFAULT_BATCH_ROWS + 10
    runner = _record_runner(tmp_path)
    runner.set_property("Field Name", "parity")
    lines = [json.dumps({"n": n, "parity": n % 2, "remove": False}) for n in range(total)]
    runner.enqueue("\n".join(lines))
    runner.run()
    out = {f.get_attribute("parity"): f for f in runner.get_flowfiles_for_relationship("success")}
    assert sorted(out) == ["0", "1"]
    odd = json.loads(out["1"].content)
    assert len(odd) == total // 2 and odd[-1]["n"] == total - 1
    out["0"].assert_attribute_equals("record.count", str(total - total // 2))
    assert runner.get_counter_value("Records Read") == total


def test_a_restart_sees_the_new_configuration_and_schedules_again(tmp_path: Path) -> None:
    runner = make_runner(tmp_path, "RouteByKeyword")
    runner.set_property("Keyword", "cat")
    runner.enqueue("cat")
    runner.run()
    runner.set_property("Keyword", "dog")
    runner.enqueue("dog")
    runner.run()
    matched = runner.get_flowfiles_for_relationship("matched")
    assert [f.get_attribute("keyword.scheduled") for f in matched] == ["1", "2"]
    runner.enqueue("dog")
    runner.run(initialize=False)  # as nifi-mock: no onScheduled
    matched = runner.get_flowfiles_for_relationship("matched")
    assert [f.get_attribute("keyword.scheduled") for f in matched] == ["1", "2", "2"]


def test_concurrent_tasks_read_the_state_the_previous_task_committed(
    tmp_path: Path, switching_often: None
) -> None:
    """The tasks share the component's state; the interpreter switches threads every
    microsecond so that without a guard two tasks read the same count (they did: a
    greeting number given twice, the count left below the greetings made)."""
    runner = make_runner(tmp_path, "CreateGreeting")
    runner.set_property("Max Greetings", "300")
    runner.set_thread_count(4)
    runner.run(340)

    out = runner.get_flowfiles_for_relationship("success")
    numbers = sorted(int(f.get_attribute("greeting.number") or 0) for f in out)
    assert numbers == list(range(1, 301))
    assert runner.state == {"count": "300"}


def test_a_field_only_later_records_are_given_is_written(tmp_path: Path) -> None:
    # The group's schema comes from every record it holds, not from the first one.
    folder = tmp_path / "ext"
    folder.mkdir()
    (folder / "FlagEven.py").write_text(
        "from nifiapi.recordtransform import RecordTransform, RecordTransformResult\n"
        "class FlagEven(RecordTransform):\n"
        "    class Java:\n"
        "        implements = ['org.apache.nifi.python.processor.RecordTransform']\n"
        "    def transform(self, context, record, schema, attributemap):\n"
        "        if record['id'] % 2 == 0:\n"
        "            record['even'] = True\n"
        "        return RecordTransformResult(record=record, relationship='success')\n"
    )
    settings = EngineSettings(data_dir=tmp_path / "data", python_extensions_dir=folder)
    runner = TestRunner("FlagEven", settings=settings)
    runner.add_controller_service("reader", "JsonTreeReader")
    runner.add_controller_service("writer", "JsonRecordSetWriter")
    runner.set_property("Record Reader", "reader")
    runner.set_property("Record Writer", "writer")
    runner.enqueue('[{"id":1},{"id":2},{"id":3}]')
    runner.run()
    (out,) = runner.get_flowfiles_for_relationship("success")
    assert json.loads(out.content) == [
        {"id": 1, "even": None},
        {"id": 2, "even": True},
        {"id": 3, "even": None},
    ]
