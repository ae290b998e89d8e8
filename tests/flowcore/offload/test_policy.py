"""OffloadPolicy: the one rule MergeRecord and MergeEntities offload by."""

from __future__ import annotations

import pytest

from flowcore.offload import OffloadPolicy
from flowcore.settings import SparkSettings

SETTINGS = SparkSettings(offload_min_records=100, offload_min_bytes="1 KB", fallback_to_local=True)


def test_local_and_spark_ignore_the_thresholds() -> None:
    assert not OffloadPolicy.of("local", SETTINGS).offloads(10**9, 10**12)
    assert OffloadPolicy.of("spark", SETTINGS).offloads(0, 0)


def test_auto_offloads_from_either_threshold_up() -> None:
    policy = OffloadPolicy.of("auto", SETTINGS)
    assert not policy.offloads(99, 1023)
    assert policy.offloads(100, 0)
    assert policy.offloads(1, 1024)


def test_an_unknown_size_counts_records_only() -> None:
    policy = OffloadPolicy.of("auto", SparkSettings(offload_min_records=5, offload_min_bytes="0 B"))
    assert not policy.offloads(4)
    assert policy.offloads(4, 0)


def test_fallback_comes_from_the_settings() -> None:
    assert OffloadPolicy.of("auto", SETTINGS).fallback_to_local
    assert not OffloadPolicy.of("auto", SparkSettings()).fallback_to_local


def test_an_unknown_engine_is_refused() -> None:
    with pytest.raises(ValueError, match="local, spark, auto"):
        OffloadPolicy.of("cluster", SETTINGS)
