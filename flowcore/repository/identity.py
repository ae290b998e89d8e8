"""A data directory's identity as each repository carries it, and what a start-up probe finds.

Every repository of a data directory holds the directory's node id (a uuid) and a
generation, a number the node raises at each start. The node compares them, before it
opens anything for writing, with ``node.json`` (``flowcore.engine.data_identity``): a
repository that is missing, came from another data directory or is an older copy is
refused instead of silently losing what the others still reference.

``RepositoryProbe`` is what a repository implementation reports about its files without
opening them for writing (``probe`` on each repository contract).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flowcore.settings import EngineSettings

# The generation of a repository that carries no identity: created before identities
# existed, or whose marking an interrupted start-up never reached.
UNMARKED = 0


@dataclass(frozen=True, slots=True)
class RepositoryIdentity:
    """The data directory a repository belongs to (``node_id``) and how recent it is."""

    node_id: str
    generation: int

    def encode(self) -> bytes:
        return json.dumps({"node_id": self.node_id, "generation": self.generation}).encode()

    @classmethod
    def decode(cls, data: bytes | str) -> RepositoryIdentity:
        """Parse ``encode``'s output; ``ValueError`` for anything else."""
        try:
            fields = json.loads(data)
            node_id, generation = fields["node_id"], fields["generation"]
        except (ValueError, TypeError, KeyError) as exc:
            msg = f"not a repository identity: {exc}"
            raise ValueError(msg) from None
        if not isinstance(node_id, str) or not node_id or type(generation) is not int:
            msg = "not a repository identity: node_id or generation of the wrong type"
            raise ValueError(msg)
        return cls(node_id, generation)


@dataclass(frozen=True, slots=True)
class RepositoryProbe:
    """One repository (or content container) as found on disk before it is opened.

    ``missing``: the repository's files are absent or empty (deleted, emptied).
    ``damaged``: why they cannot be read (truncated, not a database, corrupted).
    ``holds_data``: anything that would be lost if it were replaced by a new one.
    ``files``: what ``flowcore repair`` moves aside when it is damaged.
    The event id fields are filled by the FlowFile repository (``next_event_id``: the id
    the next event gets; ``journal_start``: the first event still journaled, or
    ``next_event_id`` when none is) and by the provenance repository
    (``indexed_through``).
    """

    repository: str
    location: Path
    missing: bool = False
    damaged: str | None = None
    identity: RepositoryIdentity | None = None
    holds_data: bool = False
    files: tuple[Path, ...] = field(default_factory=tuple)
    container: int | None = None
    next_event_id: int | None = None
    journal_start: int | None = None
    indexed_through: int | None = None

    @property
    def name(self) -> str:
        """How messages name it: ``FlowFile repository``, ``content container 1``, ..."""
        if self.container is not None:
            return f"content container {self.container}"
        return f"{self.repository} repository"

    @property
    def generation(self) -> int:
        return UNMARKED if self.identity is None else self.identity.generation


class IdentifiedRepository(ABC):
    """What every repository contract offers for the data directory's identity."""

    @classmethod
    def probe(cls, settings: EngineSettings) -> list[RepositoryProbe]:
        """The repository as found on disk, read without opening it for writing (nothing is
        created or changed); empty if the implementation cannot tell (then unchecked)."""
        return []

    @abstractmethod
    def write_identity(self, identity: RepositoryIdentity, *, durable: bool) -> None:
        """Record the data directory's identity; on disk at return, fsynced if ``durable``."""
