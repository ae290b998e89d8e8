"""Reading a NiFi flow definition where a flowcore flow is expected.

Used by ``load_flow`` for a file whose content is a NiFi flow definition (JSON, optionally
gzipped), so that ``run``, ``validate`` and ``serve`` accept one as they accept YAML.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from flowcore.flow.definition import FlowDefinitionError
from flowcore.flow.nifi.importer import ImportResult, UnsupportedComponent, import_nifi

log = logging.getLogger("flowcore.flow.nifi")


class UnsupportedComponentsError(FlowDefinitionError):
    """A NiFi flow with components flowcore cannot run; one line per component."""

    def __init__(self, source: str, components: list[UnsupportedComponent]) -> None:
        lines = "\n".join(f"  {c.line}" for c in components)
        super().__init__(
            source,
            f"{len(components)} NiFi component(s) not supported by flowcore "
            f"(--allow-unsupported stubs them as stopped):\n{lines}",
        )
        self.components = components


def convert(data: Any, source: str) -> ImportResult:
    """Import a parsed NiFi document; a malformed one is refused by key and reason."""
    try:
        return import_nifi(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        raise FlowDefinitionError(
            f"{source}: {key}" if key else source, f"not a NiFi flow definition: {error['msg']}"
        ) from None


def nifi_document(data: Any, source: str, *, allow_unsupported: bool = False) -> dict[str, Any]:
    """The flowcore flow document of a NiFi flow definition, refused if anything in it is
    unsupported, unless ``allow_unsupported``: then those components are stopped stubs."""
    result = convert(data, source)
    if result.unsupported and not allow_unsupported:
        raise UnsupportedComponentsError(source, result.unsupported)
    for component in result.unsupported:
        log.warning("stubbed as stopped: %s", component.line)
    for note in result.notes:
        log.warning("%s: %s", source, note)
    return result.document
