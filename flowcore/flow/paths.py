"""Relative file and directory properties, resolved from the flow file's folder.

A flow checked into a repository names its input and output directories relative to
itself (``Input Directory: data/in``), so it runs the same from any working directory.
Only properties whose descriptor says they are a file or directory on this machine
(``external_resource``: GetFile's Input Directory, PutFile's Directory) are resolved,
and only when they are relative: an absolute path, a ``~`` path or a value that starts
with Expression Language is left as it is (``out/${dir}`` becomes ``<folder>/out/${dir}``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath

from flowcore.errors import ConfigurationError
from flowcore.flow.definition import FlowDefinition
from flowcore.processor.descriptors import PropertyDescriptor
from flowcore.processor.registry import processor_class, service_class


def resolve_relative_paths(definition: FlowDefinition, folder: Path) -> FlowDefinition:
    """Make the relative file and directory properties absolute, from ``folder``."""
    base = folder.resolve()
    flow = definition.flow
    for spec in flow.processors.values():
        try:
            descriptors = processor_class(spec.type).property_descriptors
        except ConfigurationError:
            continue  # an unknown type is reported when the flow is built
        spec.properties = _resolved(spec.properties, descriptors, base)
    for svc in flow.controller_services.values():
        try:
            descriptors = service_class(svc.type).property_descriptors
        except ConfigurationError:
            continue
        svc.properties = _resolved(svc.properties, descriptors, base)
    return definition


def _resolved(
    properties: Mapping[str, str], descriptors: Sequence[PropertyDescriptor], base: Path
) -> dict[str, str]:
    paths = {d.name for d in descriptors if d.external_resource} | {
        d.display_name for d in descriptors if d.external_resource and d.display_name
    }
    return {
        key: _absolute(value, base) if key in paths else value for key, value in properties.items()
    }


def _absolute(value: str, base: Path) -> str:
    text = value.strip()
    if not text or text.startswith(("${", "~")) or PurePath(text).is_absolute():
        return value
    return str(base / text)
