"""What only the LMDB FlowFile repository does: a full map or disk fails a commit whole,
the map grows up to its maximum, and removals use the room held back for them.

The contract every FlowFile repository keeps is in ``tests/flowcore/repository/``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flowcore.clock import ManualClock
from flowcore.errors import CommitFailedError, RepositoryFullError
from flowcore.model import FlowFile, ProvenanceEvent
from flowcore.repository import FlowFileRepository, QueuedFlowFile, RepositoryUpdate
from repos.lmdb_flowfile import LmdbFlowFileRepository

RepoFactory = Callable[..., FlowFileRepository]


@pytest.fixture
def repo_factory(settings_factory: Any, closing: Any) -> RepoFactory:
    def build(**overrides: Any) -> FlowFileRepository:
        settings = settings_factory(flowfile_repository=overrides.pop("ff", {}), **overrides)
        repo: FlowFileRepository = LmdbFlowFileRepository(settings, ManualClock())
        return closing(repo)  # type: ignore[no-any-return]

    return build


def flowfile(ident: int, **attrs: str) -> FlowFile:
    attributes = {"uuid": f"uuid-{ident}", "filename": f"f{ident}", "path": "./", **attrs}
    return FlowFile(
        id=ident,
        attributes=attributes,
        claim=None,
        claim_offset=0,
        size=0,
        entry_date=ident,
        lineage_start_date=0,
    )


def event(uuid: str, kind: str = "CREATE") -> ProvenanceEvent:
    return ProvenanceEvent(
        event_time=1, event_type=kind, flowfile_uuid=uuid, component_id="c", component_type="T"
    )


def reopen(repo: FlowFileRepository, factory: RepoFactory) -> FlowFileRepository:
    repo.close()
    return factory()


def test_map_full_fails_the_commit_and_writes_nothing(repo_factory: RepoFactory) -> None:
    repo = repo_factory(ff={"map_size": "1 MB", "max_map_size": "1 MB"})
    repo.commit(RepositoryUpdate(puts=[QueuedFlowFile("q", 0, flowfile(1))]))
    big = [QueuedFlowFile("q", i, flowfile(i, pad="x" * 2000)) for i in range(2, 2000)]
    with pytest.raises(RepositoryFullError, match=r"flowfile_repository\.max_map_size") as info:
        repo.commit(RepositoryUpdate(puts=big, events=[event("e")]))
    assert (info.value.repository, info.value.setting) == (
        "FlowFile",
        "flowfile_repository.max_map_size",
    )
    state = repo.recover()
    assert [r.flowfile.id for r in state.queues["q"]] == [1]
    assert repo.journal_size() == 0
    assert list(repo.commit(RepositoryUpdate(events=[event("ok")])).event_ids) == [0]


def test_a_full_map_grows_on_its_own_up_to_the_maximum(repo_factory: RepoFactory) -> None:
    repo = repo_factory(ff={"map_size": "1 MB", "max_map_size": "64 MB"})
    big = [QueuedFlowFile("q", i, flowfile(i, pad="x" * 2000)) for i in range(2000)]
    repo.commit(RepositoryUpdate(puts=big))  # ~4 MB: more than the map it opened with
    assert len(reopen(repo, repo_factory).recover().queues["q"]) == 2000


def fill_until_full(repo: FlowFileRepository) -> int:
    """Commit FlowFiles until not even a small one fits; returns how many it holds."""
    ident = 0
    for size, pad in ((50, 1000), (10, 100), (1, 0)):
        while True:
            batch = [
                QueuedFlowFile("q", i, flowfile(i, pad="x" * pad))
                for i in range(ident, ident + size)
            ]
            try:
                repo.commit(RepositoryUpdate(puts=batch))
            except RepositoryFullError:
                break
            ident += size
    return ident


def test_removals_succeed_when_the_map_is_full(repo_factory: RepoFactory) -> None:
    repo = repo_factory(
        ff={"map_size": "1 MB", "max_map_size": "2 MB", "removal_reserve": "256 KB"}
    )
    held = fill_until_full(repo)
    assert held > 0
    # Removal-only commits (with their DROP events) use the reserve, one at a time.
    for start in range(0, held, 100):
        repo.commit(
            RepositoryUpdate(
                deletes=list(range(start, min(start + 100, held))), events=[event("drop")]
            )
        )
    assert repo.recover().queues == {}
    # The room the removals freed takes new FlowFiles again.
    repo.commit(RepositoryUpdate(puts=[QueuedFlowFile("q", 0, flowfile(1))]))


def test_keyed_state_of_a_failed_commit_is_not_written(repo_factory: RepoFactory) -> None:
    repo = repo_factory(ff={"map_size": "1 MB", "max_map_size": "1 MB"})
    values = {f"k{i:05}".encode(): b"v" * 2000 for i in range(2000)}
    with pytest.raises(CommitFailedError, match="full"):
        repo.commit(RepositoryUpdate(keyed_state={"proc": values}))
    assert repo.scan_keyed("proc", b"", None, 10) == []


def test_a_full_disk_under_the_repository_is_a_full_error(
    repo_factory: RepoFactory, small_disk: Any
) -> None:
    disk = small_disk("512k")
    repo = repo_factory(data_dir=disk, ff={"map_size": "64 MB"})
    repo.commit(RepositoryUpdate(puts=[QueuedFlowFile("q", 0, flowfile(0))]))
    big = [QueuedFlowFile("q", i, flowfile(i, pad="x" * 2000)) for i in range(1, 1000)]
    with pytest.raises(RepositoryFullError, match="free space under") as raised:
        repo.commit(RepositoryUpdate(puts=big, events=[event("e")]))
    assert raised.value.repository == "FlowFile"
    assert [r.flowfile.id for r in repo.recover().queues["q"]] == [0]  # nothing half-written
    assert repo.journal_size() == 0


def test_an_unexpected_error_in_a_group_commit_fails_every_request_it_held(
    repo_factory: RepoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A follower's request shares the leader's transaction; an error that is not the
    repository's refusal must end it too (done, with an error naming the cause), and
    nothing of either is written. Before, the follower found its request neither done nor
    written and failed on an assertion."""
    repo = repo_factory()
    assert isinstance(repo, LmdbFlowFileRepository)
    follower = repo._serialise(RepositoryUpdate(puts=[QueuedFlowFile("q", 0, flowfile(1))]))
    repo._pending.append(follower)  # queued behind the writer lock, as a second thread's

    def broken(batch: list[Any]) -> None:
        raise RuntimeError("a bug while writing")

    monkeypatch.setattr(repo, "_write", broken)
    with pytest.raises(RuntimeError, match="a bug while writing"):
        repo.commit(RepositoryUpdate(puts=[QueuedFlowFile("q", 1, flowfile(2))]))

    assert follower.done
    assert isinstance(follower.error, CommitFailedError)
    assert "RuntimeError: a bug while writing" in str(follower.error)
    monkeypatch.undo()
    assert repo.recover().queues == {}
