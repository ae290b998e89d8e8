"""Translate a ``ProvenanceQuery`` into one parameterised DuckDB ``SELECT``.

User values only ever travel as parameters; the SQL text is assembled from fixed
fragments. Criteria are ANDed and results come newest first (event id descending).

- ``flowfile_uuid`` goes through the uuid index table, so it also finds the events that
  name the uuid as a parent or child (NiFi indexes FORK/CLONE/REPLAY events under their
  children and JOIN events under their parents so that one query finds the event that
  created a FlowFile).
- ``attributes`` compare with the effective value: the updated map wins when it has the
  name (a JSON null there means "removed", which never matches); otherwise the previous
  map's value counts. Names are addressed with JSON pointers (RFC 6901), which can name
  any key, including ones with dots, quotes or slashes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flowcore.repository.provenance import ProvenanceQuery
from repos.duckdb_provenance.schema import (
    EVENTS_TABLE,
    SELECT_EVENT_COLUMNS,
    UUID_MATCH_SQL,
    UUIDS_TABLE,
    uuid_key_sql,
)


@dataclass(frozen=True, slots=True)
class CompiledQuery:
    sql: str
    parameters: list[Any]


def json_pointer(name: str) -> str:
    """The RFC 6901 pointer to a top-level key."""
    return "/" + name.replace("~", "~0").replace("/", "~1")


_EFFECTIVE_ATTRIBUTE = (
    "(CASE WHEN json_exists(updated_attributes, ?) "
    "THEN json_extract_string(updated_attributes, ?) "
    "ELSE json_extract_string(previous_attributes, ?) END) = ?"
)


def compile_search(query: ProvenanceQuery) -> CompiledQuery:
    """The ``SELECT`` for ``query``; ``query.limit`` must be positive."""
    conditions: list[str] = []
    parameters: list[Any] = []
    if query.flowfile_uuid is not None:
        # The key narrows the events down; the match checks the uuids themselves.
        conditions.append(
            f"event_id IN (SELECT event_id FROM {UUIDS_TABLE} "
            f"WHERE uuid_key = {uuid_key_sql('?')}) AND {UUID_MATCH_SQL}"
        )
        parameters.extend([query.flowfile_uuid] * 4)
    if query.event_type is not None:
        conditions.append("event_type = ?")
        parameters.append(str(query.event_type).upper())
    if query.component_id is not None:
        conditions.append("component_id = ?")
        parameters.append(query.component_id)
    if query.start_ms is not None:
        conditions.append("event_time >= ?")
        parameters.append(query.start_ms)
    if query.end_ms is not None:
        conditions.append("event_time <= ?")
        parameters.append(query.end_ms)
    if query.details is not None:
        conditions.append("contains(lower(details), lower(?))")
        parameters.append(query.details)
    for name, value in query.attributes.items():
        pointer = json_pointer(name)
        conditions.append(_EFFECTIVE_ATTRIBUTE)
        parameters.extend((pointer, pointer, pointer, value))
    if query.before_event_id is not None:
        conditions.append("event_id < ?")
        parameters.append(query.before_event_id)
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    sql = f"SELECT {SELECT_EVENT_COLUMNS} FROM {EVENTS_TABLE}{where} ORDER BY event_id DESC LIMIT ?"
    parameters.append(query.limit)
    return CompiledQuery(sql=sql, parameters=parameters)
