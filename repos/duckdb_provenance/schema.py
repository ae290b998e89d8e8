"""The DuckDB tables of the provenance store and the SQL that fills and reads them.

One list of columns is the single source of truth: the ``CREATE TABLE`` statement, the
``from_json`` structure and ``SELECT`` list that turn a batch's JSON texts into rows, and
the ``SELECT`` list rows are decoded from all come from it, so they cannot drift apart.

Tables:

- ``provenance_events``: one row per event, in event id order (rows are only ever
  appended in id order, so DuckDB's per-row-group min/max "zonemaps" on ``event_id`` and
  ``event_time`` prune scans by id or time range without an index).
- ``provenance_event_uuids``: one row per (uuid key, event) for the event's FlowFile uuid
  and every other parent and child uuid, with an ART index on ``uuid_key``. The key is
  DuckDB's 64-bit ``hash`` of the uuid text (``uuid_key_sql``), not the text itself: an
  ART index over 36-character strings cost more than the insert of the events
  themselves (measured on 300,000 rows: 0.47 s with the index on the text, 0.16 s on
  the 64-bit key, 0.15 s with no index at all), while a look-up stays an index probe
  (about 1 ms for four uuids among 1.5 million rows). Random uuids defeat zonemaps, so
  some index is needed: scanning instead took 17.9 ms per look-up at 2 million rows.
  Two uuids may share a key, so every look-up also checks the event's own, parent and
  child uuids (``UUID_MATCH_SQL``); a key only narrows the search.
- ``provenance_meta``: one row holding the schema version, the highest event id indexed
  (written in the same transaction as the events, so that the journal can be trimmed
  safely after the commit) and ``uuid_key_probe``, the key of a fixed text when the
  keys were computed. DuckDB does not promise that ``hash`` stays the same across
  versions; when the probe no longer matches, the store rebuilds the keys from the
  events table when it opens (see ``store.py``), as it does for a version 1 file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pyarrow as pa

SCHEMA_VERSION = 2

# The database file is attached under this name (see store.py); names are qualified so
# that every cursor finds the tables without a ``USE``.
CATALOG = "provenance_db"
EVENTS_TABLE = f"{CATALOG}.main.provenance_events"
UUIDS_TABLE = f"{CATALOG}.main.provenance_event_uuids"
META_TABLE = f"{CATALOG}.main.provenance_meta"
UUID_KEY_INDEX = "provenance_event_uuids_key"


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
        Column(f"{prefix}_checksum", "UBIGINT", pa.uint64(), nullable=True),
    )


# Columns added to ``provenance_events`` after version 2 was first written: nullable, so
# an older file gains them on open (``ADD COLUMN IF NOT EXISTS``) with NULL in its rows,
# and rows are inserted and selected by name, so where they sit in the table is no matter.
ADDED_EVENT_COLUMNS: tuple[str, ...] = ("previous_content_checksum", "current_content_checksum")


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

UUID_KEY_COLUMNS: tuple[Column, ...] = (
    Column("uuid_key", "UBIGINT NOT NULL", pa.uint64()),
    Column("event_id", "BIGINT NOT NULL", pa.int64()),
)


def uuid_key_sql(text: str) -> str:
    """The SQL of the key of a uuid given as the SQL expression ``text``."""
    return f"hash({text})"


# True for an event row whose own, parent or child uuids include the parameter ``?``.
UUID_MATCH_SQL = (
    "(flowfile_uuid = ? OR list_contains(parent_uuids, ?) OR list_contains(child_uuids, ?))"
)
# The fixed text whose key is kept in ``provenance_meta.uuid_key_probe``.
UUID_KEY_PROBE_TEXT = "flowcore provenance uuid key probe"

EVENT_COLUMN_NAMES: tuple[str, ...] = tuple(column.name for column in EVENT_COLUMNS)


def arrow_schema(columns: tuple[Column, ...]) -> pa.Schema:
    return pa.schema([pa.field(c.name, c.arrow_type, nullable=c.nullable) for c in columns])


def _create_table(name: str, columns: tuple[Column, ...]) -> str:
    body = ",\n    ".join(f"{c.name} {c.sql_type}" for c in columns)
    return f"CREATE TABLE IF NOT EXISTS {name} (\n    {body}\n)"


# Run in one transaction when the database is opened; every statement is idempotent.
CREATE_STATEMENTS: tuple[str, ...] = (
    _create_table(EVENTS_TABLE, EVENT_COLUMNS),
    _create_table(UUIDS_TABLE, UUID_KEY_COLUMNS),
    f"CREATE INDEX IF NOT EXISTS {UUID_KEY_INDEX} ON {UUIDS_TABLE} (uuid_key)",
    f"""CREATE TABLE IF NOT EXISTS {META_TABLE} (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 0),
    schema_version INTEGER NOT NULL,
    indexed_through BIGINT NOT NULL,
    uuid_key_probe UBIGINT
)""",
    f"INSERT INTO {META_TABLE} (singleton, schema_version, indexed_through, uuid_key_probe) "
    f"VALUES (0, {SCHEMA_VERSION}, -1, "
    f"{uuid_key_sql(repr(UUID_KEY_PROBE_TEXT))}) ON CONFLICT DO NOTHING",
    *(
        f"ALTER TABLE {EVENTS_TABLE} ADD COLUMN IF NOT EXISTS {c.name} {c.sql_type}"
        for c in EVENT_COLUMNS
        if c.name in ADDED_EVENT_COLUMNS
    ),
)


def _uuid_keys_sql(where: str) -> str:
    """Fills the uuid key table from the events rows that ``where`` selects."""
    return f"""INSERT INTO {UUIDS_TABLE}
