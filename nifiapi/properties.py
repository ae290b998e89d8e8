"""Properties: descriptors, validators, Expression Language scope and the values a
processor reads from its context (NiFi's ``nifiapi.properties``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from typing import Any, Protocol

from nifiapi._engine import PropertyEngine, StateBackend
from nifiapi.componentstate import StateManager


class ExpressionLanguageScope(Enum):
    NONE = 1
    ENVIRONMENT = 2
    FLOWFILE_ATTRIBUTES = 3


class Validator:
    """A standard validator, by NiFi's name; the engine applies its own equivalent."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"StandardValidators.{self.name}"


class StandardValidators:
    ALWAYS_VALID = Validator("ALWAYS_VALID")
    NON_EMPTY_VALIDATOR = Validator("NON_EMPTY_VALIDATOR")
    INTEGER_VALIDATOR = Validator("INTEGER_VALIDATOR")
    POSITIVE_INTEGER_VALIDATOR = Validator("POSITIVE_INTEGER_VALIDATOR")
    POSITIVE_LONG_VALIDATOR = Validator("POSITIVE_LONG_VALIDATOR")
    NON_NEGATIVE_INTEGER_VALIDATOR = Validator("NON_NEGATIVE_INTEGER_VALIDATOR")
    NUMBER_VALIDATOR = Validator("NUMBER_VALIDATOR")
    LONG_VALIDATOR = Validator("LONG_VALIDATOR")
    PORT_VALIDATOR = Validator("PORT_VALIDATOR")
    NON_EMPTY_EL_VALIDATOR = Validator("NON_EMPTY_EL_VALIDATOR")
    HOSTNAME_PORT_LIST_VALIDATOR = Validator("HOSTNAME_PORT_LIST_VALIDATOR")
    BOOLEAN_VALIDATOR = Validator("BOOLEAN_VALIDATOR")
    URL_VALIDATOR = Validator("URL_VALIDATOR")
    URI_VALIDATOR = Validator("URI_VALIDATOR")
    REGULAR_EXPRESSION_VALIDATOR = Validator("REGULAR_EXPRESSION_VALIDATOR")
    REGULAR_EXPRESSION_WITH_EL_VALIDATOR = Validator("REGULAR_EXPRESSION_WITH_EL_VALIDATOR")
    TIME_PERIOD_VALIDATOR = Validator("TIME_PERIOD_VALIDATOR")
    DATA_SIZE_VALIDATOR = Validator("DATA_SIZE_VALIDATOR")
    FILE_EXISTS_VALIDATOR = Validator("FILE_EXISTS_VALIDATOR")


class PropertyDependency:
    """This property shows (and is validated) only when ``property_descriptor`` is set,
    to one of ``dependent_values`` if any are given."""

    def __init__(self, property_descriptor: PropertyDescriptor, *dependent_values: str) -> None:
        self.property_descriptor = property_descriptor
        self.dependent_values = dependent_values


class ResourceDefinition:
    def __init__(
        self,
        allow_multiple: bool = False,
        allow_file: bool = True,
        allow_url: bool = False,
        allow_directory: bool = False,
        allow_text: bool = False,
    ) -> None:
        self.allow_multiple = allow_multiple
        self.allow_file = allow_file
        self.allow_url = allow_url
        self.allow_directory = allow_directory
        self.allow_text = allow_text


class PropertyDescriptor:
    """A property; ``name`` is its key in a flow, ``display_name`` what users see."""

    def __init__(
        self,
        name: str,
        description: str,
        required: bool = False,
        sensitive: bool = False,
        display_name: str | None = None,
        default_value: Any = None,
        allowable_values: Sequence[str] | None = None,
        dependencies: Sequence[PropertyDependency] | None = None,
        expression_language_scope: ExpressionLanguageScope = ExpressionLanguageScope.NONE,
        dynamic: bool = False,
        validators: Sequence[Validator] | None = None,
        resource_definition: ResourceDefinition | None = None,
        controller_service_definition: str | None = None,
    ) -> None:
        self.name = name
        self.description = description
        self.required = required
        self.sensitive = sensitive
        self.displayName = display_name
        self.defaultValue = None if default_value is None else str(default_value)
        self.allowableValues = allowable_values
        self.dependencies = dependencies
        self.expressionLanguageScope = expression_language_scope
        self.dynamic = dynamic
        self.validators = (
            list(validators) if validators is not None else [StandardValidators.ALWAYS_VALID]
        )
        self.resourceDefinition = resource_definition
        self.controllerServiceDefinition = controller_service_definition

    def __repr__(self) -> str:
        return f"PropertyDescriptor({self.name!r})"


