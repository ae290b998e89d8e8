"""EL date functions with an injected clock: now(), format() and toDate() with Java patterns."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from flowcore.el import compile_expression, evaluate
from flowcore.errors import ExpressionError

NOW = 1_700_000_000_123  # 2023-11-14T22:13:20.123Z, a Tuesday


def run(text: str, attributes: dict[str, str] | None = None) -> str:
    return evaluate(text, attributes, env={}, now_ms=NOW)


@pytest.fixture
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make the process's local zone America/New_York, as a JVM default zone."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${now():toNumber()}", "1700000000123"),
        ("${now():format('yyyy-MM-dd HH:mm:ss.SSS', 'UTC')}", "2023-11-14 22:13:20.123"),
        (
            "${now():format(\"yyyy-MM-dd'T'HH:mm:ss.SSSXXX\", 'America/New_York')}",
            "2023-11-14T17:13:20.123-05:00",
        ),
        ("${now():format('EEE, d MMM yyyy hh:mm a z', 'GMT')}", "Tue, 14 Nov 2023 10:13 PM GMT"),
        ("${now():format('EEEE MMMM', 'UTC')}", "Tuesday November"),
        # NiFi 2 formats with DateTimeFormatter.ofPattern(p, Locale.US): S is a fraction of a
        # second, X prints minutes unless they are zero, u is the year (values from the JDK)
        ("${now():format('yy/M/d H:m:s.S', 'UTC')}", "23/11/14 22:13:20.1"),
        ("${now():format(\"'Quoted ''text''' yyyy\", 'UTC')}", "Quoted 'text' 2023"),
        ("${now():format(\"''yyyy''\", 'UTC')}", "'2023'"),
        ("${now():format('Z X XX XXX', 'Asia/Kolkata')}", "+0530 +0530 +0530 +05:30"),
        ("${now():format('X', 'UTC')}", "Z"),
        ("${now():format('z', 'PST')}", "PST"),
        ("${now():format('HH:mm z', 'GMT+02:00')}", "00:13 GMT+02:00"),
        # F: Java 21's aligned week of the month (NiFi 2 runs on Java 21)
        ("${now():format('D w W F u', 'UTC')}", "318 46 3 2 2023"),
        ("${now():format('h K k G', 'UTC')}", "10 10 22 AD"),
        ("${now():format('dd.MM.yyyy', 'Europe/Berlin')}", "14.11.2023"),
        ("${now():format('dd', 'Asia/Tokyo')}", "15"),
        ("${now():minus(86400000):format('yyyy-MM-dd', 'UTC')}", "2023-11-13"),
        ("${now():toNumber():plus(1000):format('ss.SSS', 'UTC')}", "21.123"),
        ("${t:format('yyyy', 'UTC')}", "2023"),  # a number string is epoch millis
        ("${d:toDate('yyyy-MM-dd HH:mm:ss', 'UTC'):toNumber()}", "1700000000000"),
        ("${d:toDate('yyyy-MM-dd HH:mm:ss', 'America/New_York'):toNumber()}", "1700018000000"),
        (
            "${literal('2023-11-14T17:13:20.123-0500'):toDate(\"yyyy-MM-dd'T'HH:mm:ss.SSSZ\")"
            ":toNumber()}",
            "1700000000123",
        ),
        (
            "${literal('2023-11-14T22:13:20Z'):toDate(\"yyyy-MM-dd'T'HH:mm:ssX\"):toNumber()}",
            "1700000000000",
        ),
        (
            "${literal('14 nov 2023'):toDate('dd MMM yyyy', 'UTC'):format('yyyy-MM-dd', 'UTC')}",
            "2023-11-14",
        ),
        (
            "${literal('November 14, 2023'):toDate('MMMM d, yyyy', 'UTC'):toNumber()}",
            "1699920000000",
        ),
        (
            "${literal('11/14/2023 10:13 PM'):toDate('MM/dd/yyyy hh:mm a', 'UTC'):toNumber()}",
            "1699999980000",
        ),
        ("${literal('20231114'):toDate('yyyyMMdd', 'UTC'):format('MM', 'UTC')}", "11"),
        ("${literal('23-11-14'):toDate('yy-MM-dd', 'UTC'):format('yyyy', 'UTC')}", "2023"),
        (
            "${literal('Tue 14 Nov 2023'):toDate('EEE dd MMM yyyy', 'UTC'):toNumber()}",
            "1699920000000",
        ),
        ("${t:toDate():format('SSS', 'UTC')}", "123"),
        ("${literal('Tue Nov 14 22:13:20 UTC 2023'):toDate():toNumber()}", "1700000000000"),
        ("${t:toDate():equals(${now()})}", "true"),
        ("${now():toNumber():toDate():format('yyyy', 'UTC')}", "2023"),
    ],
)
def test_dates(text: str, expected: str) -> None:
    assert run(text, {"t": str(NOW), "d": "2023-11-14 22:13:20"}) == expected


def test_now_uses_the_injected_time_consistently() -> None:
    text = "${now():toNumber()}|${now():toNumber()}"
    assert evaluate(text, now_ms=5) == "5|5"


def test_now_without_injection_reads_the_wall_clock() -> None:
    before = time.time_ns() // 1_000_000
    value = int(evaluate("${now():toNumber()}"))
    after = time.time_ns() // 1_000_000
    assert before <= value <= after


def test_now_renders_like_java_date_in_the_local_zone(new_york: None) -> None:
    assert run("${now()}") == "Tue Nov 14 17:13:20 EST 2023"
    assert run("${now():format('yyyy-MM-dd HH:mm')}") == "2023-11-14 17:13"
    assert run("${now():toString():toDate():toNumber()}") == "1700000000000"


def test_to_date_defaults_to_the_local_zone(new_york: None) -> None:
    text = "${d:toDate('yyyy-MM-dd HH:mm:ss'):toNumber()}"
    assert run(text, {"d": "2023-11-14 17:13:20"}) == "1700000000000"
    assert run("${d:toDate():toNumber()}", {"d": "2023/11/14 17:13:20.123"}) == "1700000000123"
    assert run("${d:toDate():toNumber()}", {"d": "2023/11/14 17:13:20"}) == "1700000000000"


def test_local_zone_follows_daylight_saving_time(new_york: None) -> None:
    july = 1_689_000_000_000  # 2023-07-10T14:40:00Z
    assert evaluate("${now()}", now_ms=july) == "Mon Jul 10 10:40:00 EDT 2023"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("${now():format('yyyy-bb')}", "Unknown pattern letter: b"),
        ('${now():format("yyyy\'T")}', "Pattern ends with an incomplete string literal"),
        ("${now():format('XXXXXX')}", "Too many pattern letters: X"),
        ("${now():format('ddd')}", "Too many pattern letters: d"),
        ("${now():format('yyyy{')}", "Pattern includes reserved character"),
        ("${now():format('yyyy', 'Mars/Olympus')}", "Unknown time zone 'Mars/Olympus'"),
        ("${d:toDate('yyyy', 'Nowhere')}", "Unknown time zone 'Nowhere'"),
    ],
)
def test_invalid_literal_patterns_fail_at_compile_time(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=re.escape(message)):
        compile_expression(text)


@pytest.mark.parametrize(
    ("text", "attributes", "message"),
    [
        ("${d:toDate('yyyy-MM-dd')}", {"d": "14/11/2023"}, "Cannot parse '14/11/2023'"),
        # java.time's SMART resolver: 2023-02-30 is February's last day, month 13 fails
        ("${d:toDate('yyyy-MM-dd')}", {"d": "2023-13-01"}, "MonthOfYear"),
        ("${d:format('yyyy')}", {"d": "not a date"}, "Could not implicitly convert"),
        ("${d:toDate()}", {"d": "yesterday"}, "Could not implicitly convert"),
        ("${now():format(${p})}", {"p": "bb"}, "Unknown pattern letter: b"),
        ("${now():format('yyyy', ${z})}", {"z": "Nowhere"}, "Unknown time zone 'Nowhere'"),
    ],
)
def test_runtime_date_failures(text: str, attributes: dict[str, str], message: str) -> None:
    with pytest.raises(ExpressionError, match=re.escape(message)) as info:
        run(text, attributes)
    assert "at position" in str(info.value)
