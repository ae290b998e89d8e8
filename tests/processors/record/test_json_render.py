"""JsonRecordSetWriter's text, and its bulk rendering: each output cut from records
rendered together is byte for byte what a writer of its own writes."""

from __future__ import annotations

import datetime
import decimal
import io
import json
import random
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from processors.record.bulk_write import BulkRecordSetWriterFactory
from processors.record.json_format import JsonRecordSetWriter
from tests.processors.record.conftest import write_all

Enable = Callable[..., Any]
NOON_MS = 1_714_564_800_000
"""2024-05-01 12:00:00 as milliseconds since the epoch."""
LEAP_DAY_MS = 1_709_164_800_000
"""2024-02-29 (midnight UTC) as milliseconds since the epoch."""
SCIENTIFIC = {"Allow Scientific Notation": "true"}

TRICKY = pa.table(
    {
        "text": pa.array(['é 😀 "q" \\ /', "tab\tnl\ncr\r\x01\x1f", None], pa.string()),
        "count": pa.array([9007199254740993, -1, None], pa.int64()),
        "price": pa.array([3.0, 0.1, float("nan")], pa.float64()),
        "small": pa.array([-0.0, 2.5, float("inf")], pa.float64()),
        "at": pa.array([NOON_MS, None, NOON_MS + 5], pa.timestamp("ms")),
        "day": pa.array([datetime.date(2024, 2, 29), None, None], pa.date32()),
        "amount": pa.array(
            [decimal.Decimal("1.50"), None, decimal.Decimal("-0.01")], pa.decimal128(5, 2)
        ),
        "ok": pa.array([True, False, None]),
        "item": pa.array(
            [{"name": 'a"b', "tags": ["x", None]}, None, {"name": None, "tags": []}],
            pa.struct([("name", pa.string()), ("tags", pa.list_(pa.string()))]),
        ),
        "raw": pa.array([b"\x00\xff", None, b""], pa.binary()),
    }
)
FIRST = (
    '{"text":"é 😀 \\"q\\" \\\\ /","count":9007199254740993,"price":3.0,"small":-0.0,'
    f'"at":{NOON_MS},"day":{LEAP_DAY_MS},"amount":1.50,"ok":true,'
    '"item":{"name":"a\\"b","tags":["x",null]},"raw":"AP8="}'
)
SECOND = (
    '{"text":"tab\\tnl\\ncr\\r\\u0001\\u001F","count":-1,"price":0.1,"small":2.5,"at":null,'
    '"day":null,"amount":null,"ok":false,"item":null,"raw":null}'
)
THIRD = (
    '{"text":null,"count":null,"price":"NaN","small":"Infinity",'
    f'"at":{NOON_MS + 5},"day":null,"amount":-0.01,"ok":null,'
    '"item":{"name":null,"tags":[]},"raw":""}'
)
CONFIGS: list[dict[str, str]] = [
    {},
    {"Output Grouping": "One Line Per Object"},
    {"Suppress Null Values": "Always Suppress"},
    {"Suppress Null Values": "Always Suppress", "Output Grouping": "One Line Per Object"},
    {"Schema Write Strategy": "Set 'avro.schema' Attribute"},
    {**SCIENTIFIC, "Output Grouping": "One Line Per Object"},
    {"Date Format": "MM/dd/yyyy", "Time Format": "HHmmss", "Timestamp Format": "yyyyMMdd"},
    {
        **SCIENTIFIC,
        "Timestamp Format": "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
        "Timestamp Representation": "Formatted String",
    },
    {"Timestamp Representation": "Epoch Seconds"},
]


def test_writer_text_of_tricky_values(enable_with: Enable) -> None:
    """Jackson's escapes (upper-case hex), Java's numbers, temporal values as epoch
    milliseconds, and nested records with their nulls suppressed too."""
    array = enable_with(JsonRecordSetWriter, SCIENTIFIC)
    assert write_all(array, TRICKY)[0].decode() == f"[{FIRST},{SECOND},{THIRD}]"
    lines = enable_with(
        JsonRecordSetWriter, {**SCIENTIFIC, "Output Grouping": "One Line Per Object"}
    )
    assert write_all(lines, TRICKY)[0].decode() == f"{FIRST}\n{SECOND}\n{THIRD}\n"
    sparse = enable_with(
        JsonRecordSetWriter, {**SCIENTIFIC, "Suppress Null Values": "Always Suppress"}
    )
    assert write_all(sparse, TRICKY)[0].decode() == (
        f'[{FIRST},{{"text":"tab\\tnl\\ncr\\r\\u0001\\u001F","count":-1,"price":0.1,'
        f'"small":2.5,"ok":false}},{{"price":"NaN","small":"Infinity","at":{NOON_MS + 5},'
        '"amount":-0.01,"item":{"tags":[]},"raw":""}]'
    )
    for text in (FIRST, SECOND, THIRD):
        json.loads(text)


