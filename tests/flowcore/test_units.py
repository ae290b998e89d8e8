"""NiFi's time periods ("10 sec") and data sizes ("1 MB")."""

from __future__ import annotations

import pytest

from flowcore.units import (
    format_data_size,
    is_data_size,
    is_time_period,
    parse_data_size,
    parse_time_period,
    parse_time_period_ms,
)


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("10 sec", 10_000),
        ("10 secs", 10_000),
        ("10 seconds", 10_000),
        ("10 s", 10_000),
        ("10sec", 10_000),
        ("  5 ms  ", 5),
        ("250 millis", 250),
        ("250 milliseconds", 250),
        ("1.5 min", 90_000),
        ("2 mins", 120_000),
        ("2 HRS", 7_200_000),
        ("1 hour", 3_600_000),
        ("3 days", 259_200_000),
        ("1 d", 86_400_000),
        ("1 week", 604_800_000),
        ("2 wks", 1_209_600_000),
        ("0 sec", 0),
        ("2000000 nanos", 2),
        ("3000 micros", 3),
    ],
)
def test_time_periods(text: str, ms: int) -> None:
    assert is_time_period(text)
    assert parse_time_period_ms(text) == ms
    assert parse_time_period(text) == pytest.approx(ms / 1000)


def test_time_period_in_seconds_keeps_fractions() -> None:
    assert parse_time_period("100 nanos") == pytest.approx(1e-7)
    assert parse_time_period("1.25 sec") == 1.25


@pytest.mark.parametrize(
    "text", ["10", "sec", "-1 sec", "1e3 sec", "1,5 sec", "10 fortnights", "", "ten sec", "1 sec 2"]
)
def test_invalid_time_periods(text: str) -> None:
    assert not is_time_period(text)
    with pytest.raises(ValueError) as info:
        parse_time_period(text)
    assert str(info.value) == (
        f"'{text}' is not a valid time period (expected a number and a unit such as '10 sec')"
    )
    with pytest.raises(ValueError):
        parse_time_period_ms(text)


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("0 B", 0),
        ("10 B", 10),
        ("10b", 10),
        ("1 KB", 1024),
        ("1kb", 1024),
        ("1.5 KB", 1536),
        ("1 MB", 1024**2),
        ("1 mb", 1024**2),
        ("1.5 MB", 1_572_864),
        ("2 GB", 2 * 1024**3),
        ("1 TB", 1024**4),
        ("  64 KB ", 64 * 1024),
    ],
)
def test_data_sizes_are_powers_of_1024(text: str, size: int) -> None:
    assert is_data_size(text)
    assert parse_data_size(text) == size


@pytest.mark.parametrize("text", ["10", "KB", "-1 KB", "1 KiB", "1 kilobyte", "", "1 XB"])
def test_invalid_data_sizes(text: str) -> None:
    assert not is_data_size(text)
    with pytest.raises(ValueError) as info:
        parse_data_size(text)
    assert str(info.value) == (
        f"'{text}' is not a valid data size (expected a number and a unit such as '1 MB')"
    )


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 B"),
        (1023, "1023 B"),
        (1024, "1.00 KB"),
        (1536, "1.50 KB"),
        (3 * 1024**2, "3.00 MB"),
        (5 * 1024**3, "5.00 GB"),
    ],
)
def test_format_data_size(size: int, text: str) -> None:
    assert format_data_size(size) == text
