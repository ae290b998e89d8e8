"""MergeRecord: merge records of many FlowFiles into few, NiFi's way, or by key with Hudi
RFC-101 record mergers (``processors.merge.mergers``).

Importing this package registers the ``MergeRecord`` processor type.
"""

from processors.merge.merge_record import MergeRecord

__all__ = ["MergeRecord"]
