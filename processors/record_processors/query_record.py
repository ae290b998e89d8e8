"""QueryRecord: SQL SELECT statements over a FlowFile's records, one relationship per query.

Follows NiFi's QueryRecord; the SQL runs in DuckDB instead of Calcite (see
docs/processors/query_record.md for the dialect differences; nothing is translated):

* Properties: Record Reader, Record Writer (``record-reader``/``record-writer``), Include
  Zero Record FlowFiles (default true), Cache Schema (kept for compatibility, no effect,
  as in NiFi 2), Default Decimal Precision (10) / Default Decimal Scale (0), used for a
  decimal result column whose precision DuckDB does not give (never, in practice).
* Each user-defined property is a SQL statement (Expression Language evaluated against the
  FlowFile's attributes) whose results go to the relationship of the same name. The
  records are the table ``FLOWFILE``.
* Each result is a child of the original with ``record.count``, ``mime.type``, the
  writer's attributes and ``QueryRecord.Route`` (the relationship's name); the original
  goes to ``original`` with ``QueryRecord.Route=original``. Provenance: a FORK of the
  original to its children and a ROUTE per child, as NiFi reports.
* A result with no records is removed when Include Zero Record FlowFiles is false.
* Failure (unreadable records, SQL that DuckDB rejects, a value the writer cannot write):
  every child is removed and the original goes to ``failure`` with
  ``QueryRecord.Route=failure``.

The FlowFile's records are read once into an Arrow table, registered in DuckDB without a
copy; each statement's result streams from DuckDB as Arrow batches into its writer, which
writes straight into the child's content. Each concurrent task has its own DuckDB
connection, made on first use and kept until the processor stops.
"""

from __future__ import annotations

import threading

import duckdb
import pyarrow as pa

from flowcore.errors import ProcessException, repository_fault
from flowcore.model import FlowFile
from flowcore.processor import (
    ExpressionLanguageScope,
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    ValidationResult,
    processor,
    validators,
)
from flowcore.session import ProcessSession
from processors.record.api import (
    FlowFileContent,
    RecordSetWriterFactory,
    as_reader_factory,
    as_writer_factory,
    source_of,
)
from processors.record.avro_union import has_union
from processors.record_processors._common import (
    RECORD_FAILURES,
    reader_descriptor,
    writer_descriptor,
)

ROUTE_ATTRIBUTE = "QueryRecord.Route"
TABLE_NAME = "FLOWFILE"
RESULT_BATCH_ROWS = 65_536

RECORD_READER = PropertyDescriptor(
    name="record-reader",
    display_name="Record Reader",
    description="Specifies the Controller Service to use for parsing incoming data and "
    "determining the data's schema",
    required=True,
    controller_service=reader_descriptor("record-reader").controller_service,
)
RECORD_WRITER = PropertyDescriptor(
    name="record-writer",
    display_name="Record Writer",
    description="Specifies the Controller Service to use for writing results to a FlowFile",
    required=True,
    controller_service=writer_descriptor("record-writer").controller_service,
)
INCLUDE_ZERO_RECORD_FLOWFILES = PropertyDescriptor(
    name="include-zero-record-flowfiles",
    display_name="Include Zero Record FlowFiles",
    description="When running the SQL statement against an incoming FlowFile, if the result "
    "has no data, this property specifies whether or not a FlowFile will be sent to the "
    "corresponding relationship",
    default="true",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)
CACHE_SCHEMA = PropertyDescriptor(
    name="cache-schema",
    display_name="Cache Schema",
    description="This property is no longer used. It remains solely for backward "
    "compatibility in order to avoid making existing Processors invalid upon upgrade.",
    default="true",
    required=True,
    allowable_values=["true", "false"],
    validators=[validators.boolean],
)
DEFAULT_PRECISION = PropertyDescriptor(
    name="dbf-default-precision",
    display_name="Default Decimal Precision",
    description="When a DECIMAL/NUMBER value is written as a 'decimal' Avro logical type, a "
    "specific 'precision' denoting number of available digits is required. 'Default Decimal "
    "Precision' is used when writing those undefined precision numbers.",
    default="10",
    required=True,
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.positive_integer],
)
DEFAULT_SCALE = PropertyDescriptor(
    name="dbf-default-scale",
    display_name="Default Decimal Scale",
    description="When a DECIMAL/NUMBER value is written as a 'decimal' Avro logical type, a "
    "specific 'scale' denoting number of available decimal digits is required. 'Default "
    "Decimal Scale' is used when writing those undefined numbers.",
    default="0",
    required=True,
    expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
    validators=[validators.non_negative_integer],
)

ORIGINAL = Relationship("original", "The original FlowFile is routed to this relationship")
FAILURE = Relationship(
    "failure",
    "If a FlowFile fails processing for any reason (for example, the SQL statement contains "
    "columns not present in input data), the original FlowFile it will be routed to this "
    "relationship",
)

