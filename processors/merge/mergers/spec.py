"""What a keyed merge needs to know (``KeyedMergeSpec``) and what it gives (``MergedBin``).

The spec is a frozen, picklable dataclass so that every engine (local, Spark workers) gets
the same configuration and merges the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import pyarrow as pa

from processors.merge.mergers.api import MergeContext, PartialUpdateMode, RecordMergeMode
from processors.merge.mergers.deletes import DeleteMarkers


class MergeEngine(StrEnum):
    """Where a bin is merged: ``auto`` picks ``spark`` above the offload thresholds."""

    AUTO = "auto"
    LOCAL = "local"
    SPARK = "spark"


@dataclass(frozen=True, slots=True)
class KeyedMergeSpec:
    """A merge by key: which fields, which mode, which deletes, which partial updates.

    ``custom_merger`` is a ``module:Class`` or ``module.Class`` path, loaded only from
    ``allowed_custom_modules`` (``settings.record_mergers.allowed_custom_modules``).
    """

    key_fields: tuple[str, ...]
    ordering_fields: tuple[str, ...] = ()
    mode: RecordMergeMode = RecordMergeMode.COMMIT_TIME_ORDERING
    custom_merger: str | None = None
    allowed_custom_modules: tuple[str, ...] = ()
    delete_markers: DeleteMarkers = field(default_factory=DeleteMarkers)
    partial_update_mode: PartialUpdateMode = PartialUpdateMode.NONE
    partial_update_marker: str | None = None
    keep_tombstones: bool = False

    @property
    def vectorised(self) -> bool:
        """Built-in mode without partial updates: winners computed without the fold."""
        return (
            self.mode is not RecordMergeMode.CUSTOM
            and self.partial_update_mode is PartialUpdateMode.NONE
        )

    def context(self, reader_schema: pa.Schema) -> MergeContext:
        """The merge context for a bin whose union schema is ``reader_schema``."""
        return MergeContext(
            reader_schema=reader_schema,
            key_fields=self.key_fields,
            ordering_fields=self.ordering_fields,
            partial_update_mode=self.partial_update_mode,
            partial_update_marker=self.partial_update_marker,
        )


@dataclass(frozen=True, slots=True)
class MergedBin:
    """A merged bin: one row per key in first-arrival order, and what happened.

    ``records_in`` counts input records, ``records_out`` the rows of ``table``, ``deletes``
    the keys whose final state is a delete (dropped, or kept as tombstones in ``table``).
    """

    table: pa.Table
    records_in: int
    records_out: int
    deletes: int
    engine: str


__all__ = ["KeyedMergeSpec", "MergeEngine", "MergedBin"]
