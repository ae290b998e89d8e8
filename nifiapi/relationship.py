"""``Relationship``: a named outlet a processor declares in ``getRelationships``."""

from __future__ import annotations


class Relationship:
    def __init__(self, name: str, description: str, auto_terminated: bool = False) -> None:
        self.name = name
        self.description = description
        self.auto_terminated = auto_terminated

    def __repr__(self) -> str:
        return f"Relationship({self.name!r})"
