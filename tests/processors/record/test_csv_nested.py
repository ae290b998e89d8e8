"""CSVRecordSetWriter prints records, lists and maps as NiFi does (Java's toString), not
an error: a record as its JSON text, a list as ``[a, 1, 2.5]``, a map as ``{k=v}``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from processors.record.csv_format import CSVRecordSetWriter

TABLE = pa.table(
    {
        "id": [1, 2, 3],
        "rec": pa.array(
            [{"x": 1, "y": "q, r"}, {"x": 2, "y": None}, None],
            pa.struct([("x", pa.int64()), ("y", pa.string())]),
        ),
        "ints": pa.array([[1, 2], [], None], pa.list_(pa.int64())),
        "texts": pa.array([["a", "b"], [None], ["c"]], pa.list_(pa.string())),
        "doubles": pa.array([[2.5, 8.0], [1e16, float("nan")], []], pa.list_(pa.float64())),
        "map": pa.array([[("k", 1), ("l", 2)], [], None], pa.map_(pa.string(), pa.int64())),
    }
)
MINIMAL = [
    "id,rec,ints,texts,doubles,map",
    '1,"{""x"":1,""y"":""q, r""}","[1, 2]","[a, b]","[2.5, 8.0]","{k=1, l=2}"',
    '2,"{""x"":2,""y"":null}",[],[null],"[1.0E16, NaN]",{}',
    "3,,,[c],[],",
]


@pytest.mark.parametrize("rows", [1, 300])  # a few records (Python), many (Arrow kernels)
def test_nested_values_as_java_prints_them(
    enable_with: Callable[..., Any], write_records: Any, rows: int
) -> None:
    table = pa.concat_tables([TABLE] * rows)
    out, _ = write_records(enable_with(CSVRecordSetWriter, {}), table)
    assert out.decode().splitlines() == MINIMAL[:1] + MINIMAL[1:] * rows


def test_nested_values_are_text_to_the_other_quote_modes(
    enable_with: Callable[..., Any], write_records: Any
) -> None:
    writer = enable_with(CSVRecordSetWriter, {"Quote Mode": "NON_NUMERIC"})
    out, _ = write_records(writer, TABLE.select(["id", "ints", "map"]))
    assert out.decode().splitlines() == [
        '"id","ints","map"',
        '1,"[1, 2]","{k=1, l=2}"',
        '2,"[]","{}"',
        "3,,",
    ]
