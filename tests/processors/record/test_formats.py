"""Round trips for every reader/writer pair, with nulls, unicode, quoting and large files."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flowcore.errors import ProcessException
from processors.record import (
    AvroReader,
    AvroRecordSetWriter,
    CSVReader,
    CSVRecordSetWriter,
    JsonRecordSetWriter,
    JsonTreeReader,
    MalformedRecordError,
    ParquetReader,
    ParquetRecordSetWriter,
    record_schema_text,
    schema_fingerprint,
)
from processors.record.api import ChunkInput

Enable = Callable[..., Any]

TRICKY = pa.table(
    {
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "name": pa.array(["plain", 'comma, "quoted"', "multi\nline\r\nvalue", None]),
        "city": pa.array(["Zürich", "東京", "", "emoji 🎉 \\ back"]),
        "score": pa.array([1.5, None, -2.25, 3.0]),
        "ok": pa.array([True, False, None, True]),
    }
)

CSV_HEADER = {"Treat First Line as Header": "true", "Trim Fields": "false"}
AVRO_SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "Person",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "name", "type": ["null", "string"]},
            {"name": "city", "type": ["null", "string"]},
            {"name": "score", "type": ["null", "double"]},
            {"name": "ok", "type": ["null", "boolean"]},
        ],
    }
)


def chunks(data: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


# -- same-format round trips --------------------------------------------------------------


def test_csv_round_trip(enable_with: Enable, read_records: Any, write_records: Any) -> None:
    writer = enable_with(CSVRecordSetWriter, {})
    data, result = write_records(writer, TRICKY)
    assert result.record_count == 4
    assert result.mime_type == "text/csv"
    assert data.startswith(b"id,name,city,score,ok\n")
    reader = enable_with(CSVReader, CSV_HEADER)
    table = read_records(reader, chunks(data, 7))
    assert table.to_pylist() == TRICKY.to_pylist()


def test_csv_round_trip_other_separator_no_header(
    enable_with: Enable, read_records: Any, write_records: Any
) -> None:
    writer = enable_with(
        CSVRecordSetWriter, {"Value Separator": "\\t", "Include Header Line": "false"}
    )
    data, _ = write_records(writer, TRICKY)
    assert b"\t" in data and not data.startswith(b"id")
    reader = enable_with(
        CSVReader,
        {
            "Value Separator": "\\t",
            "Trim Fields": "false",
            "Schema Access Strategy": "Use 'Schema Text' Property",
            "Schema Text": AVRO_SCHEMA,
        },
    )
    table = read_records(reader, data)
    assert table.to_pylist() == TRICKY.to_pylist()


@pytest.mark.parametrize("grouping", ["Array", "One Line Per Object"])
def test_json_round_trip(
    enable_with: Enable, read_records: Any, write_records: Any, grouping: str
) -> None:
    writer = enable_with(JsonRecordSetWriter, {"Output Grouping": grouping})
    data, result = write_records(writer, TRICKY)
    assert result.record_count == 4
    assert result.mime_type == "application/json"
    parsed = (
        json.loads(data)
        if grouping == "Array"
        else [json.loads(line) for line in data.decode().splitlines()]
    )
    assert parsed == TRICKY.to_pylist()
    if grouping == "One Line Per Object":
        assert len(data.decode().splitlines()) == 4
    table = read_records(enable_with(JsonTreeReader, {}), chunks(data, 5))
    assert table.to_pylist() == TRICKY.to_pylist()


def test_json_suppress_nulls_and_empty(enable_with: Enable, write_records: Any) -> None:
    writer = enable_with(JsonRecordSetWriter, {"Suppress Null Values": "Always Suppress"})
    data, _ = write_records(writer, TRICKY.slice(3, 1))
    assert json.loads(data) == [{"id": 4, "city": "emoji 🎉 \\ back", "score": 3.0, "ok": True}]
    empty, result = write_records(writer, TRICKY.slice(0, 0))
    assert empty == b"[]" and result.record_count == 0


def test_parquet_round_trip(enable_with: Enable, read_records: Any, write_records: Any) -> None:
    data, result = write_records(enable_with(ParquetRecordSetWriter, {}), TRICKY)
    assert result.mime_type == "application/parquet" and result.record_count == 4
    assert pq.read_table(io.BytesIO(data)).to_pylist() == TRICKY.to_pylist()
    table = read_records(enable_with(ParquetReader, {}), chunks(data, 100))
    assert table.to_pylist() == TRICKY.to_pylist()


def test_avro_round_trip(enable_with: Enable, read_records: Any, write_records: Any) -> None:
    data, result = write_records(enable_with(AvroRecordSetWriter, {}), TRICKY)
    assert result.mime_type == "application/avro-binary" and result.record_count == 4
    assert list(fastavro.reader(io.BytesIO(data))) == TRICKY.to_pylist()
    reader = enable_with(AvroReader, {})
    table = read_records(reader, chunks(data, 10))
    assert table.to_pylist() == TRICKY.to_pylist()
    # The embedded schema is the reader's explicit schema text.
    avro_reader = reader.create_reader(data, {}, "ff")
    assert json.loads(record_schema_text(avro_reader))["name"] == "org.apache.nifi.nifiRecord"


def test_avro_with_given_schema_and_logical_types(
    enable_with: Enable, read_records: Any, write_records: Any
) -> None:
    schema_text = json.dumps(
        {
            "type": "record",
            "name": "Event",
            "fields": [
                {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
                {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}]},
                {"name": "tags", "type": {"type": "array", "items": "string"}},
            ],
        }
    )
    source = pa.table(
        {
            "at": pa.array([0, 1_700_000_000_123], pa.timestamp("ms", tz="UTC")),
            "day": pa.array([0, None], pa.date32()),
            "tags": pa.array([["a"], []], pa.list_(pa.string())),
        }
    )
    props = {"Schema Access Strategy": "Use 'Schema Text' Property", "Schema Text": schema_text}
    data, _ = write_records(enable_with(AvroRecordSetWriter, props), source)
    table = read_records(enable_with(AvroReader, {}), data)
    assert table.to_pylist() == source.to_pylist()
    assert table.schema.field("at").type == pa.timestamp("ms", tz="UTC")


# -- cross-format -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("writer_cls", "reader_cls", "reader_props"),
    [
        (JsonRecordSetWriter, JsonTreeReader, {}),
        (ParquetRecordSetWriter, ParquetReader, {}),
        (AvroRecordSetWriter, AvroReader, {}),
    ],
)
def test_csv_to_other_formats(
    enable_with: Enable,
    read_records: Any,
    write_records: Any,
    writer_cls: Any,
    reader_cls: Any,
    reader_props: dict[str, str],
) -> None:
    csv_data, _ = write_records(enable_with(CSVRecordSetWriter, {}), TRICKY)
    records = read_records(enable_with(CSVReader, CSV_HEADER), csv_data)
    data, result = write_records(enable_with(writer_cls, {}), records)
    assert result.record_count == 4
    back = read_records(enable_with(reader_cls, reader_props), data)
    assert back.to_pylist() == TRICKY.to_pylist()
    # ... and back to CSV, identical bytes.
    again, _ = write_records(enable_with(CSVRecordSetWriter, {}), back)
    assert again == csv_data


# -- CSV specifics ------------------------------------------------------------------------


def test_csv_trim_escape_and_null_string(enable_with: Enable, read_records: Any) -> None:
    reader = enable_with(
        CSVReader,
        {"Treat First Line as Header": "true", "Null String": "NULL", "Value Separator": ";"},
    )
    table = read_records(reader, b"a;b;c\n 1 ; x ;NULL\n2;y\\;z;\n")
    assert table.to_pylist() == [
        {"a": 1, "b": "x", "c": None},
        {"a": 2, "b": "y;z", "c": ""},
    ]


def test_csv_quote_modes(enable_with: Enable, write_records: Any) -> None:
    table = pa.table({"n": [1], "s": ["a"]})
    minimal, _ = write_records(enable_with(CSVRecordSetWriter, {}), table)
    assert minimal == b"n,s\n1,a\n"
    quoted, _ = write_records(enable_with(CSVRecordSetWriter, {"Quote Mode": "ALL"}), table)
    assert quoted == b'"n","s"\n"1","a"\n'
    non_numeric, _ = write_records(
        enable_with(CSVRecordSetWriter, {"Quote Mode": "NON_NUMERIC"}), table
    )
    assert non_numeric == b'"n","s"\n1,"a"\n'  # the header names are text (NiFi)


MINIMAL_CASES = [
    ("plain", "plain"),
    ("a b", "a b"),  # an inner space needs no quotes
    ("x#", "x#"),
    ("été", "été"),
    ("", '""'),  # the empty string, unlike null
    (" lead", '" lead"'),
    ("trail ", '"trail "'),
    ("tab\t", '"tab\t"'),
    ("#hash", '"#hash"'),
    ("!bang", '"!bang"'),
    ("a,b", '"a,b"'),
    ('say "hi"', '"say ""hi"""'),
    ("two\nlines", '"two\nlines"'),
    ("cr\rhere", '"cr\rhere"'),
    ("back\\slash", '"back\\\\slash"'),  # the escape doubled, and quoted
]


