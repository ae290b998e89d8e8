"""JsonRecordSetWriter writes numbers, dates, times and timestamps as NiFi's
WriteJsonResult does (the scenarios of NiFi's TestWriteJsonResult), in every write path:
the writer on its own (array and one line per object), the bulk rendering and the pretty
printer."""

from __future__ import annotations

import datetime as dt
import decimal
import io
import json
from collections.abc import Mapping

import pyarrow as pa
import pytest

from flowcore.errors import ConfigurationError, ProcessException
from flowcore.testing import TestRunner
from processors.record.json_format import JsonRecordSetWriter
from processors.record.json_numbers import java_text
from tests.processors.record.conftest import enable_service, write_all

SCIENTIFIC = {"Allow Scientific Notation": "true"}
LINES = {"Output Grouping": "One Line Per Object"}
MOMENT_MS = 1_623_926_285_001
"""2021-06-17 10:38:05.001 UTC."""


def _writer(properties: Mapping[str, str]) -> JsonRecordSetWriter:
    service = enable_service(JsonRecordSetWriter(), properties)
    assert isinstance(service, JsonRecordSetWriter)
    return service


def _written(table: pa.Table, properties: Mapping[str, str] | None = None) -> str:
    """The one record of ``table`` as written, the same by the writer on its own (array
    and lines) and by the bulk rendering."""
    properties = dict(properties or {})
    array = write_all(_writer(properties), table)[0].decode()
    lines = _writer({**properties, **LINES})
    line = write_all(lines, table)[0].decode()
    records = table.combine_chunks().to_batches()[0]
    for service, expected in ((_writer(properties), array), (lines, line)):
        rendered = service.render_bulk(table.schema, records)
        assert rendered is not None
        sink = io.BytesIO()
        rendered.write(0, table.num_rows, sink, {})
        assert sink.getvalue().decode() == expected
    assert array == f"[{line.rstrip()}]"
    return line.rstrip()


def _pretty(table: pa.Table, properties: Mapping[str, str] | None = None) -> str:
    service = _writer({**(properties or {}), "Pretty Print JSON": "true"})
    return write_all(service, table)[0].decode()


NUMBERS = pa.table(
    {
        "float": pa.array([-4.291032244], pa.float32()),
        "double": pa.array([0.000000451], pa.float64()),
        "decimal": pa.array([decimal.Decimal("0.000000080")], pa.decimal128(10, 9)),
    }
)


def test_scientific_notation_usage() -> None:
    assert _written(NUMBERS) == '{"float":-4.2910323,"double":0.000000451,"decimal":0.000000080}'
    assert _written(NUMBERS, SCIENTIFIC) == '{"float":-4.2910323,"double":4.51E-7,"decimal":8.0E-8}'
    assert '"double" : 0.000000451,' in _pretty(NUMBERS)
    assert '"decimal" : 8.0E-8' in _pretty(NUMBERS, SCIENTIFIC)


@pytest.mark.parametrize(
    ("value", "plain", "scientific"),
    [
        (1e16, "10000000000000000", "1.0E16"),
        (12345678.0, "12345678", "1.2345678E7"),
        (12345678.9, "12345678.9", "1.23456789E7"),
        (1e7, "10000000", "1.0E7"),
        (9999999.0, "9999999.0", "9999999.0"),
        (1e-4, "0.00010", "1.0E-4"),
        (4.51e-7, "0.000000451", "4.51E-7"),
        (0.001, "0.001", "0.001"),
        (1234567.0, "1234567.0", "1234567.0"),
        (2.5, "2.5", "2.5"),
        (-3.0, "-3.0", "-3.0"),
        (0.0, "0.0", "0.0"),
        (-0.0, "0.0", "-0.0"),
        (-1.5e300, "-15" + "0" * 299, "-1.5E300"),
        (5e-324, "0." + "0" * 323 + "49", "4.9E-324"),
    ],
)
def test_doubles_as_java_writes_them(value: float, plain: str, scientific: str) -> None:
    table = pa.table({"d": pa.array([value, 1.5], pa.float64())})
    assert _written(table.slice(0, 1)) == f'{{"d":{plain}}}'
    assert _written(table.slice(0, 1), SCIENTIFIC) == f'{{"d":{scientific}}}'
    assert f'"d" : {scientific}\n' in _pretty(table, SCIENTIFIC)
    assert f'"d" : {plain}\n' in _pretty(table)


