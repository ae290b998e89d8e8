"""The processor API: declare properties and relationships, then act on sessions.

A processor subclasses ``Processor`` and implements ``on_trigger(context, session)``; the
framework creates the session, commits it when ``on_trigger`` returns and rolls it back
with penalty if it raises. A processor that keeps work across triggers (MergeRecord's
bins) subclasses ``SessionFactoryProcessor`` instead and creates and commits its own
sessions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Protocol

from flowcore.logsafe import safe_logger
from flowcore.processor.context import ProcessContext
from flowcore.processor.descriptors import (
    ExpressionLanguageScope,
    PropertyDescriptor,
    Relationship,
    Scheduling,
)
from flowcore.processor.validation import ValidationResult

if TYPE_CHECKING:
    from flowcore.session.session import ProcessSession


class SessionFactory(Protocol):
    def create_session(self) -> ProcessSession: ...


class Processor:
    """Base class of every processor."""

    type_name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    tags: ClassVar[Sequence[str]] = ()
    property_descriptors: ClassVar[Sequence[PropertyDescriptor]] = ()
    relationships: ClassVar[Sequence[Relationship]] = ()
    scheduling: ClassVar[Scheduling] = Scheduling()
    supports_dynamic_properties: ClassVar[bool] = False

    def __init__(self) -> None:
        self.logger = safe_logger(f"flowcore.processor.{type(self).__name__}")

    # -- declaration ----------------------------------------------------------------------

    def get_relationships(self, properties: dict[str, str]) -> list[Relationship]:
        """The relationships given the configured properties (dynamic ones included)."""
        return list(self.relationships)

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        if not self.supports_dynamic_properties:
            return None
        return PropertyDescriptor(
            name=name,
            display_name=name,
            dynamic=True,
            expression_language_scope=ExpressionLanguageScope.FLOWFILE_ATTRIBUTES,
        )

    def custom_validate(self, context: ProcessContext) -> list[ValidationResult]:
        """Checks across properties; return only the invalid results."""
        return []

    def on_property_modified(self, name: str, old: str | None, new: str | None) -> None:
        """Called when a property of the configured processor changes value (set, changed or
        removed: None) once it has been scheduled, as NiFi's ``onPropertyModified`` once its
        configuration is restored; not while it is first configured. ``name`` is the
        property's name."""

    # -- lifecycle ------------------------------------------------------------------------

    def on_scheduled(self, context: ProcessContext) -> None:
        """Called once when the processor starts, before its first trigger."""

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        raise NotImplementedError

    def on_stopped(self, context: ProcessContext) -> None:
        """Called once when the processor stops, after its last trigger has returned."""

    def next_wake_ms(self, now_ms: int) -> int | None:
        """For a trigger-when-empty processor with nothing queued: when time alone next
        gives it work (for example a bin reaching its Max Bin Age), or None if it has none.

        The deterministic scheduler advances its clock to this moment instead of spinning;
        the default, None, lets a flow go idle once the queues are empty.
        """
        return None


class SessionFactoryProcessor(Processor):
    """A processor that creates and commits its own sessions."""

    def on_trigger_with_factory(self, context: ProcessContext, factory: SessionFactory) -> None:
        raise NotImplementedError
