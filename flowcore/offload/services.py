"""``ComputeServices``: what a processor may use to run work outside the engine's process."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from flowcore.offload.provider import SparkProvider, spark_errors
from flowcore.offload.staging import STAGING_DIR, StagingArea
from flowcore.settings import EngineSettings, SparkSettings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class ComputeServices:
    """The Spark session and the staging area, handed to processors as ``context.compute``.

    Building one is cheap: nothing starts until ``spark_session()`` is first called, and
    every ``ComputeServices`` of the process shares the same session per master.
    """

    def __init__(self, settings: EngineSettings) -> None:
        self._engine_settings = settings
        root = settings.spark.staging_dir or settings.content_containers[0] / STAGING_DIR
        self.staging = StagingArea(Path(root))

    @property
    def settings(self) -> SparkSettings:
        return self._engine_settings.spark

    def spark_session(self) -> SparkSession:
        """The shared SparkSession for the configured master (``SparkUnavailableError``)."""
        return SparkProvider.session(self.settings)

    def staging_job(self, name: str) -> AbstractContextManager[Path]:
        """A fresh directory in the staging area for one job, removed afterwards."""
        return self.staging.job(name)

    def spark_errors(self, what: str) -> AbstractContextManager[None]:
        """Wrap Spark work: any failure inside becomes a ``SparkJobError`` with its reason."""
        return spark_errors(what)

    def sweep_staging(self) -> int:
        """Remove staging leftovers of an earlier run (the node calls this at start)."""
        return self.staging.sweep()
