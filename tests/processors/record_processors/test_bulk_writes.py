"""ConvertRecord and SplitRecord writing the records of several FlowFiles read in one
parse with one pass of the writer (JSON, CSV): each output's content, attributes, routing
and failure are those of writing it alone."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import pytest

from flowcore.processor import ControllerService
from processors.record.api import BinarySink, RecordSetWriter, RecordSetWriterFactory
from processors.record.bulk_write import RenderedRecords
from processors.record.csv_format import CSVRecordSetWriter
from processors.record.json_format import JsonRecordSetWriter
from tests.processors.record_processors.conftest import RunnerFactory
from tests.processors.record_processors.outcomes import outcome

INPUTS = [
    'id,name,price\n1,"é ""quoted"" /",3.0\n2,"two\nlines",0.5\n3,,7\n',
    "id,name,price\n4,tea,1.25\n",
    "",
    "id,name,price\n5,milk,2.5,extra\n",  # malformed
    "id,name,price\n",  # zero records
    "name,id,price\n6,rice,0.1\n",  # other column order: a schema of its own
    "id,name,price\n7,\x01ctl\t,-2.5e-7\n",
]


class AloneWriter(ControllerService):
    """A writer service without its bulk rendering."""

    def __init__(self, inner: RecordSetWriterFactory) -> None:
        super().__init__()
        self._inner = inner
        self.mime_type = inner.mime_type

    def writer_schema(self, read_schema: pa.Schema, attributes: Mapping[str, str]) -> pa.Schema:
        return self._inner.writer_schema(read_schema, attributes)

    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter:
        return self._inner.create_writer(schema, sink, attributes)


def cuts_of(monkeypatch: pytest.MonkeyPatch, writer_class: type[Any]) -> list[tuple[int, int]]:
    """The runs (first record, count) written from ``writer_class``'s bulk renderings,
    as they are written."""
    cut: list[tuple[int, int]] = []
    real = writer_class.render_bulk

    def spy(self: Any, schema: pa.Schema, records: Any) -> Any:
        rendered = real(self, schema, records)
        if rendered is None:
            return None

        class Counting:
            def write(self, start: int, length: int, sink: Any, attributes: Any) -> Any:
                cut.append((start, length))
                return rendered.write(start, length, sink, attributes)

        counting: RenderedRecords = Counting()
        return counting

    monkeypatch.setattr(writer_class, "render_bulk", spy)
    return cut


def _run(
    make_runner: RunnerFactory,
    writer: dict[str, str],
    bulk: bool,
    inputs: list[tuple[str, dict[str, str]]],
    properties: dict[str, str] | None = None,
) -> dict[str, Any]:
    runner = make_runner(
        "ConvertRecord", properties, writer_type="JsonRecordSetWriter", writer=writer
    )
    if not bulk:
        json_writer: Any = runner.add_controller_service("json", "JsonRecordSetWriter", writer)
        runner.add_controller_service("alone", AloneWriter(json_writer))
        runner.set_property("Record Writer", "alone")
    for content, attributes in inputs:
        runner.enqueue(content, attributes)
    runner.run(1)
    assert runner.queue_size == 0  # one trigger took them all
    return outcome(runner)


@pytest.mark.parametrize(
    "writer",
    [
        {},
        {"Output Grouping": "One Line Per Object"},
        {"Suppress Null Values": "Always Suppress"},
        {"Schema Write Strategy": "Set 'avro.schema' Attribute"},
        {"Pretty Print JSON": "true"},
    ],
)
def test_rendered_together_and_alone_give_the_same_outputs(
    make_runner: RunnerFactory, writer: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cut = cuts_of(monkeypatch, JsonRecordSetWriter)
    inputs = [(content, {}) for content in INPUTS]
    together = _run(make_runner, writer, True, inputs)
    assert together == _run(make_runner, writer, False, inputs)
    if writer.get("Pretty Print JSON") == "true":
        assert cut == []
    else:  # every FlowFile read in bulk was cut from its group's rendering
        assert len(cut) >= 3
    [(text, attributes)] = together["failure"]
    assert text == INPUTS[3]
    assert "Expected 3 columns, got 4" in dict(attributes)["record.error.message"]
    assert len(together["success"]) == len(INPUTS) - 1


def test_writer_schema_per_flowfile_and_one_that_cannot_be_written(
    make_runner: RunnerFactory,
) -> None:
    """Schema Text from each FlowFile's attribute: FlowFiles of one parse written with
    different schemas; the one whose names cannot be longs fails alone, with its reason."""

    def schema(name_type: str) -> str:
        fields = [{"name": "id", "type": "long"}, {"name": "name", "type": ["null", name_type]}]
        return json.dumps({"type": "record", "name": "r", "fields": fields})

    writer = {"Schema Access Strategy": "Use 'Schema Text' Property"}
    inputs = [
        ("id,name,price\n1,a,1.5\n2,b,2.5\n", {"avro.schema": schema("string")}),
        ("id,name,price\n3,7,3.5\n", {"avro.schema": schema("long")}),
        ("id,name,price\n4,x,4.5\n", {"avro.schema": schema("long")}),
        ("id,name,price\n5,e,5.5\n", {"avro.schema": schema("string")}),
    ]
    together = _run(make_runner, writer, True, inputs)
    assert together == _run(make_runner, writer, False, inputs)
    texts = sorted(text for text, _ in together["success"])
    assert texts == [
        '[{"id":1,"name":"a"},{"id":2,"name":"b"}]',
        '[{"id":3,"name":7}]',
        '[{"id":5,"name":"e"}]',
    ]
    [(text, attributes)] = together["failure"]
    assert text == inputs[2][0]
    assert "record.error.message" in dict(attributes)


@pytest.mark.parametrize("writer", [{}, {"Include Header Line": "false", "Null String": "-"}])
def test_splits_cut_from_lines_rendered_together_are_what_writers_alone_write(
    make_runner: RunnerFactory, writer: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cut = cuts_of(monkeypatch, CSVRecordSetWriter)

    def split(bulk: bool) -> dict[str, Any]:
        properties = {"Records Per Split": "2"}
        return _run_csv(make_runner, "SplitRecord", properties, writer, bulk, INPUTS, "splits")

    together = split(True)
    assert together == split(False)
    assert (0, 2) in cut and (2, 1) in cut  # the first FlowFile's three records: 2 + 1
    assert len(together["splits"]) == 5


def test_partitions_taken_from_lines_rendered_together_are_what_writers_alone_write(
    make_runner: RunnerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[int] = []
    real = CSVRecordSetWriter.render_bulk

    def spy(self: CSVRecordSetWriter, schema: pa.Schema, records: Any) -> Any:
        rendered = real(self, schema, records)
        if rendered is not None:
            reordered = rendered.reordered

            def counting(rows: Any) -> Any:
                ordered = reordered(rows)
                write = ordered.write

                def each(start: int, length: int, sink: Any, attributes: Any) -> Any:
                    taken.append(length)
                    return write(start, length, sink, attributes)

                ordered.write = each
                return ordered

            rendered.reordered = counting
        return rendered

    monkeypatch.setattr(CSVRecordSetWriter, "render_bulk", spy)
    inputs = [
        *INPUTS,
        "id,name,price\n8,tea,1.5\n9,milk,2.5\n10,tea,3.5\n11,rice,4.5\n12,milk,5.5\n",
    ]

    def partition(bulk: bool) -> dict[str, Any]:
        properties = {"name": "/name"}
        return _run_csv(make_runner, "PartitionRecord", properties, {}, bulk, inputs, "success")

    together = partition(True)
    assert together == partition(False)
    assert sorted(taken)[-2:] == [2, 2]  # tea and milk of the last FlowFile
    texts = [text for text, _ in together["success"]]
    assert "id,name,price\n8,tea,1.5\n10,tea,3.5\n" in texts


def _run_csv(
    make_runner: RunnerFactory,
    type_name: str,
    properties: dict[str, str],
    writer: dict[str, str],
    bulk: bool,
    inputs: list[str],
    outputs: str,
) -> dict[str, Any]:
    """One trigger of ``type_name`` writing CSV, with the writer's bulk rendering or
    without it (``AloneWriter``); what went to ``outputs``, original and failure."""
    runner = make_runner(type_name, properties, writer=writer)
    if not bulk:
        csv_writer: Any = runner.add_controller_service("csv", "CSVRecordSetWriter", writer)
        runner.add_controller_service("alone", AloneWriter(csv_writer))
        runner.set_property("Record Writer", "alone")
    for content in inputs:
        runner.enqueue(content)
    runner.run(1)
    assert runner.queue_size == 0
    return outcome(runner, (outputs, "original", "failure"))
