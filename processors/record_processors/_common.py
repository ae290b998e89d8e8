"""What the record processors share: service properties, failure handling, fragment names."""

from __future__ import annotations

import pyarrow as pa

from flowcore.errors import ProcessException
from flowcore.processor import PropertyDescriptor
from processors.record.api import RecordReaderFactory, RecordSetWriterFactory, SchemaError

FRAGMENT_ID = "fragment.identifier"
FRAGMENT_INDEX = "fragment.index"
FRAGMENT_COUNT = "fragment.count"
SEGMENT_ORIGINAL_FILENAME = "segment.original.filename"
RECORD_COUNT = "record.count"
MIME_TYPE = "mime.type"

RECORD_FAILURES: tuple[type[BaseException], ...] = (
    ProcessException,
    pa.ArrowException,
    ValueError,
    OSError,
    SchemaError,
)
"""What a read or a write may raise for bad data: the FlowFile goes to failure.

``MalformedRecordError`` is a ``ProcessException``; Arrow errors are raised by writers
that cannot cast a value; a ``SchemaError`` at this point comes from a FlowFile's own
schema (Schema Text from its attributes, ``${avro.schema}``: a fixed one is checked when
the service is enabled), which NiFi also routes to failure rather than retry for ever.
Repository errors (missing content) are not caught: the framework rolls the session
back, as NiFi does.
"""


def reader_descriptor(name: str) -> PropertyDescriptor:
    return PropertyDescriptor(
        name=name,
        display_name="Record Reader",
        description="Specifies the Controller Service to use for reading incoming data",
        required=True,
        controller_service=RecordReaderFactory,
    )


def writer_descriptor(name: str) -> PropertyDescriptor:
    return PropertyDescriptor(
        name=name,
        display_name="Record Writer",
        description="Specifies the Controller Service to use for writing out the records",
        required=True,
        controller_service=RecordSetWriterFactory,
    )
