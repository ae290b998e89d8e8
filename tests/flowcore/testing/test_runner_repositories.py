"""TestRunner runs on the in-memory twins unless a test asks for the durable repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner
from flowcore.testing.memory_content import InMemoryContentRepository
from flowcore.testing.memory_flowfile import InMemoryFlowFileRepository
from flowcore.testing.memory_provenance import InMemoryProvenanceRepository
from processors.standard.update_attribute import UpdateAttribute


def run_one(runner: TestRunner) -> None:
    runner.set_property("seen", "yes")
    runner.set_state({"kept": "1"})
    runner.enqueue(b"content", {"filename": "a.txt"})
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    out.assert_content_equals(b"content")
    out.assert_attribute_equals("seen", "yes")
    assert [e.event_type for e in runner.get_provenance_events()] == ["ATTRIBUTES_MODIFIED"]
    assert runner.state == {"kept": "1"}


def test_by_default_the_runner_opens_no_repository_on_disk(tmp_path: Path) -> None:
    settings = EngineSettings(data_dir=tmp_path / "data")
    with TestRunner(UpdateAttribute(), settings=settings) as runner:
        assert isinstance(runner.node.flowfiles, InMemoryFlowFileRepository)
        assert isinstance(runner.node.content, InMemoryContentRepository)
        assert isinstance(runner.node.provenance, InMemoryProvenanceRepository)
        run_one(runner)
    assert not settings.flowfile_repository_dir.exists()
    assert not settings.provenance_dir.exists()
    assert not any(path.exists() for path in settings.content_containers)


def test_durable_repositories_on_request(tmp_path: Path) -> None:
    settings = EngineSettings(data_dir=tmp_path / "data")
    with TestRunner(UpdateAttribute(), settings=settings, repositories="durable") as runner:
        assert not isinstance(runner.node.flowfiles, InMemoryFlowFileRepository)
        run_one(runner)
    assert (settings.flowfile_repository_dir / "data.mdb").exists()
    with TestRunner(UpdateAttribute(), settings=settings, repositories="durable") as again:
        assert again.state == {"kept": "1"}  # a restart on the same data directory


def test_an_unknown_choice_is_refused() -> None:
    with pytest.raises(ValueError, match="'memory' or 'durable'"):
        TestRunner(UpdateAttribute(), repositories="disk")  # type: ignore[arg-type]