@pytest.mark.parametrize("copies", [1, 400])  # rendered in Python / by Arrow kernels
@pytest.mark.parametrize(("value", "written"), MINIMAL_CASES)
def test_csv_minimal_quotes_only_the_values_that_need_it(
    enable_with: Enable, write_records: Any, value: str, written: str, copies: int
) -> None:
    """NiFi's Commons CSV MINIMAL rules, value by value: a neighbour that needs quotes
    does not quote the others."""
    table = pa.table({"n": [1, 2, 3] * copies, "s": ["plain", value, None] * copies})
    data, _ = write_records(enable_with(CSVRecordSetWriter, {}), table)
    assert data.decode() == "n,s\n" + f"1,plain\n2,{written}\n3,\n" * copies


def test_csv_minimal_few_and_many_records_write_the_same(enable_with: Enable) -> None:
    """A write of a few records (rendered in Python) and of many (Arrow kernels) give the
    same text for the same values, whatever their types."""
    rng = random.Random(5)
    alphabet = ["a", "é", " ", ",", '"', "\\", "\n", "#", "!", "\t", "x"]
    rows = 300
    table = pa.table(
        {
            "s": [
                None if rng.random() < 0.1 else "".join(rng.choices(alphabet, k=rng.randrange(4)))
                for _ in range(rows)
            ],
            "i": pa.array([rng.randrange(-99, 99) for _ in range(rows)], pa.int32()),
            "f": [rng.choice([0.1, 1.0, -2.5e-7, 1e20, None]) for _ in range(rows)],
            "t": pa.array([rng.randrange(10**9) for _ in range(rows)], pa.timestamp("ms")),
            "b": [rng.choice([True, False, None]) for _ in range(rows)],
            "d": pa.array([rng.choice(["x", "y,z"]) for _ in range(rows)]).dictionary_encode(),
        }
    )
    for separator in (",", ";", "."):
        writer = enable_with(CSVRecordSetWriter, {"Value Separator": separator})
        whole, one_by_one = io.BytesIO(), io.BytesIO()
        many = writer.create_writer(table.schema, whole, {})
        many.write_batch(table.to_batches()[0])
        many.finish()
        few = writer.create_writer(table.schema, one_by_one, {})
        for row in range(rows):
            few.write_batch(table.slice(row, 1).to_batches()[0])
            few.flush()
        few.finish()
        assert one_by_one.getvalue() == whole.getvalue()


