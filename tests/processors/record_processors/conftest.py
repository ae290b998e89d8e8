"""Fixtures for the record processors: a TestRunner with CSV/JSON services, closed after."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


@pytest.fixture
def make_runner(tmp_path: Path) -> Iterator[RunnerFactory]:
    """``make_runner("SplitRecord", reader={...}, writer="JsonRecordSetWriter", ...)``.

    Adds a CSVReader ("reader", header line, with ``reader`` properties) or the given
    reader type, and a writer ("writer"); sets Record Reader / Record Writer to them, then
    the other properties (by display name).
    """
    runners: list[TestRunner] = []

    def build(
        type_name: str,
        properties: dict[str, str] | None = None,
        *,
        reader_type: str = "CSVReader",
        reader: dict[str, str] | None = None,
        writer_type: str = "CSVRecordSetWriter",
        writer: dict[str, str] | None = None,
        services: bool = True,
    ) -> TestRunner:
        settings = EngineSettings(data_dir=tmp_path / f"runner-{len(runners)}")
        runner = TestRunner(type_name, settings=settings)
        runners.append(runner)
        if services:
            reader_props = dict(reader or {})
            if reader_type == "CSVReader":
                reader_props.setdefault("Treat First Line as Header", "true")
            runner.add_controller_service("reader", reader_type, reader_props)
            runner.add_controller_service("writer", writer_type, writer or {})
            runner.set_property("Record Reader", "reader")
            runner.set_property("Record Writer", "writer")
        for name, value in (properties or {}).items():
            runner.set_property(name, value)
        return runner

    yield build
    for runner in reversed(runners):
        runner.close()
