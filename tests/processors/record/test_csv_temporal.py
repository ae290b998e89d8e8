"""CSVRecordSetWriter writes dates, times and timestamps as NiFi does: with no Date, Time
or Timestamp Format their epoch milliseconds, with one the formatted text (in UTC), and
either as text (NiFi hands them to Commons CSV as Strings), whatever path writes."""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from flowcore.errors import ConfigurationError
from processors.record.csv_format import CSVRecordSetWriter

MOMENT = dt.datetime(2024, 1, 31, 10, 0, 0, 123_000)  # noqa: DTZ001 (UTC wall-clock)
BEFORE_EPOCH = dt.datetime(1969, 12, 31, 23, 59, 59, 999_000)  # noqa: DTZ001
TEMPORAL = {
    "ts": pa.array([MOMENT, BEFORE_EPOCH, None], pa.timestamp("ms")),
    "d": pa.array([MOMENT.date(), BEFORE_EPOCH.date(), None], pa.date32()),
    "t": pa.array([MOMENT.time(), dt.time(0, 0), None], pa.time32("ms")),
}
EPOCH_MILLIS = [
    ["1706695200123", "1706659200000", "36000123"],
    ["-1", "-86400000", "0"],
    ["", "", ""],
]
FORMATS = {
    "Date Format": "MM/dd/yyyy",
    "Time Format": "HH:mm:ss",
    "Timestamp Format": "yyyy-MM-dd HH:mm:ss.SSS",
}
FORMATTED = [
    ["2024-01-31 10:00:00.123", "01/31/2024", "10:00:00"],
    ["1969-12-31 23:59:59.999", "12/31/1969", "00:00:00"],
    ["", "", ""],
]
PATHS = pytest.mark.parametrize(
    ("rows", "text"),
    [(1, "plain"), (1, "a, b"), (200, "plain"), (200, "a, b")],
    ids=["few", "few-quoted", "many-unquoted", "many-kernels"],
)
"""A few records (Python) or many (Arrow kernels; pyarrow's own writer when nothing in
the write needs quotes), with a string column that needs quotes or not."""


def _table(rows: int, text: str) -> pa.Table:
    columns = {name: pa.concat_arrays([column] * rows) for name, column in TEMPORAL.items()}
    return pa.table({**columns, "s": [text] * (3 * rows)})


def _lines(
    enable_with: Callable[..., Any], write_records: Any, table: pa.Table, **props: str
) -> list[str]:
    writer = enable_with(CSVRecordSetWriter, props)
    out, _ = write_records(writer, table)
    return list(out.decode().split("\n"))


def _minimal(value: str) -> str:
    return f'"{value}"' if "," in value else value


@PATHS
def test_no_format_writes_epoch_milliseconds(
    enable_with: Callable[..., Any], write_records: Any, rows: int, text: str
) -> None:
    lines = _lines(enable_with, write_records, _table(rows, text))
    assert lines[0] == "ts,d,t,s"
    expected = [",".join([*values, _minimal(text)]) for values in EPOCH_MILLIS]
    assert lines[1:] == [*expected * rows, ""]


@PATHS
def test_formats_write_the_formatted_text(
    enable_with: Callable[..., Any], write_records: Any, rows: int, text: str
) -> None:
    lines = _lines(enable_with, write_records, _table(rows, text), **FORMATS)
    expected = [",".join([*values, _minimal(text)]) for values in FORMATTED]
    assert lines[1:] == [*expected * rows, ""]


