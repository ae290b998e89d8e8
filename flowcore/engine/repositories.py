"""Open a data directory's three repositories in one place, checked against its identity.

``open_repositories`` is how the node and the CLI get their repositories: it checks the
data directory (``data_identity.check``: missing, damaged or foreign repositories are
refused before anything is opened), opens the implementations the settings name (found
through entry points, never imported), and, for a node that will write, raises the
generation and marks each repository with it. Nothing is left open if any step fails.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from flowcore.clock import Clock
from flowcore.engine import data_identity
from flowcore.logsafe import safe_logger
from flowcore.repository.content import ContentRepository
from flowcore.repository.flowfile import FlowFileRepository
from flowcore.repository.identity import RepositoryIdentity
from flowcore.repository.provenance import ProvenanceRepository
from flowcore.repository.registry import load_repository_class
from flowcore.settings import EngineSettings

log = safe_logger("flowcore.engine")


@dataclass(frozen=True, slots=True)
class Repositories:
    """A data directory's open repositories and the identity they carry.

    ``identity`` is None only for a directory opened for reading that has none yet (made
    before identities existed, or never started).
    """

    flowfiles: FlowFileRepository
    content: ContentRepository
    provenance: ProvenanceRepository
    identity: RepositoryIdentity | None

    def close(self) -> None:
        """Close provenance, content, then FlowFile (the journal's owner last); an error
        closing one is logged and does not keep the others open."""
        close_quietly([self.provenance, self.content, self.flowfiles])


def open_repositories(
    settings: EngineSettings, clock: Clock, *, for_writing: bool = True
) -> Repositories:
    """Check the data directory and open its repositories.

    ``for_writing``: raise the data directory's generation and mark every repository with
    it (a node about to run); otherwise (the CLI's read-only commands) nothing on disk
    changes but what opening a repository does. ``RepositoryDamagedError`` if the check
    refuses the directory.
    """
    start_up = data_identity.check(settings)
    if for_writing:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        start_up.begin()
    opened: list[Any] = []
    try:
        flowfiles: FlowFileRepository = load_repository_class(
            settings.flowfile_repository.implementation
        )(settings, clock)
        opened.append(flowfiles)
        content: ContentRepository = load_repository_class(settings.content.implementation)(
            settings, clock
        )
        opened.append(content)
        provenance: ProvenanceRepository = load_repository_class(
            settings.provenance.implementation
        )(settings, clock, flowfiles)
        opened.append(provenance)
        if for_writing:
            start_up.mark(
                [("FlowFile", flowfiles), ("content", content), ("provenance", provenance)]
            )
            identity: RepositoryIdentity | None = RepositoryIdentity(
                start_up.record.node_id, start_up.record.generation
            )
        else:
            record = data_identity.read_node_record(settings.data_dir)
            identity = (
                None if record is None else RepositoryIdentity(record.node_id, record.generation)
            )
    except BaseException:
        close_quietly(reversed(opened))
        raise
    return Repositories(flowfiles, content, provenance, identity)


def close_quietly(repositories: Iterable[Any]) -> None:
    """Close each repository in turn; an error is logged and the next is still closed."""
    for repository in repositories:
        try:
            repository.close()
        except Exception:
            log.exception("error closing a repository")