def test_floats_as_java_writes_them() -> None:
    table = pa.table({"f": pa.array([1e16, 1e-4, 0.1, 16777216.0], pa.float32())})
    rows = write_all(_writer({**LINES, **SCIENTIFIC}), table)[0].decode().split("\n")
    assert rows[:4] == ['{"f":1.0E16}', '{"f":1.0E-4}', '{"f":0.1}', '{"f":1.6777216E7}']
    rows = write_all(_writer(LINES), table)[0].decode().split("\n")
    assert rows[:4] == ['{"f":10000000000000000}', '{"f":0.00010}', '{"f":0.1}', '{"f":16777216}']


def test_non_finite_doubles_are_strings_with_scientific_notation_else_an_error() -> None:
    table = pa.table({"d": pa.array([float("nan"), float("inf"), float("-inf")])})
    text = write_all(_writer(SCIENTIFIC), table)[0].decode()
    assert text == '[{"d":"NaN"},{"d":"Infinity"},{"d":"-Infinity"}]'
    with pytest.raises(ProcessException, match="field 'd': NaN cannot be written as a plain"):
        write_all(_writer({}), table)
    with pytest.raises(ProcessException, match="field 'd': NaN"):
        write_all(_writer({"Pretty Print JSON": "true"}), table)
    # the bulk rendering declines: each FlowFile is then written, and fails, alone
    records = table.to_batches()[0]
    assert _writer({}).render_bulk(table.schema, records) is None


def test_a_nested_non_finite_double_names_its_field() -> None:
    inner = pa.array([{"x": float("nan")}], pa.struct([("x", pa.float64())]))
    with pytest.raises(ProcessException, match=r"field 'o\.x': NaN"):
        write_all(_writer({}), pa.table({"o": inner}))


def test_temporal_values_without_formats_are_epoch_milliseconds() -> None:
    """NiFi's testTimestampWithNullFormat: a time is its milliseconds on 1970-01-01, a date
    the milliseconds of its midnight (UTC)."""
    table = pa.table(
        {
            "timestamp": pa.array([37_293_723], pa.timestamp("ms")),
            "time": pa.array([37_293_723], pa.time32("ms")),
            "date": pa.array([dt.date(1970, 1, 1)], pa.date32()),
            "day": pa.array([dt.date(2017, 1, 1)], pa.date32()),
        }
    )
    expected = '{"timestamp":37293723,"time":37293723,"date":0,"day":1483228800000}'
    assert _written(table) == expected
    assert '"day" : 1483228800000\n' in _pretty(table)


def test_sub_millisecond_values_round_down_to_the_millisecond() -> None:
    table = pa.table(
        {
            "before": pa.array([-1], pa.timestamp("us")),
            "after": pa.array([1_999], pa.timestamp("ns")),
            "seconds": pa.array([-2], pa.timestamp("s")),
            "time": pa.array([61_000_999], pa.time64("us")),
            "zoned": pa.array([MOMENT_MS], pa.timestamp("ms", tz="America/New_York")),
        }
    )
    expected = f'{{"before":-1,"after":0,"seconds":-2000,"time":61000,"zoned":{MOMENT_MS}}}'
    assert _written(table) == expected


