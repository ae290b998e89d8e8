"""Java DateTimeFormatter patterns applied to Arrow timestamp columns (UTC)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from processors.record.temporal import TemporalFormatError
from processors.record.temporal_text import JavaPattern

MOMENTS = pa.array([1_623_926_285_001_002_003, -1, None, 0], pa.timestamp("ns"))
"""2021-06-17 10:38:05.001002003 (a Thursday), the nanosecond before the epoch, null,
the epoch."""


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("yyyy-MM-dd HH:mm:ss.SSS", ["2021-06-17 10:38:05.001", "1969-12-31 23:59:59.999"]),
        ("yy M d H m s", ["21 6 17 10 38 5", "69 12 31 23 59 59"]),
        ("MMM MMMM EEE EEEE", ["Jun June Thu Thursday", "Dec December Wed Wednesday"]),
        ("h:mm a", ["10:38 AM", "11:59 PM"]),
        ("S SSSSSS SSSSSSSSS", ["0 001002 001002003", "9 999999 999999999"]),
        ("D DDD", ["168 168", "365 365"]),
        ("X XXX x xx xxx Z z", ["Z Z +00 +0000 +00:00 +0000 UTC"] * 2),
        ("'at' HH 'o''clock' ''", ["at 10 o'clock '", "at 23 o'clock '"]),
        ("'constant'", ["constant", "constant"]),
    ],
)
def test_patterns_format_as_java_does_in_utc(pattern: str, expected: list[str]) -> None:
    assert JavaPattern.compile(pattern).format(MOMENTS).to_pylist()[:3] == [*expected, None]


def test_the_twelve_hour_clock_shows_midnight_as_twelve() -> None:
    assert JavaPattern.compile("hh a").format(MOMENTS).to_pylist()[3] == "12 AM"


@pytest.mark.parametrize("pattern", ["QQ", "EEEEE", "MMMMM", "aa", "ddd", "VV", "G"])
def test_letters_flowcore_cannot_format_are_refused(pattern: str) -> None:
    with pytest.raises(TemporalFormatError, match="are not supported"):
        JavaPattern.compile(pattern)
