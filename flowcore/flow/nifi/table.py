"""The table of supported NiFi types for the documentation, generated from the mapping."""

from __future__ import annotations

from flowcore.flow.nifi.mapping import TYPE_MAPPINGS, TypeMapping
from flowcore.processor.registry import processor_class, service_class


def _properties(mapping: TypeMapping) -> str:
    is_processor = mapping.kind == "processor"
    component = (
        processor_class(mapping.flowcore_type)()
        if is_processor
        else service_class(mapping.flowcore_type)()
    )
    reverse = {flowcore: nifi for nifi, flowcore in mapping.aliases.items()}
    names = []
    for descriptor in component.property_descriptors:
        nifi = reverse.get(descriptor.name, descriptor.name)
        names.append(
            descriptor.label if nifi == descriptor.label else f"{descriptor.label} (`{nifi}`)"
        )
    text = ", ".join(names) or "none"
    if component.get_dynamic_property_descriptor("x"):
        text += "; dynamic properties"
    return text


def _ignored(mapping: TypeMapping) -> str:
    return ", ".join(f"`{name}`" for name in mapping.ignored) or ""


def supported_types_table() -> str:
    """A Markdown table: NiFi class, flowcore type, the properties, those dropped on import."""
    rows = [
        "| NiFi type | flowcore type | properties (NiFi name where it differs) "
        "| NiFi properties dropped when at their default |",
        "|---|---|---|---|",
    ]
    for mapping in TYPE_MAPPINGS:
        rows.append(
            f"| `{mapping.nifi_type}` | {mapping.flowcore_type} | {_properties(mapping)} "
            f"| {_ignored(mapping)} |"
        )
    return "\n".join(rows) + "\n"
