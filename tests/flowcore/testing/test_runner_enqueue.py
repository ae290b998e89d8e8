"""TestRunner.enqueue keeps a uuid it is given, through the session's own create()."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from flowcore.settings import EngineSettings
from flowcore.testing import TestRunner
from processors.standard.update_attribute import UpdateAttribute


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[TestRunner]:
    built = TestRunner(UpdateAttribute(), settings=EngineSettings(data_dir=tmp_path))
    built.set_property("seen", "yes")
    yield built
    built.close()


def test_a_given_uuid_is_the_flowfiles_identity_from_its_first_event(runner: TestRunner) -> None:
    queued = runner.enqueue(b"x", {"uuid": "given-uuid-1", "kind": "a"})
    assert queued.attributes["uuid"] == "given-uuid-1"
    assert queued.attributes["filename"] == "given-uuid-1"
    runner.run()
    [out] = runner.get_flowfiles_for_relationship("success")
    assert out.attributes["uuid"] == "given-uuid-1"
    assert out.attributes["kind"] == "a" and out.attributes["seen"] == "yes"


def test_without_a_uuid_each_flowfile_gets_a_fresh_one(runner: TestRunner) -> None:
    first, second = runner.enqueue(b"x"), runner.enqueue(b"y")
    assert first.attributes["uuid"] != second.attributes["uuid"]
    assert len(first.attributes["uuid"]) == 36


def test_queued_flowfiles_lists_what_waits_with_its_content(tmp_path: Path) -> None:
    with TestRunner("PutFile", settings=EngineSettings(data_dir=tmp_path)) as runner:
        runner.set_property("Directory", str(tmp_path / "out"))
        first = runner.enqueue(b"one", {"filename": "1.txt"})
        second = runner.enqueue(b"two", {"filename": "2.txt"})
        assert [(f.uuid, f.content) for f in runner.queued_flowfiles()] == [
            (first.uuid, b"one"),
            (second.uuid, b"two"),
        ]
        runner.run()
        assert runner.queued_flowfiles() == []