def _random_records(rows: int, seed: int, scientific: bool = False) -> pa.Table:
    rng = random.Random(seed)
    alphabet = ["a", "é", '"', "\\", "\n", "\x01", "\t", "/", "😀", "\u2028", " ", "\x7f"]

    def maybe(value: Any) -> Any:
        return None if rng.random() < 0.2 else value

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))

    doubles = [3.0, -7.0, 0.1, 2.5, 1e-7, 123456789012345.0, 1e16, -0.0, 4.51e-7, 1e7]
    if scientific:
        doubles += [float("nan"), float("inf"), float("-inf")]
    return pa.table(
        {
            "s": pa.array([maybe(text()) for _ in range(rows)], pa.string()),
            "plain": pa.array([f"v{i}" for i in range(rows)], pa.string()),
            "i": pa.array([maybe(rng.randrange(-(2**63), 2**63)) for _ in range(rows)]),
            "f": pa.array([maybe(rng.choice(doubles)) for _ in range(rows)], pa.float64()),
            "whole": pa.array([float(i) for i in range(rows)], pa.float64()),
            "single": pa.array([maybe(rng.choice(doubles)) for _ in range(rows)], pa.float32()),
            "amount": pa.array(
                [
                    maybe(decimal.Decimal(rng.choice(["1.5", "-0.000000080", "0"])))
                    for _ in range(rows)
                ],
                pa.decimal128(12, 9),
            ),
            "day": pa.array([maybe(rng.randrange(-1000, 30000)) for _ in range(rows)], pa.date32()),
            "clock": pa.array(
                [maybe(rng.randrange(86_400_000_000)) for _ in range(rows)], pa.time64("us")
            ),
            "zoned": pa.array(
                [maybe(rng.randrange(-(10**15), 10**15)) for _ in range(rows)],
                pa.timestamp("us", tz="Europe/Paris"),
            ),
            "scores": pa.array(
                [maybe([maybe(rng.choice(doubles)) for _ in range(2)]) for _ in range(rows)],
                pa.list_(pa.float64()),
            ),
            "attrs": pa.array(
                [maybe([("k", maybe(text())), ('q"', "v")]) for _ in range(rows)],
                pa.map_(pa.string(), pa.string()),
            ),
            "b": pa.array([maybe(rng.random() < 0.5) for _ in range(rows)], pa.bool_()),
            "ts": pa.array(
                [maybe(NOON_MS // 1000 + i % 60) for i in range(rows)],
                pa.timestamp("s"),
            ),
            "nested": pa.array(
                [maybe({"a": maybe(i), "b": [text()]}) for i in range(rows)],
                pa.struct([("a", pa.int64()), ("b", pa.list_(pa.string()))]),
            ),
            "empty": pa.nulls(rows),
            "code": pa.array([maybe(rng.choice(["x", 'y"z'])) for _ in range(rows)])
            .cast(pa.string())
            .dictionary_encode(),
        }
    )


@pytest.mark.parametrize("properties", CONFIGS)
def test_render_bulk_writes_what_a_writer_of_its_own_writes(
    enable_with: Enable, properties: dict[str, str]
) -> None:
    writers = enable_with(JsonRecordSetWriter, properties)
    assert isinstance(writers, BulkRecordSetWriterFactory)
    table = _random_records(
        120, seed=7, scientific=properties.get("Allow Scientific Notation") == "true"
    )
    records = table.combine_chunks().to_batches()[0]
    rendered = writers.render_bulk(table.schema, records)
    assert rendered is not None
    for start, length in [(0, 1), (1, 0), (1, 30), (31, 89), (0, 120), (119, 1), (120, 0)]:
        sink = io.BytesIO()
        result = rendered.write(start, length, sink, {})
        alone, expected = write_all(writers, table.slice(start, length))
        assert sink.getvalue() == alone, (start, length)
        assert result == expected


def test_render_bulk_with_a_writer_schema(enable_with: Enable) -> None:
    """A Schema Text writer: fields by name, missing ones null, types cast, the schema
    attribute the given text."""
    schema_text = json.dumps(
        {
            "type": "record",
            "name": "r",
            "fields": [
                {"name": "plain", "type": ["null", "string"]},
                {"name": "i", "type": ["null", "string"]},
                {"name": "absent", "type": ["null", "long"]},
            ],
        }
    )
    writers = enable_with(
        JsonRecordSetWriter,
        {
            "Schema Access Strategy": "Use 'Schema Text' Property",
            "Schema Text": schema_text,
            "Schema Write Strategy": "Set 'avro.schema' Attribute",
        },
    )
    table = _random_records(20, seed=3)
    schema = writers.writer_schema(table.schema, {})
    rendered = writers.render_bulk(schema, table.combine_chunks().to_batches()[0])
    assert rendered is not None
    sink = io.BytesIO()
    result = rendered.write(5, 10, sink, {})
    alone, expected = write_all(writers, table.slice(5, 10))
    assert sink.getvalue() == alone
    assert result == expected
    assert result.attributes["avro.schema"] == schema_text


def test_render_bulk_declines_what_it_cannot_render(enable_with: Enable) -> None:
    table = pa.table({"n": pa.array(["1", "x"])})
    records = table.to_batches()[0]
    pretty = enable_with(JsonRecordSetWriter, {"Pretty Print JSON": "true"})
    assert pretty.render_bulk(table.schema, records) is None
    plain = enable_with(JsonRecordSetWriter, {})
    # "x" cannot be a long: each FlowFile is written (and fails) alone instead
    assert plain.render_bulk(pa.schema([("n", pa.int64())]), records) is None
