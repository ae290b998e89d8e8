"""Controller services: shared, configured objects that processors look up by identifier."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from flowcore.processor.context import ProcessContext
from flowcore.processor.descriptors import PropertyDescriptor
from flowcore.processor.validation import ValidationResult


class ControllerService:
    """Base class of controller services (record readers and writers, for example)."""

    type_name: ClassVar[str] = ""
    property_descriptors: ClassVar[Sequence[PropertyDescriptor]] = ()

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        """The descriptor of a user-defined property, or None when the service takes none
        (a lookup service's entries, for example)."""
        return None

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        return []

    def on_enabled(self, context: ProcessContext) -> None:
        """Called once with the service's configuration before processors use it."""

    def on_disabled(self) -> None:
        """Called once when the node shuts down, after its processors have stopped: let go
        of what ``on_enabled`` opened (files, stores, connections)."""
