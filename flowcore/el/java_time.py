"""``java.time.format.DateTimeFormatter.ofPattern(pattern, Locale.US)`` pattern letters.

NiFi 2's ``format()``, ``toDate()``, ``formatInstant()`` and ``toInstant()`` build their
formatters with ``DateTimeFormatter``, whose letters differ from ``SimpleDateFormat``'s:
``S`` is a fraction of a second (``S`` of 0.062 s is ``0``), ``u`` is the year, five
letters of a text field give its narrow form (``MMMMM`` is ``M``), ``GGGG`` is
``Anno Domini``, ``ZZZZ`` is ``GMT+05:30``, ``X`` prints minutes only when they are not
zero, and a field given more letters than it allows (``ddd``, ``HHH``) makes the pattern
invalid. This module checks letter counts and renders one field of a zoned date-time.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from flowcore.errors import ExpressionError

__all__ = [
    "DAY_NAMES",
    "JAVA_TIME_LETTERS",
    "MONTH_NAMES",
    "check_letter_count",
    "format_java_time_field",
    "sunday_index",
    "us_week",
]

MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_QUARTERS = ("1st quarter", "2nd quarter", "3rd quarter", "4th quarter")

# The most letters each field takes (ofPattern's "Too many pattern letters" otherwise).
_MAX_COUNT = {
    "G": 5, "u": 19, "y": 19, "Y": 19, "Q": 5, "q": 5, "M": 5, "L": 5, "w": 2, "W": 1,
    "d": 2, "D": 3, "F": 1, "E": 5, "e": 5, "c": 5, "a": 1, "h": 2, "H": 2, "k": 2,
    "K": 2, "m": 2, "s": 2, "S": 9, "A": 19, "n": 19, "N": 19, "V": 2, "z": 4, "O": 4,
    "X": 5, "x": 5, "Z": 5,
}  # fmt: skip
JAVA_TIME_LETTERS = frozenset(_MAX_COUNT)
"""The letters ``DateTimeFormatter`` formats here; every other ASCII letter is invalid."""


# Java's long zone names ("zzzz") with the offsets (minutes) they go with, for the zones
# flows use most; taken from the JDK (CLDR names, Locale.US).
_LONG_NAMES_BY_ZONES: tuple[tuple[tuple[tuple[int, str], ...], tuple[str, ...]], ...] = (
    (
        ((-300, "Eastern Standard Time"), (-240, "Eastern Daylight Time")),
        ("America/New_York", "America/Toronto"),
    ),
    (
        ((-360, "Central Standard Time"), (-300, "Central Daylight Time")),
        ("America/Chicago", "America/Winnipeg"),
    ),
    (
        ((-420, "Mountain Standard Time"), (-360, "Mountain Daylight Time")),
        ("America/Denver", "America/Edmonton"),
    ),
    (((-420, "Mountain Standard Time"),), ("America/Phoenix",)),
    (
        ((-480, "Pacific Standard Time"), (-420, "Pacific Daylight Time")),
        ("America/Los_Angeles", "America/Vancouver"),
    ),
    (((-540, "Alaska Standard Time"), (-480, "Alaska Daylight Time")), ("America/Anchorage",)),
    (((-600, "Hawaii-Aleutian Standard Time"),), ("Pacific/Honolulu",)),
    (((-240, "Atlantic Standard Time"), (-180, "Atlantic Daylight Time")), ("America/Halifax",)),
    (
        ((-210, "Newfoundland Standard Time"), (-150, "Newfoundland Daylight Time")),
        ("America/St_Johns",),
    ),
    (((-360, "Central Standard Time"),), ("America/Mexico_City",)),
    (((-300, "Colombia Standard Time"),), ("America/Bogota",)),
    (((-300, "Peru Standard Time"),), ("America/Lima",)),
    (((-240, "Chile Standard Time"), (-180, "Chile Summer Time")), ("America/Santiago",)),
    (((-180, "Brasilia Standard Time"),), ("America/Sao_Paulo",)),
    (((-180, "Argentina Standard Time"),), ("America/Argentina/Buenos_Aires",)),
    (((-240, "Venezuela Time"),), ("America/Caracas",)),
    (((-240, "Atlantic Standard Time"),), ("America/Puerto_Rico",)),
    (((0, "Greenwich Mean Time"), (60, "British Summer Time")), ("Europe/London",)),
    (((0, "Greenwich Mean Time"), (60, "Irish Standard Time")), ("Europe/Dublin",)),
    (
        ((0, "Western European Standard Time"), (60, "Western European Summer Time")),
        ("Europe/Lisbon",),
    ),
    (
        ((60, "Central European Standard Time"), (120, "Central European Summer Time")),
        (
            "Europe/Paris",
            "Europe/Berlin",
            "Europe/Madrid",
            "Europe/Rome",
            "Europe/Amsterdam",
            "Europe/Brussels",
            "Europe/Zurich",
            "Europe/Vienna",
            "Europe/Stockholm",
            "Europe/Oslo",
            "Europe/Copenhagen",
            "Europe/Warsaw",
            "Europe/Prague",
            "Europe/Budapest",
            "Europe/Belgrade",
        ),
    ),
    (
        ((120, "Eastern European Standard Time"), (180, "Eastern European Summer Time")),
        (
            "Europe/Athens",
            "Europe/Helsinki",
            "Europe/Kyiv",
            "Europe/Kiev",
            "Europe/Bucharest",
            "Europe/Sofia",
            "Africa/Cairo",
        ),
    ),
    (((180, "Istanbul Standard Time"),), ("Europe/Istanbul",)),
    (((180, "Moscow Standard Time"),), ("Europe/Moscow",)),
    (((240, "Gulf Standard Time"),), ("Asia/Dubai",)),
    (((300, "Pakistan Standard Time"),), ("Asia/Karachi",)),
    (((330, "India Standard Time"),), ("Asia/Kolkata", "Asia/Calcutta", "Asia/Colombo")),
    (((345, "Nepal Time"),), ("Asia/Kathmandu",)),
    (((360, "Bangladesh Standard Time"),), ("Asia/Dhaka",)),
    (((420, "Indochina Time"),), ("Asia/Bangkok", "Asia/Ho_Chi_Minh")),
    (((420, "Western Indonesia Time"),), ("Asia/Jakarta",)),
    (((480, "Singapore Standard Time"),), ("Asia/Singapore",)),
    (((480, "Malaysia Time"),), ("Asia/Kuala_Lumpur",)),
    (((480, "Philippine Standard Time"),), ("Asia/Manila",)),
    (((480, "China Standard Time"),), ("Asia/Shanghai",)),
    (((480, "Hong Kong Standard Time"),), ("Asia/Hong_Kong",)),
    (((480, "Taiwan Standard Time"),), ("Asia/Taipei",)),
    (((540, "Korean Standard Time"),), ("Asia/Seoul",)),
    (((540, "Japan Standard Time"),), ("Asia/Tokyo",)),
    (((120, "Israel Standard Time"), (180, "Israel Daylight Time")), ("Asia/Jerusalem",)),
    (((210, "Iran Standard Time"),), ("Asia/Tehran",)),
    (((180, "Arabian Standard Time"),), ("Asia/Riyadh", "Asia/Baghdad")),
    (((480, "Australian Western Standard Time"),), ("Australia/Perth",)),
    (
        ((570, "Australian Central Standard Time"), (630, "Australian Central Daylight Time")),
        ("Australia/Adelaide",),
    ),
    (((570, "Australian Central Standard Time"),), ("Australia/Darwin",)),
    (((600, "Australian Eastern Standard Time"),), ("Australia/Brisbane",)),
    (
        ((600, "Australian Eastern Standard Time"), (660, "Australian Eastern Daylight Time")),
        ("Australia/Sydney", "Australia/Melbourne", "Australia/Hobart"),
    ),
    (
        ((720, "New Zealand Standard Time"), (780, "New Zealand Daylight Time")),
        ("Pacific/Auckland",),
    ),
    (((120, "South Africa Standard Time"),), ("Africa/Johannesburg",)),
    (((60, "West Africa Standard Time"),), ("Africa/Lagos",)),
    (((180, "East Africa Time"),), ("Africa/Nairobi",)),
    (((0, "Greenwich Mean Time"),), ("Atlantic/Reykjavik",)),
)
_LONG_NAMES = {zone: dict(names) for names, zones in _LONG_NAMES_BY_ZONES for zone in zones}
_UTC_LONG_NAMES = {
    "UTC": "Coordinated Universal Time",
    "Etc/UTC": "Coordinated Universal Time",
    "GMT": "Greenwich Mean Time",
    "Etc/GMT": "Greenwich Mean Time",
}


def _short_zone_name(moment: datetime, seconds: int) -> str:
    """``z``: the zone's present-day standard or daylight abbreviation, as java.time
    names a zone in every era (EST before 1883, EDT for 1945's war time); where the tz
    database has only a number (``-03``), the localized offset (``GMT-03:00``)."""
    name = moment.tzname() or ""
    if moment.tzinfo is not None and getattr(moment.tzinfo, "key", None) is not None:
        standard, daylight = sorted(
            (datetime(2024, month, 15, tzinfo=UTC).astimezone(moment.tzinfo) for month in (1, 7)),
            key=_offset_seconds,
        )
        in_daylight = (moment.dst() or timedelta(0)) > timedelta(0)
        if not in_daylight:
            name = standard.tzname() or ""
            if moment.tzname() == "LMT":
                seconds = _offset_seconds(standard)
        elif _offset_seconds(daylight) != _offset_seconds(standard):
            name = daylight.tzname() or ""
    if not name or name[0] in "+-":
        return _gmt_offset(seconds, full=True)
    return name


def _long_zone_name(moment: datetime, seconds: int, zone_id: str) -> str:
    """``zzzz``: Java's long name for the zone at this moment."""
    if zone_id in _UTC_LONG_NAMES:
        return _UTC_LONG_NAMES[zone_id]
    names = _LONG_NAMES.get(zone_id)
    if names is None:
        name = moment.tzname() or ""
        return name if name.startswith(("GMT", "UTC")) else _short_zone_name(moment, seconds)
    minutes = seconds // 60
    if minutes in names:
        return names[minutes]
    offsets = sorted(names)
    return names[offsets[-1] if moment.dst() else offsets[0]]


def check_letter_count(letter: str, count: int, pattern: str) -> None:
    """Raise as ``ofPattern`` does for a letter it rejects or a count it does not take."""
    if letter not in _MAX_COUNT:
        raise ExpressionError(f"Unknown pattern letter: {letter} in date pattern '{pattern}'")
    invalid = (
        count > _MAX_COUNT[letter]
        or (letter == "V" and count != 2)
        or (letter == "O" and count not in (1, 4))
        or (letter == "c" and count == 2)
    )
    if invalid:
        raise ExpressionError(f"Too many pattern letters: {letter} in date pattern '{pattern}'")


def sunday_index(day: date) -> int:
    return (day.weekday() + 1) % 7


def us_week(day: date) -> tuple[int, int]:
    """(week-based year, week of it) with Locale.US weeks: Sunday first, a 1-day minimum."""
    start = day - timedelta(days=sunday_index(day))
    if (start + timedelta(days=6)).year > day.year:
        return day.year + 1, 1
    jan1 = date(day.year, 1, 1)
    first_start = jan1 - timedelta(days=sunday_index(jan1))
    return day.year, (start - first_start).days // 7 + 1


def _year(value: int, count: int) -> str:
    """``y``/``u``/``Y``: two letters are the last two digits, four or more pad and add
    ``+`` to a year longer than the count (SignStyle.EXCEEDS_PAD); a year before 1 of
    ``u`` / ``Y`` keeps its minus sign."""
    if count == 2:
        return f"{abs(value) % 100:02d}"
    digits = str(abs(value)).zfill(count)
    if value < 0:
        return "-" + digits
    return "+" + digits if count >= 4 and len(str(value)) > count else digits


def _text(full: str, count: int) -> str:
    """A text field: up to three letters short, four full, five narrow."""
    return full[:3] if count <= 3 else full if count == 4 else full[0]


def _offset(seconds: int, colon: bool, with_seconds: bool, minutes_optional: bool) -> str:
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    separator = ":" if colon else ""
    text = f"{sign}{hours:02d}"
    if not minutes_optional or minutes or (with_seconds and secs):
        text += f"{separator}{minutes:02d}"
    if with_seconds and secs:
        text += f"{separator}{secs:02d}"
    return text


def _iso_offset(seconds: int, count: int) -> str:
    """``X``/``x``: +HHmm, +HHMM, +HH:MM, +HHMMss, +HH:MM:ss by count."""
    return _offset(
        seconds, colon=count in (3, 5), with_seconds=count >= 4, minutes_optional=count == 1
    )


def _gmt_offset(seconds: int, full: bool) -> str:
    """``O`` / ``ZZZZ``: ``GMT``, ``GMT+5`` (short) or ``GMT+05:00`` (full)."""
    if seconds == 0:
        return "GMT"
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if full:
        text = f"GMT{sign}{hours:02d}:{minutes:02d}"
        return text + (f":{secs:02d}" if secs else "")
    text = f"GMT{sign}{hours}"
    if minutes or secs:
        text += f":{minutes:02d}"
    return text + (f":{secs:02d}" if secs else "")


def _offset_seconds(moment: datetime) -> int:
    offset = moment.utcoffset()
    return 0 if offset is None else int(offset.total_seconds())


def format_java_time_field(
    letter: str, count: int, moment: datetime, fraction_ns: int, zone_id: str, year_shift: int = 0
) -> str:
    """One pattern field of ``moment`` (its nanosecond fraction given apart) as text.

    ``year_shift`` is added to the year: a date beyond Python's years 1-9999 is formatted
    400 years (a whole number of Gregorian cycles, weekdays included) closer."""
    year = moment.year + year_shift
    if letter == "u":
        return _year(year, count)
    if letter == "y":
        return _year(year if year > 0 else 1 - year, count)  # the year of the era
    if letter == "Y":
        return _year(us_week(moment.date())[0] + year_shift, count)
    if letter == "G":
        if year > 0:
            return "AD" if count <= 3 else "Anno Domini" if count == 4 else "A"
        return "BC" if count <= 3 else "Before Christ" if count == 4 else "B"
    if letter in "ML":
        return (
            str(moment.month).zfill(count)
            if count <= 2
            else _text(MONTH_NAMES[moment.month - 1], count)
        )
    if letter in "Qq":
        quarter = (moment.month - 1) // 3 + 1
        if count <= 2:
            return str(quarter).zfill(count)
        return (
            f"Q{quarter}" if count == 3 else _QUARTERS[quarter - 1] if count == 4 else str(quarter)
        )
    if (letter in "Ee" and (letter == "E" or count >= 3)) or (letter == "c" and count >= 3):
        return _text(DAY_NAMES[moment.weekday()], count)
    if letter in "ec":
        return str(sunday_index(moment.date()) + 1).zfill(count)
    numbers = {
        "d": moment.day,
        "D": moment.timetuple().tm_yday,
        "H": moment.hour,
        "h": moment.hour % 12 or 12,
        "K": moment.hour % 12,
        "k": moment.hour or 24,
        "m": moment.minute,
        "s": moment.second,
        "w": us_week(moment.date())[1],
        "W": (moment.day - 1 + sunday_index(moment.date().replace(day=1))) // 7 + 1,
        # Java 21's F (NiFi 2's runtime): the aligned week of the month.
        "F": (moment.day - 1) // 7 + 1,
    }
    if letter in numbers:
        return str(numbers[letter]).zfill(count)
    time_of_day_ns = (moment.hour * 3600 + moment.minute * 60 + moment.second) * 10**9 + fraction_ns
    if letter == "S":
        return f"{fraction_ns:09d}"[:count]
    if letter == "n":
        return str(fraction_ns).zfill(count)
    if letter == "N":
        return str(time_of_day_ns).zfill(count)
    if letter == "A":
        return str(time_of_day_ns // 1_000_000).zfill(count)
    if letter == "a":
        return "AM" if moment.hour < 12 else "PM"
    seconds = _offset_seconds(moment)
    if letter == "X":
        return "Z" if seconds == 0 else _iso_offset(seconds, count)
    if letter == "x":
        return _iso_offset(seconds, count)
    if letter == "Z":
        if count <= 3:
            return _offset(seconds, colon=False, with_seconds=False, minutes_optional=False)
        if count == 4:
            return _gmt_offset(seconds, full=True)
        return "Z" if seconds == 0 else _iso_offset(seconds, 5)
    if letter == "O":
        return _gmt_offset(seconds, full=count == 4)
    if letter == "V":
        return zone_id
    # z: the zone's name
    if count == 4:
        return _long_zone_name(moment, seconds, zone_id)
    return _short_zone_name(moment, seconds)
