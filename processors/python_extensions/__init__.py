"""NiFi 2 Python processors, run in flowcore as they are (see docs/python-processors.md).

Importing this package registers a processor provider: a type name not registered
otherwise is looked up among the Python processors in the extension folders
(``EngineSettings.python_extension_dirs``), by class name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from flowcore.processor.processor import Processor
from flowcore.processor.registry import processor_provider
from processors.python_extensions.adapter import PythonProcessorAdapter, adapter_class
from processors.python_extensions.discovery import ExtensionInfo, scan_folder

_classes: dict[tuple[str, str, float], type[PythonProcessorAdapter]] = {}


def python_processor_types(folder: Path) -> list[ExtensionInfo]:
    """The NiFi Python processors found in an extensions folder."""
    return scan_folder(folder)


@processor_provider
def find_python_processor(type_name: str, folders: Sequence[Path]) -> type[Processor] | None:
    """The adapter class of the Python processor named ``type_name`` in ``folders``."""
    for folder in folders:
        for info in scan_folder(folder):
            if info.class_name != type_name:
                continue
            path = info.module_path.resolve()
            key = (str(path), info.class_name, path.stat().st_mtime)
            if key not in _classes:
                _classes[key] = adapter_class(info)
            return _classes[key]
    return None


__all__ = [
    "PythonProcessorAdapter",
    "adapter_class",
    "find_python_processor",
    "python_processor_types",
]
