"""``FlowFileSource``: a processor that creates FlowFiles with no input."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from nifiapi.flowfiletransform import normalize_results
from nifiapi.properties import ProcessContext


class FlowFileSourceResult:
    class Java:
        implements = ["org.apache.nifi.python.processor.FlowFileSourceResult"]

    def __init__(
        self,
        relationship: str,
        attributes: dict[str, str] | None = None,
        contents: str | bytes | None = None,
    ) -> None:
        self.relationship = relationship
        self.attributes = attributes
        self.contents = contents.encode() if isinstance(contents, str) else contents

    def getRelationship(self) -> str:
        return self.relationship

    def getContents(self) -> bytes | None:
        return self.contents

    def getAttributes(self) -> dict[str, str] | None:
        return None if self.attributes is None else dict(self.attributes)


class FlowFileSource(ABC):
    identifier: str | None = None
    logger: Any = None
    process_context: ProcessContext

    def __init__(self, **kwargs: Any) -> None:
        self.arrayList = list

    def setContext(self, context: ProcessContext) -> None:
        self.process_context = context

    def createFlowFile(self) -> Any:
        result = self.create(self.process_context)
        if isinstance(result, FlowFileSourceResult):
            return result
        return normalize_results(result)

    @abstractmethod
    def create(self, context: ProcessContext) -> Any:
        """Return a ``FlowFileSourceResult``, a list of them, or None for nothing."""
