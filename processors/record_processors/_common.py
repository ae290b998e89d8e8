"""What the record processors share: service checks, failure handling, fragment names."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from flowcore.errors import ConfigurationError, ProcessException
from flowcore.processor import ProcessContext, PropertyDescriptor, ValidationResult
from processors.record.api import RecordReaderFactory, RecordSetWriterFactory

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
)
"""What a read or a write may raise for bad data: the FlowFile goes to failure.

``MalformedRecordError`` is a ``ProcessException``; Arrow errors are raised by writers
that cannot cast a value. Repository errors (missing content) are not caught: the
framework rolls the session back, as NiFi does.
"""


def reader_descriptor(name: str) -> PropertyDescriptor:
    return PropertyDescriptor(
        name=name,
        display_name="Record Reader",
        description="Specifies the Controller Service to use for reading incoming data",
        required=True,
        controller_service=True,
    )


def writer_descriptor(name: str) -> PropertyDescriptor:
    return PropertyDescriptor(
        name=name,
        display_name="Record Writer",
        description="Specifies the Controller Service to use for writing out the records",
        required=True,
        controller_service=True,
    )


def validate_services(
    context: ProcessContext, reader: PropertyDescriptor, writer: PropertyDescriptor
) -> list[ValidationResult]:
    """A configured identifier that names no service, or a service of the wrong kind."""
    results: list[ValidationResult] = []
    checks: Sequence[tuple[PropertyDescriptor, type, str]] = (
        (reader, RecordReaderFactory, "RecordReaderFactory"),
        (writer, RecordSetWriterFactory, "RecordSetWriterFactory"),
    )
    for descriptor, kind, kind_name in checks:
        identifier = context.get_property(descriptor).value
        if identifier is None:
            continue
        try:
            service = context.get_controller_service(identifier)
        except ConfigurationError:
            results.append(
                ValidationResult(
                    descriptor.label,
                    False,
                    identifier,
                    f"Invalid Controller Service: {identifier} is not a valid Controller "
                    "Service Identifier",
                )
            )
            continue
        if not isinstance(service, kind):
            results.append(
                ValidationResult(
                    descriptor.label,
                    False,
                    identifier,
                    f"Invalid Controller Service: {identifier} is not a {kind_name}",
                )
            )
    return results
