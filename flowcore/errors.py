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
    """A repository could not complete an operation; nothing was half-applied."""


class CommitFailedError(RepositoryError):
    """The FlowFile repository refused a commit (map full, disk full, I/O error)."""


class ContentNotFoundError(RepositoryError):
    """The content of a claim is missing or shorter than the claim says."""


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
