"""The write hot path and its helpers: the lock-free pool, the writer's buffer, section
directories, and fsync passes that sync whole file systems."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flowcore.errors import RepositoryError
from flowcore.model.flowfile import ResourceClaim
from repos.filesystem_content.appendable import AppendableClaim, AppendablePool
from repos.filesystem_content.durability import WHOLE_FS_FROM
from repos.filesystem_content.whole_fs_sync import (
    WholeFileSystemSync,
    file_system_types,
    kernel_version,
)

KB = 1024


def live_path(factory: Any, resource: ResourceClaim) -> Path:
    root: Path = factory.containers(1)[int(resource.container)]
    return root / resource.section / resource.id


# -- the pool ----------------------------------------------------------------------------


def _claim(n: int) -> AppendableClaim:
    return AppendableClaim(ResourceClaim("0", "0", f"1-{n}"), f"/nowhere/{n}", -1)


def test_pool_takes_the_warmest_and_refuses_beyond_its_capacity() -> None:
    pool = AppendablePool(2)
    a, b, c = _claim(1), _claim(2), _claim(3)
    assert pool.take() is None
    assert pool.offer(a) is None
    assert pool.offer(b) is None
    assert pool.offer(c) is c  # full: the caller freezes it
    assert len(pool) == 2
    assert pool.take() is b
    assert pool.drain() == [a]
    assert len(pool) == 0
    assert AppendablePool(0).offer(a) is a


def test_pool_never_stays_above_its_capacity_under_racing_offers() -> None:
    pool = AppendablePool(3)
    threads, rounds = 8, 2000
    frozen: list[AppendableClaim] = []
    lock = threading.Lock()
    barrier = threading.Barrier(threads)
    high = 0

    def work(index: int) -> None:
        nonlocal high
        barrier.wait()
        for n in range(rounds):
            claim = pool.take() or _claim(index * rounds + n)
            overflow = pool.offer(claim)
            size = len(pool)
            with lock:
                high = max(high, size)
                if overflow is not None:
                    frozen.append(overflow)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    # At most one claim per racing thread above the capacity, for an instant only.
    assert high <= 3 + threads
    assert len(pool) <= 3
    pooled = pool.drain()
    assert len({id(c) for c in pooled + frozen}) == len(pooled) + len(frozen)


# -- the writer --------------------------------------------------------------------------


def test_writer_keeps_bytes_by_reference_and_copies_mutable_buffers(
    content_repo_factory: Any,
) -> None:
    repo = content_repo_factory()
    mutable = bytearray(b"abc")
    writer = repo.create_writer()
    writer.write(mutable)
    mutable[:] = b"XYZ"  # changed after the write: must not change the content
    assert repo.read(writer.close()) == b"abc"

    source = bytearray(b"0123456789")
    view = memoryview(source)[2:6]
    writer = repo.create_writer()
    writer.write(b"first ")
    writer.write(view)
    source[:] = b"##########"
    writer.write(b" last")
    assert repo.read(writer.close()) == b"first 2345 last"

    writer = repo.create_writer()
    writer.write(b"only bytes")
    claim = writer.close()
    assert repo.read(claim) == b"only bytes"
    assert repo.claimant_count(claim.resource) == 3  # all three share the pooled file


def test_writer_with_bytes_then_a_large_write_keeps_the_order(content_repo_factory: Any) -> None:
    repo = content_repo_factory(max_appendable_size="1 MB")
    big = os.urandom(200 * KB)
    writer = repo.create_writer()
    writer.write(b"head")
    writer.write(big)
    writer.write(b"tail")
    claim = writer.close()
    assert repo.read(claim) == b"head" + big + b"tail"


def test_writer_close_on_a_closed_repository_fails_the_writer(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    writer = repo.create_writer()
    writer.write(b"late")
    repo.close()
    with pytest.raises(RepositoryError, match="closed"):
        writer.close()
    with pytest.raises(RepositoryError, match="failed"):
        writer.close()


# -- section directories -----------------------------------------------------------------


def test_existing_section_directories_are_not_made_again(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = content_repo_factory(sections=4)
    root = content_repo_factory.containers(1)[0]
    for section in range(3):
        (root / str(section)).mkdir(parents=True)
    made: list[str] = []
    real_mkdir = os.mkdir

    def counting_mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
        made.append(str(path))
        real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", counting_mkdir)
    claims = [repo.write(bytes([n]) * (60 * KB)) for n in range(8)]
    assert made == [str(root / "3"), str(root / "3" / "archive")]  # only the missing one, once
    assert {c.resource.section for c in claims} == {"0", "1", "2", "3"}
    for n, claim in enumerate(claims):
        assert repo.read(claim) == bytes([n]) * (60 * KB)


# -- whole file system sync ----------------------------------------------------------------


class FakeSyncfs:
    """Stands in for libc's ``syncfs``: records the directory of each call."""

    def __init__(self, result: int = 0) -> None:
        self.result = result
        self.calls: list[str] = []

    def __call__(self, fd: int) -> int:
        self.calls.append(os.readlink(f"/proc/self/fd/{fd}"))
        return self.result


def use_whole_fs_sync(
    monkeypatch: pytest.MonkeyPatch, syncfs: Callable[[int], int], fstype: str = "ext4"
) -> None:
    def types() -> dict[int, str]:
        return dict.fromkeys(file_system_types(), fstype)

    def from_libc(cls: type[WholeFileSystemSync]) -> WholeFileSystemSync:
        return cls(syncfs, types)

    monkeypatch.setattr(WholeFileSystemSync, "from_libc", classmethod(from_libc))


