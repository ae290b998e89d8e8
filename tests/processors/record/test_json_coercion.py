"""JsonTreeReader with a given schema coerces a value of another kind into its field, as
NiFi's reader does (``DataTypeUtils.convertType``), where Arrow would refuse the content."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from processors.record.api import MalformedRecordError
from processors.record.json_format import JsonTreeReader

SCHEMA = (
    '{"type":"record","name":"r","fields":[{"name":"id","type":"long"},'
    '{"name":"zip","type":["null","string"]},{"name":"ok","type":["null","boolean"]},'
    '{"name":"p","type":["null","double"]}]}'
)
GIVEN = {"Schema Access Strategy": "schema-text-property", "Schema Text": SCHEMA}
ROWS = [
    {"id": 7, "zip": "12345", "ok": True, "p": 3.0},
    {"id": 8, "zip": "x", "ok": False, "p": 2.5},
    {"id": 9, "zip": "2.5", "ok": None, "p": None},
]


@pytest.mark.parametrize(
    "content",
    [
        b'{"id":"7","zip":12345,"ok":"true","p":3}\n{"id":8.9,"zip":"x","ok":false,"p":"2.5"}\n'
        b'{"id":9,"zip":2.5}\n',
        b'[{"id":"7","zip":12345,"ok":"TRUE","p":3},{"id":8.9,"zip":"x","ok":false,"p":"2.5"},'
        b'{"id":9,"zip":2.5}]',
    ],
    ids=["lines", "array"],
)
def test_values_of_another_kind_are_coerced(
    enable_with: Callable[..., Any], read_records: Any, content: bytes
) -> None:
    reader = enable_with(JsonTreeReader, GIVEN)
    assert read_records(reader, content).to_pylist() == ROWS


def test_a_large_content_with_a_late_mismatch_is_coerced_from_there_on(
    enable_with: Callable[..., Any], read_records: Any
) -> None:
    # Arrow streams the records until the first value of another kind, past its first
    # block; the rest is decoded and coerced, each record read once.
    reader = enable_with(JsonTreeReader, GIVEN)
    good = b'{"id":1,"zip":"a","ok":true,"p":1.5}\n' * 40_000
    records = read_records(reader, good + b'{"id":"2","zip":3}\n' + good[:74])
    assert records.num_rows == 40_003
    rows = records.slice(39_999, 4).to_pylist()
    assert rows == [
        {"id": 1, "zip": "a", "ok": True, "p": 1.5},
        {"id": 2, "zip": "3", "ok": None, "p": None},
        {"id": 1, "zip": "a", "ok": True, "p": 1.5},
        {"id": 1, "zip": "a", "ok": True, "p": 1.5},
    ]


def test_a_late_value_that_does_not_convert_names_its_record(
    enable_with: Callable[..., Any], read_records: Any
) -> None:
    reader = enable_with(JsonTreeReader, GIVEN)
    good = b'{"id":1,"zip":"a","ok":true,"p":1.5}\n' * 40_000
    with pytest.raises(MalformedRecordError, match="at record 40001: field 'id'"):
        read_records(reader, good + b'{"id":2}\n{"id":"x"}\n')


@pytest.mark.parametrize("value", ['"x"', "true", '{"a":1}'])
def test_a_value_that_does_not_convert_fails_with_its_field(
    enable_with: Callable[..., Any], read_records: Any, value: str
) -> None:
    reader = enable_with(JsonTreeReader, GIVEN)
    with pytest.raises(MalformedRecordError, match="field 'id': cannot convert"):
        read_records(reader, f'{{"id":{value}}}\n'.encode())
