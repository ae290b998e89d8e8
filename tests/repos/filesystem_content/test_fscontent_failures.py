"""Write failures (disk full): a clear RepositoryError and nothing half-registered."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flowcore.errors import (
    ContentNotFoundError,
    RepositoryError,
    RepositoryFullError,
    RepositoryUnavailableError,
)
from flowcore.model.flowfile import ResourceClaim
from flowcore.settings import ContentRepositorySettings, EngineSettings
from repos.filesystem_content import FileSystemContentRepository

KB = 1024


def live_path(factory: Any, resource: ResourceClaim) -> Path:
    return factory.containers(1)[int(resource.container)] / resource.section / resource.id


class DiskFull:
    """Makes ``os.write`` to files under ``root`` write part of the data, then fail."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
        self.root = str(root)
        self.armed = False
        self.real_write: Callable[[int, Any], int] = os.write
        monkeypatch.setattr(os, "write", self)

    def __call__(self, fd: int, data: Any) -> int:
        if self.armed and os.readlink(f"/proc/self/fd/{fd}").startswith(self.root):
            self.armed = False
            half = memoryview(data).cast("B")[: len(memoryview(data).cast("B")) // 2]
            self.real_write(fd, half)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self.real_write(fd, data)


@pytest.fixture
def disk_full(content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch) -> DiskFull:
    return DiskFull(monkeypatch, content_repo_factory.root)


def test_disk_full_in_a_shared_claim(content_repo_factory: Any, disk_full: DiskFull) -> None:
    repo = content_repo_factory()
    before = repo.write(b"b" * KB)
    disk_full.armed = True
    with pytest.raises(RepositoryError, match="out of disk space"):
        repo.write(b"x" * KB)

    resource = before.resource
    assert repo.claimant_count(resource) == 1  # only the content written before
    assert repo.read(before) == b"b" * KB
    assert live_path(content_repo_factory, resource).stat().st_size == KB + KB // 2
    after = repo.write(b"a" * KB)
    assert after.resource != resource  # the damaged claim is frozen: no more appends
    assert repo.take_release_candidates() == []
    repo.decrement(resource)
    assert repo.take_release_candidates() == [resource]
    assert repo.release([resource]) == 1


def test_disk_full_in_a_new_claim_leaves_it_unreferenced(
    content_repo_factory: Any, disk_full: DiskFull
) -> None:
    repo = content_repo_factory(archive_enabled=False)
    disk_full.armed = True
    with pytest.raises(RepositoryError, match="ENOSPC"):
        repo.write(b"x" * (60 * KB))

    candidates = repo.take_release_candidates()
    assert len(candidates) == 1
    partial = live_path(content_repo_factory, candidates[0])
    assert partial.stat().st_size == 30 * KB
    assert repo.claimant_count(candidates[0]) == 0
    assert repo.release(candidates) == 1
    assert not partial.exists()


def test_disk_full_poisons_the_writer(content_repo_factory: Any, disk_full: DiskFull) -> None:
    repo = content_repo_factory(max_appendable_size="1 MB")
    writer = repo.create_writer()
    writer.write(b"1" * (70 * KB))
    disk_full.armed = True
    with pytest.raises(RepositoryError, match="out of disk space"):
        writer.write(b"2" * (70 * KB))
    with pytest.raises(RepositoryError, match="failed"):
        writer.write(b"3")
    with pytest.raises(RepositoryError, match="failed"):
        writer.close()
    writer.abort()  # harmless after a failure

    candidates = repo.take_release_candidates()
    assert len(candidates) == 1  # frozen at zero: nothing references the partial bytes
    assert repo.claimant_count(candidates[0]) == 0
    assert repo.write(b"ok").resource != candidates[0]


def test_disk_full_on_close_through_the_contract_helper(
    content_repo_factory: Any, disk_full: DiskFull
) -> None:
    repo = content_repo_factory()
    writer = repo.create_writer()
    writer.write(b"small, buffered until close")
    disk_full.armed = True
    with pytest.raises(RepositoryError, match="out of disk space"):
        writer.close()
    assert [repo.claimant_count(r) for r in repo.take_release_candidates()] == [0]


def test_cannot_create_a_claim_file(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = content_repo_factory()
    real_open = os.open

    def failing_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT and str(path).startswith(str(content_repo_factory.root)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", failing_open)
    with pytest.raises(RepositoryError, match="out of disk space"):
        repo.write(b"x")
    assert repo.take_release_candidates() == []
    monkeypatch.setattr(os, "open", real_open)
    assert repo.read(repo.write(b"y")) == b"y"


def test_fsync_failure_fails_the_flush_and_is_retried(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = content_repo_factory(durability="power")
    claims = [repo.write(bytes([n]) * (60 * KB)) for n in range(10)]  # 10 files: parallel path
    bad = str(live_path(content_repo_factory, claims[3].resource))
    real_fsync = os.fsync
    synced: list[str] = []

    def fsync(fd: int) -> None:
        target = os.readlink(f"/proc/self/fd/{fd}")
        if target == bad:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        synced.append(target)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    resources = [c.resource for c in claims]
    with pytest.raises(RepositoryError, match=claims[3].resource.id):
        repo.flush(resources, fsync=True)
    files = {str(live_path(content_repo_factory, r)) for r in resources}
    assert files - set(synced) == {bad}  # every other file and directory was synced

    synced.clear()
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(os.readlink(f"/proc/self/fd/{fd}")))
    repo.flush(resources, fsync=True)
    assert synced == [bad]  # only the one that failed is still owed


# -- a full disk is RepositoryFullError, naming the container and the setting -------------


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_no_room_is_a_full_error_naming_where_and_what_to_change(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    repo = content_repo_factory()
    real_write = os.write

    def no_room(fd: int, data: Any) -> int:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "write", no_room)
    with pytest.raises(RepositoryFullError) as raised:
        repo.write(b"x" * KB)
    monkeypatch.setattr(os, "write", real_write)
    error = raised.value
    assert (error.repository, error.setting) == ("content", "content.containers")
    container = str(content_repo_factory.containers(1)[0])
    assert f"free space under {container}" in str(error)
    assert "content.containers" in str(error)
    assert repo.read(repo.write(b"y")) == b"y"  # room again: writes go on


def test_fsync_reporting_no_room_is_a_full_error(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = content_repo_factory(durability="power")
    claim = repo.write(b"z" * KB)

    def no_room(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", no_room)
    with pytest.raises(RepositoryFullError, match=r"content\.containers") as raised:
        repo.flush([claim.resource], fsync=True)
    assert raised.value.repository == "content"


def test_a_real_full_disk_refuses_the_content_whole(
    content_repo_factory: Any, small_disk: Any
) -> None:
    disk = small_disk("256k")
    settings = EngineSettings(
        data_dir=content_repo_factory.root / "data",
        content=ContentRepositorySettings(containers=[disk], archive_enabled=False),
    )
    repo = FileSystemContentRepository(settings, content_repo_factory.clock, file_stock_size=0)
    try:
        kept = repo.write(b"k" * KB)
        with pytest.raises(RepositoryFullError, match=f"free space under {disk}"):
            repo.write(b"x" * (512 * KB))
        partial = [r for r in repo.take_release_candidates() if r != kept.resource]
        assert all(repo.claimant_count(r) == 0 for r in partial)
        repo.release(partial)  # the partial file goes: the room is back
        assert repo.read(kept) == b"k" * KB
        assert repo.read(repo.write(b"y" * KB)) == b"y" * KB
    finally:
        repo.close()


# -- a read that fails on a file that is there is a fault, not missing content -------------


@pytest.mark.parametrize("many", [False, True])
def test_an_io_error_reading_is_unavailable_not_missing(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch, many: bool
) -> None:
    """EIO from ``pread`` on a claim file that exists: ``RepositoryUnavailableError``
    (the session rolls back and the FlowFile is read again), never ``ContentNotFoundError``
    (which removes the FlowFile as missing content)."""
    repo = content_repo_factory()
    claim = repo.write(b"payload")
    real_pread = os.pread

    def failing(fd: int, length: int, offset: int) -> bytes:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "pread", failing)
    with pytest.raises(RepositoryUnavailableError, match="Input/output error") as raised:
        if many:
            repo.read_many([(claim, 0, claim.length)])
        else:
            repo.read(claim)
    assert not isinstance(raised.value, ContentNotFoundError)
    assert raised.value.repository == "content"
    monkeypatch.setattr(os, "pread", real_pread)
    assert repo.read(claim) == b"payload"
