"""open_repositories: one checked, marked bundle for the node, read-only for the CLI."""

from __future__ import annotations

from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import data_identity
from flowcore.engine.repositories import Repositories, open_repositories
from flowcore.errors import RepositoryDamagedError
from flowcore.repository.registry import load_repository_class
from flowcore.settings import EngineSettings


def test_opening_for_writing_marks_every_repository_with_the_next_generation(
    settings: EngineSettings,
) -> None:
    first = open_repositories(settings, ManualClock())
    first.close()
    second = open_repositories(settings, ManualClock())
    try:
        assert second.identity is not None
        assert second.identity.generation == 2
        record = data_identity.read_node_record(settings.data_dir)
        assert record is not None
        assert (record.node_id, record.generation) == (
            second.identity.node_id,
            second.identity.generation,
        )
    finally:
        second.close()
    assert {p.generation for p in data_identity.probe_repositories(settings)} == {2}


def test_opening_for_reading_changes_no_generation(settings: EngineSettings) -> None:
    open_repositories(settings, ManualClock()).close()
    before = (settings.data_dir / data_identity.NODE_FILE).read_text()
    reading = open_repositories(settings, ManualClock(), for_writing=False)
    try:
        assert reading.identity is not None and reading.identity.generation == 1
        assert reading.flowfiles.recover().queues == {}
    finally:
        reading.close()
    assert (settings.data_dir / data_identity.NODE_FILE).read_text() == before
    assert {p.generation for p in data_identity.probe_repositories(settings)} == {1}


def test_a_refused_directory_opens_nothing(settings: EngineSettings) -> None:
    open_repositories(settings, ManualClock()).close()
    data_mdb = settings.flowfile_repository_dir / "data.mdb"
    data_mdb.write_bytes(b"")
    with pytest.raises(RepositoryDamagedError):
        open_repositories(settings, ManualClock())


def test_when_one_repository_fails_to_open_the_others_are_closed(
    settings: EngineSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    closed: list[str] = []
    real = load_repository_class

    def loader(name: str) -> Any:
        cls = real(name)
        if name == settings.provenance.implementation:

            def refuse(*_args: Any) -> Any:
                raise OSError("provenance cannot open")

            return refuse

        class Tracked(cls):  # type: ignore[misc, valid-type]
            def close(self) -> None:
                closed.append(name)
                super().close()

        return Tracked

    monkeypatch.setattr("flowcore.engine.repositories.load_repository_class", loader)
    with pytest.raises(OSError, match="provenance cannot open"):
        open_repositories(settings, ManualClock())
    assert closed == [settings.content.implementation, settings.flowfile_repository.implementation]


class Closable:
    def __init__(self, name: str, calls: list[str], fail: bool = False) -> None:
        self.name, self.calls, self.fail = name, calls, fail

    def close(self) -> None:
        self.calls.append(self.name)
        if self.fail:
            raise OSError(f"{self.name} cannot close")


def test_the_bundle_closes_every_repository_even_when_one_fails() -> None:
    calls: list[str] = []
    bundle = Repositories(
        flowfiles=Closable("FlowFile", calls),  # type: ignore[arg-type]
        content=Closable("content", calls, fail=True),  # type: ignore[arg-type]
        provenance=Closable("provenance", calls, fail=True),  # type: ignore[arg-type]
        identity=None,
    )
    bundle.close()
    assert calls == ["provenance", "content", "FlowFile"]
