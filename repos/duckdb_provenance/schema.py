"""The DuckDB tables of the provenance store and the Arrow schema that feeds them.

One list of columns is the single source of truth: the ``CREATE TABLE`` statement, the
Arrow schema a batch is built with and the ``SELECT`` list rows are decoded from all come
from it, so they cannot drift apart.

Tables:

- ``provenance_events``: one row per event, in event id order (rows are only ever
  appended in id order, so DuckDB's per-row-group min/max "zonemaps" on ``event_id`` and
  ``event_time`` prune scans by id or time range without an index).
- ``provenance_event_uuids``: one row per (uuid, event) for the event's FlowFile uuid and
  every other parent and child uuid, with an ART index on ``uuid``. Random uuids defeat
  zonemaps (every row group spans the whole key range), and keeping the table sorted
  would mean rewriting it as it grows. Measured on 1.2 million rows: a look-up of four
  uuids takes 0.5 ms through the index against 29-37 ms by scanning the strings (11-15
  ms scanning a BIGINT hash of them), for about 0.1 s more indexing time per 200,000
  events and roughly 100 bytes of index per uuid on disk.
- ``provenance_meta``: one row holding the highest event id indexed, written in the same
  transaction as the events so that the journal can be trimmed safely after the commit.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

SCHEMA_VERSION = 1

# The database file is attached under this name (see store.py); names are qualified so
# that every cursor finds the tables without a ``USE``.
CATALOG = "provenance_db"
EVENTS_TABLE = f"{CATALOG}.main.provenance_events"
UUIDS_TABLE = f"{CATALOG}.main.provenance_event_uuids"
META_TABLE = f"{CATALOG}.main.provenance_meta"


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its name, DuckDB type (with constraints) and Arrow type."""

    name: str
    sql_type: str
    arrow_type: pa.DataType
    nullable: bool = False


_STRING_LIST = pa.list_(pa.string())


def _content_columns(prefix: str) -> tuple[Column, ...]:
    return (
        Column(f"{prefix}_container", "VARCHAR", pa.string(), nullable=True),
        Column(f"{prefix}_section", "VARCHAR", pa.string(), nullable=True),
        Column(f"{prefix}_identifier", "VARCHAR", pa.string(), nullable=True),
        Column(f"{prefix}_offset", "BIGINT", pa.int64(), nullable=True),
        Column(f"{prefix}_size", "BIGINT", pa.int64(), nullable=True),
    )


# Times are epoch milliseconds. Attribute maps are JSON objects kept as text: the
# updated map keeps removed attributes as JSON null, exactly as the event holds them.
EVENT_COLUMNS: tuple[Column, ...] = (
    Column("event_id", "BIGINT NOT NULL", pa.int64()),
    Column("event_time", "BIGINT NOT NULL", pa.int64()),
    Column("event_type", "VARCHAR NOT NULL", pa.string()),
    Column("flowfile_uuid", "VARCHAR NOT NULL", pa.string()),
    Column("component_id", "VARCHAR NOT NULL", pa.string()),
    Column("component_type", "VARCHAR NOT NULL", pa.string()),
    Column("entry_date", "BIGINT NOT NULL", pa.int64()),
    Column("lineage_start_date", "BIGINT NOT NULL", pa.int64()),
    Column("event_duration", "BIGINT NOT NULL", pa.int64()),
    Column("parent_uuids", "VARCHAR[] NOT NULL", _STRING_LIST),
    Column("child_uuids", "VARCHAR[] NOT NULL", _STRING_LIST),
    Column("previous_attributes", "VARCHAR NOT NULL", pa.large_string()),
    Column("updated_attributes", "VARCHAR NOT NULL", pa.large_string()),
    *_content_columns("previous_content"),
    *_content_columns("current_content"),
    Column("details", "VARCHAR", pa.string(), nullable=True),
    Column("relationship", "VARCHAR", pa.string(), nullable=True),
    Column("transit_uri", "VARCHAR", pa.string(), nullable=True),
    Column("source_system_flowfile_id", "VARCHAR", pa.string(), nullable=True),
    Column("alternate_identifier", "VARCHAR", pa.string(), nullable=True),
    Column("source_queue_id", "VARCHAR", pa.string(), nullable=True),
    Column("size", "BIGINT NOT NULL", pa.int64()),
)

UUID_COLUMNS: tuple[Column, ...] = (
    Column("uuid", "VARCHAR NOT NULL", pa.string()),
    Column("event_id", "BIGINT NOT NULL", pa.int64()),
)

EVENT_COLUMN_NAMES: tuple[str, ...] = tuple(column.name for column in EVENT_COLUMNS)


def arrow_schema(columns: tuple[Column, ...]) -> pa.Schema:
    return pa.schema([pa.field(c.name, c.arrow_type, nullable=c.nullable) for c in columns])


EVENTS_ARROW_SCHEMA = arrow_schema(EVENT_COLUMNS)
UUIDS_ARROW_SCHEMA = arrow_schema(UUID_COLUMNS)


def _create_table(name: str, columns: tuple[Column, ...]) -> str:
    body = ",\n    ".join(f"{c.name} {c.sql_type}" for c in columns)
    return f"CREATE TABLE IF NOT EXISTS {name} (\n    {body}\n)"


# Run in one transaction when the database is opened; every statement is idempotent.
CREATE_STATEMENTS: tuple[str, ...] = (
    _create_table(EVENTS_TABLE, EVENT_COLUMNS),
    _create_table(UUIDS_TABLE, UUID_COLUMNS),
    f"CREATE INDEX IF NOT EXISTS provenance_event_uuids_uuid ON {UUIDS_TABLE} (uuid)",
    f"""CREATE TABLE IF NOT EXISTS {META_TABLE} (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 0),
    schema_version INTEGER NOT NULL,
    indexed_through BIGINT NOT NULL
)""",
    f"INSERT INTO {META_TABLE} VALUES (0, {SCHEMA_VERSION}, -1) ON CONFLICT DO NOTHING",
)

SELECT_EVENT_COLUMNS = ", ".join(EVENT_COLUMN_NAMES)
