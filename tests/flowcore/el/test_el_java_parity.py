"""EL values checked against the JDK NiFi delegates to: each expected value was printed by
the Java call named in the comment above its group, for the same input."""

from __future__ import annotations

import pytest

from flowcore.el import evaluate


def run(text: str, attributes: dict[str, str] | None = None) -> str:
    return evaluate(text, attributes or {}, env={}, now_ms=1_700_000_000_123)


# DateTimeFormatter.ofPattern(pattern, Locale.US).withZone(ZoneId.of(zone))
#     .format(new Date(millis).toInstant().atZone(ZoneId.systemDefault())), as FormatEvaluator
FORMAT_CASES = [
    ("DDD'o''clock'GGGGG", 152466229015257, "Asia/Tokyo", "169o'clockA"),
    ("uuuuu''XX", 36934204612, "Pacific/Chatham", "01971'+1245"),
    ("yyyyHHaXXXXX", 231125473249700, "GMT+05:30", "929413PM+05:30"),
    ("GGGG", 96167258049156, "Europe/London", "Anno Domini"),
    ("Muuuu:", 180863369146902, "UTC", "57701:"),
    ("d''SSSSSS", 181706254949, "Australia/Lord_Howe", "5'949000"),
    ("SSSSSMMMMM", 1710050912062, "Europe/London", "06200M"),
    ("GGGGGdLLLLLEEEEE", 2157606694466, "GMT+05:30", "A16MS"),
    ("X x xx ZZZZ ZZZZZ O OOOO", 1700000000123, "UTC", "Z +00 +0000 GMT Z GMT GMT"),
    (
        "X x xx ZZZZ ZZZZZ O OOOO",
        1700000000123,
        "Asia/Kolkata",
        "+0530 +0530 +0530 GMT+05:30 +05:30 GMT+5:30 GMT+05:30",
    ),
    ("X XXXX ZZZZ O", 1700000000123, "America/St_Johns", "-0330 -0330 GMT-03:30 GMT-3:30"),
    ("yyyy-MM-dd HH:mm VV", 1710054000000, "America/New_York", "2024-03-10 03:00 America/New_York"),
    (
        "h:mm a, EEEE MMMM d, yyyy",
        1730613600000,
        "America/Chicago",
        "1:00 AM, Sunday November 3, 2024",
    ),
    ("YYYY-'W'ww-e", 1704000000000, "UTC", "2024-W01-1"),
    ("QQQ QQQQ qqqqq c ccc", 1700000000123, "UTC", "Q4 4th quarter 4 3 Tue"),
    ("A n N", 1700000000123, "UTC", "80000123 123000000 80000123000000"),
    ("[yyyy-MM-dd]['T'HH:mm]", 1700000000123, "UTC", "2023-11-14T22:13"),
    ("''''yyyy''", 1700000000123, "UTC", "'2023'"),
    ("yyyy", 253402300799999, "UTC", "9999"),
]


@pytest.mark.parametrize(("pattern", "millis", "zone", "expected"), FORMAT_CASES)
def test_format_uses_date_time_formatter_letters(
    pattern: str, millis: int, zone: str, expected: str
) -> None:
    quoted = "'" + pattern.replace("'", "\\'") + "'"
    text = "${d:toNumber():format(" + quoted + ", '" + zone + "')}"
    assert run(text, {"d": str(millis)}) == expected
