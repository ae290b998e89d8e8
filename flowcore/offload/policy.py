"""When work leaves the engine's process for Spark, and what a Spark failure does then.

A processor that can offload has an engine property (``local``, ``spark`` or ``auto``);
``auto`` offloads work from the engine's thresholds up (``spark.offload_min_records``
records, or ``spark.offload_min_bytes`` bytes when the processor knows the size). When
Spark cannot do the work, ``spark.fallback_to_local`` says whether it runs locally
instead of failing. MergeRecord (merge by key) and MergeEntities (bulk rebuild) decide
through this one policy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from flowcore.settings import SparkSettings
from flowcore.units import parse_data_size

OffloadEngine = Literal["local", "spark", "auto"]
ENGINES: tuple[OffloadEngine, ...] = ("local", "spark", "auto")


@dataclass(frozen=True, slots=True)
class OffloadPolicy:
    """One processor's engine choice with the engine's offload settings."""

    engine: OffloadEngine
    min_records: int
    min_bytes: int
    fallback_to_local: bool

    @classmethod
    def of(cls, engine: str, settings: SparkSettings) -> OffloadPolicy:
        """The policy for an engine property's value (``ValueError`` for another value)."""
        if engine not in ENGINES:
            msg = f"the engine must be one of {', '.join(ENGINES)}, not {engine!r}"
            raise ValueError(msg)
        return cls(
            engine=engine,
            min_records=int(settings.offload_min_records),
            min_bytes=parse_data_size(settings.offload_min_bytes),
            fallback_to_local=settings.fallback_to_local,
        )

    def offloads(self, records: int, size: int | None = None) -> bool:
        """Whether work of ``records`` records (and ``size`` bytes, when known) goes to
        Spark: always for ``spark``, never for ``local``, from the thresholds for ``auto``."""
        if self.engine != "auto":
            return self.engine == "spark"
        return records >= self.min_records or (size is not None and size >= self.min_bytes)
