"""What Expression Language sees of a FlowFile: its properties, then its attributes.

NiFi looks a name up first among the FlowFile's properties (``flowFileId``,
``fileSize``, ``entryDate``, ``lineageStartDate``), then among its attributes, then in
the environment; so ``${fileSize:gt(0)}`` works on any FlowFile. flowcore keeps no
``lastQueueDate`` or ``queueDateIndex``: those names fall through to the attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from flowcore.model.flowfile import FlowFile

__all__ = ["FLOWFILE_PROPERTIES", "FlowFileLookup"]

FLOWFILE_PROPERTIES: dict[str, Callable[[FlowFile], str]] = {
    "flowFileId": lambda f: str(f.id),
    "fileSize": lambda f: str(f.size),
    "entryDate": lambda f: str(f.entry_date),
    "lineageStartDate": lambda f: str(f.lineage_start_date),
}


class FlowFileLookup(Mapping[str, str]):
    """A read-only view: a FlowFile's properties ahead of its attributes."""

    __slots__ = ("_attributes", "_flowfile")

    def __init__(self, flowfile: FlowFile) -> None:
        self._flowfile = flowfile
        self._attributes = flowfile.attributes

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        prop = FLOWFILE_PROPERTIES.get(name)
        if prop is not None:
            return prop(self._flowfile)
        return self._attributes.get(name, default)

    def __getitem__(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        return name in FLOWFILE_PROPERTIES or name in self._attributes

    def __iter__(self) -> Iterator[str]:
        yield from FLOWFILE_PROPERTIES
        yield from (name for name in self._attributes if name not in FLOWFILE_PROPERTIES)

    def __len__(self) -> int:
        return len(FLOWFILE_PROPERTIES) + sum(
            1 for name in self._attributes if name not in FLOWFILE_PROPERTIES
        )
