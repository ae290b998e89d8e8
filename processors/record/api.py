"""The record API: how processors read and write records, and how to plug your own services.

Records travel as Arrow record batches (``pyarrow.RecordBatch``). A *reader factory* (a
controller service such as ``CSVReader``) turns a FlowFile's content into a
``RecordReader``, which gives its schema and then its records in bounded batches. A
*writer factory* (``CSVRecordSetWriter``...) turns a schema and a byte sink into a
``RecordSetWriter``, which takes batches, counts the bytes it has emitted into the sink
and, when finished, reports the record count, its MIME type and attributes.

Any object that implements these protocols works: a controller service written in Python
subclasses ``flowcore.processor.ControllerService`` and implements ``RecordReaderFactory``
or ``RecordSetWriterFactory`` (both are ``runtime_checkable``), and is given to the engine
or to ``TestRunner.add_controller_service`` as an instance.

Errors: a record that cannot be read raises ``MalformedRecordError`` (a
``ProcessException``) naming the FlowFile (``source``) and the position; processors catch
it and route the FlowFile to failure.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import pyarrow as pa

from flowcore.errors import ConfigurationError, ProcessException
from processors.record.serialized import sliced

if TYPE_CHECKING:
    from flowcore.model import FlowFile
    from flowcore.session import ProcessSession

DEFAULT_BATCH_ROWS = 65_536
"""The most rows a built-in reader puts in one batch."""

Content = Iterable[bytes] | bytes | bytearray | memoryview
"""What a reader reads: all the bytes, or chunks of them (``session.stream(flowfile)``)."""


# -- errors -------------------------------------------------------------------------------


RETYPED_METADATA = b"flowcore.retyped"
"""Metadata of the batches a reader's ``create_text_reader`` gives (records as written,
for ValidateRecord): JSON, per field, the rows of the batch whose value is written as
another kind than the field's type (a number for a text), converted in the batch."""


class MalformedRecordError(ProcessException):
    """A record that cannot be read: names the FlowFile and where in it the problem is."""

    def __init__(self, source: str, position: str, detail: str) -> None:
        self.source = source
        self.position = position
        self.detail = detail
        super().__init__(f"malformed record in {source} at {position}: {detail}")


class RecordWriteError(ProcessException):
    """Records a writer cannot write (no schema of its format for them, or a value that
    does not fit it): the FlowFile goes to failure with this reason."""


class SchemaError(ConfigurationError):
    """A schema (Schema Text) that cannot be parsed or converted to Arrow."""


class SchemaNotFoundError(SchemaError):
    """No schema for a FlowFile (NiFi's SchemaNotFoundException): a name the Schema
    Registry does not hold, or a Schema Name that evaluates to nothing. The FlowFile goes
    to failure with this message."""


# -- schema registries --------------------------------------------------------------------


@dataclass(frozen=True)
class SchemaIdentifier:
    """What a schema is looked up by in a Schema Registry (NiFi's SchemaIdentifier)."""

    name: str
    branch: str | None = None
    version: int | None = None


@dataclass(frozen=True)
class RegisteredSchema:
    """A schema a registry holds: as Arrow, its Avro text, and the name it is held under
    (what the writers' "Set 'schema.name' Attribute" writes)."""

    schema: pa.Schema
    text: str
    name: str


@runtime_checkable
class SchemaRegistry(Protocol):
    """A service that gives schemas by identifier (``AvroSchemaRegistry``)."""

    def retrieve_schema(self, identifier: SchemaIdentifier) -> RegisteredSchema:
        """The schema, or ``SchemaNotFoundError`` with the registry's message."""
        ...


# -- sinks --------------------------------------------------------------------------------


class BinarySink(Protocol):
    """Where a writer puts its bytes: a content-repository writer, a file, a BytesIO."""

    def write(self, data: bytes | bytearray | memoryview, /) -> object: ...


class CountingSink(io.RawIOBase):
    """A write-only file object over a ``BinarySink`` that counts the bytes it passed on.

    Usable wherever pyarrow or fastavro want a Python file object.
    """

    def __init__(self, sink: BinarySink) -> None:
        super().__init__()
        self._sink = sink
        self.count = 0

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview, /) -> int:  # type: ignore[override]
        size = len(data) if not isinstance(data, memoryview) else data.nbytes
        if size:
            self._sink.write(data)
            self.count += size
        return size

    def tell(self) -> int:
        return self.count

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        # Never close the underlying sink: its owner (the session) does that.
        super().close()


