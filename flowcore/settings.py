"""Engine settings: one typed object, separate from the flow, with environment overrides.

Every field can be set from the environment with the ``FLOWCORE_`` prefix and ``__``
between nested names, e.g. ``FLOWCORE_DURABILITY=power`` or
``FLOWCORE_CONTENT__ARCHIVE_ENABLED=false``. Sizes and periods use NiFi's syntax.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from flowcore.units import parse_data_size, parse_time_period


def _check_period(value: str) -> str:
    parse_time_period(value)
    return value


def _check_size(value: str) -> str:
    parse_data_size(value)
    return value


class FlowFileRepositorySettings(BaseModel):
    """The write-ahead log in LMDB."""

    model_config = ConfigDict(extra="forbid")
    implementation: str = "lmdb"
    map_size: str = "64 GB"
    """The LMDB map the repository opens with; it grows on its own when full."""
    max_map_size: str = "1 TB"
    """How far the map may grow; the last ``removal_reserve`` of it is kept for commits
    that only remove FlowFiles, so that a full repository can always be drained."""
    removal_reserve: str = "64 MB"
    checkpoint_interval: str = "20 sec"

    _periods = field_validator("checkpoint_interval")(_check_period)
    _sizes = field_validator("map_size", "max_map_size", "removal_reserve")(_check_size)

    @model_validator(mode="after")
    def _map_within_max(self) -> FlowFileRepositorySettings:
        if parse_data_size(self.map_size) > parse_data_size(self.max_map_size):
            msg = (
                f"flowfile_repository.map_size ({self.map_size}) is larger than "
                f"flowfile_repository.max_map_size ({self.max_map_size})"
            )
            raise ValueError(msg)
        return self


class ContentRepositorySettings(BaseModel):
    """Claim-based content storage: containers, sections, appendable claims, archive."""

    model_config = ConfigDict(extra="forbid")
    implementation: str = "filesystem"
    containers: list[Path] = Field(default_factory=list)
    sections: int = Field(default=1024, ge=1, le=65536)
    max_appendable_size: str = "50 KB"
    archive_enabled: bool = True
    archive_max_retention_period: str = "3 hours"
    archive_max_usage_percentage: int = Field(default=90, ge=1, le=100)

    _periods = field_validator("archive_max_retention_period")(_check_period)
    _sizes = field_validator("max_appendable_size")(_check_size)


class ProvenanceRepositorySettings(BaseModel):
    """DuckDB provenance store indexed in batches from the LMDB journal."""

    model_config = ConfigDict(extra="forbid")
    implementation: str = "duckdb"
    max_storage_time: str = "30 days"
    max_storage_size: str = "10 GB"
    index_batch_size: int = Field(default=10_000, ge=1)
    index_interval: str = "1 sec"
    max_attribute_length: int = 65536

    _periods = field_validator("max_storage_time", "index_interval")(_check_period)
    _sizes = field_validator("max_storage_size")(_check_size)


class QueueSettings(BaseModel):
    """Defaults for new connections, as NiFi ships them."""

    model_config = ConfigDict(extra="forbid")
    back_pressure_object_threshold: int = Field(default=10_000, ge=0)
    back_pressure_data_size_threshold: str = "1 GB"
    swap_threshold: int = Field(default=20_000, ge=1)
    swap_batch_size: int = Field(default=10_000, ge=1)

    _sizes = field_validator("back_pressure_data_size_threshold")(_check_size)


class SchedulerSettings(BaseModel):
    """Thread pool and yield durations."""

    model_config = ConfigDict(extra="forbid")
    threads: int = Field(default=2, ge=1)
    administrative_yield_duration: str = "30 sec"
    bored_yield_duration: str = "10 millis"

    _periods = field_validator("administrative_yield_duration", "bored_yield_duration")(
        _check_period
    )


SPARK_CONNECT_DEFAULT_PORT = 15002


def spark_master_endpoints(master: str) -> list[tuple[str, int]]:
    """The (host, port) pairs a ``spark://`` or ``sc://`` master is reached at (none for
    other masters); ``ValueError`` naming the expected form when it does not parse."""
    if master.startswith("spark://"):
        endpoints: list[tuple[str, int]] = []
        for part in master.removeprefix("spark://").split(","):
            host, _, digits = part.strip().rpartition(":")
            if not host or not digits.isdigit() or not 0 < int(digits) < 65536:
                msg = f"Spark master {master} is not of the form spark://host:port"
                raise ValueError(msg)
            endpoints.append((host.strip("[]"), int(digits)))
        return endpoints
    if master.startswith("sc://"):
        parsed = urlsplit(master.split(";", 1)[0])
        try:
            port: int | None = parsed.port
        except ValueError:  # not a number, or out of range
            port = -1
        if not parsed.hostname or port == -1:
            msg = f"Spark master {master} is not of the form sc://host:port"
            raise ValueError(msg)
        return [(parsed.hostname, port or SPARK_CONNECT_DEFAULT_PORT)]
    return []


class SparkSettings(BaseModel):
    """Where heavy merges run when they leave the engine's process, and when they do."""

    model_config = ConfigDict(extra="forbid")
    master: str = "local[*]"
    app_name: str = "flowcore"
    config: dict[str, str] = Field(default_factory=dict)
    staging_dir: Path | None = None
    fallback_to_local: bool = False
    connect_timeout: str = "5 sec"
    # From benchmarks/bench_merge_by_key.py on 2 cores: embedded Spark never beat the
    # local engine (0.06x at 100k records, 0.25-0.37x at 1M-20M), so ``auto`` offloads
    # only huge bins by default; lower both for a real cluster (docs/spark.md).
    offload_min_records: int = Field(default=100_000_000, ge=1)
    offload_min_bytes: str = "4 GB"

    _periods = field_validator("connect_timeout")(_check_period)
    _sizes = field_validator("offload_min_bytes")(_check_size)

    @field_validator("master")
    @classmethod
    def _check_master(cls, value: str) -> str:
        """``spark://host:port[,host:port]`` and ``sc://host[:port]`` must parse; other
        masters (``local[*]``, ``yarn``, ``k8s://...``) go to Spark as they are."""
        spark_master_endpoints(value)
        return value