class FsyncCounter:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        self.real = os.fsync
        monkeypatch.setattr(os, "fsync", self)

    def __call__(self, fd: int) -> None:
        self.paths.append(os.readlink(f"/proc/self/fd/{fd}"))
        self.real(fd)


def big_pass_repo(factory: Any, **settings: Any) -> Any:
    """A repository in which every content of 2 KB fills a file of its own."""
    return factory(max_appendable_size="1 KB", **settings)


def many_files(repo: Any, count: int = WHOLE_FS_FROM) -> list[ResourceClaim]:
    """Enough new files (and new section directories) for a whole file system pass."""
    return [repo.write(bytes([n % 251]) * (2 * KB)).resource for n in range(count)]


def test_a_big_pass_syncs_the_file_system_once(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    syncfs = FakeSyncfs()
    use_whole_fs_sync(monkeypatch, syncfs)
    repo = big_pass_repo(content_repo_factory)
    resources = many_files(repo)
    fsyncs = FsyncCounter(monkeypatch)

    repo.flush(resources, fsync=True)
    assert len(syncfs.calls) == 1
    assert fsyncs.paths == []
    repo.flush(resources, fsync=True)  # nothing is owed any more
    assert len(syncfs.calls) == 1
    assert fsyncs.paths == []

    small = repo.write(b"tail")  # a small pass: file by file, as before
    repo.flush([small.resource], fsync=True)
    assert str(live_path(content_repo_factory, small.resource)) in fsyncs.paths
    assert len(syncfs.calls) == 1


def test_a_whole_sync_clears_only_the_claims_it_was_asked_for(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    syncfs = FakeSyncfs()
    use_whole_fs_sync(monkeypatch, syncfs)
    repo = big_pass_repo(content_repo_factory)
    resources = many_files(repo, WHOLE_FS_FROM + 10)
    asked, others = resources[:WHOLE_FS_FROM], resources[WHOLE_FS_FROM:]
    fsyncs = FsyncCounter(monkeypatch)

    repo.flush(asked, fsync=True)  # the claims asked and every pending directory
    assert len(syncfs.calls) == 1
    assert fsyncs.paths == []
    repo.flush(others, fsync=True)  # still owed: synced file by file, nothing else
    assert sorted(fsyncs.paths) == sorted(str(live_path(content_repo_factory, r)) for r in others)
    assert len(syncfs.calls) == 1


def test_a_failed_whole_sync_falls_back_to_fsync_per_file(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    syncfs = FakeSyncfs(result=-1)
    use_whole_fs_sync(monkeypatch, syncfs)
    repo = big_pass_repo(content_repo_factory)
    resources = many_files(repo)
    fsyncs = FsyncCounter(monkeypatch)

    repo.flush(resources, fsync=True)
    assert len(syncfs.calls) == 1
    files = {str(live_path(content_repo_factory, r)) for r in resources}
    assert files <= set(fsyncs.paths)  # every file, and the new directories
    assert len(fsyncs.paths) > len(files)


def test_an_unknown_file_system_is_synced_file_by_file(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    syncfs = FakeSyncfs()
    use_whole_fs_sync(monkeypatch, syncfs, fstype="fuse.sshfs")
    repo = big_pass_repo(content_repo_factory)
    resources = many_files(repo)
    fsyncs = FsyncCounter(monkeypatch)

    repo.flush(resources, fsync=True)
    assert syncfs.calls == []
    assert {str(live_path(content_repo_factory, r)) for r in resources} <= set(fsyncs.paths)


def test_whole_fs_sync_can_be_turned_off(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    syncfs = FakeSyncfs()
    use_whole_fs_sync(monkeypatch, syncfs)
    repo = big_pass_repo(content_repo_factory, whole_fs_sync=False)
    resources = many_files(repo)
    fsyncs = FsyncCounter(monkeypatch)
    repo.flush(resources, fsync=True)
    assert syncfs.calls == []
    assert len(fsyncs.paths) >= len(resources)


def test_the_real_syncfs_makes_a_big_pass_durable(content_repo_factory: Any) -> None:
    repo = big_pass_repo(content_repo_factory)
    resources = many_files(repo)
    repo.flush(resources, fsync=True)  # libc's syncfs where trusted, else fsync per file
    repo.flush(resources, fsync=True)
    for resource in resources:
        assert live_path(content_repo_factory, resource).stat().st_size == 2 * KB


def test_kernel_versions_and_mount_table_are_parsed(tmp_path: Path) -> None:
    assert kernel_version("6.1.0-18-amd64") == (6, 1)
    assert kernel_version("5.8.0") == (5, 8)
    assert kernel_version("4.19.112+") == (4, 19)
    assert kernel_version("weird") == (0, 0)
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
        "27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
        "40 27 0:50 / /mnt/x rw master:3 unbindable - fuse.sshfs host: rw\n"
        "garbage\n"
    )
    assert file_system_types(str(mountinfo)) == {
        os.makedev(0, 21): "proc",
        os.makedev(254, 0): "ext4",
        os.makedev(0, 50): "fuse.sshfs",
    }
    assert file_system_types(str(tmp_path / "missing")) == {}
    assert WholeFileSystemSync(None).sync([str(tmp_path)]) == set()