# -- sources ------------------------------------------------------------------------------


class ChunkInput(io.RawIOBase):
    """A read-only file object over content given as bytes or chunks; knows its offset.

    ``prefix`` bytes (already taken from the chunks, for a peek) are read first.
    """

    def __init__(self, content: Content, prefix: bytes = b"") -> None:
        super().__init__()
        if isinstance(content, bytes | bytearray | memoryview):
            self._chunks: Iterator[bytes] = iter((bytes(content),))
        else:
            self._chunks = iter(content)
        self._buffer = memoryview(prefix)
        self.offset = 0

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        """The bytes read so far (io's default would seek, which this cannot)."""
        return self.offset

    def _fill(self) -> bool:
        while not self._buffer:
            chunk = next(self._chunks, None)
            if chunk is None:
                return False
            self._buffer = memoryview(chunk)
        return True

    def readinto(self, target: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(target).cast("B")
        filled = 0
        while filled < len(view) and self._fill():
            take = min(len(view) - filled, len(self._buffer))
            view[filled : filled + take] = self._buffer[:take]
            self._buffer = self._buffer[take:]
            filled += take
        self.offset += filled
        return filled

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            return self.readall()
        if not self._fill():
            return b""
        if len(self._buffer) >= size:
            out = bytes(self._buffer[:size])
            self._buffer = self._buffer[size:]
            self.offset += size
            return out
        buffer = bytearray(size)
        read = self.readinto(buffer)
        return bytes(buffer[:read])

    def readall(self) -> bytes:
        parts = [bytes(self._buffer)]
        self._buffer = memoryview(b"")
        parts.extend(self._chunks)
        data = b"".join(parts)
        self.offset += len(data)
        return data

    def peek_bytes(self, size: int) -> bytes:
        """Take up to ``size`` bytes and push them back: the next reads see them again."""
        taken = bytearray()
        while len(taken) < size and self._fill():
            take = min(size - len(taken), len(self._buffer))
            taken += self._buffer[:take]
            self._buffer = self._buffer[take:]
        rest = bytes(self._buffer)
        self._buffer = memoryview(bytes(taken) + rest)
        return bytes(taken)


class FlowFileContent:
    """A FlowFile's content, read through whichever session holds it when a read starts;
    it can be read again (a reader that infers a schema reads a large content twice, as
    NiFi does)."""

    def __init__(self, session: ProcessSession, flowfile: FlowFile) -> None:
        self.session = session
        self.flowfile = flowfile

    def __iter__(self) -> Iterator[bytes]:
        yield from self.session.stream(self.flowfile)


SPOOL_IN_MEMORY = 32 << 20
"""Bytes of a content that can be read only once kept in memory for a second read;
beyond, a temporary file holds them."""


class RereadableContent:
    """Content to read more than once, each read from its start: bytes, or an iterable
    that is not its own iterator (``FlowFileContent``), are simply read again; the chunks
    of one that can be read only once (a generator) are spooled as reads take them, and
    later reads replay the spool before taking more. Reads run one after another."""

    def __init__(self, content: Content) -> None:
        self._content = content
        self._source: Iterator[bytes] | None = None
        self._spool: tempfile.SpooledTemporaryFile[bytes] | None = None
        if not isinstance(content, bytes | bytearray | memoryview):
            chunks = iter(content)
            if chunks is content:
                self._source = chunks
                # Kept open across reads; removed when collected.
                self._spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115

    def read(self) -> Content:
        """The whole content, from its start."""
        if self._source is None:
            return self._content
        return self._replayed()

    def _replayed(self) -> Iterator[bytes]:
        spool, source = self._spool, self._source
        assert spool is not None and source is not None
        position = 0
        while True:
            spool.seek(position)
            chunk = spool.read(1 << 20)
            if not chunk:
                taken = next(source, None)
                if taken is None:
                    return
                chunk = bytes(taken)
                spool.seek(0, io.SEEK_END)
                spool.write(chunk)
            position += len(chunk)
            yield chunk


# -- readers ------------------------------------------------------------------------------


@runtime_checkable
class RecordReader(Protocol):
    """The records of one FlowFile, in batches; ``close`` releases what it holds.

    ``schema`` is known before the first batch (a reader may peek at the content to infer
    it). ``schema_text`` is the explicit schema text the reader was given or found (an Avro
    schema embedded in the content, or a Schema Text property), or None when the schema
    was inferred: MergeRecord's "like FlowFiles" key uses it as NiFi does.
    ``batches()`` may be called once; every batch has ``schema``.
    """

    @property
    def schema(self) -> pa.Schema: ...

    @property
    def schema_text(self) -> str | None: ...

    def batches(self) -> Iterator[pa.RecordBatch]: ...

    def close(self) -> None: ...


@runtime_checkable
class RecordReaderFactory(Protocol):
    """A record reader service (NiFi's RecordReaderFactory).

    ``source`` names the FlowFile in error messages (``source_of(flowfile)``).
    Creating a reader may raise ``MalformedRecordError`` when the content cannot give a
    schema (for example a truncated Parquet footer).
    """

    def create_reader(
        self, content: Content, attributes: Mapping[str, str], source: str
    ) -> RecordReader: ...


# -- writers ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What a finished writer reports: records written, MIME type, attributes to add."""

    record_count: int
    mime_type: str
    attributes: Mapping[str, str] = field(default_factory=dict)

    def flowfile_attributes(self) -> dict[str, str]:
        """The writer's attributes plus ``record.count`` and ``mime.type`` (NiFi's order)."""
        return {
            **self.attributes,
            "record.count": str(self.record_count),
            "mime.type": self.mime_type,
        }


@runtime_checkable
class RecordSetWriter(Protocol):
    """Writes one record set into a sink, batch by batch.

    ``bytes_written`` is the number of bytes emitted into the sink so far (a header
    included); a writer may buffer, and ``flush`` pushes what it buffers into the sink so
    that ``bytes_written`` is exact. ``finish`` completes the record set (footer, closing
    bracket...) and returns the result; ``abort`` gives up (the sink's owner discards the
    partial output). Batches must have the writer's ``schema`` (same names and order);
    writers cast compatible types.
    """

    @property
    def schema(self) -> pa.Schema: ...

    @property
    def mime_type(self) -> str: ...

    @property
    def record_count(self) -> int: ...

    @property
    def bytes_written(self) -> int: ...

    def write_batch(self, batch: pa.RecordBatch) -> None: ...

    def flush(self) -> None: ...

    def finish(self) -> WriteResult: ...

    def abort(self) -> None: ...


@runtime_checkable
class RecordSetWriterFactory(Protocol):
    """A record writer service (NiFi's RecordSetWriterFactory).

    ``writer_schema`` is the schema a writer will use for records read with
    ``read_schema`` (the read schema itself unless the service is given a schema);
    ``create_writer`` opens a writer for it on ``sink``.
    """

    @property
    def mime_type(self) -> str: ...

    def writer_schema(self, read_schema: pa.Schema, attributes: Mapping[str, str]) -> pa.Schema: ...

    def create_writer(
        self, schema: pa.Schema, sink: BinarySink, attributes: Mapping[str, str]
    ) -> RecordSetWriter: ...


# -- helpers for processors ---------------------------------------------------------------


def source_of(flowfile: FlowFile) -> str:
    """How error messages name a FlowFile: ``FlowFile[filename=..., uuid=...]``."""
    attributes = flowfile.attributes
    return f"FlowFile[filename={attributes.get('filename', '')}, uuid={attributes.get('uuid', '')}]"


def as_reader_factory(service: object) -> RecordReaderFactory:
    """The service as a reader factory, or a ConfigurationError saying it is not one."""
    if not isinstance(service, RecordReaderFactory):
        msg = f"controller service {type(service).__name__} is not a record reader"
        raise ConfigurationError(msg)
    return service


def as_writer_factory(service: object) -> RecordSetWriterFactory:
    """The service as a writer factory, or a ConfigurationError saying it is not one."""
    if not isinstance(service, RecordSetWriterFactory):
        msg = f"controller service {type(service).__name__} is not a record set writer"
        raise ConfigurationError(msg)
    return service


def bounded(batches: Iterable[pa.RecordBatch], max_rows: int) -> Iterator[pa.RecordBatch]:
    """Batches of at most ``max_rows`` rows (zero-copy slices); empty batches dropped."""
    for batch in batches:
        rows = batch.num_rows
        if rows <= max_rows:
            if rows:
                yield batch
            continue
        for start in range(0, rows, max_rows):
            yield sliced(batch, start, max_rows)


def copy_records(reader: RecordReader, writer: RecordSetWriter) -> int:
    """Write every batch of ``reader`` into ``writer``; returns the records copied."""
    copied = 0
    for batch in reader.batches():
        writer.write_batch(batch)
        copied += batch.num_rows
    return copied