def test_csv_minimal_values_round_trip(
    enable_with: Enable, read_records: Any, write_records: Any
) -> None:
    values = [v for v, _ in MINIMAL_CASES if not v.endswith(" ") and not v.startswith(" ")]
    table = pa.table({"s": [*values, None], "n": list(range(len(values) + 1))})
    data, _ = write_records(enable_with(CSVRecordSetWriter, {}), table)
    reader = enable_with(CSVReader, {**CSV_HEADER, "Trim Fields": "false"})
    assert read_records(reader, data).column("s").to_pylist() == [*values, None]


def test_csv_minimal_other_separator_header_and_numbers(
    enable_with: Enable, write_records: Any
) -> None:
    table = pa.table({"a;b": [1.5, None], "c,d": ["x,y", "x;y"], "#e": [True, False]})
    writer = enable_with(CSVRecordSetWriter, {"Value Separator": ";", "Null String": "NULL"})
    data, _ = write_records(writer, table)
    assert data == b'"a;b";c,d;"#e"\n1.5;x,y;true\nNULL;"x;y";false\n'
    # a separator that numbers contain quotes them too
    dotted = enable_with(CSVRecordSetWriter, {"Value Separator": "."})
    data, _ = write_records(dotted, pa.table({"x": [1.5, 2.0], "y": ["a", "b.c"]}))
    assert data == b'x.y\n"1.5".a\n"2.0"."b.c"\n'  # 2.0 as Java prints it


