"""Find repository implementations by name through the ``flowcore.repositories`` entry points.

The engine names the implementation it wants (``lmdb``, ``filesystem``, ``duckdb``) and
never imports the package that provides it.
"""

from __future__ import annotations

import functools
from importlib.metadata import entry_points
from typing import Any

from flowcore.errors import ConfigurationError


@functools.cache
def load_repository_class(name: str) -> type[Any]:
    """The class registered under ``name``; a clear error lists what is available.

    Cached: scanning the installed distributions' entry points takes milliseconds, and a
    start looks each repository up twice (probe, then open)."""
    found = {ep.name: ep for ep in entry_points(group="flowcore.repositories")}
    if name not in found:
        available = ", ".join(sorted(found)) or "none"
        msg = f"no repository implementation named '{name}' (available: {available})"
        raise ConfigurationError(msg)
    loaded: type[Any] = found[name].load()
    return loaded
