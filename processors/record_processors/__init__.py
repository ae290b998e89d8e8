"""Record processors: PartitionRecord, SplitRecord, ConvertRecord (issue 3).

Importing this package registers the three processor types. Each module's docstring says
how it follows NiFi and where it differs; RecordPath support is in ``record_path``.
"""

from processors.record_processors.convert_record import ConvertRecord
from processors.record_processors.partition_record import PartitionRecord
from processors.record_processors.split_record import SplitRecord

__all__ = ["ConvertRecord", "PartitionRecord", "SplitRecord"]