def test_csv_minimal_non_ascii_separator(enable_with: Enable, write_records: Any) -> None:
    writer = enable_with(CSVRecordSetWriter, {"Value Separator": "§"})
    data, _ = write_records(writer, pa.table({"a": ["x§y", "z"], "b": [1, 2]}))
    assert data.decode() == 'a§b\n"x§y"§1\nz§2\n'


def test_csv_minimal_value_without_text_is_a_clear_error(
    enable_with: Enable, write_records: Any
) -> None:
    # (records, lists and maps are printed as Java prints them: test_csv_nested.py; a
    # union's values as NiFi prints a CHOICE's: test_csv_union_values_are_printed_as_nifi)
    intervals = pa.array([(1, 2, 3)], pa.month_day_nano_interval())
    table = pa.table({"interval": intervals})
    with pytest.raises(ProcessException, match="cannot write CSV"):
        write_records(enable_with(CSVRecordSetWriter, {}), table)


def test_csv_union_values_are_printed_as_nifi(enable_with: Enable, write_records: Any) -> None:
    kinds = pa.UnionArray.from_sparse(
        pa.array([0, 1, 1], pa.int8()), [pa.array([1, 2, 3]), pa.array(["x", "y,z", None])]
    )
    out = write_records(enable_with(CSVRecordSetWriter, {}), pa.table({"either": kinds}))
    assert out[0] == b'either\n1\n"y,z"\n\n'


def test_csv_header_only_gives_zero_records_and_schema(
    enable_with: Enable, read_records: Any, write_records: Any
) -> None:
    reader = enable_with(CSVReader, CSV_HEADER)
    table = read_records(reader, b"Name,Age\n")
    assert table.num_rows == 0 and table.schema.names == ["Name", "Age"]
    data, result = write_records(enable_with(CSVRecordSetWriter, {}), table)
    assert data == b"Name,Age\n" and result.record_count == 0
    empty = read_records(reader, b"")
    assert empty.num_rows == 0 and empty.schema.names == []


def test_csv_given_schema_maps_header_names(enable_with: Enable, read_records: Any) -> None:
    props = {
        "Treat First Line as Header": "true",
        "Schema Access Strategy": "schema-text-property",
        "Schema Text": AVRO_SCHEMA,
    }
    table = read_records(enable_with(CSVReader, props), b"name,id\nx,1\n")
    assert table.schema.names == ["id", "name", "city", "score", "ok"]
    assert table.to_pylist() == [{"id": 1, "name": "x", "city": None, "score": None, "ok": None}]


