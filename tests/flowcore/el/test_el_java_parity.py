"""EL values checked against the JDK NiFi delegates to: each expected value was printed by
the Java call named in the comment above its group, for the same input."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from flowcore.el import compile_expression, evaluate
from flowcore.errors import ExpressionError


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


# long arithmetic wraps around, as Java's `x + y`, `x - y`, `x * y`, `x / y` on longs do
LONG_ARITHMETIC = [
    ("${a:plus(1)}", "9223372036854775807", "-9223372036854775808"),
    ("${a:minus(1)}", "-9223372036854775808", "9223372036854775807"),
    ("${a:multiply(3)}", "9223372036854775807", "9223372036854775805"),
    ("${a:multiply(${a})}", "4294967296", "0"),
    ("${a:divide(-1)}", "-9223372036854775808", "-9223372036854775808"),
    ("${a:mod(-1)}", "-9223372036854775808", "0"),
    ("${a:plus(0.5)}", "9223372036854775807", "9.223372036854776E18"),
]


@pytest.mark.parametrize(("text", "value", "expected"), LONG_ARITHMETIC)
def test_whole_number_arithmetic_wraps_like_java_long(text: str, value: str, expected: str) -> None:
    assert run(text, {"a": value}) == expected


# NiFi's NumberParsing (ASCII \d) then Long.valueOf / Long.decode / Double.valueOf
NUMBER_TEXT = [
    ("${a:toNumber()}", "\u0663", ""),  # Arabic-Indic digits are not a number: null
    ("${a:toDecimal()}", "\u0663.\u0665", ""),
    ("${a:toNumber()}", "\uff11\uff12", ""),  # fullwidth digits
    ("${a:toNumber()}", " +5 ", "5"),
    ("${a:toNumber()}", "1_000", ""),
    ("${a:toNumber()}", "1e3", "1000"),
    ("${a:toNumber()}", "+0x1F", "31"),
    ("${a:toNumber()}", "-0x8000000000000000", "-9223372036854775808"),
    # Long.valueOf overflows, Long.decode reads the leading 0 as octal
    ("${a:toNumber()}", "0100000000000000000000", "1152921504606846976"),
]


@pytest.mark.parametrize(("text", "value", "expected"), NUMBER_TEXT)
def test_number_text_is_read_as_nifi_reads_it(text: str, value: str, expected: str) -> None:
    assert run(text, {"a": value}) == expected


# Where Java throws NumberFormatException, the FlowFile fails instead of getting a value
NUMBER_FAILURES = [
    ("${a:toNumber()}", "99999999999999999999"),  # Long.valueOf and Long.decode throw
    ("${a:toDecimal()}", "9223372036854775808"),
    ("${a:toNumber()}", "0xFFFFFFFFFFFFFFFF"),
    ("${a:plus(1)}", "-9223372036854775809"),
    ("${a:gt(1)}", "99999999999999999999"),
    ("${a:toDecimal()}", "0x.8"),  # Double.valueOf wants the binary exponent: 0x.8p0
    ("${a:toDate():format('yyyy')}", "99999999999999999999"),  # new Date(Long.valueOf(text))
]


@pytest.mark.parametrize(("text", "value"), NUMBER_FAILURES)
def test_numbers_java_refuses_fail_the_evaluation(text: str, value: str) -> None:
    with pytest.raises(ExpressionError, match="For input string"):
        run(text, {"a": value})


def test_whole_number_literal_beyond_long_is_invalid() -> None:
    # WholeNumberLiteralEvaluator: Long.parseLong when the expression is compiled
    with pytest.raises(ExpressionError, match="out of the long range"):
        compile_expression("${literal(9223372036854775808)}")
    assert run("${literal(-9223372036854775808)}") == "-9223372036854775808"


# Java strings count UTF-16 code units: String.length(), substring(), indexOf(),
# lastIndexOf(); StringUtils.leftPad/rightPad. A split pair's lone half is written as "?",
# as new String(...).getBytes(UTF_8) writes it.
UTF16_CASES = [
    ("${a:length()}", "\U0001f600", "2"),
    ("${a:length()}", "a\U0001f44d\U0001f3fdb", "6"),
    ("${a:substring(2)}", "\U0001f600x", "x"),
    ("${a:substring(1)}", "\U0001f600x", "?x"),
    ("${a:substring(0, 1)}", "\U0001f600x", "?"),
    ("${a:substring(0, 3)}", "\U0001f600x", "\U0001f600x"),
    ("${a:substring(3, 4)}", "\U0001f600x", ""),
    ("${a:substring(4294967297)}", "abc", "bc"),  # Long.intValue() of the index
    ("${a:indexOf('x')}", "\U0001f600x", "2"),
    ("${a:lastIndexOf('\U0001f600')}", "\U0001f600x\U0001f600", "3"),
    ("${a:lastIndexOf('')}", "\U0001f600x", "3"),
    ("${a:padLeft(5, '\U0001f600')}", "a", "\U0001f600\U0001f600a"),
    ("${a:padRight(4, '\U0001f600')}", "a", "a\U0001f600?"),
    ("${a:padLeft(3)}", "\U0001f600", "_\U0001f600"),
]


@pytest.mark.parametrize(("text", "value", "expected"), UTF16_CASES)
def test_string_indices_count_utf16_code_units(text: str, value: str, expected: str) -> None:
    assert run(text, {"a": value}) == expected


# Math.<name> by reflection, as MathEvaluator calls it (values from JDK 17; the Java 18+
# methods from their Javadoc definitions, as NiFi 2 runs on Java 21)
MATH_CASES = [
    ("${a:toDecimal():math('round')}", "0.49999999999999994", "0"),  # Math.round(double)
    ("${a:toDecimal():math('round')}", "4.503599627370497E15", "4503599627370497"),
    ("${a:toDecimal():math('round')}", "-2.5", "-2"),
    ("${a:toDecimal():math('getExponent')}", "0.0", "-1023"),  # Math.getExponent(double)
    ("${a:toDecimal():math('getExponent')}", "1e-310", "-1023"),
    ("${a:toDecimal():math('getExponent')}", "Infinity", "1024"),
    ("${a:toDecimal():math('getExponent')}", "NaN", "1024"),
    ("${a:toDecimal():math('scalb', 1491)}", "-1.1006999387928028e+210", "-Infinity"),
    ("${a:toDecimal():math('scalb', 2767)}", "8.9", "Infinity"),  # Math.scalb(double, int)
    ("${a:math('multiplyHigh', -194)}", "41294169949929200", "-1"),  # Math.multiplyHigh
    (
        "${a:math('multiplyHigh', 2183355228835866289)}",
        "9223372036854775807",
        "1091677614417933144",
    ),
    ("${a:math('unsignedMultiplyHigh', -1)}", "-1", "-2"),
    ("${a:math('ceilDiv', -1)}", "-9223372036854775808", "-9223372036854775808"),
    ("${a:math('ceilDiv', 3)}", "7", "3"),
    ("${a:math('ceilMod', 1)}", "-9223372036854775808", "0"),
    ("${a:math('ceilMod', 3)}", "7", "-2"),
    ("${a:math('ceilMod', -6139537240036002236)}", "-782", "6139537240036001454"),
    ("${a:math('divideExact', 2)}", "-7", "-3"),
    ("${a:math('floorDivExact', 2)}", "-7", "-4"),
    ("${a:math('ceilDivExact', 2)}", "-7", "-3"),
]


@pytest.mark.parametrize(("text", "value", "expected"), MATH_CASES)
def test_math_matches_java_lang_math(text: str, value: str, expected: str) -> None:
    assert run(text, {"a": value}) == expected


@pytest.mark.parametrize("name", ["divideExact", "floorDivExact", "ceilDivExact"])
def test_exact_division_overflow_fails(name: str) -> None:
    # Math.divideExact(Long.MIN_VALUE, -1) throws ArithmeticException("long overflow")
    with pytest.raises(ExpressionError, match="overflow"):
        run("${a:math('" + name + "', -1)}", {"a": "-9223372036854775808"})


# Long.toString(value, radix.intValue()) and Long.parseLong(text, radix.intValue())
RADIX_CASES = [
    ("${a:toRadix(4294967312)}", "9223372036854775807", "7fffffffffffffff"),
    ("${a:toRadix(-4294967288)}", "325", "505"),
    ("${a:toRadix(37)}", "255", "255"),  # an invalid radix falls back to 10
    ("${a:toRadix(16, 4294967300)}", "255", "00ff"),
    ("${a:fromRadix(4294967312)}", "cac22aA", "212607658"),
    ("${a:fromRadix(10)}", "\u0663\u0664", "34"),  # Character.digit reads Unicode digits
]


@pytest.mark.parametrize(("text", "value", "expected"), RADIX_CASES)
def test_radix_conversion_matches_java(text: str, value: str, expected: str) -> None:
    assert run(text, {"a": value}) == expected


# URLDecoder.decode(text, UTF_8): each escape is read by Integer.parseInt(pair, 16), which
# takes a sign and any Character.digit (Unicode decimal digits, fullwidth letters)
URL_DECODE_CASES = [
    ('-%7E%+0"<', '-~\x00"<'),
    ("%+F", "\x0f"),
    ("%-0x", "\x00x"),
    ("%\u0663\u0663", "3"),
    ("%\uff21\uff21", "\ufffd"),  # the byte 0xAA alone is not UTF-8
    ("a%E4b", "a\ufffdb"),
]


@pytest.mark.parametrize(("value", "expected"), URL_DECODE_CASES)
def test_url_decode_reads_escapes_as_java(value: str, expected: str) -> None:
    assert run("${a:urlDecode()}", {"a": value}) == expected


@pytest.mark.parametrize("value", ["%-5", "%+", "%C3%A9%2", "%zz"])
def test_url_decode_failures(value: str) -> None:
    with pytest.raises(ExpressionError, match="escape"):
        run("${a:urlDecode()}", {"a": value})


# MessageDigest.getInstance(name): the SUN provider's aliases and object identifiers
@pytest.mark.parametrize(
    ("algorithm", "expected"),
    [
        ("SHA256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (
            "2.16.840.1.101.3.4.2.1",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ),
        ("OID.1.3.14.3.2.26", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("sha512/224", "6ed0dd02806fa89e25de060c19d3ac86cabb87d6a0ddd05c333b84f4"),
    ],
)
def test_hash_accepts_java_algorithm_aliases(algorithm: str, expected: str) -> None:
    assert run("${a:hash('" + algorithm + "')}", {"a": ""}) == expected


# new DateTimeFormatterBuilder().parseLenient().parseCaseInsensitive().appendPattern(p)
#     .toFormatter(Locale.US).withZone(zone), then FormatUtils.parseToInstant, as
# StringToDateEvaluator does (JDK's epoch milliseconds)
TO_DATE_CASES = [
    ("a", "PM", "UTC", 64800000),
    ("a", "AM", "America/New_York", 39600000),
    ("h", "8", "UTC", 0),
    ("h a mm", "12 AM 5", "UTC", 300000),
    ("H.SSS", "10.345", "UTC", 36000000),
    ("ss.SSS", "15.123", "UTC", 15123),
    ("H:mm:ss.SSS", "1:02:03.56789", "UTC", 3723567),
    ("yyyy MM dd", "2023 02 31", "UTC", 1677542400000),
    ("yyyy MM dd", "2023 04 31", "America/New_York", 1682827200000),
    ("yyyy MM dd HH", "2023 12 31 24", "UTC", 1704067200000),
    ("yyyy DDD", "2024 100", "UTC", 1712620800000),
    ("DDD", "032", "UTC", 0),
    ("YYYY", "1988", "UTC", 0),
    ("YYYY ww E", "2024 02 Tue", "UTC", 1704758400000),
    ("yyyy-MM-dd HH:mm:ss z", "2024-07-15 12:00:00 EST", "UTC", 1721059200000),
    ("yyyy-MM-dd HH:mm:ss z", "2024-01-15 12:00:00 EDT", "UTC", 1705338000000),
    ("yyyy-MM-dd HH:mm:ss z", "2024-07-15 12:00:00 CET", "UTC", 1721037600000),
    ("yyyy-MM-dd HH:mm:ss z", "2024-07-15 12:00:00 IST", "UTC", 1721044800000),
    ("yyyy-MM-dd HH:mm:ss VV", "2020-12-31 05:58:16 EUROPE/LONDON", "Asia/Kolkata", 1609394296000),
    ("EEE MMM dd HH:mm:ss zzz yyyy", "thu oct 12 07:50:29 gmt+05:30 2023", "UTC", 1697077229000),
    ("X,VV", "-04,America/New_York", "UTC", 14400000),
    ("yyyy-MM-dd HH:mm", "2024-03-10 02:30", "America/New_York", 1710055800000),
    ("yyyy-MM-dd HH:mm", "2024-11-03 01:30", "America/New_York", 1730611800000),
]


@pytest.mark.parametrize(("pattern", "text", "zone", "expected"), TO_DATE_CASES)
def test_to_date_resolves_fields_as_java_time(
    pattern: str, text: str, zone: str, expected: int
) -> None:
    expression = "${t:toDate('" + pattern + "', '" + zone + "'):toNumber()}"
    assert run(expression, {"t": text}) == str(expected)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("yyyy DDD", "2023 366"),  # LocalDate.ofYearDay: 2023 is not a leap year
        ("yyyy-MM-dd E", "2024-03-10 Mon"),  # the day of the week conflicts with the date
        ("yyyy DDD MM", "2024 100 03"),  # day 100 is in April
        ("H:mm:ss", "24:00:01"),
        ("H a", "14 AM"),
        ("M d", "2 29"),  # LocalDateTime.of(1970, 2, 29)
    ],
)
def test_to_date_failures_as_java_time(pattern: str, text: str) -> None:
    with pytest.raises(ExpressionError):
        run("${t:toDate('" + pattern + "', 'UTC')}", {"t": text})


# Zone names: DateTimeFormatter.ofPattern("z" / "zzzz", Locale.US) on Java 25 (CLDR names;
# Java 17 writes legacy abbreviations such as BRT where the tz database has only -03)
ZONE_NAME_CASES = [
    ("zzzz", 1705320000000, "America/Chicago", "Central Standard Time"),
    ("zzzz", 1721044800000, "America/New_York", "Eastern Daylight Time"),
    ("zzzz", 1721044800000, "Europe/London", "British Summer Time"),
    ("zzzz", 1721044800000, "Europe/Dublin", "Irish Standard Time"),
    ("zzzz", 1705320000000, "Europe/Dublin", "Greenwich Mean Time"),
    ("zzzz", 1705320000000, "UTC", "Coordinated Universal Time"),
    ("zzzz", 1705320000000, "Asia/Kolkata", "India Standard Time"),
    ("zzzz", 1705320000000, "Australia/Sydney", "Australian Eastern Daylight Time"),
    ("zzzz", 1705320000000, "GMT+05:30", "GMT+05:30"),
    ("z", 1705320000000, "America/Sao_Paulo", "GMT-03:00"),
    ("z", 1705320000000, "Asia/Kathmandu", "GMT+05:45"),
    ("z", -6262336958181, "America/New_York", "EST"),
    ("z", 1721044800000, "Europe/Paris", "CEST"),
]


@pytest.mark.parametrize(("pattern", "millis", "zone", "expected"), ZONE_NAME_CASES)
def test_format_zone_names_as_java(pattern: str, millis: int, zone: str, expected: str) -> None:
    text = "${d:toNumber():format('" + pattern + "', '" + zone + "')}"
    assert run(text, {"d": str(millis)}) == expected


# GreaterThanEvaluator and friends: a long beside a double is compared as
# subjectValue.doubleValue() > comparisonValue.doubleValue()
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${a:gt(9007199254740992.0)}", "false"),  # 9007199254740993L -> 9.007199254740992E15
        ("${a:ge(9007199254740992.0)}", "true"),
        ("${a:lt(9007199254740994)}", "true"),  # two longs compare exactly
        ("${a:toDecimal():lt(9007199254740993)}", "false"),
    ],
)
def test_mixed_comparison_rounds_the_long_to_a_double(text: str, expected: str) -> None:
    assert run(text, {"a": "9007199254740993"}) == expected


# DateTimeFormatter.ofPattern(p, Locale.US).withZone(ZoneId.of(zone))
#     .parse(text, Instant::from), as StringToInstantEvaluator does: a strict parse
TO_INSTANT_CASES = [
    ("yyyy-MM-dd HH:mm", "2024-01-01 10:30", 1704105000000000000),
    ("MMM dd yyyy HH:mm", "Jan 01 2024 10:30", 1704105000000000000),
    ("yyyy-MM-dd HH:mm", "2024-02-30 10:30", 1709202600000000000),  # SMART: Feb 29
    ("yyyy-MM-dd'T'HH:mm:ssXXX", "2024-01-01T10:30:00+05:30", 1704085200000000000),
    ("yyyyMMddHHmmss", "20240101103000", 1704105000000000000),
]


@pytest.mark.parametrize(("pattern", "text", "expected"), TO_INSTANT_CASES)
def test_to_instant_parses_as_java(pattern: str, text: str, expected: int) -> None:
    expression = '${t:toInstant("' + pattern + '", "UTC"):toNanos()}'
    assert run(expression, {"t": text}) == str(expected)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("yyyy-MM-dd", "2024-01-01"),  # no time: Instant.from fails
        ("yyyy-MM-dd HH:mm", "2024-1-01 10:30"),  # MM takes exactly two digits
        ("yyyy-MM-dd hh:mm", "2024-01-01 10:30"),  # hh without a gives no hour
        ("yyyy-MM-dd HH:mm:ss.SSS", "2024-01-01 10:30:00.5"),
        ("MMM dd yyyy HH:mm", "jan 01 2024 10:30"),  # names match case
        ("yyyy-MM-dd HH:mm VV", "2024-01-01 10:30 europe/london"),
    ],
)
def test_to_instant_strict_failures(pattern: str, text: str) -> None:
    with pytest.raises(ExpressionError):
        run('${t:toInstant("' + pattern + '", "UTC")}', {"t": text})


# DateCastEvaluator: Date.toString() text through a lenient java.time formatter
# ("EEE MMM dd HH:mm:ss zzz yyyy"), yyyy/MM/dd through FormatUtils.parseToInstant
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mon Jan 15 12:00:00 EST 2024", "1705338000000"),
        ("Mon Jul 15 12:00:00 EST 2024", "1721059200000"),  # EST is New York: -04:00 in July
        ("mon jul 15 12:00:00 cet 2024", "1721037600000"),
    ],
)
def test_implicit_date_from_date_to_string_text(text: str, expected: str) -> None:
    assert run("${t:toDate():toNumber()}", {"t": text}) == expected


def test_implicit_date_with_a_wrong_day_name_fails() -> None:
    with pytest.raises(ExpressionError, match="Conflict"):
        run("${t:toDate()}", {"t": "Tue Jan 15 12:00:00 EST 2024"})


def test_repeat_takes_the_int_value_of_its_count() -> None:
    # minRepeats.getValue().intValue(): 4294967298 is 2
    assert run("${a:repeat(4294967298)}", {"a": "ab"}) == "abab"


def test_delimited_field_refuses_a_two_unit_delimiter() -> None:
    # delimiter.length() > 1: an emoji is two UTF-16 code units
    with pytest.raises(ExpressionError, match="only a single character"):
        run("${a:getDelimitedField(1, '\U0001f600')}", {"a": "x\U0001f600y"})


@pytest.fixture
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process's local zone is America/New_York, as a JVM's default zone."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# new java.util.Date(millis).toString() with -Duser.timezone=America/New_York: the Julian
# calendar before 1582-10-15, the year unpadded and without its era, today's zone names
DATE_TO_STRING_CASES = [
    (-62135596800000, "Sun Jan 02 19:00:00 EST 1"),  # 0001-01-01T00:00Z (proleptic ISO)
    (-12219292800001, "Thu Oct 04 18:59:59 EST 1582"),
    (253402300800000, "Fri Dec 31 19:00:00 EST 9999"),
    (-9223372036854775808, "Sun Dec 02 11:47:04 EST 292269055"),
    (1719792000000, "Sun Jun 30 20:00:00 EDT 2024"),
    (-2208988800000, "Sun Dec 31 19:00:00 EST 1899"),
]


@pytest.mark.parametrize(("millis", "expected"), DATE_TO_STRING_CASES)
def test_dates_render_as_java_util_date(new_york: None, millis: int, expected: str) -> None:
    assert run("${d:toNumber():toDate()}", {"d": str(millis)}) == expected


# DateTimeFormatter.ofPattern(p, Locale.US) of instants beyond years 1-9999 (Java 25)
FAR_YEAR_CASES = [
    (9223372036854775807, "+292278994 AD +292278994 292278994 94 Sun 229 +292278994-08-17"),
    (-9223372036854775808, "+292275056 BC -292275055 292275056 55 Sun 136 +292275056-05-16"),
    (253402300800000, "+10000 AD +10000 10000 00 Sat 1 10000-01-01"),
    (-62135596800001, "0001 BC 0000 1 00 Sun 366 00001-12-31"),
    (-100000000000000, "1200 BC -1199 1200 99 Thu 46 01200-02-15"),
]


@pytest.mark.parametrize(("millis", "expected"), FAR_YEAR_CASES)
def test_format_years_beyond_python_dates(millis: int, expected: str) -> None:
    text = "${d:toNumber():format('yyyy G uuuu y uu EEE D yyyyy-MM-dd', 'UTC')}"
    assert run(text, {"d": str(millis)}) == expected


# DateTimeFormatter "z" names a zone by today's standard or daylight name in every era
@pytest.mark.parametrize(
    ("instant", "zone", "expected"),
    [
        ("1945-05-10T11:38:02.989372380Z", "America/New_York", "EDT 1945"),  # tz: EWT
        ("1969-10-27T03:25:30.937475222Z", "Europe/London", "GMT 1969"),  # tz: BST, standard
    ],
)
def test_format_instant_zone_names_of_past_eras(instant: str, zone: str, expected: str) -> None:
    assert run("${t:formatInstant('zzz yyyy', '" + zone + "')}", {"t": instant}) == expected
