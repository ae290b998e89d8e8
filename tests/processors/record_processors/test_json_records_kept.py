"""JSON records keep every field and the kind of every value, whatever their order.

A JSON array is decoded whole: its schema comes from every record, as NiFi's inference
reads every record (``pa.Table.from_pylist`` alone took the first record's keys and
dropped a field only later records had). A Boolean among numbers is a CHOICE in NiFi and
text here; Arrow alone would have made ``true`` the number 1.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


def converted(make_runner: RunnerFactory, content: str, writer_type: str) -> str:
    runner = make_runner("ConvertRecord", reader_type="JsonTreeReader", writer_type=writer_type)
    runner.enqueue(content)
    runner.run()
    assert runner.get_flowfiles_for_relationship("failure") == []
    (out,) = runner.get_flowfiles_for_relationship("success")
    return out.text()


@pytest.mark.parametrize(
    ("content", "csv"),
    [
        ('[{"a":1},{"a":2,"b":3}]', "a,b\n1,\n2,3\n"),
        ('[{"a":1},{"b":"x"}]', "a,b\n1,\n,x\n"),
        ('[{},{"a":1}]', "a\n\n1\n"),
        ("[{}]", "\n"),
    ],
)
def test_a_json_array_keeps_the_fields_of_every_record(
    make_runner: RunnerFactory, content: str, csv: str
) -> None:
    assert converted(make_runner, content, "JsonRecordSetWriter") == content
    assert converted(make_runner, content, "CSVRecordSetWriter") == csv


@pytest.mark.parametrize(
    ("content", "csv"),
    [
        ('{"f":2.5}\n{"f":true}\n', "f\n2.5\ntrue\n"),
        ('[{"f":2.5},{"f":true}]', "f\n2.5\ntrue\n"),
        ('[{"f":[2.5]},{"f":[false]}]', "f\n[2.5]\n[false]\n"),
        ('{"f":{"a":[1]}}\n{"f":{"a":[true]}}\n', 'f\n"{""a"":[1]}"\n"{""a"":[true]}"\n'),
    ],
    ids=["lines", "array", "list elements", "object field"],
)
def test_a_boolean_among_numbers_stays_a_boolean(
    make_runner: RunnerFactory, content: str, csv: str
) -> None:
    assert converted(make_runner, content, "CSVRecordSetWriter") == csv
