"""The exception hierarchy: one root, one subclass per area."""

from __future__ import annotations


class FlowCoreError(Exception):
    """Root of every error flowcore raises on purpose."""


class ConfigurationError(FlowCoreError):
    """Invalid settings, flow definition or processor configuration."""


class ProcessException(FlowCoreError):
    """A processor failed to process its input; the session is rolled back."""


class FlowFileHandlingError(FlowCoreError):
    """A FlowFile was used wrongly in a session (stale version, unknown, not accounted for)."""


class SessionStateError(FlowCoreError):
    """A session call was made in a state that does not allow it (for example after commit)."""


class RepositoryError(FlowCoreError):
    """A repository could not complete an operation; nothing was half-applied.

    ``repository`` names the repository (``FlowFile``, ``content``, ``provenance``) and
    ``setting`` the setting a user would change to mend it, when there is one; the REST
    API and the CLI put both in their messages.
    """

    def __init__(self, message: str, *, repository: str = "", setting: str = "") -> None:
        super().__init__(message)
        self.repository = repository
        self.setting = setting


class CommitFailedError(RepositoryError):
    """The FlowFile repository refused a commit (map full, disk full, I/O error)."""


class RepositoryFullError(CommitFailedError):
    """No room left (a full disk, a full LMDB map): the change was refused whole.

    The REST API answers 507 (Insufficient Storage); retrying after space is freed works.
    """


class RepositoryUnavailableError(RepositoryError):
    """A repository cannot serve now (its store failed to write or read); nothing changed.

    The REST API answers 503 with ``Retry-After``.
    """


class RepositoryDamagedError(RepositoryError):
    """A repository is missing, damaged or belongs to another data directory.

    Raised at start, before anything is changed; ``flowcore repair`` says what it would
    do and does it (docs/failure-modes.md).
    """


class ContentNotFoundError(RepositoryError):
    """The content of a claim is missing or shorter than the claim says."""


class ContentCorruptedError(ContentNotFoundError):
    """The bytes of a claim no longer match the checksum taken when they were written.

    A kind of missing content: the right bytes cannot be found. The framework sends the
    FlowFile to its processor's ``failure`` relationship with the reason in the
    ``content.error.reason`` attribute (docs/failure-modes.md).
    """


class ExpressionError(ConfigurationError):
    """An Expression Language text that cannot be parsed or names an unknown function."""


class SparkError(FlowCoreError):
    """Work offloaded to Spark did not complete; ``reason`` says why, for an attribute."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SparkUnavailableError(SparkError):
    """No Spark to run on: the master is unreachable, or the session cannot start."""


class SparkJobError(SparkError):
    """A Spark job was submitted and failed."""


def repository_fault(error: BaseException) -> RepositoryError | None:
    """The repository fault behind ``error`` (itself, or what it was raised from or while
    handling), or None when there is none.

    A processor that catches broad errors to route bad data to ``failure`` re-raises
    when this finds one, so the session rolls back and the FlowFiles stay queued: a full
    or failing repository is never the data's fault. Missing or damaged content
    (``ContentNotFoundError``) is not a fault of this kind: the framework routes it.
    Errors raised inside a library (a pyarrow writer writing to a session's sink) may
    come back wrapped, hence the walk along ``__cause__`` and ``__context__``.
    """
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, RepositoryError):
            return None if isinstance(current, ContentNotFoundError) else current
        current = current.__cause__ or current.__context__
    return None
