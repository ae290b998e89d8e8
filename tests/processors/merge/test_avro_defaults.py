"""Avro field defaults reach the record mergers: FILL_DEFAULTS and IGNORE_DEFAULTS use them."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fastavro
import pytest

import processors.merge
import processors.record  # noqa: F401  (registers the record services)
from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner

FULL_SCHEMA = {
    "type": "record",
    "name": "fruit",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "ts", "type": "long"},
        {"name": "name", "type": "string", "default": "unknown"},
        {"name": "price", "type": ["null", "double"], "default": None},
    ],
}
SHORT_SCHEMA = {
    "type": "record",
    "name": "fruit",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "ts", "type": "long"},
        {"name": "price", "type": ["null", "double"], "default": None},
    ],
}


def avro(schema: dict[str, Any], records: list[dict[str, Any]]) -> bytes:
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(schema), records)
    return out.getvalue()


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[TestRunner]:
    with TestRunner("MergeRecord", settings=EngineSettings(data_dir=tmp_path)) as test_runner:
        test_runner.add_controller_service("reader", "AvroReader", {})
        test_runner.add_controller_service("writer", "CSVRecordSetWriter", {})
        test_runner.set_property("Record Reader", "reader")
        test_runner.set_property("Record Writer", "writer")
        test_runner.set_property("Record Key Field(s)", "id")
        test_runner.set_property("Ordering Field(s)", "ts")
        yield test_runner


def merged(runner: TestRunner, *contents: bytes) -> str:
    for content in contents:
        runner.enqueue(content)
    runner.run(2)
    runner.assert_transfer_count("failure", 0)
    runner.assert_transfer_count("merged", 1)
    return runner.get_flowfiles_for_relationship("merged")[0].content.decode()


def test_fill_defaults_gives_an_absent_field_its_avro_default(runner: TestRunner) -> None:
    runner.set_property("Partial Update Mode", "FILL_DEFAULTS")
    out = merged(
        runner,
        avro(FULL_SCHEMA, [{"id": 1, "ts": 10, "name": "apple", "price": 2.5}]),
        avro(SHORT_SCHEMA, [{"id": 1, "ts": 16, "price": 2.75}]),
    )
    assert out == "id,ts,name,price\n1,16,unknown,2.75\n"


def test_ignore_defaults_takes_fields_at_their_default_from_the_older_record(
    runner: TestRunner,
) -> None:
    runner.set_property("Partial Update Mode", "IGNORE_DEFAULTS")
    out = merged(
        runner,
        avro(FULL_SCHEMA, [{"id": 1, "ts": 10, "name": "apple", "price": 2.5}]),
        avro(FULL_SCHEMA, [{"id": 1, "ts": 16, "name": "unknown", "price": 2.75}]),
    )
    assert out == "id,ts,name,price\n1,16,apple,2.75\n"
