"""Example CUSTOM record mergers (allow ``processors.merge.mergers.examples`` to use them)."""

from __future__ import annotations

from dataclasses import replace

from processors.merge.mergers.api import (
    BufferedRecord,
    HoodieOperation,
    MergeContext,
    RecordMerger,
)


class QuantityMerger(RecordMerger):
    """Adds up the ``qty`` deltas of a key; the key is deleted when the total drops to 0.

    A delete row deletes the key; anything after a delete starts again from its own
    ``qty``. The result keeps the newer record's other fields and ordering value, so that
    a delete still carries data (RFC-101: return DELETE, never nothing).
    """

    def merge(
        self, older: BufferedRecord, newer: BufferedRecord, context: MergeContext
    ) -> BufferedRecord:
        if newer.is_delete or older.is_delete or older.data is None or newer.data is None:
            return newer
        total = int(older.data.get("qty") or 0) + int(newer.data.get("qty") or 0)
        data = {**older.data, **newer.data, "qty": total}
        operation = HoodieOperation.DELETE if total <= 0 else HoodieOperation.UPDATE_AFTER
        return replace(newer, data=data, operation=operation, schema_id=None)


class KeepFirstMerger(RecordMerger):
    """The first version of a key wins; later ones (deletes too) are ignored."""

    def merge(
        self, older: BufferedRecord, newer: BufferedRecord, context: MergeContext
    ) -> BufferedRecord:
        return older