class TimeUnit(Enum):
    NANOSECONDS = ("NANOSECONDS",)
    MICROSECONDS = ("MICROSECONDS",)
    MILLISECONDS = ("MILLISECONDS",)
    SECONDS = ("SECONDS",)
    MINUTES = ("MINUTES",)
    HOURS = ("HOURS",)
    DAYS = ("DAYS",)


class DataUnit(Enum):
    B = ("B",)
    KB = ("KB",)
    MB = ("MB",)
    GB = ("GB",)
    TB = ("TB",)


_MS_PER_UNIT = {
    TimeUnit.NANOSECONDS: 1e-6,
    TimeUnit.MICROSECONDS: 1e-3,
    TimeUnit.MILLISECONDS: 1.0,
    TimeUnit.SECONDS: 1e3,
    TimeUnit.MINUTES: 60e3,
    TimeUnit.HOURS: 3600e3,
    TimeUnit.DAYS: 86400e3,
}
_BYTES_PER_UNIT = {
    DataUnit.B: 1.0,
    DataUnit.KB: 1024.0,
    DataUnit.MB: 1024.0**2,
    DataUnit.GB: 1024.0**3,
    DataUnit.TB: 1024.0**4,
}


class AttributeSource(Protocol):
    """Anything with NiFi's two attribute methods: an InputFlowFile or an AttributeMap."""

    def getAttribute(self, name: str) -> str | None: ...

    def getAttributes(self) -> dict[str, str]: ...


# A value that is one attribute reference, ``${name}`` or ``${'name'}``: read directly.
_TRIVIAL = re.compile(r"\$\{([^${}\[\],:;/*' \t\r\n\\\d][^${}\[\],:;/*' \t\r\n\\]*)\}")
_QUOTED = re.compile(r"\$\{'([^${}\[\],:;/*' \t\r\n\\\d][^${}\[\],:;/*'\t\r\n\\]*)'\}")


class PythonPropertyValue:
    """A property's value with NiFi's conversions (``asInteger``, ``asTimePeriod``...)."""

    def __init__(
        self,
        value: str | None,
        engine: PropertyEngine,
        *,
        name: str | None = None,
        el_supported: bool = True,
    ) -> None:
        self.value = value
        self._engine = engine
        self._name = name
        self.el_supported = el_supported
        self.el_present = value is not None and "${" in value

    def getValue(self) -> str | None:
        return self.value

    def isSet(self) -> bool:
        return self.value is not None

    def isExpressionLanguagePresent(self) -> bool:
        return self.el_present

    def asInteger(self) -> int | None:
        return None if self.value is None else int(self.value)

    def asBoolean(self) -> bool | None:
        return None if self.value is None else self.value.lower() == "true"

    def asFloat(self) -> float | None:
        return None if self.value is None else float(self.value)

    def asTimePeriod(self, time_unit: TimeUnit) -> int | None:
        """The period in ``time_unit``, truncated to a whole number (as Java's long)."""
        if self.value is None:
            return None
        return int(self._engine.time_period_ms(self.value) / _MS_PER_UNIT[time_unit])

    def asDataSize(self, data_unit: DataUnit) -> float | None:
        if self.value is None:
            return None
        return self._engine.data_size_bytes(self.value) / _BYTES_PER_UNIT[data_unit]

    def asControllerService(self) -> Any:
        return None if self.value is None else self._engine.controller_service(self.value)

    def asResource(self) -> str | None:
        """The resource's location (a path or URL) as text."""
        return self.value

    def asResources(self) -> list[str]:
        if self.value is None:
            return []
        return [part.strip() for part in self.value.split(",") if part.strip()]

    def evaluateAttributeExpressions(
        self,
        attributeMap: AttributeSource | Mapping[str, str] | None = None,
    ) -> PythonPropertyValue:
        """The value with Expression Language evaluated (itself if there is none)."""
        if not (self.el_supported and self.el_present) or self.value is None:
            return self
        trivial = _TRIVIAL.fullmatch(self.value) or _QUOTED.fullmatch(self.value)
        if trivial is not None and attributeMap is not None:
            if isinstance(attributeMap, Mapping):
                found: str | None = attributeMap.get(trivial.group(1))
            else:
                found = attributeMap.getAttribute(trivial.group(1))
            result = "" if found is None else found
        else:
            attributes: Mapping[str, str]
            if attributeMap is None:
                attributes = {}
            elif isinstance(attributeMap, Mapping):
                attributes = attributeMap
            else:
                attributes = attributeMap.getAttributes()
            result = self._engine.evaluate(self._name, self.value, attributes)
        evaluated = PythonPropertyValue(
            result, self._engine, name=self._name, el_supported=self.el_supported
        )
        evaluated.el_present = False
        return evaluated

    def __repr__(self) -> str:
        return f"PythonPropertyValue({self.value!r})"


