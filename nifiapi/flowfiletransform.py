"""``FlowFileTransform``: a processor that turns one FlowFile into a result."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from nifiapi.properties import ProcessContext


class FlowFileTransformResult:
    """Where the FlowFile goes, attributes to add, and new content (None keeps it)."""

    class Java:
        implements = ["org.apache.nifi.python.processor.FlowFileTransformResult"]

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


def normalize_results(result: Any) -> Any:
    """One result as it is; a list, tuple or other iterable as a list without Nones."""
    if result is None or isinstance(result, FlowFileTransformResult | str | bytes | dict):
        return result
    if hasattr(result, "__iter__"):
        return [entry for entry in result if entry is not None]
    return result


class FlowFileTransform(ABC):
    # Set by the framework when the component is created.
    identifier: str | None = None
    logger: Any = None
    process_context: ProcessContext

    def __init__(self, **kwargs: Any) -> None:
        self.arrayList = list

    def setContext(self, context: ProcessContext) -> None:
        self.process_context = context

    def transformFlowFile(self, flowfile: Any) -> Any:
        return normalize_results(self.transform(self.process_context, flowfile))

    @abstractmethod
    def transform(self, context: ProcessContext, flowFile: Any) -> Any:
        """Return a ``FlowFileTransformResult`` (or a list of them)."""
