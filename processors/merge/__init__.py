"""MergeRecord: merge records of many FlowFiles into few, NiFi's way (issue 3).

Importing this package registers the ``MergeRecord`` processor type.
"""

from processors.merge.merge_record import MergeRecord

__all__ = ["MergeRecord"]
