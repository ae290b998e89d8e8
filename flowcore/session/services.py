"""The engine-wide collaborators every session uses.

Kept apart from ``binding`` so that neither module needs the other's names at import
time (``commit`` imports ``binding``; this module imports both).
"""

from __future__ import annotations

from dataclasses import dataclass

from flowcore.clock import Clock
from flowcore.repository.content import ContentRepository
from flowcore.session.binding import IdGenerator
from flowcore.session.commit import SessionCommitter


@dataclass(slots=True)
class SessionServices:
    """The engine-wide collaborators every session uses."""

    clock: Clock
    content: ContentRepository
    ids: IdGenerator
    committer: SessionCommitter
