"""Record mergers with Hudi RFC-101 semantics, and merging a keyed bin (docs/record-mergers.md).

``api`` holds the data model and ``RecordMerger``; ``builtin`` the COMMIT_TIME_ORDERING and
EVENT_TIME_ORDERING mergers; ``partial`` the partial update modes; ``deletes`` the delete
markers; ``custom`` loading a CUSTOM merger from allowed modules; ``spec`` the
``KeyedMergeSpec`` and ``MergedBin``; ``local_engine`` merging a bin in this process.
"""

from processors.merge.mergers.api import (
    DEFAULT_ORDERING_VALUE,
    BufferedRecord,
    HoodieOperation,
    MergeContext,
    MergerContractError,
    PartialUpdateMode,
    RecordMergeMode,
    RecordMerger,
    compare_ordering,
)
from processors.merge.mergers.builtin import CommitTimeOrderingMerger, EventTimeOrderingMerger
from processors.merge.mergers.custom import CustomMergerError, load_merger_class
from processors.merge.mergers.deletes import DeleteMarkers
from processors.merge.mergers.local_engine import fold_records, fold_table, merge_locally
from processors.merge.mergers.spec import KeyedMergeSpec, MergedBin, MergeEngine

__all__ = [
    "DEFAULT_ORDERING_VALUE",
    "BufferedRecord",
    "CommitTimeOrderingMerger",
    "CustomMergerError",
    "DeleteMarkers",
    "EventTimeOrderingMerger",
    "HoodieOperation",
    "KeyedMergeSpec",
    "MergeContext",
    "MergeEngine",
    "MergedBin",
    "MergerContractError",
    "PartialUpdateMode",
    "RecordMergeMode",
    "RecordMerger",
    "compare_ordering",
    "fold_records",
    "fold_table",
    "load_merger_class",
    "merge_locally",
]
