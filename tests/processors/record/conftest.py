"""Fixtures for the record layer: enable a service with properties given by display name."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pyarrow as pa
import pytest

from flowcore.clock import ManualClock
from flowcore.processor import ControllerService, ProcessContext
from processors.record.api import RecordReaderFactory, RecordSetWriterFactory


def enable_service(service: ControllerService, properties: Mapping[str, str] | None = None) -> Any:
    """Enable ``service`` as the engine does (display names mapped to names)."""
    by_display = {d.display_name: d.name for d in service.property_descriptors if d.display_name}
    props = {by_display.get(k, k): v for k, v in (properties or {}).items()}
    context = ProcessContext(
        component_id="svc",
        name="svc",
        descriptors={d.name: d for d in service.property_descriptors},
        properties=props,
        clock=ManualClock(),
    )
    service.on_enabled(context)
    return service


def read_all(
    reader_factory: RecordReaderFactory,
    content: bytes | Iterable[bytes],
    source: str = "ff-1",
    attributes: Mapping[str, str] | None = None,
) -> pa.Table:
    reader = reader_factory.create_reader(content, attributes or {}, source)
    try:
        batches = list(reader.batches())
        return pa.Table.from_batches(batches, schema=reader.schema)
    finally:
        reader.close()


def write_all(
    writer_factory: RecordSetWriterFactory,
    table: pa.Table,
    attributes: Mapping[str, str] | None = None,
) -> tuple[bytes, Any]:
    sink = io.BytesIO()
    schema = writer_factory.writer_schema(table.schema, attributes or {})
    writer = writer_factory.create_writer(schema, sink, attributes or {})
    for batch in table.to_batches():
        writer.write_batch(batch)
    result = writer.finish()
    assert writer.bytes_written == len(sink.getvalue())
    return sink.getvalue(), result


@pytest.fixture
def enable() -> Callable[..., Any]:
    def build(cls: type[ControllerService], **properties: str) -> Any:
        return enable_service(cls(), properties)

    return build


@pytest.fixture
def enable_with() -> Callable[..., Any]:
    def build(cls: type[ControllerService], properties: Mapping[str, str]) -> Any:
        return enable_service(cls(), properties)

    return build


@pytest.fixture
def read_records() -> Callable[..., Any]:
    return read_all


@pytest.fixture
def write_records() -> Callable[..., Any]:
    return write_all
