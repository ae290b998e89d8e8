"""What the host engine provides behind the API objects (kept out of processors' sight)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class PropertyEngine(Protocol):
    """Evaluates and converts property values for ``PythonPropertyValue``."""

    def evaluate(self, name: str | None, value: str, attributes: Mapping[str, str]) -> str:
        """The value with its Expression Language evaluated against ``attributes``."""
        ...

    def time_period_ms(self, value: str) -> float:
        """A NiFi time period ("30 sec") in milliseconds."""
        ...

    def data_size_bytes(self, value: str) -> float:
        """A NiFi data size ("1 MB") in bytes."""
        ...

    def controller_service(self, identifier: str) -> Any:
        """The controller service with this identifier."""
        ...


class StateBackend(Protocol):
    """The component's state, as the engine keeps it (one map; CLUSTER equals LOCAL)."""

    def get(self) -> dict[str, str]: ...

    def set(self, values: Mapping[str, str]) -> None: ...


class ComponentLog(Protocol):
    def log(self, level: int, message: str) -> None: ...
