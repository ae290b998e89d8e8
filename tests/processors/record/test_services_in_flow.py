"""The controller-service path: services configured by display name through TestRunner,
a tiny converting processor, malformed input to failure, and custom Python services."""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa

from flowcore.processor import (
    ControllerService,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
)
from flowcore.session import ProcessSession
from flowcore.testing import TestRunner
from processors.record import (
    MalformedRecordError,
    RecordReader,
    RecordReaderFactory,
    RecordSetWriter,
    RecordSetWriterFactory,
    WriteResult,
    as_reader_factory,
    as_writer_factory,
    copy_records,
    source_of,
)
from processors.record.api import BinarySink, Content, CountingSink

READER = PropertyDescriptor(
    "Record Reader", "Record Reader", required=True, controller_service=True
)
WRITER = PropertyDescriptor(
    "Record Writer", "Record Writer", required=True, controller_service=True
)


class Convert(Processor):
    """A minimal ConvertRecord: read with the reader, write with the writer."""

    property_descriptors = (READER, WRITER)
    relationships = (Relationship("success"), Relationship("failure"))

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        readers = as_reader_factory(context.get_property(READER).as_controller_service())
        writers = as_writer_factory(context.get_property(WRITER).as_controller_service())
        results: list[WriteResult] = []

        def convert(sink: Any) -> None:
            reader = readers.create_reader(
                session.stream(flowfile, 64), flowfile.attributes, source_of(flowfile)
            )
            try:
                schema = writers.writer_schema(reader.schema, flowfile.attributes)
                writer = writers.create_writer(schema, sink, flowfile.attributes)
                copy_records(reader, writer)
                results.append(writer.finish())
            finally:
                reader.close()

        try:
            output = session.write(flowfile, convert)
        except MalformedRecordError as exc:
            self.logger.error("%s", exc)
            session.transfer(flowfile, "failure")
            return
        output = session.put_all_attributes(output, results[0].flowfile_attributes())
        session.transfer(output, "success")


def test_csv_to_json_through_controller_services() -> None:
    with TestRunner(Convert()) as runner:
        runner.add_controller_service(
            "reader",
            "CSVReader",
            {"Treat First Line as Header": "true", "Value Separator": ";"},
        )
        runner.add_controller_service(
            "writer", "JsonRecordSetWriter", {"Output Grouping": "One Line Per Object"}
        )
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue('id;name\n1;Zoë\n2;"a;b"\n', {"filename": "in.csv"})
        runner.enqueue("id;name\n1;x\n2\n", {"filename": "bad.csv"})
        runner.run(2)
        runner.assert_transfer_count("success", 1)
        runner.assert_transfer_count("failure", 1)
        out = runner.get_flowfiles_for_relationship("success")[0]
        assert out.content.decode() == '{"id":1,"name":"Zoë"}\n{"id":2,"name":"a;b"}\n'
        assert out.attributes["record.count"] == "2"
        assert out.attributes["mime.type"] == "application/json"
        failed = runner.get_flowfiles_for_relationship("failure")[0]
        assert failed.attributes["filename"] == "bad.csv"


# -- custom services written in Python ----------------------------------------------------


class PipeReader(ControllerService, RecordReaderFactory):
    """Reads 'key|value' lines: a user's own reader."""

    def create_reader(
        self, content: Content, attributes: Mapping[str, str], source: str
    ) -> RecordReader:
        data = content if isinstance(content, bytes) else b"".join(content)  # type: ignore[arg-type]
        return _PipeRecords(bytes(data), source)


class _PipeRecords:
    schema = pa.schema([("key", pa.string()), ("value", pa.string())])
    schema_text = None

    def __init__(self, data: bytes, source: str) -> None:
        self._lines = data.decode().splitlines()
        self._source = source

    def batches(self) -> Iterator[pa.RecordBatch]:
        keys, values = [], []
        for number, line in enumerate(self._lines, 1):
            if "|" not in line:
                raise MalformedRecordError(self._source, f"line {number}", "no '|'")
            key, value = line.split("|", 1)
            keys.append(key)
            values.append(value)
        yield pa.RecordBatch.from_arrays([pa.array(keys), pa.array(values)], schema=self.schema)

    def close(self) -> None:
        pass


class UpperWriter(ControllerService, RecordSetWriterFactory):
    """Writes values upper-cased, one per line: a user's own writer."""

    mime_type = "text/plain"

    def writer_schema(self, read_schema: pa.Schema, attributes: Mapping[str, str]) -> pa.Schema:
        return read_schema

    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter:
        return _Upper(schema, sink)


class _Upper:
    mime_type = "text/plain"

    def __init__(self, schema: pa.Schema, sink: BinarySink) -> None:
        self.schema = schema
        self._sink = CountingSink(sink)
        self.record_count = 0

    @property
    def bytes_written(self) -> int:
        return self._sink.count

    def write_batch(self, batch: pa.RecordBatch) -> None:
        for value in batch.column("value").to_pylist():
            self._sink.write(value.upper().encode() + b"\n")
        self.record_count += batch.num_rows

    def flush(self) -> None:
        pass

    def finish(self) -> WriteResult:
        return WriteResult(self.record_count, self.mime_type, {"upper": "yes"})

    def abort(self) -> None:
        pass


def test_custom_python_services_plug_into_the_protocol() -> None:
    reader, writer = PipeReader(), UpperWriter()
    assert isinstance(reader, RecordReaderFactory) and isinstance(writer, RecordSetWriterFactory)
    made = reader.create_reader(b"a|x\n", {}, "ff")
    sink = io.BytesIO()
    out = writer.create_writer(made.schema, sink, {})
    assert isinstance(made, RecordReader) and isinstance(out, RecordSetWriter)
    with TestRunner(Convert()) as runner:
        runner.add_controller_service("reader", reader)
        runner.add_controller_service("writer", writer)
        runner.set_property("Record Reader", "reader")
        runner.set_property("Record Writer", "writer")
        runner.enqueue(b"a|one\nb|two\n")
        runner.enqueue(b"a|one\nnothing\n")
        runner.run(2)
        success = runner.get_flowfiles_for_relationship("success")
        assert [f.content for f in success] == [b"ONE\nTWO\n"]
        assert success[0].attributes["upper"] == "yes"
        assert success[0].attributes["mime.type"] == "text/plain"
        runner.assert_transfer_count("failure", 1)
