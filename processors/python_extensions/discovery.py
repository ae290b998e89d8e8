"""Finding NiFi Python processors in extension folders, as NiFi does: statically.

A folder holds single-file processors (``MyProcessor.py``) and packages (a sub-folder of
modules, with an optional ``requirements.txt``). Each module is parsed, not imported: a
processor is a class with a nested ``Java`` class whose ``implements`` names one of
NiFi's three processor interfaces. Its ``ProcessorDetails`` (version, description,
tags, dependencies) are read from the literals. Requirements (``requirements.txt`` or
``ProcessorDetails.dependencies``) are checked against what is installed, never
installed at run time: a missing one is reported by name when the processor validates.
"""

from __future__ import annotations

import ast
import importlib.metadata
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

INTERFACES = {
    "org.apache.nifi.python.processor.FlowFileTransform": "FlowFileTransform",
    "org.apache.nifi.python.processor.RecordTransform": "RecordTransform",
    "org.apache.nifi.python.processor.FlowFileSource": "FlowFileSource",
}


@dataclass(frozen=True, slots=True)
class ExtensionInfo:
    """One processor class found in a module."""

    class_name: str
    module_path: Path
    package_dir: Path | None
    kind: str
    """FlowFileTransform, RecordTransform or FlowFileSource."""
    version: str = "Unknown"
    description: str = ""
    tags: tuple[str, ...] = ()
    requirements: tuple[str, ...] = field(default=())


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _nested(cls: ast.ClassDef, name: str) -> dict[str, object] | None:
    """The literal assignments of a nested class, or None if there is none."""
    for node in cls.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            values: dict[str, object] = {}
            for item in node.body:
                if isinstance(item, ast.Assign):
                    for target in item.targets:
                        if isinstance(target, ast.Name):
                            values[target.id] = _literal(item.value)
            return values
    return None


def _requirements_file(path: Path) -> tuple[str, ...]:
    lines = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            lines.append(line)
    return tuple(lines)


def scan_module(path: Path, package_dir: Path | None) -> list[ExtensionInfo]:
    """The processor classes declared in one module (none if it does not parse)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return []
    package_requirements: tuple[str, ...] = ()
    if package_dir is not None and (package_dir / "requirements.txt").is_file():
        package_requirements = _requirements_file(package_dir / "requirements.txt")
    found: list[ExtensionInfo] = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        java = _nested(node, "Java")
        implements = java.get("implements") if java else None
        if not isinstance(implements, list | tuple):
            continue
        kinds = [INTERFACES[name] for name in implements if name in INTERFACES]
        if not kinds:
            continue
        details = _nested(node, "ProcessorDetails") or {}
        dependencies = details.get("dependencies")
        declared = (
            tuple(str(d) for d in dependencies) if isinstance(dependencies, list | tuple) else ()
        )
        tags = details.get("tags")
        found.append(
            ExtensionInfo(
                class_name=node.name,
                module_path=path,
                package_dir=package_dir,
                kind=kinds[0],
                version=str(details.get("version") or "Unknown"),
                description=str(details.get("description") or ""),
                tags=tuple(str(t) for t in tags) if isinstance(tags, list | tuple) else (),
                requirements=package_requirements + declared,
            )
        )
    return found


def scan_folder(folder: Path) -> list[ExtensionInfo]:
    """Every processor in an extensions folder: its modules, then its packages' modules."""
    if not folder.is_dir():
        return []
    found: list[ExtensionInfo] = []
    for entry in sorted(folder.iterdir()):
        if entry.is_file() and entry.suffix == ".py":
            found.extend(scan_module(entry, None))
        elif entry.is_dir() and not entry.name.startswith((".", "__")):
            for module in sorted(entry.rglob("*.py")):
                if "__pycache__" not in module.parts:
                    found.extend(scan_module(module, entry))
    return found


def missing_requirements(requirements: tuple[str, ...]) -> list[str]:
    """The requirements not satisfied by what is installed, as written."""
    missing: list[str] = []
    for text in requirements:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            missing.append(text)
            continue
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        try:
            version = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(text)
            continue
        if requirement.specifier and not requirement.specifier.contains(version, prereleases=True):
            missing.append(f"{text} (installed: {version})")
    return missing
