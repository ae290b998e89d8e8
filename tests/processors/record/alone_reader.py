"""A record reader service without its bulk read, to compare bulk reading with reading
each FlowFile alone (differential tests of MergeRecord and the record processors)."""

from __future__ import annotations

from collections.abc import Mapping

from flowcore.processor import ControllerService
from processors.record.api import Content, RecordReader, RecordReaderFactory


class AloneReader(ControllerService):
    """Wraps a reader service: every FlowFile is read alone, as without ``read_bulk``."""

    def __init__(self, inner: RecordReaderFactory) -> None:
        super().__init__()
        self._inner = inner

    def create_reader(
        self, content: Content, attributes: Mapping[str, str], source: str
    ) -> RecordReader:
        return self._inner.create_reader(content, attributes, source)
