"""``RecordTransform``: a processor called once per record of a FlowFile."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any

from nifiapi.properties import AttributeSource, ProcessContext


class CachingAttributeMap:
    """Remembers each attribute it was asked for (the FlowFile's attributes do not change
    while its records are transformed)."""

    def __init__(self, delegate: AttributeSource) -> None:
        self.delegate = delegate
        self.cache: dict[str, str | None] = {}

    def getAttribute(self, attributeName: str) -> str | None:
        if attributeName not in self.cache:
            self.cache[attributeName] = self.delegate.getAttribute(attributeName)
        return self.cache[attributeName]

    def getAttributes(self) -> dict[str, str]:
        return self.delegate.getAttributes()


class RecordTransformResult:
    """The transformed record (None drops it), its relationship and partition."""

    def __init__(
        self,
        record: dict[str, Any] | None = None,
        schema: Any = None,
        relationship: str = "success",
        partition: dict[str, Any] | None = None,
    ) -> None:
        self.record = record
        self.schema = schema
        self.relationship = relationship
        self.partition = partition

    def getRecord(self) -> dict[str, Any] | None:
        return self.record

    def getSchema(self) -> Any:
        return self.schema

    def getRelationship(self) -> str:
        return self.relationship

    def getPartition(self) -> dict[str, Any] | None:
        return self.partition


class RecordTransform(ABC):
    identifier: str | None = None
    logger: Any = None
    process_context: ProcessContext

    def __init__(self, **kwargs: Any) -> None:
        self.arrayList = list

    def setContext(self, context: ProcessContext) -> None:
        self.process_context = context

    def transformRecord(
        self, jsonarray: str | list[dict[str, Any]], schema: Any, attributemap: AttributeSource
    ) -> list[RecordTransformResult]:
        """Transform each record of a batch (a JSON array, or the records themselves)."""
        records = json.loads(jsonarray) if isinstance(jsonarray, str) else jsonarray
        cached = CachingAttributeMap(attributemap)
        return [self.transform(self.process_context, record, schema, cached) for record in records]

    @abstractmethod
    def transform(
        self, context: ProcessContext, record: dict[str, Any], schema: Any, attributemap: Any
    ) -> RecordTransformResult:
        """Return a ``RecordTransformResult`` for one record (a dict)."""
