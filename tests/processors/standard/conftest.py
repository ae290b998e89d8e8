"""Fixtures for the standard processors: a TestRunner factory that closes its runners."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

import pytest

from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


@pytest.fixture
def make_runner(tmp_path: Path) -> Iterator[RunnerFactory]:
    """``make_runner("SplitText", **properties)``: a runner with its data under tmp_path
    (on the in-memory repositories unless ``repositories="durable"``).

    Properties are given by display name; names that are not identifiers can be passed
    with ``properties={...}``.
    """
    runners: list[TestRunner] = []

    def build(
        type_name: str,
        properties: dict[str, str] | None = None,
        repositories: Literal["memory", "durable"] = "memory",
        **more: str,
    ) -> TestRunner:
        settings = EngineSettings(data_dir=tmp_path / f"runner-{len(runners)}")
        runner = TestRunner(type_name, settings=settings, repositories=repositories)
        runners.append(runner)
        for name, value in {**(properties or {}), **more}.items():
            runner.set_property(name, value)
        return runner

    yield build
    for runner in reversed(runners):
        runner.close()