class PropertyContext:
    """What ``ProcessContext`` and ``ValidationContext`` share: the property values."""

    def __init__(
        self,
        values: Mapping[PropertyDescriptor, str | None],
        engine: PropertyEngine,
    ) -> None:
        self._engine = engine
        self.descriptor_value_map: dict[PropertyDescriptor, str | None] = dict(values)
        self.property_values: dict[str, PythonPropertyValue] = {
            descriptor.name: PythonPropertyValue(
                value,
                engine,
                name=descriptor.name,
                el_supported=descriptor.expressionLanguageScope is not ExpressionLanguageScope.NONE,
            )
            for descriptor, value in values.items()
        }

    def getProperty(self, descriptor: PropertyDescriptor | str) -> PythonPropertyValue | None:
        """The value of a property whose dependencies are met; None for any other."""
        name = descriptor if isinstance(descriptor, str) else descriptor.name
        return self.property_values.get(name)

    def getProperties(self) -> dict[PropertyDescriptor, str | None]:
        return dict(self.descriptor_value_map)

    def newPropertyValue(self, value: str) -> PythonPropertyValue:
        return PythonPropertyValue(value, self._engine)


class ProcessContext(PropertyContext):
    def __init__(
        self,
        values: Mapping[PropertyDescriptor, str | None],
        engine: PropertyEngine,
        *,
        name: str,
        state: StateBackend,
        yield_callback: Any = None,
    ) -> None:
        super().__init__(values, engine)
        self.name = name
        self._state = state
        self._yield = yield_callback

    def getName(self) -> str:
        return self.name

    def yield_resources(self) -> None:
        """Ask the framework not to trigger this processor for its yield duration."""
        if self._yield is not None:
            self._yield()

    def getStateManager(self) -> StateManager:
        return StateManager(self._state)


class ValidationContext(PropertyContext):
    pass


class ValidationResult:
    def __init__(
        self,
        subject: str = "",
        explanation: str = "",
        valid: bool = False,
        input: str | None = None,
    ) -> None:
        self.subject = subject
        self.explanation = explanation
        self.valid = valid
        self.input = input


def dependencies_met(
    descriptor: PropertyDescriptor, configured: Mapping[str, str | None], seen: Iterable[str] = ()
) -> bool:
    """Whether every dependency of ``descriptor`` is satisfied by the configured values
    (a dependency on a property that itself is hidden is not satisfied)."""
    for dependency in descriptor.dependencies or ():
        target = dependency.property_descriptor
        if target.name in seen:
            return False
        value = configured.get(target.name)
        if value is None:
            value = target.defaultValue
        if value is None:
            return False
        if dependency.dependent_values and value not in dependency.dependent_values:
            return False
        if not dependencies_met(target, configured, (*seen, descriptor.name)):
            return False
    return True
