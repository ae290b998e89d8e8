"""CSVReader with Trim Fields trims the header line's names as Commons CSV does (the header
is a record like the others): with an inferred schema, a given one, alone or in bulk."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "person",
        "fields": [{"name": "Name", "type": "string"}, {"name": "Age", "type": "int"}],
    }
)
GIVEN = {"Schema Access Strategy": "schema-text-property", "Schema Text": SCHEMA}


@pytest.mark.parametrize("reader", [{}, GIVEN], ids=["inferred", "given"])
def test_header_names_trimmed(make_runner: RunnerFactory, reader: dict[str, str]) -> None:
    runner = make_runner("ConvertRecord", reader=reader, writer_type="JsonRecordSetWriter")
    runner.enqueue("Name , Age\nJohn, 35\n")
    runner.run()
    out = runner.get_flowfiles_for_relationship("success")[0]
    assert json.loads(out.text()) == [{"Name": "John", "Age": 35}]


@pytest.mark.parametrize("reader", [{}, GIVEN], ids=["inferred", "given"])
def test_header_names_trimmed_in_bulk(make_runner: RunnerFactory, reader: dict[str, str]) -> None:
    """Many small FlowFiles merged (read in one parse where that reads them as alone)."""
    runner = make_runner(
        "MergeRecord",
        {"Minimum Number of Records": "20", "Maximum Number of Records": "20"},
        reader=reader,
    )
    for i in range(20):
        runner.enqueue(f"Name, Age\nP{i}, {i}\n")
    runner.run()
    out = runner.get_flowfiles_for_relationship("merged")
    assert len(out) == 1
    assert out[0].text() == "Name,Age\n" + "".join(f"P{i},{i}\n" for i in range(20))
