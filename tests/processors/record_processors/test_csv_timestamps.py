"""SplitRecord and PartitionRecord with a CSV writer: a timestamp column is written as
NiFi writes it (epoch milliseconds, or the Timestamp Format's text), whether the records
of the FlowFiles read together are rendered once for every output or each output is
written alone."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]
TIMES = "id,at\n1,2024-01-31T10:00:00.123Z\n2,1969-12-31T23:59:59.999Z\n1,\n"
READER = {
    "Schema Access Strategy": "schema-text-property",
    "Schema Text": json.dumps(
        {
            "type": "record",
            "name": "r",
            "fields": [
                {"name": "id", "type": "int"},
                {
                    "name": "at",
                    "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}],
                },
            ],
        }
    ),
}
WRITERS = {
    "epoch-millis": ({}, ["1706695200123", "-1"], ","),
    "formatted": (
        {"Timestamp Format": "EEE, d MMM yyyy HH:mm"},
        ['"Wed, 31 Jan 2024 10:00"', '"Wed, 31 Dec 1969 23:59"'],
        ",",
    ),
    # a Value Separator from Expression Language: each output written alone
    "per-flowfile": ({"Value Separator": "${sep}"}, ["1706695200123", "-1"], ";"),
}


@pytest.mark.parametrize("name", WRITERS)
def test_split_record(make_runner: RunnerFactory, name: str) -> None:
    writer, (first, second), sep = WRITERS[name]
    runner = make_runner("SplitRecord", {"Records Per Split": "2"}, reader=READER, writer=writer)
    for _ in range(2):  # read in one parse
        runner.enqueue(TIMES, {"sep": ";"})
    runner.run()
    splits = runner.get_flowfiles_for_relationship("splits")
    assert [s.content.decode() for s in splits] == [
        f"id{sep}at\n1{sep}{first}\n2{sep}{second}\n",
        f"id{sep}at\n1{sep}\n",
    ] * 2


@pytest.mark.parametrize("name", WRITERS)
def test_partition_record(make_runner: RunnerFactory, name: str) -> None:
    writer, (first, second), sep = WRITERS[name]
    runner = make_runner("PartitionRecord", {"id": "/id"}, reader=READER, writer=writer)
    for _ in range(2):  # read in one parse
        runner.enqueue(TIMES, {"sep": ";"})
    runner.run()
    children = runner.get_flowfiles_for_relationship("success")
    assert [c.content.decode() for c in children] == [
        f"id{sep}at\n1{sep}{first}\n1{sep}\n",
        f"id{sep}at\n2{sep}{second}\n",
    ] * 2