class RecordMergerSettings(BaseModel):
    """Which modules a flow may load a CUSTOM record merger class from."""

    model_config = ConfigDict(extra="forbid")
    allowed_custom_modules: list[str] = Field(default_factory=list)


class OpenLineageSettings(BaseModel):
    """Where OpenLineage run events made from provenance go (docs/openlineage.md)."""

    model_config = ConfigDict(extra="forbid")
    transport: Literal["none", "file", "http"] = "none"
    path: Path | None = None
    """``file``: the JSON lines file events are appended to."""
    url: str | None = None
    """``http``: the endpoint each event is POSTed to, e.g. ``http://marquez:5000/api/v1/lineage``."""
    namespace: str = "flowcore"
    """The OpenLineage namespace of the jobs."""
    flow_name: str = "flow"
    """Jobs are named ``<flow_name>.<processor>``."""
    timeout: str = "10 sec"

    _periods = field_validator("timeout")(_check_period)

    @model_validator(mode="after")
    def _transport_has_target(self) -> OpenLineageSettings:
        if self.transport == "file" and self.path is None:
            raise ValueError("openlineage.transport 'file' needs openlineage.path")
        if self.transport == "http" and not self.url:
            raise ValueError("openlineage.transport 'http' needs openlineage.url")
        return self


class EngineSettings(BaseSettings):
    """Everything about how the engine runs, none of what the flow does."""

    model_config = SettingsConfigDict(
        env_prefix="FLOWCORE_", env_nested_delimiter="__", extra="forbid"
    )

    data_dir: Path = Path("data")
    durability: Literal["process", "power"] = "process"
    flowfile_repository: FlowFileRepositorySettings = Field(
        default_factory=FlowFileRepositorySettings
    )
    content: ContentRepositorySettings = Field(default_factory=ContentRepositorySettings)
    provenance: ProvenanceRepositorySettings = Field(default_factory=ProvenanceRepositorySettings)
    queue: QueueSettings = Field(default_factory=QueueSettings)
    scheduler: SchedulerSettings = Field(default_factory=SchedulerSettings)
    spark: SparkSettings = Field(default_factory=SparkSettings)
    record_mergers: RecordMergerSettings = Field(default_factory=RecordMergerSettings)
    openlineage: OpenLineageSettings = Field(default_factory=OpenLineageSettings)
    python_extensions_dir: Path | None = None
    """Where NiFi Python processors are found; None: ``python/extensions`` in the flow
    file's folder (the working directory when there is no flow file)."""

    def python_extension_dirs(self, flow_folder: Path | None = None) -> list[Path]:
        """The folders searched for NiFi Python processors."""
        if self.python_extensions_dir is not None:
            return [self.python_extensions_dir]
        return [(flow_folder or Path.cwd()) / "python" / "extensions"]

    @property
    def flowfile_repository_dir(self) -> Path:
        return self.data_dir / "flowfile_repository"

    @property
    def content_containers(self) -> list[Path]:
        return self.content.containers or [self.data_dir / "content_repository"]

    @property
    def provenance_dir(self) -> Path:
        return self.data_dir / "provenance_repository"
