"""The union schema of a keyed bin, and fitting each FlowFile's table to it.

FlowFiles with different schemas may share a keyed bin. The reader schema is the union of
their fields in first-appearance order; a field keeps one type. A column whose values are
all null (or that has no rows) does not fix the type (CSV and JSON inference give such a
column a placeholder type); if no FlowFile fixes it, the first type seen is kept. Two
different types for a field are a conflict: the FlowFile that brings the second one is
refused (``SchemaConflictError``).
"""

from __future__ import annotations

import pyarrow as pa

from flowcore.errors import ProcessException


class SchemaConflictError(ProcessException):
    """A field has another type in this table than in the bin; ``reason`` says which."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def _fixes_type(column: pa.ChunkedArray) -> bool:
    return len(column) > 0 and column.null_count < len(column)


class UnionSchema:
    """Accumulates a bin's schemas; gives schema ids and the reader (union) schema."""

    def __init__(self) -> None:
        self._fields: dict[str, pa.Field] = {}
        self._fixed: set[str] = set()
        self._schemas: list[pa.Schema] = []

    def conflict(self, table: pa.Table) -> str | None:
        """Why ``table`` cannot join the bin, or None if it can."""
        for index, f in enumerate(table.schema):
            known = self._fields.get(f.name)
            if known is None or known.type.equals(f.type):
                continue
            if f.name in self._fixed and _fixes_type(table.column(index)):
                return f"field '{f.name}' has type {f.type} here but {known.type} in the bin"
        return None

    def add(self, table: pa.Table) -> int:
        """Add a table's schema (SchemaConflictError if it conflicts); its schema id."""
        reason = self.conflict(table)
        if reason is not None:
            raise SchemaConflictError(reason)
        for index, f in enumerate(table.schema):
            fixes = _fixes_type(table.column(index))
            if f.name not in self._fields or (fixes and f.name not in self._fixed):
                self._fields[f.name] = f.with_nullable(True)
            if fixes:
                self._fixed.add(f.name)
        schema = table.schema
        for schema_id, known in enumerate(self._schemas):
            if known.equals(schema):
                return schema_id
        self._schemas.append(schema)
        return len(self._schemas) - 1

    @property
    def schema(self) -> pa.Schema:
        """The reader schema: every field seen, in first-appearance order, nullable."""
        return pa.schema(list(self._fields.values()))

    @property
    def schema_fields(self) -> tuple[tuple[str, ...], ...]:
        """The field names of each schema id."""
        return tuple(tuple(s.names) for s in self._schemas)


def conform_table(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` in ``schema``: columns by name, absent ones null, all-null ones retyped."""
    if table.schema.equals(schema):
        return table
    names = table.schema.names
    rows = table.num_rows
    columns: list[pa.ChunkedArray | pa.Array] = []
    for target in schema:
        if target.name not in names:
            columns.append(pa.nulls(rows, target.type))
            continue
        column = table.column(target.name)
        if column.type.equals(target.type):
            columns.append(column)
        elif column.null_count == rows:
            columns.append(pa.nulls(rows, target.type))
        else:
            columns.append(column.cast(target.type))
    return pa.Table.from_arrays(columns, schema=schema)


__all__ = ["SchemaConflictError", "UnionSchema", "conform_table"]
