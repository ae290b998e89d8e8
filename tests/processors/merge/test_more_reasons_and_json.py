"""MergeRecord: JSON reader/writer, and the "Bin is completely full" reason."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import pytest

from flowcore.processor import ControllerService
from flowcore.testing import TestRunner
from processors.record.api import (
    BinarySink,
    Content,
    RecordReader,
    RecordReaderFactory,
    RecordSetWriter,
    RecordSetWriterFactory,
    WriteResult,
)


def test_json_lines_to_json_array() -> None:
    import processors.merge
    import processors.record  # noqa: F401

    with TestRunner("MergeRecord") as runner:
        runner.add_controller_service("reader", "JsonTreeReader", {})
        runner.add_controller_service("writer", "JsonRecordSetWriter", {})
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue('{"id": 1, "name": "a"}\n{"id": 2, "name": "b"}\n')
        runner.enqueue('{"id": 3, "name": "c"}\n')
        runner.enqueue('{"id": 4, "other": true}\n')  # another schema, another bin
        runner.run(2)
        out = {
            f.attributes["record.count"]: f for f in runner.get_flowfiles_for_relationship("merged")
        }
        assert sorted(out) == ["1", "3"]
        assert json.loads(out["3"].text()) == [
            {"id": 1, "name": "a"},
            {"id": 2, "name": "b"},
            {"id": 3, "name": "c"},
        ]
        out["3"].assert_attribute_equals("mime.type", "application/json")


class _Gate:
    open = False


class _LateWriter:
    """A writer whose output bytes show only once the gate opens (as a buffering writer
    flushed by another thread would): the bin becomes full after it was offered its
    FlowFile, so the end-of-trigger sweep completes it as "Bin is completely full"."""

    def __init__(self, inner: RecordSetWriter) -> None:
        self._inner = inner

    @property
    def schema(self) -> pa.Schema:
        return self._inner.schema

    @property
    def mime_type(self) -> str:
        return self._inner.mime_type

    @property
    def record_count(self) -> int:
        return self._inner.record_count

    @property
    def bytes_written(self) -> int:
        return self._inner.bytes_written if _Gate.open else 0

    def write_batch(self, batch: pa.RecordBatch) -> None:
        self._inner.write_batch(batch)

    def flush(self) -> None:
        self._inner.flush()

    def finish(self) -> WriteResult:
        return self._inner.finish()

    def abort(self) -> None:
        self._inner.abort()


class LateWriterFactory(ControllerService):
    def __init__(self, inner: RecordSetWriterFactory) -> None:
        self._inner = inner

    @property
    def mime_type(self) -> str:
        return self._inner.mime_type

    def writer_schema(self, read_schema: pa.Schema, attributes: Mapping[str, str]) -> pa.Schema:
        return self._inner.writer_schema(read_schema, attributes)

    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter:
        return _LateWriter(self._inner.create_writer(schema, sink, attributes))


class GateReaderFactory(ControllerService):
    """Opens the gate when it reads a FlowFile with the ``open.gate`` attribute."""

    def __init__(self, inner: RecordReaderFactory) -> None:
        self._inner = inner

    def create_reader(
        self, content: Content, attributes: Mapping[str, str], source: str
    ) -> RecordReader:
        if "open.gate" in attributes:
            _Gate.open = True
        return self._inner.create_reader(content, attributes, source)


def test_bin_is_completely_full(runner: TestRunner) -> None:
    csv_in: Any = runner.add_controller_service(
        "csv-in", "CSVReader", {"Treat First Line as Header": "true"}
    )
    csv_out: Any = runner.add_controller_service("csv-out", "CSVRecordSetWriter", {})
    runner.add_controller_service("gate-reader", GateReaderFactory(csv_in))
    runner.add_controller_service("late-writer", LateWriterFactory(csv_out))
    runner.set_property("Record Reader", "gate-reader")
    runner.set_property("Record Writer", "late-writer")
    runner.set_property("Maximum Bin Size", "10 B")
    _Gate.open = False
    try:
        runner.enqueue("name,age\nJohn,35\n")
        runner.enqueue("name,color\nJohn,blue\n", {"open.gate": "yes"})
        runner.run(1)
    finally:
        _Gate.open = False
    reasons = sorted(
        f.attributes["merge.completion.reason"]
        for f in runner.get_flowfiles_for_relationship("merged")
    )
    assert reasons == ["Bin is completely full", "Bin is full"]
    details = sorted(
        e.details or "" for e in runner.get_provenance_events() if e.event_type == "JOIN"
    )
    assert details == [
        "Records Merged due to: Bin is completely full",
        "Records Merged due to: Bin is full",
    ]


class _FailingFlushWriter(_LateWriter):
    def flush(self) -> None:
        msg = "disk said no"
        raise ValueError(msg)


class FailingFlushWriterFactory(LateWriterFactory):
    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter:
        return _FailingFlushWriter(self._inner.create_writer(schema, sink, attributes))


def test_a_bin_that_cannot_take_a_flowfile_goes_to_failure_counted_once(
    runner: TestRunner, caplog: pytest.LogCaptureFixture
) -> None:
    # The writer fails after the FlowFile joined the bin (its flush, with a size limit):
    # the bin's one FlowFile goes to failure, and the log counts it once.
    csv_out: Any = runner.add_controller_service("csv-out", "CSVRecordSetWriter", {})
    runner.add_controller_service("failing", FailingFlushWriterFactory(csv_out))
    runner.set_property("Record Writer", "failing")
    runner.set_property("Maximum Bin Size", "1 MB")
    runner.enqueue("name,age\nJohn,35\n")
    runner.run(1)
    runner.assert_transfer_count("failure", 1)
    runner.assert_transfer_count("merged", 0)
    [message] = [r.getMessage() for r in caplog.records if "routing the bin" in r.getMessage()]
    assert "routing the bin's 1 FlowFiles to failure" in message
