"""Processor and controller-service types by name ("MergeRecord").

Types register with the ``processor`` and ``controller_service`` decorators. Packages
that provide them are listed under the ``flowcore.processors`` entry points and imported
the first time a name is looked up, so the engine never imports them itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path
from typing import TypeVar

from flowcore.errors import ConfigurationError
from flowcore.processor.processor import Processor
from flowcore.processor.service import ControllerService

ProcessorProvider = Callable[[str, Sequence[Path]], "type[Processor] | None"]
"""Finds a processor type that is not registered by name in folders (NiFi Python
processors in ``python/extensions``): given the type name and the folders, its class or
None."""

_processors: dict[str, type[Processor]] = {}
_services: dict[str, type[ControllerService]] = {}
_providers: list[ProcessorProvider] = []
_loaded = False
_lock = threading.Lock()

P = TypeVar("P", bound=type[Processor])
S = TypeVar("S", bound=type[ControllerService])


def processor(type_name: str) -> Callable[[P], P]:
    """Register a processor class under ``type_name``."""

    def register(cls: P) -> P:
        cls.type_name = type_name
        _processors[type_name] = cls
        return cls

    return register


def processor_provider(provider: ProcessorProvider) -> ProcessorProvider:
    """Register a provider of processor types found outside the registry (in folders)."""
    _providers.append(provider)
    return provider


def controller_service(type_name: str) -> Callable[[S], S]:
    """Register a controller service class under ``type_name``."""

    def register(cls: S) -> S:
        cls.type_name = type_name
        _services[type_name] = cls
        return cls

    return register


def _load_entry_points() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        for entry in entry_points(group="flowcore.processors"):
            import_module(entry.value.split(":")[0])
        _loaded = True


def processor_class(type_name: str, search_dirs: Sequence[Path] = ()) -> type[Processor]:
    """The processor class of a type name: a registered one, else one a provider finds
    in ``search_dirs`` (the Python extensions folders)."""
    if type_name not in _processors:
        _load_entry_points()
    try:
        return _processors[type_name]
    except KeyError:
        for provider in list(_providers):
            found = provider(type_name, search_dirs)
            if found is not None:
                return found
        known = ", ".join(sorted(_processors)) or "none"
        msg = f"unknown processor type '{type_name}' (known types: {known})"
        if search_dirs:
            folders = ", ".join(str(folder) for folder in search_dirs)
            msg += f"; no NiFi Python processor of that name in {folders}"
        raise ConfigurationError(msg) from None


def service_class(type_name: str) -> type[ControllerService]:
    if type_name not in _services:
        _load_entry_points()
    try:
        return _services[type_name]
    except KeyError:
        known = ", ".join(sorted(_services)) or "none"
        msg = f"unknown controller service type '{type_name}' (known types: {known})"
        raise ConfigurationError(msg) from None


def processor_types() -> list[str]:
    _load_entry_points()
    return sorted(_processors)
