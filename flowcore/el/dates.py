"""Java date patterns and time zones for the EL date functions.

NiFi's ``format()`` and ``toDate()`` take ``java.text.SimpleDateFormat`` patterns such as
``yyyy-MM-dd HH:mm:ss.SSS``. ``strftime`` cannot express them (milliseconds, field widths,
quoted text), so a pattern is tokenised once and then formats and parses directly, always
with English (``Locale.US``) names. Dates are epoch milliseconds; ``None`` as a zone means
the process's local time zone, as a JVM uses its default zone.
"""

from __future__ import annotations

import functools
import os
import re
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from flowcore.el.java_time import (
    DAY_NAMES,
    MONTH_NAMES,
    check_letter_count,
    format_java_time_field,
    sunday_index,
    us_week,
)
from flowcore.el.java_time_resolve import ParsedFields, Resolved, resolve_fields, resolves_date
from flowcore.errors import ExpressionError

__all__ = [
    "DAY_NAMES",
    "MONTH_NAMES",
    "DatePattern",
    "add_amount",
    "compile_date_pattern",
    "compile_java_time_pattern",
    "date_to_string",
    "instant_to_string",
    "parse_amount",
    "parse_default_date",
    "parse_instant",
    "resolve_zone",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_SECOND = timedelta(seconds=1)

"""English month and day names, as Java's DateTimeFormatter writes them (Locale.US)."""

# SimpleDateFormat's pattern letters; every other ASCII letter is illegal.
_LETTERS = frozenset("GyYMLwWDdFEuaHkKhmsSzZX")
_NUMERIC = frozenset("yYMLwWDdFuHkKhmsSnNAQqec")

# Java's legacy three-letter time zone IDs that are not tz database names.
_LEGACY_IDS = {
    "PST": "America/Los_Angeles",
    "CST": "America/Chicago",
    "AST": "America/Anchorage",
    "IST": "Asia/Kolkata",
    "JST": "Asia/Tokyo",
    "ECT": "Europe/Paris",
    "AET": "Australia/Sydney",
    "BST": "Asia/Dhaka",
}

# Zone abbreviations accepted when parsing a "z" field: the zone java.time's parser picks
# for each (Locale.US, from the JDK), whose rules then give the offset at the parsed time,
# so "EST" in July is New York's -04:00 and "IST" is Africa/Abidjan's GMT.
_ABBREVIATION_ZONES = {
    "WET": "Atlantic/Canary",
    "WEST": "Atlantic/Canary",
    "BST": "Pacific/Bougainville",
    "IST": "Africa/Abidjan",
    "CET": "Europe/Paris",
    "CEST": "Europe/Paris",
    "EET": "Europe/Bucharest",
    "EEST": "Europe/Bucharest",
    "MSK": "Europe/Moscow",
    "EST": "America/New_York",
    "EDT": "America/New_York",
    "CST": "America/Chicago",
    "CDT": "America/Chicago",
    "MST": "America/Denver",
    "MDT": "America/Denver",
    "PST": "America/Los_Angeles",
    "PDT": "America/Los_Angeles",
    "AKST": "America/Juneau",
    "AKDT": "America/Juneau",
    "HST": "Pacific/Honolulu",
    "HDT": "Pacific/Honolulu",
    "AST": "America/Halifax",
    "ADT": "America/Halifax",
    "NST": "America/St_Johns",
    "NDT": "America/St_Johns",
    "JST": "Asia/Tokyo",
    "KST": "Asia/Seoul",
    "SGT": "Asia/Singapore",
    "HKT": "Asia/Hong_Kong",
    "AEST": "Australia/Sydney",
    "AEDT": "Australia/Sydney",
    "ACST": "America/Rio_Branco",
    "ACDT": "Australia/Adelaide",
    "AWST": "Australia/Perth",
    "NZST": "Pacific/Auckland",
    "NZDT": "Pacific/Auckland",
    "SAST": "Africa/Johannesburg",
    "WAT": "Africa/Lagos",
    "CAT": "Africa/Maputo",
    "EAT": "Africa/Nairobi",
    "BRT": "America/Sao_Paulo",
    "ART": "America/Argentina/Buenos_Aires",
    "PKT": "Asia/Karachi",
}
_UTC_NAMES = frozenset({"UTC", "GMT", "UT", "Z"})

_OFFSET_ID = re.compile(r"(?:GMT|UTC|UT)?([+-])(\d{1,2})(?::?(\d{2}))?")


def _fixed_zone(minutes: int, name: str | None = None) -> timezone:
    if name is None:
        sign = "-" if minutes < 0 else "+"
        hours, mins = divmod(abs(minutes), 60)
        name = f"GMT{sign}{hours:02d}:{mins:02d}"
    return timezone(timedelta(minutes=minutes), name)


@functools.lru_cache(maxsize=256)
def resolve_zone(zone_id: str) -> tzinfo:
    """The zone for a Java time zone ID ("UTC", "America/New_York", "GMT+02:00", "PST")."""
    name = zone_id.strip()
    if name in ("UTC", "GMT", "UT"):
        return _fixed_zone(0, name)
    match = _OFFSET_ID.fullmatch(name)
    if match is not None:
        sign, hours, mins = match.group(1), int(match.group(2)), int(match.group(3) or 0)
        if hours > 18 or mins > 59:
            raise ExpressionError(f"Invalid time zone offset '{zone_id}'")
        total = hours * 60 + mins
        return _fixed_zone(-total if sign == "-" else total)
    try:
        return ZoneInfo(_LEGACY_IDS.get(name, name))
    except (ZoneInfoNotFoundError, ValueError):
        raise ExpressionError(f"Unknown time zone '{zone_id}'") from None


def _to_datetime(epoch_ms: int, zone: tzinfo | None) -> datetime:
    utc = _EPOCH + timedelta(milliseconds=epoch_ms)
    return utc.astimezone(zone) if zone is not None else utc.astimezone()


def _zone_id(zone: tzinfo | None, moment: datetime) -> str:
    """``ZoneId.getId()``: the tz database key, else the zone's own name; for the local
    zone (None) the process's zone key where it can be found."""
    key = getattr(zone, "key", None)
    if isinstance(key, str):
        return key
    if zone is None:
        local = _local_zone_key()
        if local is not None:
            return local
    return (zone or moment.tzinfo or UTC).tzname(moment) or "UTC"


def _local_zone_key() -> str | None:
    """The tz database name of the process's zone: TZ, else where /etc/localtime points."""
    name = os.environ.get("TZ", "").lstrip(":") or _localtime_key()
    return name if name in _zone_ids() else None


@functools.cache
def _localtime_key() -> str:
    try:
        return os.path.realpath("/etc/localtime").partition("/zoneinfo/")[2]
    except OSError:
        return ""


def _local_wall_clock_ns(
    text: str, year: int, month: int, day: int, hour: int, minute: int, second: int, nanos: int
) -> int:
    """Epoch nanoseconds of a local wall-clock time: mktime applies the process's zone and
    its daylight-saving rules."""
    try:
        seconds = time.mktime((year, month, day, hour, minute, second, 0, 0, -1))
    except (OverflowError, ValueError) as exc:
        raise ExpressionError(f"Cannot convert '{text}' to a local time: {exc}") from None
    return int(seconds) * 1_000_000_000 + nanos


def _offset_minutes(moment: datetime) -> int:
    offset = moment.utcoffset()
    return 0 if offset is None else int(offset.total_seconds()) // 60


def _rfc822(minutes: int, colon: bool = False) -> str:
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{mins:02d}" if colon else f"{sign}{hours:02d}{mins:02d}"


@dataclass(frozen=True, slots=True)
class _Field:
    letter: str
    count: int


def _tokenize(pattern: str, java_time: bool = False) -> tuple[_Field | str, ...]:
    tokens: list[_Field | str] = []
    literal: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "'" and java_time:
            # DateTimeFormatter: the text up to the closing quote, with a doubled quote in it
            # read as one; an empty pair is one quote too (four quotes are a single quote).
            j = i + 1
            while j < n and not (pattern[j] == "'" and pattern[j + 1 : j + 2] != "'"):
                j += 2 if pattern[j] == "'" else 1
            if j >= n:
                raise ExpressionError(
                    f"Pattern ends with an incomplete string literal: '{pattern}'"
                )
            literal.append(pattern[i + 1 : j].replace("''", "'") or "'")
            i = j + 1
        elif char == "'":
            if i + 1 < n and pattern[i + 1] == "'":
                literal.append("'")
                i += 2
                continue
            j = i + 1
            while True:
                if j >= n:
                    raise ExpressionError(f"Unterminated quote in date pattern '{pattern}'")
                if pattern[j] == "'":
                    if j + 1 < n and pattern[j + 1] == "'":
                        literal.append("'")
                        j += 2
                        continue
                    break
                literal.append(pattern[j])
                j += 1
            i = j + 1
        elif java_time and char in "[]":
            i += 1  # optional sections: every field of a date-time is present, so they print
        elif java_time and char in "{}#":
            raise ExpressionError(f"Pattern includes reserved character: '{char}' in '{pattern}'")
        elif char.isascii() and char.isalpha() and java_time:
            j = i
            while j < n and pattern[j] == char:
                j += 1
            check_letter_count(char, j - i, pattern)
            if literal:
                tokens.append("".join(literal))
                literal.clear()
            tokens.append(_Field(char, j - i))
            i = j
        elif char.isascii() and char.isalpha():
            if char not in _LETTERS:
                raise ExpressionError(
                    f"Illegal pattern character '{char}' in date pattern '{pattern}'"
                )
            j = i
            while j < n and pattern[j] == char:
                j += 1
            if char == "X" and j - i > 3:
                raise ExpressionError(f"Invalid ISO 8601 format length in date pattern '{pattern}'")
            if literal:
                tokens.append("".join(literal))
                literal.clear()
            tokens.append(_Field(char, j - i))
            i = j
        else:
            literal.append(char)
            i += 1
    if literal:
        tokens.append("".join(literal))
    return tuple(tokens)


def _names_regex(names: tuple[str, ...]) -> str:
    choices = sorted({*names, *(name[:3] for name in names)}, key=len, reverse=True)
    return "|".join(choices)


_ZONE_TEXT = r"(?:GMT|UTC|UT)[+-]\d{1,2}(?::?\d{2})?|[+-]\d{4}|[A-Za-z][A-Za-z_]*(?:/[A-Za-z_+-]+)*"


class DatePattern:
    """A compiled Java date pattern: formats epoch milliseconds and parses text back."""

    __slots__ = ("_regex", "_strict_regex", "_tokens", "java_time", "pattern")

    def __init__(self, pattern: str, java_time: bool = False) -> None:
        """``java_time`` reads the pattern as ``DateTimeFormatter`` does (``S`` is a fraction
        of a second, ``n`` nanoseconds, ``u`` the year) instead of ``SimpleDateFormat``."""
        self.pattern = pattern
        self.java_time = java_time
        self._tokens = _tokenize(pattern, java_time)
        self._regex = re.compile(self._parse_regex(), re.IGNORECASE)
        self._strict_regex: re.Pattern[str] | None = None

    def format(self, epoch_ms: int, zone: tzinfo | None = None) -> str:
        """Render ``epoch_ms`` in ``zone`` (None: the local zone)."""
        return self.format_ns(epoch_ms * 1_000_000, zone)

    def format_ns(self, epoch_ns: int, zone: tzinfo | None = None) -> str:
        """Render ``epoch_ns`` (nanoseconds since the epoch) in ``zone``."""
        seconds, fraction = divmod(epoch_ns, 1_000_000_000)
        epoch_ms = seconds * 1000 + fraction // 1_000_000
        if self.java_time:
            epoch_ms, cycles = _into_python_years(epoch_ms)
            moment = _to_datetime(epoch_ms, zone)
            zone_id = _zone_id(zone, moment)
            return "".join(
                token
                if isinstance(token, str)
                else format_java_time_field(
                    token.letter, token.count, moment, fraction, zone_id, 400 * cycles
                )
                for token in self._tokens
            )
        moment = _to_datetime(epoch_ms, zone)
        return "".join(
            token if isinstance(token, str) else _format_field(token, moment)
            for token in self._tokens
        )

    def parse(self, text: str, zone: tzinfo | None = None) -> int:
        """Epoch milliseconds for ``text``; a zone in the text wins over ``zone``."""
        return self.parse_ns(text, zone) // 1_000_000

    def parse_ns(
        self,
        text: str,
        zone: tzinfo | None = None,
        *,
        default_year: int = 1970,
        reject_gap: bool = False,
    ) -> int:
        """Epoch nanoseconds for ``text``; a zone in the text wins over ``zone``.

        ``default_year`` is the year when the pattern has none; ``reject_gap`` refuses a
        local time that a daylight-saving change skips in ``zone`` (``isValidDate``).
        """
        match = self._regex.fullmatch(text)
        if match is None:
            raise ExpressionError(f"Cannot parse '{text}' as a date with format '{self.pattern}'")
        year, month, day, hour, minute, second, nanos = default_year, 1, 1, 0, 0, 0, 0
        day_of_year: int | None = None
        hour12: int | None = None
        pm: bool | None = None
        week_year: int | None = None
        has_year = has_month_day = False
        parsed_zone: tzinfo | None = None
        for index, token in enumerate(self._tokens):
            if isinstance(token, str):
                continue
            value = match.group(f"g{index}")
            letter = token.letter
            if letter == "y" or (letter == "u" and self.java_time):
                year = 2000 + int(value) if token.count <= 2 and len(value) == 2 else int(value)
                has_year = True
            elif letter == "Y":
                week_year = int(value)
            elif letter in "ML":
                has_month_day = True
                month = int(value) if value.isdigit() else _month_number(value)
            elif letter == "d":
                has_month_day = True
                day = int(value)
            elif letter == "D":
                day_of_year = int(value)
            elif letter == "H":
                hour = int(value)
            elif letter == "k":
                hour = int(value) % 24
            elif letter in "Kh":
                hour12 = int(value) % 12
            elif letter == "a":
                pm = value.upper() == "PM"
            elif letter == "m":
                minute = int(value)
            elif letter == "s":
                second = int(value)
            elif letter == "S":
                # SimpleDateFormat reads S as a count of milliseconds; longer fields (and
                # every java.time pattern) are read as a fraction of a second.
                if token.count <= 3 and not self.java_time:
                    nanos = int(value) * 1_000_000
                else:
                    nanos = int(value.ljust(9, "0")[:9])
            elif letter == "n":
                nanos = int(value)
            elif letter in "zZXxOV":
                parsed_zone = _parse_zone(value)
        if not has_year and week_year is not None:
            year = week_year
        if hour12 is not None:
            hour = hour12 + (12 if pm else 0)
        try:
            if day_of_year is not None and not has_month_day:
                base = date(year, 1, 1) + timedelta(days=day_of_year - 1)
                month, day = base.month, base.day
            moment = datetime(
                year,
                month,
                day,
                hour,
                minute,
                second,
                tzinfo=parsed_zone or zone or UTC,
            )
        except (ValueError, OverflowError) as exc:
            raise ExpressionError(
                f"Cannot parse '{text}' as a date with format '{self.pattern}': {exc}"
            ) from None
        if reject_gap and parsed_zone is None and zone is not None:
            local = moment.replace(tzinfo=None)
            if moment.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != local:
                raise ExpressionError(f"'{text}' does not exist in time zone {zone}")
        if parsed_zone is None and zone is None:
            return _local_wall_clock_ns(text, year, month, day, hour, minute, second, nanos)
        return (moment - _EPOCH) // _ONE_SECOND * 1_000_000_000 + nanos

    def parse_to_instant_ns(
        self, text: str, zone: tzinfo | None = None, *, strict: bool = False
    ) -> int:
        """Epoch nanoseconds for ``text`` as NiFi's ``toDate()`` reads it: java.time's
        resolution of the parsed fields, then ``FormatUtils.parseToInstant``'s defaults.
        A zone or offset in the text wins over ``zone``; None is the local zone.

        ``strict`` is ``toInstant()``'s plain ``DateTimeFormatter.ofPattern``: names match
        case and style, numbers their widths, and the text must give a date and a time."""
        match = self._match(text, strict)
        fields = ParsedFields()
        parsed_offset: tzinfo | None = None  # an offset in the text beats a zone in it
        parsed_region: tzinfo | None = None
        for index, token in enumerate(self._tokens):
            if isinstance(token, str):
                continue
            value = match.group(f"g{index}")
            if token.letter in "zV":
                if strict and not _exact_zone_text(value):
                    raise ExpressionError(f"Unknown time zone '{value}' (names match case)")
                parsed_region = _parse_zone(value)
                continue
            if token.letter in "ZXxO":
                parsed_offset = _parse_zone(value)
                continue
            entry = _java_time_field(token, value)
            if entry is not None:
                fields.put(*entry)
        year, month, day, hour, minute, second, nanos, complete = resolve_fields(fields)
        if strict and not complete:
            raise ExpressionError(
                f"Unable to obtain Instant from '{text}' with format '{self.pattern}': it needs "
                "a date and a time"
            )
        parsed_zone = parsed_offset or parsed_region
        if parsed_zone is None and zone is None:
            return _local_wall_clock_ns(text, year, month, day, hour, minute, second, nanos)
        try:
            moment = datetime(year, month, day, hour, minute, second, tzinfo=parsed_zone or zone)
        except (ValueError, OverflowError) as exc:
            raise ExpressionError(f"Cannot parse '{text}' as a date: {exc}") from None
        return (moment - _EPOCH) // _ONE_SECOND * 1_000_000_000 + nanos

    def parse_wall_clock(self, text: str) -> Resolved | None:
        """The date and time of day ``text`` gives as NiFi's RecordPath ``toDate()`` reads
        it: a strict ``DateTimeFormatter.ofPattern`` parse (names match case, numbers their
        widths) whose zone or offset is ignored; None when it gives no whole date."""
        match = self._match(text, strict=True)
        fields = ParsedFields()
        for index, token in enumerate(self._tokens):
            if isinstance(token, str):
                continue
            value = match.group(f"g{index}")
            if token.letter in "zV" and not _exact_zone_text(value):
                raise ExpressionError(f"Unknown time zone '{value}' (names match case)")
            entry = _java_time_field(token, value)
            if entry is not None:
                fields.put(*entry)
        if not resolves_date(fields):
            return None
        return resolve_fields(fields)

    def _match(self, text: str, strict: bool) -> re.Match[str]:
        if strict:
            if self._strict_regex is None:
                self._strict_regex = re.compile(self._parse_regex(strict=True))
            match = self._strict_regex.fullmatch(text)
        else:
            match = self._regex.fullmatch(text)
        if match is None:
            raise ExpressionError(f"Cannot parse '{text}' as a date with format '{self.pattern}'")
        return match

    def _parse_regex(self, strict: bool = False) -> str:
        parts: list[str] = []
        tokens = self._tokens
        for index, token in enumerate(tokens):
            if isinstance(token, str):
                parts.append(re.escape(token))
                continue
            letter, count = token.letter, token.count
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            abutting = isinstance(following, _Field) and _is_numeric(following)
            if _is_numeric(token):
                if strict:
                    body = _strict_number(letter, count)
                else:
                    body = rf"\d{{{count}}}" if abutting else r"\d+"
                parts.append(f"(?P<g{index}>{body})")
                continue
            if strict and letter in "MLEec":
                names = MONTH_NAMES if letter in "ML" else DAY_NAMES
                body = "|".join(
                    name[:3] if count <= 3 else name if count == 4 else name[0] for name in names
                )
            elif letter in "ML":
                body = _names_regex(MONTH_NAMES)
            elif letter in "Eec":
                body = _names_regex(DAY_NAMES)
            elif letter in "Qq":
                body = r"Q[1-4]|[1-4](?:st|nd|rd|th) quarter"
            elif letter == "a":
                body = "AM|PM"
            elif letter == "G":
                body = "Anno Domini|Before Christ|AD|BC|A|B"
            elif letter in "zV":
                body = _ZONE_TEXT
            elif letter == "Z":
                body = r"[+-]\d{2}:?\d{2}|Z"
            elif letter == "O":
                body = r"GMT(?:[+-]\d{1,2}(?::\d{2})?)?"
            elif letter == "x":
                body = r"[+-]\d{2}(?::?\d{2})?"
            else:  # X
                body = r"Z|[+-]\d{2}(?::?\d{2})?"
            parts.append(f"(?P<g{index}>{body})")
        return "".join(parts)


def _strict_number(letter: str, count: int) -> str:
    """A number's width in a strict java.time parse: one letter any width, a year at least
    its letters, a fraction exactly its letters, other fields exactly two or three."""
    if count == 1:
        return r"\d{1,19}"
    if letter in "yuY" and count != 2:
        return rf"\d{{{count},19}}"
    if letter in "nNA":
        return rf"\d{{{count},19}}"
    return rf"\d{{{count}}}"


_ERAS = {"AD": 1, "ANNO DOMINI": 1, "A": 1, "BC": 0, "BEFORE CHRIST": 0, "B": 0}


def _java_time_field(token: _Field, value: str) -> tuple[str, int] | None:
    """The java.time field and value one parsed pattern field gives (None: unused)."""
    letter, count = token.letter, token.count
    if letter in "yuY":
        number = int(value)
        if count == 2 and len(value) == 2:
            number += 2000  # a two-digit year is 2000-2099
        return {"y": "year_of_era", "u": "year", "Y": "week_year"}[letter], number
    if letter in "ML":
        return "month", int(value) if value.isdigit() else _month_number(value)
    if letter == "E" or (letter in "ec" and count >= 3):
        return "day_of_week", _day_number(value)
    simple = {
        "d": "day",
        "D": "day_of_year",
        "w": "week",
        "e": "local_day_of_week",
        "c": "local_day_of_week",
        "H": "hour",
        "k": "clock_hour",
        "h": "clock_hour_of_ampm",
        "K": "hour_of_ampm",
        "m": "minute",
        "s": "second",
        "n": "nano",
    }
    if letter in simple:
        return simple[letter], int(value)
    if letter == "S":
        return "nano", int(value.ljust(9, "0")[:9])
    if letter == "a":
        return "ampm", 0 if value.upper() == "AM" else 1
    if letter == "G":
        return "era", _ERAS[value.upper()]
    return None


def _day_number(name: str) -> int:
    """ISO day of the week (Monday is 1) for an English day name or its abbreviation."""
    prefix = name[:3].lower()
    for number, day in enumerate(DAY_NAMES, start=1):
        if day[:3].lower() == prefix:
            return number
    raise ExpressionError(f"Unknown day name '{name}'")


def _is_numeric(field: _Field) -> bool:
    return field.letter in _NUMERIC and not (field.letter in "MLQqec" and field.count >= 3)


def _month_number(name: str) -> int:
    prefix = name[:3].lower()
    for number, month in enumerate(MONTH_NAMES, start=1):
        if month[:3].lower() == prefix:
            return number
    raise ExpressionError(f"Unknown month name '{name}'")


def _parse_zone(text: str) -> tzinfo:
    """The zone a parsed zone field names; the parse ignores case, as NiFi's does."""
    upper = text.upper()
    if upper in _UTC_NAMES:
        return _fixed_zone(0, upper if upper != "Z" else "UTC")
    if upper in _ABBREVIATION_ZONES:
        return ZoneInfo(_ABBREVIATION_ZONES[upper])
    match = re.fullmatch(r"([+-])(\d{2}):?(\d{2})?", text)
    if match is not None:
        total = int(match.group(2)) * 60 + int(match.group(3) or 0)
        return _fixed_zone(-total if match.group(1) == "-" else total)
    if upper.startswith(("GMT", "UTC", "UT")):
        return resolve_zone(upper)
    return resolve_zone(_zone_ids_by_case().get(text.lower(), text))


def _exact_zone_text(text: str) -> bool:
    """Whether a strict (case-sensitive) parse knows this zone text as written."""
    if text in _UTC_NAMES or text in _ABBREVIATION_ZONES or text in _zone_ids():
        return True
    return text.startswith(("GMT", "UTC", "UT")) and text[:3] == text[:3].upper()


@functools.cache
def _zone_ids() -> frozenset[str]:
    return frozenset(available_timezones())


@functools.cache
def _zone_ids_by_case() -> dict[str, str]:
    return {name.lower(): name for name in _zone_ids()}


def _pad(value: int, count: int) -> str:
    return str(value).zfill(count)


def _format_field(field: _Field, moment: datetime) -> str:
    letter, count = field.letter, field.count
    if letter == "y":
        return f"{moment.year % 100:02d}" if count == 2 else _pad(moment.year, count)
    if letter == "Y":
        week_year = us_week(moment.date())[0]
        return f"{week_year % 100:02d}" if count == 2 else _pad(week_year, count)
    if letter in "ML":
        if count >= 4:
            return MONTH_NAMES[moment.month - 1]
        if count == 3:
            return MONTH_NAMES[moment.month - 1][:3]
        return _pad(moment.month, count)
    if letter == "d":
        return _pad(moment.day, count)
    if letter == "H":
        return _pad(moment.hour, count)
    if letter == "m":
        return _pad(moment.minute, count)
    if letter == "s":
        return _pad(moment.second, count)
    if letter == "S":
        return _pad(moment.microsecond // 1000, count)
    if letter == "E":
        name = DAY_NAMES[moment.weekday()]
        return name if count >= 4 else name[:3]
    if letter == "a":
        return "AM" if moment.hour < 12 else "PM"
    if letter == "h":
        return _pad(moment.hour % 12 or 12, count)
    if letter == "K":
        return _pad(moment.hour % 12, count)
    if letter == "k":
        return _pad(moment.hour or 24, count)
    if letter == "D":
        return _pad(moment.timetuple().tm_yday, count)
    if letter == "F":
        return _pad((moment.day - 1) // 7 + 1, count)
    if letter == "w":
        return _pad(us_week(moment.date())[1], count)
    if letter == "W":
        first = moment.date().replace(day=1)
        return _pad((moment.day - 1 + sunday_index(first)) // 7 + 1, count)
    if letter == "u":
        return _pad(moment.isoweekday(), count)
    if letter == "G":
        return "AD"
    minutes = _offset_minutes(moment)
    if letter == "z":
        return moment.tzname() or _fixed_zone(minutes).tzname(None) or ""
    if letter == "Z":
        return _rfc822(minutes)
    # X: ISO 8601 offset
    if minutes == 0:
        return "Z"
    if count == 1:
        return _rfc822(minutes)[:3]
    return _rfc822(minutes, colon=count == 3)


@functools.lru_cache(maxsize=256)
def compile_date_pattern(pattern: str) -> DatePattern:
    """The compiled form of a Java date pattern; raises ExpressionError if it is invalid."""
    return DatePattern(pattern)


@functools.lru_cache(maxsize=256)
def compile_java_time_pattern(pattern: str) -> DatePattern:
    """A ``DateTimeFormatter`` pattern (used by the Instant functions), compiled and cached."""
    return DatePattern(pattern, java_time=True)


_TO_STRING = compile_date_pattern("EEE MMM dd HH:mm:ss zzz yyyy")
_TO_STRING_SHAPE = re.compile(r"(?:[a-zA-Z]{3} ){2}\d{2} \d{2}:\d{2}:\d{2} .*? \d{4}")
_SLASHED = re.compile(r"\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(\.\d{3})?")
_SLASHED_PATTERN = compile_date_pattern("yyyy/MM/dd HH:mm:ss")
_SLASHED_MILLIS_PATTERN = compile_date_pattern("yyyy/MM/dd HH:mm:ss.SSS")


_DAY_MS = 86_400_000
_GREGORIAN_CUTOVER_DAY = -141_427  # 1582-10-15, where java.util.Date leaves the Julian calendar
_CYCLE_MS = 146_097 * _DAY_MS  # 400 Gregorian years: dates and weekdays repeat


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """Proleptic Gregorian (year, month, day) of a day count from 1970-01-01, any range."""
    days += 719_468
    era, day_of_era = divmod(days, 146_097)
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146_096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    return year_of_era + era * 400 + (month <= 2), month, day


def _julian_from_days(days: int) -> tuple[int, int, int]:
    """Julian calendar (year, month, day) of a day count from 1970-01-01."""
    c = days + 2_440_588 + 32_082
    d = (4 * c + 3) // 1461
    e = c - 1461 * d // 4
    m = (5 * e + 2) // 153
    return d - 4800 + m // 10, m + 3 - 12 * (m // 10), e - (153 * m + 2) // 5 + 1


def _local_offset_and_name(epoch_ms: int) -> tuple[int, str]:
    """The local zone's offset (ms) and short name at an instant, also beyond the years
    Python's datetime holds (a 400-year shift keeps the zone's rules for those times)."""
    shifted = _into_python_years(epoch_ms)[0]
    key = _local_zone_key()
    zone = ZoneInfo(key) if key is not None else None
    moment = _to_datetime(shifted, zone)
    # java.util.TimeZone names a zone by today's standard or daylight name in every era,
    # and before the zone's first transition (local mean time) uses today's standard offset
    samples = sorted(
        (_to_datetime(sample, zone) for sample in (1_704_067_200_000, 1_719_792_000_000)),
        key=lambda sample: sample.utcoffset() or timedelta(0),
    )  # 2024-01-01 and 2024-07-01: standard time first
    if moment.tzname() == "LMT":
        moment = samples[0]
    offset = moment.utcoffset()
    offset_ms = 0 if offset is None else int(offset.total_seconds() * 1000)
    if zone is not None:
        daylight = (moment.dst() or timedelta(0)) > timedelta(0)
    else:
        standard_offset = samples[0].utcoffset() or timedelta(0)
        daylight = offset_ms > standard_offset.total_seconds() * 1000
    name = (samples[-1] if daylight else samples[0]).tzname() or ""
    if daylight and samples[0].utcoffset() == samples[-1].utcoffset():
        name = moment.tzname() or name  # daylight time the zone no longer keeps (JDT 1949)
    if not name or name[0] in "+-":
        name = _fixed_zone(offset_ms // 60_000).tzname(None) or "GMT"
    return offset_ms, name


def _into_python_years(epoch_ms: int) -> tuple[int, int]:
    """``epoch_ms`` moved by whole 400-year cycles into years Python's datetime holds, and
    the number of cycles it moved back (a zone keeps its rules: today's far ahead, local
    mean time far back)."""
    low, high = -59_000_000_000_000, 250_000_000_000_000  # about years 100 and 9890
    if epoch_ms > high:
        cycles = -(-(epoch_ms - high) // _CYCLE_MS)
    elif epoch_ms < low:
        cycles = (epoch_ms - low) // _CYCLE_MS
    else:
        return epoch_ms, 0
    return epoch_ms - cycles * _CYCLE_MS, cycles


def date_to_string(epoch_ms: int) -> str:
    """A date as Java's ``Date.toString()`` renders it, in the local zone: the Julian
    calendar before 1582-10-15, the year unpadded and without era (year 1 is ``1``)."""
    offset_ms, zone_name = _local_offset_and_name(epoch_ms)
    days, millis = divmod(epoch_ms + offset_ms, _DAY_MS)
    if days < _GREGORIAN_CUTOVER_DAY:
        year, month, day = _julian_from_days(days)
    else:
        year, month, day = _civil_from_days(days)
    weekday = DAY_NAMES[(days + 3) % 7][:3]  # 1970-01-01 was a Thursday
    seconds = millis // 1000
    clock = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    year_of_era = year if year > 0 else 1 - year
    return f"{weekday} {MONTH_NAMES[month - 1][:3]} {day:02d} {clock} {zone_name} {year_of_era}"


def parse_default_date(text: str) -> int:
    """Epoch milliseconds for text converted to a date without a format, as NiFi does.

    Accepted: a whole number of milliseconds, ``Date.toString()`` output, and
    ``yyyy/MM/dd HH:mm:ss[.SSS]`` in the local zone.
    """
    value = text.strip()
    if value.isascii() and value.isdigit():
        if int(value) > 2**63 - 1:  # new Date(Long.valueOf(text)) throws
            raise ExpressionError(f'For input string: "{value}"')
        return int(value)
    # NiFi parses these with lenient, case-insensitive java.time formatters
    if _TO_STRING_SHAPE.fullmatch(value):
        return compile_java_time_pattern(_TO_STRING.pattern).parse_to_instant_ns(value) // 10**6
    slashed = _SLASHED.fullmatch(value)
    if slashed is not None:
        pattern = _SLASHED_PATTERN if slashed.group(1) is None else _SLASHED_MILLIS_PATTERN
        return compile_java_time_pattern(pattern.pattern).parse_to_instant_ns(value) // 10**6
    raise ExpressionError(f"Could not implicitly convert '{value}' to a date")


def instant_to_string(epoch_ns: int) -> str:
    """``Instant.toString()``: ISO-8601 in UTC, the fraction in groups of three digits."""
    seconds, fraction = divmod(epoch_ns, 1_000_000_000)
    moment = _EPOCH + timedelta(seconds=seconds)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if fraction:
        digits = f"{fraction:09d}"
        while digits.endswith("000"):
            digits = digits[:-3]
        text += "." + digits
    return text + "Z"


_ISO_INSTANT = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
    r"(Z|[+-]\d{2}:\d{2}(?::\d{2})?)"
)
_RFC_1123 = re.compile(
    r"(?:(Mon|Tue|Wed|Thu|Fri|Sat|Sun), )?(\d{1,2}) "
    r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) "
    r"(\d{2}):(\d{2})(?::(\d{2}))? (GMT|[+-]\d{4})"
)


def parse_instant(text: str) -> int:
    """Epoch nanoseconds for ISO-8601 instant / offset date-time or RFC 1123 text.

    These are the forms NiFi accepts when it converts a string to an Instant.
    """
    try:
        iso = _ISO_INSTANT.fullmatch(text)
        if iso is not None:
            year, month, day, hour, minute = (int(iso.group(i)) for i in range(1, 6))
            second = int(iso.group(6) or 0)
            nanos = int((iso.group(7) or "").ljust(9, "0"))
            offset = iso.group(8)
            moment = datetime(year, month, day, hour, minute, second, tzinfo=UTC)
            if offset != "Z":
                sign = -1 if offset[0] == "-" else 1
                parts = [int(part) for part in offset[1:].split(":")]
                delta = timedelta(hours=parts[0], minutes=parts[1])
                if len(parts) > 2:
                    delta += timedelta(seconds=parts[2])
                moment -= sign * delta
            return (moment - _EPOCH) // _ONE_SECOND * 1_000_000_000 + nanos
        rfc = _RFC_1123.fullmatch(text)
        if rfc is not None:
            month = _month_number(rfc.group(3))
            moment = datetime(
                int(rfc.group(4)),
                month,
                int(rfc.group(2)),
                int(rfc.group(5)),
                int(rfc.group(6)),
                int(rfc.group(7) or 0),
                tzinfo=UTC,
            )
            if rfc.group(1) is not None and DAY_NAMES[moment.weekday()][:3] != rfc.group(1):
                raise ValueError("the day of the week does not match the date")
            zone = rfc.group(8)
            if zone != "GMT":
                sign = -1 if zone[0] == "-" else 1
                moment -= sign * timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5]))
            return (moment - _EPOCH) // _ONE_SECOND * 1_000_000_000
    except ValueError:
        pass
    raise ExpressionError(f"Could not implicitly convert input to INSTANT: {text}")


_AMOUNT = re.compile(
    r"\s*(\d+)\s+(nanoseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?)\s*",
    re.IGNORECASE,
)
_AMOUNT_FORMAT = (
    "Expected format: '<integer> <unit>' (e.g. '2 weeks', '1 month'). Supported units: "
    "nanosecond(s), second(s), minute(s), hour(s), day(s), week(s), month(s), year(s)"
)
_FIXED_NANOS = {
    "nanosecond": 1,
    "second": 1_000_000_000,
    "minute": 60_000_000_000,
    "hour": 3_600_000_000_000,
}


def parse_amount(text: str | None) -> tuple[int, str]:
    """``(amount, unit)`` of a duration such as "2 weeks"; raises ExpressionError otherwise."""
    if text is None or not text.strip():
        raise ExpressionError(f"Amount expression cannot be null or empty. {_AMOUNT_FORMAT}")
    match = _AMOUNT.fullmatch(text)
    if match is None:
        raise ExpressionError(f"Invalid amount expression: '{text}'. {_AMOUNT_FORMAT}")
    amount = int(match.group(1))
    if amount > 2**63 - 1:
        raise ExpressionError(f"Numeric overflow in expression: '{text}'. {_AMOUNT_FORMAT}")
    unit = match.group(2).lower()
    return amount, unit[:-1] if unit.endswith("s") else unit


def _plus_months(moment: datetime, months: int) -> datetime:
    total = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(total, 12)
    month += 1
    following = date(year + (month == 12), month % 12 + 1, 1)
    last_day = (following - timedelta(days=1)).day
    return moment.replace(year=year, month=month, day=min(moment.day, last_day))


def add_amount(epoch_ns: int, text: str | None, zone: tzinfo | None, sign: int) -> int:
    """``ZonedDateTime.plus`` (``sign`` 1) or ``minus`` (-1) of an amount such as "1 month".

    Nanoseconds to hours are exact durations; days, weeks, months and years move the
    local date in ``zone`` (None: the local zone) and keep the local time of day.
    """
    amount, unit = parse_amount(text)
    fixed = _FIXED_NANOS.get(unit)
    if fixed is not None:
        return epoch_ns + sign * amount * fixed
    seconds, fraction = divmod(epoch_ns, 1_000_000_000)
    moment = _to_datetime(seconds * 1000, zone)
    local = moment.replace(tzinfo=None)
    try:
        if unit in ("day", "week"):
            local += timedelta(days=sign * amount * (7 if unit == "week" else 1))
        else:
            local = _plus_months(local, sign * amount * (12 if unit == "year" else 1))
    except (OverflowError, ValueError) as exc:
        raise ExpressionError(f"Cannot add '{text}': {exc}") from None
    if zone is None:
        result = int(time.mktime(local.timetuple()))
    else:
        result = (local.replace(tzinfo=zone) - _EPOCH) // _ONE_SECOND
    return result * 1_000_000_000 + fraction
