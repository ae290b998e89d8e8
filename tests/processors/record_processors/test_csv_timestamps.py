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


PROCESSORS = {
    "SplitRecord": (
        {"Records Per Split": "2"},
        "splits",
        ["id{s}at\n1{s}{a}\n2{s}{b}\n", "id{s}at\n1{s}\n"],
    ),
    "PartitionRecord": (
        {"id": "/id"},
        "success",
        ["id{s}at\n1{s}{a}\n1{s}\n", "id{s}at\n2{s}{b}\n"],
    ),
}
"""Per processor: its properties, the relationship of its outputs, their contents (the
Value Separator ``s``, the first and second timestamps' text ``a`` and ``b``)."""


@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("name", WRITERS)
def test_timestamps_are_written_as_nifi_writes_them(
    make_runner: RunnerFactory, processor: str, name: str
) -> None:
    writer, (first, second), sep = WRITERS[name]
    properties, relationship, outputs = PROCESSORS[processor]
    runner = make_runner(processor, properties, reader=READER, writer=writer)
    for _ in range(2):  # read in one parse
        runner.enqueue(TIMES, {"sep": ";"})
    runner.run()
    written = [f.content.decode() for f in runner.get_flowfiles_for_relationship(relationship)]
    assert written == [text.format(s=sep, a=first, b=second) for text in outputs] * 2