@pytest.mark.parametrize(
    ("mode", "row"),
    [
        ("ALL", '"1706695200123","1706659200000","36000123","9"'),
        ("NON_NUMERIC", '"1706695200123","1706659200000","36000123",9'),
        ("NONE", "1706695200123,1706659200000,36000123,9"),
        ("MINIMAL", "1706695200123,1706659200000,36000123,9"),
    ],
)
@pytest.mark.parametrize("rows", [1, 200])
def test_each_quote_mode_takes_them_for_text(
    enable_with: Callable[..., Any], write_records: Any, mode: str, row: str, rows: int
) -> None:
    # NON_NUMERIC quotes them (NiFi passes Strings), not the number beside them
    columns = {
        name: pa.concat_arrays([column.slice(0, 1)] * rows) for name, column in TEMPORAL.items()
    }
    table = pa.table({**columns, "n": pa.array([9] * rows, pa.int32())})
    lines = _lines(enable_with, write_records, table, **{"Quote Mode": mode})
    assert lines[1:] == [row] * rows + [""]


@pytest.mark.parametrize("mode", ["ALL", "NON_NUMERIC", "NONE"])
@pytest.mark.parametrize("rows", [1, 200])
def test_formatted_in_other_quote_modes(
    enable_with: Callable[..., Any], write_records: Any, mode: str, rows: int
) -> None:
    lines = _lines(enable_with, write_records, _table(rows, "x"), **FORMATS, **{"Quote Mode": mode})
    quote = "" if mode == "NONE" else '"'
    expected = [
        ",".join(f"{quote}{v}{quote}" if v else v for v in [*values, "x"]) for values in FORMATTED
    ]
    assert lines[1:] == [*expected * rows, ""]


def test_the_data_types_of_nifis_test_write_csv_result(
    enable_with: Callable[..., Any], write_records: Any
) -> None:
    # TestWriteCSVResult.testDataTypes: Quote Mode ALL, the default formats of NiFi's
    # RecordFieldType (record, array and map fields left out), the moment in UTC
    columns = {
        "boolean": pa.array([True]),
        "byte": pa.array([1], pa.int8()),
        "short": pa.array([8], pa.int16()),
        "int": pa.array([9], pa.int32()),
        "bigint": pa.array([8], pa.int64()),
        "long": pa.array([8], pa.int64()),
        "float": pa.array([8.0], pa.float32()),
        "double": pa.array([8.0], pa.float64()),
        "decimal": pa.array([decimal.Decimal("8.1")], pa.decimal128(2, 1)),
        "timestamp": pa.array([MOMENT], pa.timestamp("ms")),
        "date": pa.array([MOMENT.date()], pa.date32()),
        "time": pa.array([MOMENT.time()], pa.time32("ms")),
        "uuid": pa.array(["8bb20bf2-ec41-4b94-80a4-922f4dba009c"]),
        "char": pa.array(["c"]),
        "enum": pa.array([None], pa.string()),
        "string": pa.array(["a孟bc李12儒3"]),
        "choice": pa.array([48], pa.int64()),
    }
    formats = {
        "Date Format": "yyyy-MM-dd",
        "Time Format": "HH:mm:ss",
        "Timestamp Format": "yyyy-MM-dd HH:mm:ss",
    }
    lines = _lines(
        enable_with, write_records, pa.table(columns), **formats, **{"Quote Mode": "ALL"}
    )
    assert lines[0] == ",".join(f'"{name}"' for name in columns)
    assert lines[1] == (
        '"true","1","8","9","8","8","8.0","8.0","8.1","2024-01-31 10:00:00","2024-01-31",'
        '"10:00:00","8bb20bf2-ec41-4b94-80a4-922f4dba009c","c",,"a孟bc李12儒3","48"'
    )


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        ({"Timestamp Format": "EEE, d MMM yyyy"}, '"Wed, 31 Jan 2024",x'),
        ({"Timestamp Format": "EEE, d MMM yyyy", "Value Separator": ";"}, "Wed, 31 Jan 2024;x"),
        ({"Timestamp Format": "' 'HH:mm"}, '" 10:00",x'),
        ({"Timestamp Format": "MM/dd/yyyy", "Value Separator": "/"}, '"01/31/2024"/x'),
        ({"Timestamp Format": "yyyy'\"'MM"}, '"2024""01",x'),
    ],
)
@pytest.mark.parametrize("rows", [1, 300])
def test_minimal_quotes_formatted_text_that_needs_it(
    enable_with: Callable[..., Any],
    write_records: Any,
    props: dict[str, str],
    expected: str,
    rows: int,
) -> None:
    table = pa.table({"ts": pa.array([MOMENT] * rows, pa.timestamp("ms")), "s": ["x"] * rows})
    lines = _lines(enable_with, write_records, table, **props)
    assert lines[1:] == [expected] * rows + [""]


