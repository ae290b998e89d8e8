"""The built-in mergers: COMMIT_TIME_ORDERING and EVENT_TIME_ORDERING (spec 2.3).

These are the post-RFC-101 Spark mergers ("overwrite with latest" and the "default" event
time merger) written over BufferedRecords; the vectorised local engine computes the same
winners without calling them (``local_engine``), and a property test checks that it does.
"""

from __future__ import annotations

from processors.merge.mergers.api import (
    BufferedRecord,
    MergeContext,
    RecordMergeMode,
    RecordMerger,
    compare_ordering,
)


class CommitTimeOrderingMerger(RecordMerger):
    """The later arrival always wins, deletes included."""

    def merge(
        self, older: BufferedRecord, newer: BufferedRecord, context: MergeContext
    ) -> BufferedRecord:
        return newer


class EventTimeOrderingMerger(RecordMerger):
    """The higher ordering value wins; ties go to the later arrival.

    A commit-time-ordering delete (a delete without an ordering value) on either side makes
    ``newer`` win: such a delete always applies, and anything after it resurrects the key.
    A stale update or delete (strictly lower ordering value) is ignored.
    """

    def merge(
        self, older: BufferedRecord, newer: BufferedRecord, context: MergeContext
    ) -> BufferedRecord:
        if older.is_commit_time_ordering_delete or newer.is_commit_time_ordering_delete:
            return newer
        if compare_ordering(older.ordering_value, newer.ordering_value) > 0:
            return older
        return newer


def builtin_merger(mode: RecordMergeMode) -> RecordMerger:
    """The merger of a built-in mode."""
    if mode is RecordMergeMode.COMMIT_TIME_ORDERING:
        return CommitTimeOrderingMerger()
    if mode is RecordMergeMode.EVENT_TIME_ORDERING:
        return EventTimeOrderingMerger()
    msg = f"{mode} has no built-in merger"
    raise ValueError(msg)


__all__ = ["CommitTimeOrderingMerger", "EventTimeOrderingMerger", "builtin_merger"]
