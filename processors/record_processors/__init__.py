"""Record processors: PartitionRecord, SplitRecord, ConvertRecord (issue 3)."""
