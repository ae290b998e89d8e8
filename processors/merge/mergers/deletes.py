"""Delete markers: how a data row says it is a delete (Hudi's ``isDeleteRecord``).

Any of: the operation field holds ``D`` or ``-U``; the is-deleted field is true; the custom
field, cast to a string, equals the custom marker. The test is vectorised (Arrow compute)
and is the one source of truth for every engine: the Python fold reads its result from the
prepared table's ``__flowcore_delete`` column, and ``reads_as_delete`` runs the very same
kernels on a one-row table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from processors.merge.mergers.api import HoodieOperation

DELETE_CODES = (HoodieOperation.DELETE.value, HoodieOperation.UPDATE_BEFORE.value)


@dataclass(frozen=True, slots=True)
class DeleteMarkers:
    """The configured delete markers (field names; None when not configured)."""

    operation_field: str | None = None
    is_deleted_field: str | None = None
    custom_field: str | None = None
    custom_marker: str | None = None

    @property
    def configured(self) -> bool:
        return bool(self.operation_field or self.is_deleted_field or self.custom_field)


def _as_string(column: pa.ChunkedArray | pa.Array) -> Any:
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return column
    return pc.cast(column, pa.string())


def delete_mask(table: pa.Table, markers: DeleteMarkers) -> pa.ChunkedArray | pa.Array:
    """A non-null boolean per row: does the row read as a delete?"""
    mask: Any = None
    names = table.schema.names
    parts: list[Any] = []
    if markers.operation_field and markers.operation_field in names:
        codes = _as_string(table.column(markers.operation_field))
        parts.append(pc.is_in(codes, value_set=pa.array(DELETE_CODES)))
    if markers.is_deleted_field and markers.is_deleted_field in names:
        column = table.column(markers.is_deleted_field)
        if pa.types.is_boolean(column.type):
            parts.append(column)
        else:
            parts.append(pc.equal(pc.utf8_lower(_as_string(column)), "true"))
    if markers.custom_field and markers.custom_marker is not None and markers.custom_field in names:
        column = _as_string(table.column(markers.custom_field))
        parts.append(pc.equal(column, markers.custom_marker))
    for part in parts:
        part = pc.fill_null(part, False)
        mask = part if mask is None else pc.or_(mask, part)
    if mask is None:
        return pa.chunked_array([pa.array([False] * table.num_rows, pa.bool_())])
    return mask


def reads_as_delete(data: Mapping[str, Any], markers: DeleteMarkers, schema: pa.Schema) -> bool:
    """Whether one record's data reads as a delete, by the same kernels as ``delete_mask``."""
    if not markers.configured:
        return False
    fields = [f for f in schema if f.name in data]
    row = pa.Table.from_pylist([{f.name: data[f.name] for f in fields}], schema=pa.schema(fields))
    return bool(delete_mask(row, markers)[0].as_py())


def mark_deleted(
    data: Mapping[str, Any],
    operation: HoodieOperation,
    markers: DeleteMarkers,
    schema: pa.Schema,
) -> dict[str, Any]:
    """``data`` with the first configured marker set (operation code, true, marker value)."""
    result = dict(data)
    for name, value in (
        (markers.operation_field, operation.value),
        (markers.is_deleted_field, True),
        (markers.custom_field, markers.custom_marker),
    ):
        if not name or value is None:
            continue
        index = schema.get_field_index(name)
        if index < 0:
            continue
        try:
            result[name] = pa.scalar(value).cast(schema.field(index).type).as_py()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
        return result
    return result


__all__ = ["DELETE_CODES", "DeleteMarkers", "delete_mask", "mark_deleted", "reads_as_delete"]