@pytest.mark.parametrize(
    ("representation", "timestamp_format", "expected"),
    [
        ("Formatted String", "'formatted-'SSS", '"formatted-001"'),
        ("FORMATTED_STRING", "yyyyMMdd", '"20210617"'),
        ("Epoch Milliseconds", None, str(MOMENT_MS)),
        ("Epoch Milliseconds", "yyyy", str(MOMENT_MS)),
        ("Epoch Seconds", None, "1623926285.001"),
        ("Automatic", None, str(MOMENT_MS)),
        ("AUTO", "yyyy-MM-dd HH:mm:ss.SSS", '"2021-06-17 10:38:05.001"'),
        ("Automatic", "yyyyMMdd", str(MOMENT_MS)),
    ],
)
def test_timestamp_representations(
    representation: str, timestamp_format: str | None, expected: str
) -> None:
    table = pa.table({"timestamp": pa.array([MOMENT_MS], pa.timestamp("ms"))})
    properties = {"Timestamp Representation": representation}
    if timestamp_format is not None:
        properties["Timestamp Format"] = timestamp_format
    assert _written(table, properties) == f'{{"timestamp":{expected}}}'
    assert f'"timestamp" : {expected}\n' in _pretty(table, properties)


def test_epoch_seconds_values() -> None:
    millis = [1623926285000, 1623926285001, 1623926285999, 0, -1, 253402300799999]
    expected = [
        "1623926285.000",
        "1623926285.001",
        "1623926285.999",
        "0.000",
        "-0.001",
        "253402300799.999",
    ]
    table = pa.table({"timestamp": pa.array(millis, pa.timestamp("ms"))})
    properties = {**LINES, "Timestamp Representation": "Epoch Seconds"}
    for scientific in ("true", "false"):
        text = write_all(_writer({**properties, "Allow Scientific Notation": scientific}), table)[
            0
        ].decode()
        assert text.split("\n")[:-1] == [f'{{"timestamp":{e}}}' for e in expected]


def test_epoch_seconds_does_not_change_dates_and_times() -> None:
    table = pa.table(
        {
            "timestamp": pa.array([37_293_723], pa.timestamp("ms")),
            "date": pa.array([0], pa.date32()),
            "time": pa.array([37_293_723], pa.time32("ms")),
        }
    )
    properties = {"Timestamp Representation": "Epoch Seconds"}
    assert _written(table, properties) == '{"timestamp":37293.723,"date":0,"time":37293723}'


def test_epoch_seconds_nested_and_in_arrays() -> None:
    table = pa.table(
        {
            "nested": pa.array(
                [{"timestamp": MOMENT_MS}], pa.struct([("timestamp", pa.timestamp("ms"))])
            ),
            "timestamps": pa.array([[0, -1, None]], pa.list_(pa.timestamp("ms"))),
            "by_name": pa.array([[("a", 1623926285999)]], pa.map_(pa.string(), pa.timestamp("ms"))),
        }
    )
    properties = {"Timestamp Representation": "Epoch Seconds"}
    assert _written(table, properties) == (
        '{"nested":{"timestamp":1623926285.001},"timestamps":[0.000,-0.001,null],'
        '"by_name":{"a":1623926285.999}}'
    )


def test_formatted_dates_times_and_timestamps() -> None:
    """Formats in the JVM's zone, which flowcore takes as UTC (a zoned timestamp is
    formatted in UTC too); a formatted text that is an integer is written as the epoch
    milliseconds instead (NiFi's isLongTypeCompatible)."""
    table = pa.table(
        {
            "date": pa.array([dt.date(2017, 1, 1)], pa.date32()),
            "time": pa.array([dt.time(17, 0, 0, 250_000)], pa.time64("us")),
            "timestamp": pa.array([MOMENT_MS], pa.timestamp("ms", tz="Asia/Tokyo")),
            "stamp": pa.array([1_483_290_000_000_000], pa.timestamp("us")),
        }
    )
    properties = {
        "Date Format": "MM/dd/yyyy EEE",
        "Time Format": "hh:mm:ss.SSS a",
        "Timestamp Format": "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
    }
    assert _written(table, properties) == (
        '{"date":"01/01/2017 Sun","time":"05:00:00.250 PM",'
        '"timestamp":"2021-06-17T10:38:05.001Z","stamp":"2017-01-01T17:00:00.000Z"}'
    )
    digits = {"Date Format": "yyyyMMdd", "Time Format": "HHmmss", "Timestamp Format": "yyyy"}
    assert _written(table, digits) == (
        '{"date":1483228800000,"time":61200250,"timestamp":1623926285001,"stamp":1483290000000}'
    )


