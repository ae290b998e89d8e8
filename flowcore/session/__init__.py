"""Process sessions and the one commit path."""

from flowcore.session.binding import (
    ComponentBinding,
    ComponentState,
    ComponentStats,
    IdGenerator,
)
from flowcore.session.commit import CommitPhase, SessionChanges, SessionCommitter
from flowcore.session.reporter import ProvenanceReporter
from flowcore.session.services import SessionServices
from flowcore.session.session import ProcessSession

__all__ = [
    "CommitPhase",
    "ComponentBinding",
    "ComponentState",
    "ComponentStats",
    "IdGenerator",
    "ProcessSession",
    "ProvenanceReporter",
    "SessionChanges",
    "SessionCommitter",
    "SessionServices",
]
