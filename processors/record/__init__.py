"""The record layer: readers and writers on Arrow, as controller services.

Importing this package registers CSVReader, CSVRecordSetWriter, JsonTreeReader,
JsonRecordSetWriter, ParquetReader, ParquetRecordSetWriter, AvroReader and
AvroRecordSetWriter, and the lookup services SimpleKeyValueLookupService,
PropertiesFileLookupService and SimpleCsvFileLookupService
(``processors.record.lookup``). The protocols processors and custom services use are
in ``processors.record.api``; schema helpers (Avro <-> Arrow, fingerprints) in
``processors.record.schema``. See docs/records.md.
"""

from processors.record.api import (
    DEFAULT_BATCH_ROWS,
    BinarySink,
    MalformedRecordError,
    RecordReader,
    RecordReaderFactory,
    RecordSetWriter,
    RecordSetWriterFactory,
    RecordWriteError,
    SchemaError,
    SchemaIdentifier,
    SchemaNotFoundError,
    SchemaRegistry,
    WriteResult,
    as_reader_factory,
    as_writer_factory,
    copy_records,
    source_of,
)
from processors.record.avro_format import AvroReader, AvroRecordSetWriter
from processors.record.csv_format import CSVReader, CSVRecordSetWriter
from processors.record.json_format import JsonRecordSetWriter, JsonTreeReader
from processors.record.lookup import (
    LookupFailureError,
    LookupService,
    PropertiesFileLookupService,
    SimpleCsvFileLookupService,
    SimpleKeyValueLookupService,
)
from processors.record.parquet_format import ParquetReader, ParquetRecordSetWriter
from processors.record.schema import (
    arrow_to_avro,
    avro_to_arrow,
    record_schema_text,
    schema_fingerprint,
)
from processors.record.schema_registry import AvroSchemaRegistry

__all__ = [
    "DEFAULT_BATCH_ROWS",
    "AvroReader",
    "AvroRecordSetWriter",
    "AvroSchemaRegistry",
    "BinarySink",
    "CSVReader",
    "CSVRecordSetWriter",
    "JsonRecordSetWriter",
    "JsonTreeReader",
    "LookupFailureError",
    "LookupService",
    "MalformedRecordError",
    "ParquetReader",
    "ParquetRecordSetWriter",
    "PropertiesFileLookupService",
    "RecordReader",
    "RecordReaderFactory",
    "RecordSetWriter",
    "RecordSetWriterFactory",
    "RecordWriteError",
    "SchemaError",
    "SchemaIdentifier",
    "SchemaNotFoundError",
    "SchemaRegistry",
    "SimpleCsvFileLookupService",
    "SimpleKeyValueLookupService",
    "WriteResult",
    "arrow_to_avro",
    "as_reader_factory",
    "as_writer_factory",
    "avro_to_arrow",
    "copy_records",
    "record_schema_text",
    "schema_fingerprint",
    "source_of",
]
