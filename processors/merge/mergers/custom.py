"""CUSTOM mode: load a user's RecordMerger subclass, only from allowed modules.

A flow names the class as ``package.module:Class`` or ``package.module.Class``. The module
must be listed in ``settings.record_mergers.allowed_custom_modules``, exactly or under a
listed package (``acme`` allows ``acme.mergers``), so that a flow definition cannot make
the engine import arbitrary code.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from flowcore.errors import ConfigurationError
from processors.merge.mergers.api import RecordMergeMode, RecordMerger
from processors.merge.mergers.builtin import builtin_merger
from processors.merge.mergers.spec import KeyedMergeSpec

ALLOWED_SETTING = "record_mergers.allowed_custom_modules"


class CustomMergerError(ConfigurationError):
    """The custom merger class cannot be used (not allowed, not found, not a merger)."""


def split_class_path(path: str) -> tuple[str, str]:
    """``module:Class`` or ``module.Class`` as (module, class name)."""
    text = path.strip()
    if ":" in text:
        module, _, name = text.partition(":")
    else:
        module, _, name = text.rpartition(".")
    if not module or not name or not name.isidentifier():
        msg = f"'{path}' is not a class path of the form module:Class or module.Class"
        raise CustomMergerError(msg)
    return module, name


def module_allowed(module: str, allowed: Sequence[str]) -> bool:
    """The module is listed, or lies under a listed package."""
    return any(module == prefix or module.startswith(prefix + ".") for prefix in allowed if prefix)


def load_merger_class(path: str, allowed: Sequence[str]) -> type[RecordMerger]:
    """The RecordMerger subclass named by ``path``; CustomMergerError says why not."""
    module_name, class_name = split_class_path(path)
    if not module_allowed(module_name, allowed):
        msg = (
            f"module '{module_name}' is not allowed for custom record mergers; add it to "
            f"the setting {ALLOWED_SETTING}"
        )
        raise CustomMergerError(msg)
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        msg = f"cannot import module '{module_name}': {exc}"
        raise CustomMergerError(msg) from exc
    candidate = getattr(module, class_name, None)
    if not isinstance(candidate, type) or not issubclass(candidate, RecordMerger):
        msg = f"'{path}' is not a subclass of {RecordMerger.__module__}.RecordMerger"
        raise CustomMergerError(msg)
    return candidate


def merger_for(spec: KeyedMergeSpec) -> RecordMerger:
    """The merger a spec asks for: built-in, or the custom class (checked, instantiated)."""
    if spec.mode is not RecordMergeMode.CUSTOM:
        return builtin_merger(spec.mode)
    if not spec.custom_merger:
        msg = "the CUSTOM record merge mode needs a custom record merger class"
        raise CustomMergerError(msg)
    return load_merger_class(spec.custom_merger, spec.allowed_custom_modules)()


__all__ = [
    "ALLOWED_SETTING",
    "CustomMergerError",
    "load_merger_class",
    "merger_for",
    "module_allowed",
    "split_class_path",
]
