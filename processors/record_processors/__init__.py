"""Record processors: PartitionRecord, SplitRecord, ConvertRecord, QueryRecord, ValidateRecord,
UpdateRecord, LookupRecord.

Importing this package registers the processor types. Each module's docstring says how
it follows NiFi and where it differs; RecordPath is in ``record_path``.
"""

from processors.record_processors.convert_record import ConvertRecord
from processors.record_processors.lookup_record import LookupRecord
from processors.record_processors.partition_record import PartitionRecord
from processors.record_processors.query_record import QueryRecord
from processors.record_processors.split_record import SplitRecord
from processors.record_processors.update_record import UpdateRecord
from processors.record_processors.validate_record import ValidateRecord

__all__ = [
    "ConvertRecord",
    "LookupRecord",
    "PartitionRecord",
    "QueryRecord",
    "SplitRecord",
    "UpdateRecord",
    "ValidateRecord",
]
