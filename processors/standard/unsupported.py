"""Unsupported: the stopped stand-in for a NiFi component flowcore cannot run.

A NiFi flow imported with ``--allow-unsupported`` keeps each component flowcore lacks (a
processor type, a property, a controller service it uses) in its place as this processor:
stopped, holding the original NiFi type in "Component Type", the relationships its
connections use in "Relationships" and the original properties as dynamic properties, so
the rest of the flow runs, FlowFiles wait in the stub's incoming connections, and
``flowcore export nifi`` gives the component back. Starting it fails with the reason.
"""

from __future__ import annotations

from flowcore.errors import ProcessException
from flowcore.processor import (
    ProcessContext,
    Processor,
    PropertyDescriptor,
    Relationship,
    processor,
)
from flowcore.session import ProcessSession

COMPONENT_TYPE = PropertyDescriptor(
    name="Component Type",
    display_name="Component Type",
    description="The NiFi type (fully qualified class name) this stub stands in for",
    required=True,
)
RELATIONSHIPS = PropertyDescriptor(
    name="Relationships",
    display_name="Relationships",
    description="Comma-separated names of the relationships the original component had "
    "connected or auto-terminated",
)


@processor("Unsupported")
class Unsupported(Processor):
    description = (
        "Stands in, stopped, for a NiFi component flowcore does not support; it never runs."
    )
    tags = ("nifi", "import", "stub", "unsupported")
    property_descriptors = (COMPONENT_TYPE, RELATIONSHIPS)
    supports_dynamic_properties = True

    def get_relationships(self, properties: dict[str, str]) -> list[Relationship]:
        names = properties.get(RELATIONSHIPS.name, "")
        return [Relationship(name.strip()) for name in names.split(",") if name.strip()]

    def get_dynamic_property_descriptor(self, name: str) -> PropertyDescriptor | None:
        return PropertyDescriptor(name=name, display_name=name, dynamic=True)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        kind = context.properties.get(COMPONENT_TYPE.name, "?")
        msg = f"'{context.name}' stands in for the unsupported NiFi type {kind} and cannot run"
        raise ProcessException(msg)
