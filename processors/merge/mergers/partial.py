"""Partial updates (spec 2.4): fill fields of the high-order record from the low-order one.

``high`` is the record ``merge`` chose, ``low`` the other. Deletes never get here (a delete
neither gives nor takes field values). The result keeps high's key, ordering value and
operation.

* KEEP_VALUES: a field *absent* from high's schema comes from low; present fields (even
  null) win. The result has the union of both records' fields in reader-schema order; when
  that is high's own field set, high is returned unchanged.
* FILL_DEFAULTS, IGNORE_DEFAULTS, IGNORE_MARKERS work, as Hudi's do, on records read in
  the reader schema: an absent field reads as its schema default. FILL_DEFAULTS keeps high
  so read; IGNORE_DEFAULTS takes from low every top-level field whose value in high equals
  its default; IGNORE_MARKERS takes from low every string or bytes field whose value in
  high equals the Partial Update Marker. Their results have every reader-schema field.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pyarrow as pa

from processors.merge.mergers.api import (
    BufferedRecord,
    MergeContext,
    PartialUpdateMode,
    schema_default,
)


def project(data: dict[str, Any] | Any, schema: pa.Schema) -> dict[str, Any]:
    """``data`` read in ``schema``: every field, absent ones at their schema default."""
    return {
        name: data[name] if name in data else schema_default(schema, name) for name in schema.names
    }


def _is_marker(value: Any, data_type: pa.DataType, marker: str) -> bool:
    if pa.types.is_string(data_type) or pa.types.is_large_string(data_type):
        return isinstance(value, str) and value == marker
    if pa.types.is_binary(data_type) or pa.types.is_large_binary(data_type):
        return isinstance(value, bytes) and value == marker.encode("utf-8")
    return False


def merge_partial_fields(
    high: BufferedRecord, low: BufferedRecord, reader_schema: pa.Schema, context: MergeContext
) -> BufferedRecord:
    """High's record with fields filled from low by ``context.partial_update_mode``."""
    mode = context.partial_update_mode
    if mode is PartialUpdateMode.NONE or high.data is None or low.data is None:
        return high
    high_data, low_data = high.data, low.data
    if mode is PartialUpdateMode.KEEP_VALUES:
        names = [n for n in reader_schema.names if n in high_data or n in low_data]
        if len(names) == len(high_data):
            return high
        data = {n: high_data[n] if n in high_data else low_data[n] for n in names}
        return replace(high, data=data, schema_id=None)
    high_full = project(high_data, reader_schema)
    if mode is PartialUpdateMode.FILL_DEFAULTS:
        return replace(high, data=high_full, schema_id=None)
    low_full = project(low_data, reader_schema)
    result: dict[str, Any] = {}
    if mode is PartialUpdateMode.IGNORE_DEFAULTS:
        for name, value in high_full.items():
            default = schema_default(reader_schema, name)
            result[name] = low_full[name] if value == default else value
    else:  # IGNORE_MARKERS
        marker = context.partial_update_marker
        for f in reader_schema:
            value = high_full[f.name]
            taken = marker is not None and _is_marker(value, f.type, marker)
            result[f.name] = low_full[f.name] if taken else value
    return replace(high, data=result, schema_id=None)


__all__ = ["merge_partial_fields", "project"]