def test_formatted_text_is_escaped() -> None:
    table = pa.table({"date": pa.array([dt.date(2017, 1, 1)], pa.date32())})
    assert _written(table, {"Date Format": "yyyy'\"\\'"}) == '{"date":"2017\\"\\\\"}'


def test_formatted_string_needs_a_timestamp_format() -> None:
    properties = {"Timestamp Representation": "Formatted String"}
    message = (
        "Timestamp Format must be configured when Timestamp Representation is set to "
        "Formatted String"
    )
    with pytest.raises(ConfigurationError, match=message):
        enable_service(JsonRecordSetWriter(), properties)
    with TestRunner("ConvertRecord") as runner:
        problems = runner.node.validate_controller_service(
            "writer", JsonRecordSetWriter(), properties
        )
    assert [(p.subject, p.input, p.explanation) for p in problems] == [
        ("Timestamp Representation", "Formatted String", message)
    ]


def test_a_pattern_letter_flowcore_cannot_format_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="'Timestamp Format' validated against 'QQ'"):
        enable_service(JsonRecordSetWriter(), {"Timestamp Format": "QQ"})


def test_control_characters_are_escaped_with_upper_case_hex() -> None:
    table = pa.table({"k\x1b": pa.array(["\x01\x1f\x7f\u2028 \t"])})
    assert _written(table) == '{"k\\u001B":"\\u0001\\u001F\x7f\u2028 \\t"}'
    assert _pretty(table) == '[ {\n  "k\\u001B" : "\\u0001\\u001F\x7f\u2028 \\t"\n} ]'


def test_nested_records_suppress_their_null_members() -> None:
    inner = pa.struct([("a", pa.int64()), ("b", pa.string())])
    table = pa.table(
        {
            "o": pa.array([{"a": None, "b": None}, None, {"a": 1, "b": None}], inner),
            "l": pa.array([[None], [], None], pa.list_(pa.int64())),
        }
    )
    text = write_all(_writer({"Suppress Null Values": "Always Suppress"}), table)[0].decode()
    assert text == '[{"o":{},"l":[null]},{"l":[]},{"o":{"a":1}}]'
    text = write_all(_writer({}), table)[0].decode()
    assert json.loads(text)[1] == {"o": None, "l": []}
    assert json.loads(text)[0] == {"o": {"a": None, "b": None}, "l": [None]}


def test_doubles_in_the_plain_range_keep_arrows_digits() -> None:
    """The plain range (0.001 <= |v| < 10^7) is written from Arrow's cast, which must
    give plain digits there: the edges and values with many digits or zeros."""
    values = [0.001, 0.0010000000000000002, 0.0012345678901234567, 1000000.0, 5000000.0]
    values += [9999999.999999998, 1234567.8901234567, 0.1 + 0.2, 100.0, 0.5]
    for kind in (pa.float64(), pa.float32()):
        table = pa.table({"d": pa.array(values, kind)})
        rows = write_all(_writer(LINES), table)[0].decode().split("\n")[:-1]
        expected = [
            f'{{"d":{java_text(float(v), kind == pa.float32(), False)}}}'
            for v in table.column("d").to_pylist()
        ]
        assert rows == expected
        assert all("E" not in row and "e" not in row for row in rows)


def test_a_record_of_nulls_only_is_an_empty_object_when_nulls_are_suppressed() -> None:
    table = pa.table({"a": pa.array([None, 1], pa.int64()), "b": pa.array([None, "x"])})
    text = write_all(_writer({"Suppress Null Values": "Always Suppress"}), table)[0].decode()
    assert text == '[{},{"a":1,"b":"x"}]'
