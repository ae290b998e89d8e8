"""Record processors: PartitionRecord, SplitRecord, ConvertRecord, QueryRecord, ValidateRecord.

Importing this package registers these processor types. Each module's docstring says
how it follows NiFi and where it differs; RecordPath support is in ``record_path``.
"""

from processors.record_processors.convert_record import ConvertRecord
from processors.record_processors.partition_record import PartitionRecord
from processors.record_processors.query_record import QueryRecord
from processors.record_processors.split_record import SplitRecord
from processors.record_processors.validate_record import ValidateRecord

__all__ = ["ConvertRecord", "PartitionRecord", "QueryRecord", "SplitRecord", "ValidateRecord"]
