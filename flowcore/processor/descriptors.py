"""Property descriptors and relationships: what a processor declares about itself."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from flowcore.processor.validation import ValidationResult

Validator = Callable[[str, str], ValidationResult]
"""Given the property's display name and value, say whether the value is valid."""


class ExpressionLanguageScope(StrEnum):
    """What an Expression Language text in a property may refer to."""

    NONE = "NONE"
    ENVIRONMENT = "ENVIRONMENT"
    FLOWFILE_ATTRIBUTES = "FLOWFILE_ATTRIBUTES"


@dataclass(frozen=True, slots=True)
class AllowableValue:
    value: str
    display_name: str = ""
    description: str = ""


@dataclass(frozen=True, slots=True)
class PropertyDescriptor:
    """A processor property. ``name`` is the stable key; users see ``display_name``.

    ``controller_service`` marks a property whose value is a controller service's
    identifier: ``True`` for any service, or the interface (a class or a runtime-checkable
    protocol) the service must implement. Validation checks the service exists and is one.
    ``external_resource`` marks a file or directory on this machine (NiFi's "identifies
    external resource"): the CLI resolves a relative one from the flow file's folder.
    """

    name: str
    display_name: str = ""
    description: str = ""
    default: str | None = None
    required: bool = False
    allowable_values: Sequence[AllowableValue | str] = ()
    validators: Sequence[Validator] = ()
    expression_language_scope: ExpressionLanguageScope = ExpressionLanguageScope.NONE
    controller_service: bool | type[Any] = False
    sensitive: bool = False
    dynamic: bool = False
    external_resource: bool = False

    @property
    def label(self) -> str:
        return self.display_name or self.name

    @property
    def allowed(self) -> list[str]:
        return [v.value if isinstance(v, AllowableValue) else v for v in self.allowable_values]

    def canonical(self, value: str) -> str:
        """An allowable value given by its display name, as its value; others unchanged."""
        for allowable in self.allowable_values:
            if isinstance(allowable, AllowableValue) and value == allowable.display_name:
                return allowable.value
        return value

    @property
    def supports_expression_language(self) -> bool:
        return self.expression_language_scope is not ExpressionLanguageScope.NONE


@dataclass(frozen=True, slots=True)
class Relationship:
    """A named outlet of a processor."""

    name: str
    description: str = ""
    auto_terminate_default: bool = False

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Scheduling:
    """A processor type's scheduling traits (NiFi annotations)."""

    trigger_when_empty: bool = False
    trigger_serially: bool = False
    trigger_when_any_destination_available: bool = False
    input_required: bool = True
    extra: dict[str, str] = field(default_factory=dict)
