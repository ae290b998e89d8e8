"""ConvertRecord: rewrites a FlowFile's records with another Record Writer.

Follows NiFi's ConvertRecord (AbstractRecordProcessor):

* Properties: Record Reader, Record Writer (controller services), Include Zero Record
  FlowFiles (default true).
* Success: the content is replaced in place by the writer's output (streamed: batches go
  from the reader straight into the new content), with ``record.count``, ``mime.type``
  and the writer's attributes. The framework reports CONTENT_MODIFIED, as NiFi's does.
* Zero records: the writer writes an empty record set (a CSV header line, ``[]``...) and
  the FlowFile goes to success, or is removed (DROP) when Include Zero Record FlowFiles is
  false.
* Several FlowFiles per trigger (``_bulk.poll``): small contents are parsed together
  when the reader service can do so exactly (``processors.record.bulk``), and their
  records written in one pass when the writer service can render them so
  (``processors.record.bulk_write``); each FlowFile is still converted, routed and
  reported on its own, its content what it would be alone.
* Failure: a record that cannot be read (``MalformedRecordError``) or written sends the
  FlowFile, content unchanged, to failure with ``record.error.message`` holding the reason
  (NiFi's attribute name; its value is the error's message, which names the FlowFile and
  the position, e.g. ``malformed record in FlowFile[filename=a.csv, uuid=...] at row 3:
  ...``).
"""

from __future__ import annotations

from typing import Any

from flowcore.errors import repository_fault
from flowcore.model import FlowFile
from flowcore.processor import (
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.record.api import (
    RecordSetWriterFactory,
    WriteResult,
    as_reader_factory,
    as_writer_factory,
    copy_records,
)
from processors.record_processors._bulk import BulkReads, poll
from processors.record_processors._common import (
    RECORD_FAILURES,
    reader_descriptor,
    writer_descriptor,
)

RECORD_ERROR_MESSAGE = "record.error.message"

RECORD_READER = reader_descriptor("Record Reader")
RECORD_WRITER = writer_descriptor("Record Writer")
INCLUDE_ZERO_RECORD_FLOWFILES = PropertyDescriptor(
    name="Include Zero Record FlowFiles",
    display_name="Include Zero Record FlowFiles",
    description="When converting an incoming FlowFile, if the conversion results in no "
    "data, this property specifies whether or not a FlowFile will be sent to the "
    "corresponding relationship",
    default="true",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)

SUCCESS = Relationship(
    "success", "FlowFiles that are successfully transformed will be routed to this relationship"
)
FAILURE = Relationship(
    "failure",
    "If a FlowFile cannot be transformed from the configured input format to the configured "
    "output format, the unchanged FlowFile will be routed to this relationship",
)


@processor("ConvertRecord")
class ConvertRecord(Processor):
    description = (
        "Converts records from one data format to another using configured Record Reader and "
        "Record Write Controller Services. The Reader and Writer must be configured with "
        '"matching" schemas. By this, we mean the schemas must have the same field names. '
        "The types of the fields do not have to be the same if a field value can be coerced "
        "from one type to another."
    )
    tags = ("convert", "record", "generic", "schema", "json", "csv", "avro", "log", "logs")
    property_descriptors = (RECORD_READER, RECORD_WRITER, INCLUDE_ZERO_RECORD_FLOWFILES)
    relationships = (SUCCESS, FAILURE)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        flowfiles = poll(session)
        if not flowfiles:
            return
        readers = as_reader_factory(context.get_property(RECORD_READER).as_controller_service())
        writers = as_writer_factory(context.get_property(RECORD_WRITER).as_controller_service())
        include_zero = context.get_property(INCLUDE_ZERO_RECORD_FLOWFILES).as_bool()
        reads = BulkReads(session, readers, flowfiles)
        for position, flowfile in enumerate(flowfiles):
            self._convert(session, reads, position, flowfile, writers, include_zero)

    def _convert(
        self,
        session: ProcessSession,
        reads: BulkReads,
        position: int,
        flowfile: FlowFile,
        writers: RecordSetWriterFactory,
        include_zero: bool,
    ) -> None:
        incoming = flowfile
        attributes = flowfile.attributes
        results: list[WriteResult] = []

        def convert(sink: Any) -> None:
            reader = reads.reader(position, incoming)
            try:
                schema = writers.writer_schema(reader.schema, attributes)
                rendered = reads.write_rendered(position, writers, schema, sink, attributes)
                if rendered is not None:
                    results.append(rendered)
                    return
                writer = writers.create_writer(schema, sink, attributes)
                try:
                    copy_records(reader, writer)
                    results.append(writer.finish())
                except BaseException:
                    writer.abort()
                    raise
            finally:
                reader.close()

        try:
            converted = session.write(flowfile, convert)
        except RECORD_FAILURES as exc:
            if repository_fault(exc) is not None:
                raise  # a full or failing repository: roll back, keep the FlowFile queued
            self.logger.error("Failed to process %s; will route to failure: %s", flowfile, exc)
            flowfile = session.put_attribute(flowfile, RECORD_ERROR_MESSAGE, str(exc))
            session.transfer(flowfile, FAILURE)
            return
        result = results[0]
        converted = session.put_all_attributes(converted, result.flowfile_attributes())
        if not include_zero and result.record_count == 0:
            session.remove(converted)
        else:
            session.transfer(converted, SUCCESS)
        self.logger.info("Successfully converted %d records for %s", result.record_count, converted)
