"""NiFi's time periods ("10 sec") and data sizes ("1 MB")."""

from __future__ import annotations

import re

_TIME_UNITS: dict[str, float] = {}
for _names, _seconds in (
    (("ns", "nano", "nanos", "nanosecond", "nanoseconds"), 1e-9),
    (("us", "micro", "micros", "microsecond", "microseconds"), 1e-6),
    (("ms", "milli", "millis", "msec", "msecs", "millisecond", "milliseconds"), 1e-3),
    (("s", "sec", "secs", "second", "seconds"), 1.0),
    (("m", "min", "mins", "minute", "minutes"), 60.0),
    (("h", "hr", "hrs", "hour", "hours"), 3600.0),
    (("d", "day", "days"), 86400.0),
    (("w", "wk", "wks", "week", "weeks"), 604800.0),
):
    for _name in _names:
        _TIME_UNITS[_name] = _seconds

_DATA_UNITS = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3, "tb": 1024**4}
_TIME_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*$")
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*$")


def is_time_period(text: str) -> bool:
    match = _TIME_RE.match(text)
    return bool(match) and match.group(2).lower() in _TIME_UNITS  # type: ignore[union-attr]


def parse_time_period(text: str) -> float:
    """Return the period in seconds; ``ValueError`` with NiFi's wording if it is not one."""
    match = _TIME_RE.match(text)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _TIME_UNITS:
        msg = f"'{text}' is not a valid time period (expected a number and a unit such as '10 sec')"
        raise ValueError(msg)
    return float(match.group(1)) * _TIME_UNITS[unit]


def parse_time_period_ms(text: str) -> int:
    return round(parse_time_period(text) * 1000)


def is_data_size(text: str) -> bool:
    match = _SIZE_RE.match(text)
    return bool(match) and match.group(2).lower() in _DATA_UNITS  # type: ignore[union-attr]


def parse_data_size(text: str) -> int:
    """Return the size in bytes (NiFi's units are powers of 1024)."""
    match = _SIZE_RE.match(text)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _DATA_UNITS:
        msg = f"'{text}' is not a valid data size (expected a number and a unit such as '1 MB')"
        raise ValueError(msg)
    return int(float(match.group(1)) * _DATA_UNITS[unit])


def format_data_size(num_bytes: int) -> str:
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if num_bytes >= factor:
            return f"{num_bytes / factor:.2f} {unit}"
    return f"{num_bytes} B"
