"""What a processor sees of its configuration and of the engine while it runs."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from flowcore.clock import Clock
from flowcore.errors import ConfigurationError
from flowcore.logsafe import safe_logger
from flowcore.model.flowfile import FlowFile
from flowcore.processor.descriptors import (
    ExpressionLanguageScope,
    PropertyDescriptor,
    Relationship,
)
from flowcore.units import parse_data_size, parse_time_period

if TYPE_CHECKING:
    from flowcore.offload import ComputeServices
    from flowcore.processor.service import ControllerService
    from flowcore.settings import EngineSettings


class PropertyValue:
    """A property's configured value (or default), with NiFi's conversions."""

    __slots__ = ("_context", "_descriptor", "value")

    def __init__(
        self, value: str | None, descriptor: PropertyDescriptor | None, context: ProcessContext
    ) -> None:
        self.value = value
        self._descriptor = descriptor
        self._context = context

    @property
    def is_set(self) -> bool:
        return self.value is not None

    def as_str(self) -> str:
        return "" if self.value is None else self.value

    def as_int(self) -> int | None:
        return None if self.value in (None, "") else int(str(self.value).strip())

    def as_float(self) -> float | None:
        return None if self.value in (None, "") else float(str(self.value).strip())

    def as_bool(self) -> bool:
        return str(self.value).strip().lower() == "true"

    def as_time_period_seconds(self) -> float | None:
        return None if self.value in (None, "") else parse_time_period(str(self.value))

    def as_time_period_ms(self) -> int | None:
        seconds = self.as_time_period_seconds()
        return None if seconds is None else round(seconds * 1000)

    def as_data_size(self) -> int | None:
        return None if self.value in (None, "") else parse_data_size(str(self.value))

    def evaluate(
        self, flowfile: FlowFile | Mapping[str, str] | None = None, **extra: str
    ) -> PropertyValue:
        """Evaluate Expression Language in the value against a FlowFile's attributes."""
        if self.value is None or ("$" not in self.value and "#{" not in self.value):
            return self
        scope = (
            self._descriptor.expression_language_scope
            if self._descriptor is not None
            else ExpressionLanguageScope.FLOWFILE_ATTRIBUTES
        )
        if scope is ExpressionLanguageScope.NONE:
            return self
        from flowcore.el import compile_expression

        attributes: Mapping[str, str] = {}
        if scope is ExpressionLanguageScope.FLOWFILE_ATTRIBUTES:
            if isinstance(flowfile, FlowFile):
                from flowcore.el.lookup import FlowFileLookup

                attributes = FlowFileLookup(flowfile)
            elif flowfile is not None:
                attributes = flowfile
        if extra:
            attributes = {**attributes, **extra}
        result = compile_expression(self.value).evaluate(
            attributes, env=os.environ, now_ms=self._context.now_ms()
        )
        return PropertyValue(result, self._descriptor, self._context)

    def as_controller_service(self) -> ControllerService:
        if self.value is None:
            msg = "no controller service is configured"
            raise ConfigurationError(msg)
        return self._context.get_controller_service(self.value)

    def __repr__(self) -> str:
        return f"PropertyValue({self.value!r})"


class ProcessContext:
    """A processor's view of its configuration and of the engine."""

    def __init__(
        self,
        *,
        component_id: str,
        name: str,
        descriptors: Mapping[str, PropertyDescriptor],
        properties: Mapping[str, str],
        clock: Clock,
        services: Mapping[str, ControllerService] | None = None,
        yield_callback: Callable[[], None] | None = None,
        max_concurrent_tasks: int = 1,
        available_relationships: frozenset[str] = frozenset(),
        settings: EngineSettings | None = None,
        compute: ComputeServices | None = None,
        auto_terminated: frozenset[str] = frozenset(),
    ) -> None:
        self.component_id = component_id
        self.name = name
        self._descriptors = dict(descriptors)
        self._properties = dict(properties)
        self._clock = clock
        self._services = dict(services or {})
        self._yield = yield_callback
        self.max_concurrent_tasks = max_concurrent_tasks
        self.available_relationships = available_relationships
        self.auto_terminated = auto_terminated
        self._settings = settings
        self._compute = compute
        self.logger = safe_logger(f"flowcore.processor.{name}")

    @property
    def settings(self) -> EngineSettings:
        """The engine's settings (defaults when the component runs outside an engine)."""
        if self._settings is None:
            from flowcore.settings import EngineSettings

            self._settings = EngineSettings()
        return self._settings

    @property
    def compute(self) -> ComputeServices:
        """Spark and its staging area, for work too heavy for the engine's process."""
        if self._compute is None:
            from flowcore.offload import ComputeServices

            self._compute = ComputeServices(self.settings)
        return self._compute

    def now_ms(self) -> int:
        return self._clock.now_ms()

    @property
    def clock(self) -> Clock:
        return self._clock

    def descriptor(self, key: str | PropertyDescriptor) -> PropertyDescriptor | None:
        name = key.name if isinstance(key, PropertyDescriptor) else key
        return self._descriptors.get(name)

    def get_property(self, key: str | PropertyDescriptor) -> PropertyValue:
        descriptor = self.descriptor(key)
        name = key.name if isinstance(key, PropertyDescriptor) else key
        value = self._properties.get(name)
        if descriptor is not None:
            value = descriptor.default if value is None else descriptor.canonical(value)
        return PropertyValue(value, descriptor, self)

    @property
    def properties(self) -> dict[str, str]:
        """Configured values by property name (defaults not included)."""
        return dict(self._properties)

    def dynamic_properties(self) -> dict[str, str]:
        return {
            k: v
            for k, v in self._properties.items()
            if k not in self._descriptors or self._descriptors[k].dynamic
        }

    def get_controller_service(self, identifier: str) -> ControllerService:
        try:
            return self._services[identifier]
        except KeyError:
            msg = f"no controller service with identifier '{identifier}'"
            raise ConfigurationError(msg) from None

    def is_auto_terminated(self, relationship: str | Relationship) -> bool:
        """Whether FlowFiles sent to ``relationship`` are dropped (NiFi's isAutoTerminated):
        a processor may then skip making them."""
        return str(relationship) in self.auto_terminated

    def yield_processor(self) -> None:
        """Ask the framework not to trigger this processor for its yield duration."""
        if self._yield is not None:
            self._yield()