def test_inference_promotes_null_columns_to_string(enable_with: Enable, read_records: Any) -> None:
    reader = enable_with(CSVReader, CSV_HEADER)
    table = read_records(reader, b"a,b\n1,\n2,\n")
    assert table.schema.field("b").type == pa.string()


def test_schema_text_from_attribute(enable_with: Enable, read_records: Any) -> None:
    reader = enable_with(
        CSVReader,
        {"Treat First Line as Header": "true", "Schema Access Strategy": "schema-text-property"},
    )
    table = read_records(reader, b"id\n7\n", attributes={"avro.schema": AVRO_SCHEMA})
    assert table.column("id").to_pylist() == [7]
    made = reader.create_reader(b"id\n7\n", {"avro.schema": AVRO_SCHEMA}, "ff")
    assert made.schema_text == AVRO_SCHEMA


# -- large files --------------------------------------------------------------------------


def _big_csv(rows: int) -> bytes:
    lines = [b"id,name,amount\n"]
    lines.extend(f"{i},name {i},{i * 0.5}\n".encode() for i in range(rows))
    return b"".join(lines)


def test_large_csv_streams_in_bounded_batches(enable_with: Enable, write_records: Any) -> None:
    rows = 200_000
    data = _big_csv(rows)
    reader = enable_with(CSVReader, {**CSV_HEADER, "Record Batch Size": "10000"})
    made = reader.create_reader(chunks(data, 1 << 20), {}, "big")
    writer = enable_with(JsonRecordSetWriter, {"Output Grouping": "One Line Per Object"})
    sink = io.BytesIO()
    out = writer.create_writer(made.schema, sink, {})
    sizes = []
    for batch in made.batches():
        sizes.append(batch.num_rows)
        out.write_batch(batch)
    made.close()
    assert sum(sizes) == rows and max(sizes) <= 10_000 and len(sizes) >= 20
    result = out.finish()
    assert result.record_count == rows
    back = enable_with(JsonTreeReader, {"Record Batch Size": "50000"})
    made = back.create_reader(chunks(sink.getvalue(), 1 << 20), {}, "big-json")
    json_sizes = [b.num_rows for b in made.batches()]
    assert sum(json_sizes) == rows and max(json_sizes) <= 50_000


def test_large_parquet_and_avro_bounded(enable_with: Enable, write_records: Any) -> None:
    rows = 200_000
    table = pa.table({"id": pa.array(range(rows)), "s": pa.array([f"v{i}" for i in range(rows)])})
    for writer_cls, reader_cls in (
        (ParquetRecordSetWriter, ParquetReader),
        (AvroRecordSetWriter, AvroReader),
    ):
        data, result = write_records(enable_with(writer_cls, {}), table)
        assert result.record_count == rows
        reader = enable_with(reader_cls, {"Record Batch Size": "30000"})
        made = reader.create_reader(chunks(data, 1 << 20), {}, "big")
        sizes = [b.num_rows for b in made.batches()]
        made.close()
        assert sum(sizes) == rows and max(sizes) <= 30_000


# -- malformed input ----------------------------------------------------------------------


def test_csv_wrong_column_count_names_source_and_row(
    enable_with: Enable, read_records: Any
) -> None:
    reader = enable_with(CSVReader, CSV_HEADER)
    with pytest.raises(MalformedRecordError) as info:
        read_records(reader, b"a,b\n1,2\n3,4\n5\n6,7\n", source="FlowFile[filename=x.csv]")
    error = info.value
    assert error.source == "FlowFile[filename=x.csv]"
    assert error.position == "row 4"
    assert "x.csv" in str(error) and "row 4" in str(error)