@pytest.mark.parametrize("mode", ["MINIMAL", "ALL", "NON_NUMERIC", "NONE"])
@pytest.mark.parametrize("rows", [1, 300])
def test_a_formatted_column_is_written_as_a_string_column_of_its_text(
    enable_with: Callable[..., Any], write_records: Any, mode: str, rows: int
) -> None:
    # The escape character in the text is treated as in any string (NiFi: a String)
    props = {"Timestamp Format": "yyyy'\\'MM HH:mm", "Quote Mode": mode}
    times = pa.table({"v": pa.array([MOMENT, None] * rows, pa.timestamp("ms"))})
    texts = pa.table({"v": pa.array(["2024\\01 10:00", None] * rows)})
    written = _lines(enable_with, write_records, times, **props)
    assert written == _lines(enable_with, write_records, texts, **props)
    assert "2024\\\\01 10:00" in written[1]


@pytest.mark.parametrize("rows", [1, 300])
def test_finer_units_and_zones_are_cut_to_the_millisecond_in_utc(
    enable_with: Callable[..., Any], write_records: Any, rows: int
) -> None:
    zoned = pa.array([MOMENT], pa.timestamp("ms", tz="America/New_York"))  # the UTC moment
    table = pa.table(
        {
            "us": pa.array([-1] * rows, pa.timestamp("us")),  # rounds down to -1 ms
            "ns": pa.array([1_706_695_200_123_999_999] * rows, pa.timestamp("ns")),
            "zone": pa.concat_arrays([zoned] * rows),
            "t": pa.array([dt.time(10, 0, 0, 123_456)] * rows, pa.time64("us")),
            "d64": pa.array([MOMENT.date()] * rows, pa.date64()),
        }
    )
    lines = _lines(enable_with, write_records, table)
    assert lines[1:] == ["-1,1706695200123,1706695200123,36000123,1706659200000"] * rows + [""]
    formatted = _lines(
        enable_with, write_records, table.select(["zone"]), **{"Timestamp Format": "HH:mm XXX"}
    )
    assert formatted[1:] == ["10:00 Z"] * rows + [""]


def test_a_pattern_flowcore_cannot_format_is_refused(enable_with: Callable[..., Any]) -> None:
    with pytest.raises(ConfigurationError, match="'Timestamp Format' validated against"):
        enable_with(CSVRecordSetWriter, {"Timestamp Format": "yyyy-MM-dd VV"})


def test_the_formats_are_nifis_writer_properties() -> None:
    names = [d.name for d in CSVRecordSetWriter.property_descriptors]
    for name in ("Date Format", "Time Format", "Timestamp Format"):
        descriptor = CSVRecordSetWriter.property_descriptors[names.index(name)]
        assert descriptor.display_name == name
        assert descriptor.default is None
        assert not descriptor.required
        assert "number of milliseconds since epoch" in descriptor.description


@pytest.mark.parametrize(
    ("mode", "expected"), [("NON_NUMERIC", '"20240131"'), ("NONE", "20240131")]
)
def test_a_formatted_integer_stays_the_formatted_text(
    enable_with: Callable[..., Any], write_records: Any, mode: str, expected: str
) -> None:
    # the JSON writer writes the epoch milliseconds for such a text; the CSV writer does not
    props = {"Date Format": "yyyyMMdd", "Quote Mode": mode}
    table = pa.table({"d": pa.array([MOMENT.date()], pa.date32())})
    assert _lines(enable_with, write_records, table, **props)[1] == expected
