"""GenerateFlowFile: validation, batches, random and custom content, attributes, CREATE."""

from __future__ import annotations

from collections.abc import Callable

from flowcore.model import ProvenanceEventType
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


def test_defaults_make_one_empty_flowfile_with_a_create_event(make_runner: RunnerFactory) -> None:
    runner = make_runner("GenerateFlowFile")
    runner.run()
    runner.assert_all_flowfiles_transferred("success", 1)
    [flowfile] = runner.get_flowfiles_for_relationship("success")
    assert flowfile.size == 0
    assert flowfile.flowfile.claim is None
    events = runner.get_provenance_events()
    assert [(e.event_type, e.flowfile_uuid) for e in events] == [
        (ProvenanceEventType.CREATE, flowfile.uuid)
    ]


def test_batch_of_identical_text(make_runner: RunnerFactory) -> None:
    runner = make_runner("GenerateFlowFile", properties={"File Size": "1 KB", "Batch Size": "5"})
    runner.run()
    flowfiles = runner.get_flowfiles_for_relationship("success")
    assert len(flowfiles) == 5
    assert {f.content for f in flowfiles} == {flowfiles[0].content}
    assert len(flowfiles[0].content) == 1024
    flowfiles[0].content.decode("ascii")  # text
    assert len({f.uuid for f in flowfiles}) == 5
    events = runner.get_provenance_events()
    assert [e.event_type for e in events] == [ProvenanceEventType.CREATE] * 5


def test_each_trigger_generates_new_content(make_runner: RunnerFactory) -> None:
    runner = make_runner("GenerateFlowFile", properties={"File Size": "64 B"})
    runner.run(2)
    first, second = runner.get_flowfiles_for_relationship("success")
    assert first.content != second.content


def test_unique_binary_flowfiles(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "GenerateFlowFile",
        properties={
            "File Size": "100 B",
            "Batch Size": "3",
            "Unique FlowFiles": "true",
            "Data Format": "Binary",
        },
    )
    runner.run()
    flowfiles = runner.get_flowfiles_for_relationship("success")
    assert [f.size for f in flowfiles] == [100, 100, 100]
    assert len({f.content for f in flowfiles}) == 3


def test_large_unique_content_is_written_in_chunks(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "GenerateFlowFile", properties={"File Size": "3 MB", "Unique FlowFiles": "true"}
    )
    runner.run()
    [flowfile] = runner.get_flowfiles_for_relationship("success")
    assert flowfile.size == 3 * 1024 * 1024


def test_custom_text_with_expression_language_and_charset(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "GenerateFlowFile",
        properties={
            "Custom Text": "${literal('héllo'):toUpper()}",
            "File Size": "1 MB",
            "Batch Size": "2",
        },
    )
    runner.run()
    for flowfile in runner.get_flowfiles_for_relationship("success"):
        flowfile.assert_content_equals("HÉLLO")

    latin = make_runner(
        "GenerateFlowFile", properties={"Custom Text": "héllo", "Character Set": "ISO-8859-1"}
    )
    latin.run()
    latin.get_flowfiles_for_relationship("success")[0].assert_content_equals(b"h\xe9llo")


def test_dynamic_properties_and_mime_type_become_attributes(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "GenerateFlowFile",
        properties={
            "greeting": "${literal('hi'):append('!')}",
            "plain": "value",
            "Mime Type": "text/plain",
            "Batch Size": "2",
        },
    )
    runner.assert_valid()
    runner.run()
    for flowfile in runner.get_flowfiles_for_relationship("success"):
        flowfile.assert_attribute_equals("greeting", "hi!")
        flowfile.assert_attribute_equals("plain", "value")
        flowfile.assert_attribute_equals("mime.type", "text/plain")


def test_invalid_values(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "GenerateFlowFile",
        properties={
            "File Size": "big",
            "Batch Size": "0",
            "Data Format": "CSV",
            "Unique FlowFiles": "yes",
            "Character Set": "no-such-charset",
        },
    )
    runner.assert_not_valid()
    errors = runner.validation_errors()
    assert any(
        e.startswith(
            "'File Size' validated against 'big' is invalid because Must be "
            "of format <Data Size> <Data Unit>"
        )
        for e in errors
    )
    assert "'Batch Size' validated against '0' is invalid because not a positive value" in errors
    assert (
        "'Data Format' validated against 'CSV' is invalid because Given value not found "
        "in allowed set 'Binary, Text'" in errors
    )
    assert (
        "'Unique FlowFiles' validated against 'yes' is invalid because Given value not "
        "found in allowed set 'true, false'" in errors
    )
    assert (
        "'Character Set' validated against 'no-such-charset' is invalid because Character "
        "Set is not supported by this runtime." in errors
    )


def test_custom_text_needs_text_format_and_non_unique(make_runner: RunnerFactory) -> None:
    runner = make_runner(
        "GenerateFlowFile",
        properties={"Custom Text": "x", "Unique FlowFiles": "true", "Data Format": "Binary"},
    )
    assert runner.validation_errors() == [
        "'Custom Text' is invalid because If Custom Text is set, then Unique FlowFiles must be "
        "set to false.",
        "'Custom Text' is invalid because If Custom Text is set, then Data Format must be set "
        "to 'Text'.",
    ]


def test_invalid_expression_is_reported(make_runner: RunnerFactory) -> None:
    runner = make_runner("GenerateFlowFile", properties={"Custom Text": "${nope()}"})
    assert runner.validation_errors() == [
        "'Custom Text' validated against '${nope()}' is invalid because Unknown Expression "
        "Language function 'nope' at position 2"
    ]