QUERY_FAILURES: tuple[type[BaseException], ...] = (*RECORD_FAILURES, duckdb.Error)


def select_statement(sql: str) -> str | None:
    """Why ``sql`` is not one SELECT statement (DuckDB's parser), or None when it is."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        return f"Not a valid SQL Statement: {exc}"
    if len(statements) != 1:
        return "Not a valid SQL Statement: expected exactly one statement"
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        return f"Not a valid SQL Statement: a SELECT statement is required, not {kind.name}"
    return None


def sql_validator(subject: str, value: str) -> ValidationResult:
    """NiFi's SqlValidator: the statement must parse, and be a SELECT (skipped when it holds
    Expression Language, which is evaluated per FlowFile)."""
    if "${" in value:
        return ValidationResult(subject, True, value, "Expression Language Present")
    problem = select_statement(value)
    if problem is not None:
        return ValidationResult(subject, False, value, problem)
    return ValidationResult(subject, True, value, "")


def _result_schema(schema: pa.Schema, precision: int, scale: int) -> pa.Schema:
    """The schema results are written with: decimal columns without a precision (0) get
    the defaults, and instants are labelled UTC (DuckDB labels them with the machine's
    time zone; the instants are the same)."""
    fields = []
    for f in schema:
        if pa.types.is_decimal(f.type) and f.type.precision == 0:
            fields.append(f.with_type(pa.decimal128(precision, scale)))
        elif pa.types.is_timestamp(f.type) and f.type.tz not in (None, "UTC"):
            fields.append(f.with_type(pa.timestamp(f.type.unit, tz="UTC")))
        else:
            fields.append(f)
    return pa.schema(fields, metadata=schema.metadata)


def _untyped_text(table: pa.Table) -> pa.Table:
    """A table without records with its text columns typed NULL: a reader gives text to
    columns it has no value to type (a CSV header line alone), and DuckDB refuses to
    compare text with a number (``age > 23``), where Calcite converts; with no values,
    there is nothing to compare, and the statement runs as in NiFi."""
    fields = [
        f.with_type(pa.null())
        if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
        else f
        for f in table.schema
    ]
    schema = pa.schema(fields, metadata=table.schema.metadata)
    return schema.empty_table() if not schema.equals(table.schema) else table


@processor("QueryRecord")
class QueryRecord(Processor):
    description = (
        "Evaluates one or more SQL queries against the contents of a FlowFile. The result of "
        "the SQL query then becomes the content of the output FlowFile. The Processor must "
        "be configured with at least one user-defined property. The name of the Property is "
        "the Relationship to route data to, and the value of the Property is a SQL SELECT "
        "statement over the table FLOWFILE; flowcore runs it in DuckDB."
    )
    tags = (
        "sql",
        "query",
        "calcite",
        "duckdb",
        "route",
        "record",
        "transform",
        "select",
        "update",
        "modify",
        "etl",
        "filter",
        "csv",
        "json",
        "logs",
        "text",
        "avro",
        "aggregate",
    )
    property_descriptors = (
        RECORD_READER,
        RECORD_WRITER,
        INCLUDE_ZERO_RECORD_FLOWFILES,
        CACHE_SCHEMA,
        DEFAULT_PRECISION,
        DEFAULT_SCALE,
    )
    relationships = (ORIGINAL, FAILURE)
    supports_dynamic_properties = True

    def __init__(self) -> None:
        super().__init__()
        self._local = threading.local()
        self._connections: list[duckdb.DuckDBPyConnection] = []
        self._lock = threading.Lock()

    def get_relationships(self, properties: dict[str, str]) -> list[Relationship]:
        static = {d.name for d in self.property_descriptors} | {
            d.display_name for d in self.property_descriptors
        }
        dynamic = [
            Relationship(
                name,
                "User-defined relationship that specifies where data that matches the "
                "specified SQL query should be routed",
            )
            for name in properties
            if name not in static and name not in (ORIGINAL.name, FAILURE.name)
        ]
        return [ORIGINAL, FAILURE, *dynamic]

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(
            name=name,
            display_name=name,
            description="SQL select statement specifies how data should be filtered/"
            "transformed. SQL SELECT should select from the FLOWFILE table",
            dynamic=True,
            expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
            validators=[sql_validator],
        )

    # -- connections ----------------------------------------------------------------------

    def _connection(self) -> duckdb.DuckDBPyConnection:
        """This task's DuckDB connection (in memory), made on first use."""
        connection: duckdb.DuckDBPyConnection | None = getattr(self._local, "connection", None)
        if connection is None:
            # No files, no extensions, no network: the SQL sees the FlowFile's records only,
            # as in NiFi; and a statement cannot change that.
            connection = duckdb.connect(
                ":memory:",
                config={"enable_external_access": False, "lock_configuration": True},
            )
            self._local.connection = connection
            with self._lock:
                self._connections.append(connection)
        return connection

    def on_stopped(self, context: ProcessContext) -> None:
        with self._lock:
            connections, self._connections = self._connections, []
        for connection in connections:
            connection.close()
        self._local = threading.local()

    # -- trigger --------------------------------------------------------------------------

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        original = session.get()
        if original is None:
            return
        readers = as_reader_factory(context.get_property(RECORD_READER).as_controller_service())
        writers = as_writer_factory(context.get_property(RECORD_WRITER).as_controller_service())
        include_zero = context.get_property(INCLUDE_ZERO_RECORD_FLOWFILES).as_bool()
        attributes = original.attributes
        try:
            precision = context.get_property(DEFAULT_PRECISION).evaluate(original).as_int() or 10
            scale = context.get_property(DEFAULT_SCALE).evaluate(original).as_int() or 0
            reader = readers.create_reader(
                FlowFileContent(session, original), attributes, source_of(original)
            )
            try:
                table = pa.Table.from_batches(list(reader.batches()), schema=reader.schema)
            finally:
                reader.close()
        except QUERY_FAILURES as exc:
            if repository_fault(exc) is not None:
                raise  # a full or failing repository: roll back, keep the FlowFile queued
            self.logger.error(
                "Failed to determine Record Schema from %s; routing to failure: %s", original, exc
            )
            self._fail(session, original, [])
            return

        if table.num_rows == 0:
            table = _untyped_text(table)
        unions = [f.name for f in table.schema if has_union(f.type)]
        if unions:
            # DuckDB takes no Arrow union: an Avro union of several types (NiFi's CHOICE).
            self.logger.error(
                "Unable to query %s due to fields %s: Avro unions of several types "
                "(NiFi's CHOICE) cannot be queried here",
                original,
                unions,
            )
            self._fail(session, original, [])
            return
        results: list[tuple[FlowFile, Relationship]] = []
        connection = self._connection()
        connection.register(TABLE_NAME, table)
        try:
            for name in context.dynamic_properties():
                sql = context.get_property(name).evaluate(original).as_str()
                child = self._query(session, connection, original, sql, writers, (precision, scale))
                if child.attributes.get("record.count") == "0" and not include_zero:
                    session.remove(child)
                    self.logger.info(
                        "Transformed %s but the result contained no data so will not pass on "
                        "a FlowFile",
                        original,
                    )
                    continue
                child = session.put_attribute(child, ROUTE_ATTRIBUTE, name)
                results.append((child, Relationship(name)))
                session.adjust_counter("Records Written", int(child.attributes["record.count"]))
        except QUERY_FAILURES as exc:
            if repository_fault(exc) is not None:
                raise  # a full or failing repository: roll back, keep the FlowFile queued
            self.logger.error("Unable to query %s due to %s", original, exc)
            self._fail(session, original, [child for child, _ in results])
            return
        finally:
            connection.unregister(TABLE_NAME)

        session.adjust_counter("Records Read", table.num_rows)
        # The framework reports the FORK of the original to the children that live.
        for child, relationship in results:
            session.provenance.route(child, relationship.name)
            session.transfer(child, relationship)
        original = session.put_attribute(original, ROUTE_ATTRIBUTE, ORIGINAL.name)
        session.transfer(original, ORIGINAL)
        self.logger.info("Successfully queried %s", original)

    def _query(
        self,
        session: ProcessSession,
        connection: duckdb.DuckDBPyConnection,
        original: FlowFile,
        sql: str,
        writers: RecordSetWriterFactory,
        decimals: tuple[int, int],
    ) -> FlowFile:
        """Run one statement; its result, written by the writer, is a new child (removed
        again when the statement or the write fails)."""
        child = session.create(original)
        content = session.open_write(child)
        try:
            problem = select_statement(sql)
            if problem is not None:
                raise ProcessException(problem)
            relation = connection.sql(sql)
            if relation is None:
                msg = f"SQL statement returns no result set: {sql}"
                raise ProcessException(msg)
            result: pa.RecordBatchReader = relation.to_arrow_reader(RESULT_BATCH_ROWS)
            try:
                schema = _result_schema(result.schema, *decimals)
                write_schema = writers.writer_schema(schema, original.attributes)
                writer = writers.create_writer(write_schema, content, original.attributes)
                try:
                    for batch in result:
                        if batch.num_rows:
                            if not batch.schema.equals(schema):
                                batch = batch.cast(schema)
                            writer.write_batch(batch)
                    outcome = writer.finish()
                except BaseException:
                    writer.abort()
                    raise
            finally:
                result.close()
        except BaseException as exc:
            content.abort()
            if isinstance(exc, QUERY_FAILURES):
                session.remove(child)
            raise
        written = content.close()
        return session.put_all_attributes(written, outcome.flowfile_attributes())

    @staticmethod
    def _fail(session: ProcessSession, original: FlowFile, created: list[FlowFile]) -> None:
        for child in created:
            session.remove(child)
        original = session.put_attribute(original, ROUTE_ATTRIBUTE, FAILURE.name)
        session.transfer(original, FAILURE)
