"""How NiFi's ``toDate()`` turns parsed pattern fields into a date-time.

NiFi parses with a lenient, case-insensitive ``DateTimeFormatter`` (resolver style SMART)
and then ``FormatUtils.parseToInstant`` reads the year, month, day, hour, minute, second
and nanosecond that the parse resolved, defaulting the missing ones to 1970-01-01 00:00.
java.time's resolution decides what counts: ``h`` without ``a`` is dropped, ``a`` alone
is 06:00 or 18:00, a fraction counts only beside a second, a day of the year or a week
needs its year, day 31 of a 30-day month is its last day, 24:00 is the next midnight, and
fields that disagree (``E`` against the date) fail the parse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import NamedTuple

from flowcore.errors import ExpressionError

__all__ = ["ParsedFields", "Resolved", "resolve_fields", "resolves_date"]


@dataclass
class ParsedFields:
    """The raw values a parse found, keyed by java.time field."""

    values: dict[str, int] = field(default_factory=dict)

    def put(self, name: str, value: int) -> None:
        """Store a value; the same field parsed twice with two values is a conflict."""
        previous = self.values.get(name)
        if previous is not None and previous != value:
            raise ExpressionError(f"Conflict found: {name} {previous} differs from {name} {value}")
        self.values[name] = value


def _conflict(what: str) -> ExpressionError:
    return ExpressionError(f"Conflict found: {what}")


def _check(name: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise ExpressionError(f"Invalid value for {name} (valid values {low} - {high}): {value}")
    return value


def _month_length(year: int, month: int) -> int:
    following = date(year + (month == 12), month % 12 + 1, 1)
    return (following - timedelta(days=1)).day


def _us_week_date(week_year: int, week: int, sunday_based_day: int) -> date:
    """The date of a Locale.US week: week 1 holds January 1 and weeks start on Sunday."""
    jan1 = date(week_year, 1, 1)
    first_sunday = jan1 - timedelta(days=(jan1.weekday() + 1) % 7)
    return first_sunday + timedelta(weeks=week - 1, days=sunday_based_day - 1)


def _resolve_year(values: dict[str, int]) -> int | None:
    year = values.get("year")
    year_of_era = values.get("year_of_era")
    if year_of_era is not None:
        from_era = year_of_era if values.get("era", 1) == 1 else 1 - year_of_era
        if year is not None and year != from_era:
            raise _conflict(f"year {year} differs from year of era {year_of_era}")
        year = from_era
    return year


def _resolve_date(values: dict[str, int], year: int | None) -> date | None:
    month, day = values.get("month"), values.get("day")
    day_of_year = values.get("day_of_year")
    resolved: date | None = None
    try:
        if year is not None and month is not None and day is not None:
            _check("MonthOfYear", month, 1, 12)
            _check("DayOfMonth", day, 1, 31)
            resolved = date(year, month, min(day, _month_length(year, month)))
        elif year is not None and day_of_year is not None:
            _check("DayOfYear", day_of_year, 1, 366)
            resolved = date(year, 1, 1) + timedelta(days=day_of_year - 1)
            if resolved.year != year:
                raise ExpressionError(f"Invalid date 'DayOfYear 366': {year} is not a leap year")
        elif year is None and "week_year" in values and "week" in values:
            local_day = values.get("local_day_of_week")
            if local_day is None and "day_of_week" in values:
                local_day = values["day_of_week"] % 7 + 1
            if local_day is not None:
                resolved = _us_week_date(values["week_year"], values["week"], local_day)
    except (ValueError, OverflowError) as exc:
        raise ExpressionError(f"Invalid date: {exc}") from None
    if resolved is None:
        return None
    checks = (
        ("month", resolved.month),
        ("day", resolved.day),
        ("day_of_year", resolved.timetuple().tm_yday),
        ("day_of_week", resolved.isoweekday()),
        ("local_day_of_week", (resolved.weekday() + 1) % 7 + 1),
    )
    for name, actual in checks:
        if name == "day" and month is not None and year is not None and day is not None:
            continue  # a clamped day of month is the resolved date's, not a conflict
        parsed = values.get(name)
        if parsed is not None and parsed != actual:
            raise _conflict(f"{name} {parsed} differs from the date {resolved}")
    return resolved


def resolves_date(parsed: ParsedFields) -> bool:
    """Whether java.time resolves the parsed fields to a whole date (a year with a month
    and a day, a day of the year, or a week's day)."""
    values = dict(parsed.values)
    return _resolve_date(values, _resolve_year(values)) is not None


class Resolved(NamedTuple):
    """The date-time NiFi builds from a parse; ``complete`` when java.time itself resolved
    both a date and a time (what ``Instant.from`` needs)."""

    year: int
    month: int
    day: int
    hour: int
    minute: int
    second: int
    nanosecond: int
    complete: bool


def resolve_fields(parsed: ParsedFields) -> Resolved:
    """The fields as NiFi's toDate takes them (``FormatUtils.parseToInstant``)."""
    values = dict(parsed.values)
    year = _resolve_year(values)
    resolved_date = _resolve_date(values, year)

    hour = values.get("hour")
    if "clock_hour" in values:
        clock = values["clock_hour"]
        if clock != 0:
            _check("ClockHourOfDay", clock, 1, 24)
        from_clock = 0 if clock == 24 else clock
        if hour is not None and hour != from_clock:
            raise _conflict(f"hour {hour} differs from clock hour {clock}")
        hour = from_clock
    hour_of_ampm = None
    if "clock_hour_of_ampm" in values:
        clock = values["clock_hour_of_ampm"]
        if clock != 0:
            _check("ClockHourOfAmPm", clock, 1, 12)
        hour_of_ampm = 0 if clock == 12 else clock
    if "hour_of_ampm" in values:
        if hour_of_ampm is not None and hour_of_ampm != values["hour_of_ampm"]:
            raise _conflict("hour of am-pm differs from clock hour of am-pm")
        hour_of_ampm = _check("HourOfAmPm", values["hour_of_ampm"], 0, 11)
    ampm = values.get("ampm")
    if ampm is not None and hour_of_ampm is not None:
        from_ampm = ampm * 12 + hour_of_ampm
        if hour is not None and hour != from_ampm:
            raise _conflict(f"hour {hour} differs from {hour_of_ampm} {'PM' if ampm else 'AM'}")
        hour, ampm = from_ampm, None
    minute, second, nanos = values.get("minute"), values.get("second"), values.get("nano")
    if hour is None and minute is None and second is None and nanos is None and ampm is not None:
        hour, ampm = ampm * 12 + 6, None  # the middle of the morning or afternoon

    time_resolved = False
    extra_day = 0
    if hour is not None and not (
        (minute is None and (second is not None or nanos is not None))
        or (minute is not None and second is None and nanos is not None)
    ):
        time_resolved = True
        if hour == 24 and not (minute or second or nanos):
            hour, extra_day = 0, 1
        _check("HourOfDay", hour, 0, 23)
        if ampm is not None and ampm != hour // 12:
            raise _conflict(f"hour {hour} differs from {'PM' if ampm else 'AM'}")
    for name, value, high in (("HourOfDay", hour, 23), ("MinuteOfHour", minute, 59)):
        if value is not None:
            _check(name, value, 0, high)
    if second is not None:
        _check("SecondOfMinute", second, 0, 59)
    # parseToInstant reads the fraction only where the parse resolved a time or a second
    fraction = (nanos or 0) if time_resolved or second is not None else 0

    if resolved_date is not None:
        day_value = resolved_date + timedelta(days=extra_day) if time_resolved else resolved_date
        year_value, month_value, day_of_month = day_value.year, day_value.month, day_value.day
    else:
        year_value = 1970 if year is None else year
        month_value = values.get("month", 1)
        day_of_month = values.get("day", 1)
        try:
            date(year_value, month_value, day_of_month)
        except ValueError as exc:
            raise ExpressionError(f"Invalid date: {exc}") from None
    return Resolved(
        year_value,
        month_value,
        day_of_month,
        hour or 0,
        minute or 0,
        second or 0,
        fraction,
        resolved_date is not None and time_resolved,
    )
