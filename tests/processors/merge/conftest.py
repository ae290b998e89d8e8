"""A TestRunner with MergeRecord, a header CSV reader and a CSV writer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import processors.merge
import processors.record  # noqa: F401 - registers the record services
from flowcore.testing import TestRunner


@pytest.fixture
def runner() -> Iterator[TestRunner]:
    with TestRunner("MergeRecord") as test_runner:
        test_runner.add_controller_service(
            "reader", "CSVReader", {"Treat First Line as Header": "true"}
        )
        test_runner.add_controller_service("writer", "CSVRecordSetWriter", {})
        test_runner.set_property("Record Reader", "reader")
        test_runner.set_property("Record Writer", "writer")
        yield test_runner