def test_csv_bad_value_for_given_type(enable_with: Enable, read_records: Any) -> None:
    props = {
        "Treat First Line as Header": "true",
        "Schema Access Strategy": "schema-text-property",
        "Schema Text": AVRO_SCHEMA,
    }
    with pytest.raises(MalformedRecordError, match="ff-9"):
        read_records(enable_with(CSVReader, props), b"id\n1\nabc\n", source="ff-9")


def test_json_lines_invalid_in_the_middle(enable_with: Enable, read_records: Any) -> None:
    good = b"".join(b'{"a": %d}\n' % i for i in range(10))
    data = good + b'{"a": oops}\n' + good
    with pytest.raises(MalformedRecordError) as info:
        read_records(enable_with(JsonTreeReader, {}), data, source="ff-json")
    assert info.value.source == "ff-json"
    assert info.value.position.startswith("record 10")


def test_json_array_invalid_in_the_middle(enable_with: Enable, read_records: Any) -> None:
    data = b'[{"a": 1}, {"a": 2}, {"a": ]'
    with pytest.raises(MalformedRecordError) as info:
        read_records(enable_with(JsonTreeReader, {}), data, source="ff-arr")
    assert info.value.source == "ff-arr"
    assert info.value.position == "byte offset 27"


def test_truncated_avro_and_parquet(
    enable_with: Enable, read_records: Any, write_records: Any
) -> None:
    table = pa.table({"id": pa.array(range(5000)), "s": [f"value {i}" for i in range(5000)]})
    avro, _ = write_records(enable_with(AvroRecordSetWriter, {}), table)
    with pytest.raises(MalformedRecordError) as info:
        read_records(enable_with(AvroReader, {}), avro[: len(avro) - 100], source="ff-avro")
    assert info.value.source == "ff-avro" and info.value.position.startswith("record ")
    parquet, _ = write_records(enable_with(ParquetRecordSetWriter, {}), table)
    with pytest.raises(MalformedRecordError) as info:
        read_records(enable_with(ParquetReader, {}), parquet[:-10], source="ff-parquet")
    assert info.value.source == "ff-parquet" and "footer" in info.value.position
    with pytest.raises(MalformedRecordError, match="Obj"):
        read_records(enable_with(AvroReader, {}), b"not avro", source="ff-x")


# -- schemas ------------------------------------------------------------------------------


def test_schema_fingerprints() -> None:
    a = pa.schema([("Name", pa.string()), ("Age", pa.int64())])
    same = pa.schema([pa.field("Name", pa.string(), nullable=False), ("Age", pa.int64())])
    other_name = pa.schema([("Name", pa.string()), ("Color", pa.int64())])
    other_order = pa.schema([("Age", pa.int64()), ("Name", pa.string())])
    other_type = pa.schema([("Name", pa.string()), ("Age", pa.float64())])
    assert schema_fingerprint(a) == schema_fingerprint(same)
    for different in (other_name, other_order, other_type):
        assert schema_fingerprint(a) != schema_fingerprint(different)
    generated = json.loads(schema_fingerprint(a))
    assert generated["name"] == "nifiRecord" and generated["namespace"] == "org.apache.nifi"
    assert generated["fields"][1] == {"name": "Age", "type": ["null", "long"]}


def test_inferred_schemas_of_like_files_match(enable_with: Enable) -> None:
    reader = enable_with(CSVReader, CSV_HEADER)
    one = reader.create_reader(b"Name,Age\nx,1\n", {}, "1")
    two = reader.create_reader(b"Name,Age\ny,2\nz,3\n", {}, "2")
    three = reader.create_reader(b"Name,Color\ny,red\n", {}, "3")
    assert record_schema_text(one) == record_schema_text(two) != record_schema_text(three)


def test_chunk_input_peek_and_offset() -> None:
    stream = ChunkInput(iter([b"ab", b"", b"cde"]))
    assert stream.peek_bytes(3) == b"abc"
    assert stream.read(4) == b"abcd"
    assert stream.offset == 4
    assert stream.read() == b"e"