SELECT {uuid_key_sql("uuid")}, event_id FROM (
    SELECT flowfile_uuid AS uuid, event_id FROM {EVENTS_TABLE} {where}
    UNION ALL
    SELECT uuid, event_id FROM (
        SELECT unnest(parent_uuids) AS uuid, flowfile_uuid, event_id FROM {EVENTS_TABLE} {where}
    ) WHERE uuid <> flowfile_uuid
    UNION ALL
    SELECT uuid, event_id FROM (
        SELECT unnest(child_uuids) AS uuid, flowfile_uuid, event_id FROM {EVENTS_TABLE} {where}
    ) WHERE uuid <> flowfile_uuid
)"""


# Fills the uuid key table from the events table (it must be empty and unindexed).
REBUILD_UUID_KEYS = _uuid_keys_sql("")
# The uuid rows of the events with ids from ``?`` to ``?``, just inserted.
INSERT_UUID_KEYS_BETWEEN = _uuid_keys_sql("WHERE event_id BETWEEN $first AND $last")

# A batch on its way in: each event's id and its JSON text (``arrow_batch.py``); the id
# in the text is ignored (the journal encodes an event before its id is assigned).
PENDING_COLUMNS: tuple[Column, ...] = (
    Column("event_id", "BIGINT NOT NULL", pa.int64()),
    Column("event", "VARCHAR NOT NULL", pa.large_string()),
)
PENDING_ARROW_SCHEMA = arrow_schema(PENDING_COLUMNS)

_ATTRIBUTE_MAPS = ("previous_attributes", "updated_attributes")
_CONTENT_REFS = ("previous_content", "current_content")
# The fields of a content reference in its JSON array, in order (``ContentRef``).
_CONTENT_FIELDS = ("container", "section", "identifier", "offset", "size", "checksum")


def _from_json() -> tuple[str, list[str]]:
    """The ``from_json`` structure of an event's text, and the SELECT list of the event
    columns taken from it (``j``) and from the pending row's ``event_id``."""
    structure: dict[str, object] = {}
    select: list[str] = []
    for column in EVENT_COLUMNS:
        name, base = column.name, column.sql_type.removesuffix(" NOT NULL")
        if name == "event_id":
            select.append("event_id")
            continue
        reference = next((r for r in _CONTENT_REFS if name.startswith(r + "_")), None)
        if reference is not None:
            structure[reference] = ["VARCHAR"]  # an array of strings and numbers, or null
            position = _CONTENT_FIELDS.index(name.removeprefix(reference + "_")) + 1
            select.append(f"CAST(j.{reference}[{position}] AS {base}) AS {name}")
        elif name in _ATTRIBUTE_MAPS:
            structure[name] = "JSON"  # kept as JSON text
            select.append(f"CAST(j.{name} AS VARCHAR) AS {name}")
        else:
            structure[name] = ["VARCHAR"] if base == "VARCHAR[]" else base
            select.append(f"j.{name} AS {name}")
    return json.dumps(structure, separators=(",", ":")), select


_STRUCTURE, _SELECT_FROM_JSON = _from_json()
# Inserts the registered Arrow table ``pending_events`` (``PENDING_COLUMNS``) as event
# rows: DuckDB parses each JSON text into the event's columns.
INSERT_EVENTS_FROM_JSON = (
    f"INSERT INTO {EVENTS_TABLE} BY NAME SELECT {', '.join(_SELECT_FROM_JSON)} "
    f"FROM (SELECT event_id, from_json(event, '{_STRUCTURE}') AS j FROM pending_events)"
)

SELECT_EVENT_COLUMNS = ", ".join(EVENT_COLUMN_NAMES)
