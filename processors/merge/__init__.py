"""MergeRecord: merge records of many FlowFiles into few, NiFi's way (issue 3)."""
