"""Importing a discovered processor's module and making the processor object.

Each module is imported under a name of its own (so two folders may both hold a
``processor.py``); a package's folder is put on ``sys.path``, so its modules
import each other as NiFi lets them (``import helpers``), and relative imports work.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

from flowcore.errors import ConfigurationError
from processors.python_extensions.discovery import ExtensionInfo

_modules: dict[tuple[str, float], ModuleType] = {}


def _unique(text: str) -> str:
    return "flowcore_python_ext_" + hashlib.sha1(text.encode()).hexdigest()[:12]


def load_module(info: ExtensionInfo) -> ModuleType:
    path = info.module_path.resolve()
    key = (str(path), path.stat().st_mtime)
    if key in _modules:
        return _modules[key]
    if info.package_dir is not None:
        package_dir = info.package_dir.resolve()
        package_name = _unique(str(package_dir))
        if package_name not in sys.modules:
            init = package_dir / "__init__.py"
            if init.is_file():
                spec = importlib.util.spec_from_file_location(
                    package_name, init, submodule_search_locations=[str(package_dir)]
                )
            else:  # a folder of modules: a namespace-like package of its own
                spec = importlib.machinery.ModuleSpec(package_name, None, is_package=True)
                spec.submodule_search_locations = [str(package_dir)]
            assert spec is not None
            package = importlib.util.module_from_spec(spec)
            sys.modules[package_name] = package
            if spec.loader is not None:
                spec.loader.exec_module(package)
        relative = path.relative_to(package_dir).with_suffix("")
        name = ".".join((package_name, *relative.parts))
        if str(package_dir) not in sys.path:
            sys.path.insert(0, str(package_dir))
    else:
        name = _unique(str(path))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        msg = f"cannot import {path}"
        raise ConfigurationError(msg)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        msg = f"importing {path} failed: {type(exc).__name__}: {exc}"
        raise ConfigurationError(msg) from exc
    _modules[key] = module
    return module


def python_class(info: ExtensionInfo) -> type[Any]:
    cls = getattr(load_module(info), info.class_name, None)
    if not isinstance(cls, type):
        msg = f"{info.module_path} has no class {info.class_name}"
        raise ConfigurationError(msg)
    return cls


def instantiate(cls: type[Any]) -> Any:
    """Construct as NiFi does (``jvm=`` keyword), or with no arguments."""
    try:
        return cls(jvm=None)
    except TypeError:
        return cls()
