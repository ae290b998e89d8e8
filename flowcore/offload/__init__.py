"""Offloading heavy work to Spark: the shared session, the staging area, the errors, and
the policy that decides when work is offloaded.

See docs/spark.md. Nothing here imports PySpark at module level.
"""

from flowcore.errors import SparkError, SparkJobError, SparkUnavailableError
from flowcore.offload.policy import OffloadPolicy
from flowcore.offload.provider import SparkProvider, check_reachable, spark_errors
from flowcore.offload.services import ComputeServices
from flowcore.offload.staging import StagingArea

__all__ = [
    "ComputeServices",
    "OffloadPolicy",
    "SparkError",
    "SparkJobError",
    "SparkProvider",
    "SparkUnavailableError",
    "StagingArea",
    "check_reachable",
    "spark_errors",
]
