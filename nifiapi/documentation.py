"""Documentation decorators and classes NiFi reads for its UI; here they change nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


class ProcessorConfiguration:
    def __init__(
        self,
        processor_type: str,
        configuration: str,
    ) -> None:
        self.processor_type = processor_type
        self.configuration = configuration


def use_case(
    description: str,
    configuration: str | None = None,
    notes: str | None = None,
    keywords: Sequence[str] | None = None,
) -> Callable[[T], T]:
    """Documents a use case of the processor; returns the class unchanged."""

    def decorate(cls: T) -> T:
        return cls

    return decorate


def multi_processor_use_case(
    description: str,
    configurations: Sequence[ProcessorConfiguration],
    notes: str | None = None,
    keywords: Sequence[str] | None = None,
) -> Callable[[T], T]:
    """Documents a use case spanning several processors; returns the class unchanged."""

    def decorate(cls: T) -> T:
        return cls

    return decorate


class UseCaseDetails:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs


class MultiProcessorUseCaseDetails(UseCaseDetails):
    pass


class PropertyDescription(UseCaseDetails):
    pass
