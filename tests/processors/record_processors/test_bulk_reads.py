"""ConvertRecord, PartitionRecord and SplitRecord with several FlowFiles per trigger read
in one parse: each FlowFile's outputs, attributes, routing and failure are those of
reading it alone."""

from __future__ import annotations

from typing import Any

import pytest

from processors.record import csv_bulk
from processors.record.bulk import BulkRead
from processors.record_processors._bulk import POLL_COUNT
from tests.processors.record.alone_reader import AloneReader
from tests.processors.record_processors.conftest import RunnerFactory
from tests.processors.record_processors.outcomes import outcome

INPUTS = [
    "id,product\n1,tea\n2,milk\n3,tea\n",
    "product,id\nrice,4\n",
    "",
    'id,product\n5,"cheese, aged"\n6,"two\nlines"\n',
    "id,product\n7,tea,extra\n",  # malformed
    "id,product\n8.5,eggs\n",
    "id,product\n9,tea",
]
PROCESSORS: dict[str, tuple[dict[str, str], list[str]]] = {
    "ConvertRecord": ({}, ["success", "failure"]),
    "PartitionRecord": ({"product": "/product"}, ["success", "original", "failure"]),
    "SplitRecord": ({"Records Per Split": "1"}, ["splits", "original", "failure"]),
}


def _run(make_runner: RunnerFactory, name: str, bulk: bool) -> dict[str, Any]:
    properties, relationships = PROCESSORS[name]
    runner = make_runner(name, properties)
    if not bulk:
        csv: Any = runner.add_controller_service(
            "csv", "CSVReader", {"Treat First Line as Header": "true"}
        )
        runner.add_controller_service("alone", AloneReader(csv))
        runner.set_property("Record Reader", "alone")
    for content in INPUTS:
        runner.enqueue(content)
    runner.run(len(INPUTS))
    return outcome(runner, relationships)


@pytest.mark.parametrize("name", sorted(PROCESSORS))
def test_bulk_and_alone_give_the_same_outputs(
    make_runner: RunnerFactory, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed_together: list[int] = []

    def spy(*args: Any) -> BulkRead:
        result = real(*args)
        parsed_together.extend(result.locate())
        return result

    real = csv_bulk.read_bulk
    monkeypatch.setattr(csv_bulk, "read_bulk", spy)
    together = _run(make_runner, name, True)
    assert together == _run(make_runner, name, False)
    # 2 (empty) and 4 (malformed) are read alone; 6, parsed with 5, has its id column a
    # double, which its only id (9) does not prove it would be alone: it is parsed again
    # without 5
    assert sorted(parsed_together) == [0, 1, 3, 5, 6]
    [(text, attributes)] = together["failure"]
    assert text == INPUTS[4]
    if name == "ConvertRecord":
        message = dict(attributes)["record.error.message"]
        assert "Expected 2 columns, got 3" in message


def test_a_trigger_takes_at_most_the_poll_limit(make_runner: RunnerFactory) -> None:
    runner = make_runner("ConvertRecord")
    for number in range(POLL_COUNT + 5):
        runner.enqueue(f"id\n{number}\n")
    runner.run(1)
    runner.assert_transfer_count("success", POLL_COUNT)
    runner.run(1)
    runner.assert_transfer_count("success", POLL_COUNT + 5)
