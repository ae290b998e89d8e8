"""Archive age-off by retention period and by file-system usage (spec item 22)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from flowcore.model.flowfile import ContentClaim

KB = 1024
HOUR_MS = 3_600_000


class Usage(NamedTuple):
    total: int
    used: int
    free: int


def archive_dir_files(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("*/archive/*") if p.is_file())


def archive(repo: Any, data: bytes) -> ContentClaim:
    """Write ``data`` into a frozen claim of its own and release it to the archive."""
    claim = repo.write(data)
    repo.decrement(claim.resource)
    assert repo.release([claim.resource]) == 1
    return claim


@pytest.fixture
def roomy_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "disk_usage", lambda _path: Usage(1000, 100, 900))


@pytest.mark.usefixtures("roomy_disk")
def test_archive_ages_off_by_retention_period(content_repo_factory: Any) -> None:
    clock = content_repo_factory.clock
    repo = content_repo_factory(archive_max_retention_period="1 hour")
    old = archive(repo, b"o" * (60 * KB))
    clock.advance(30 * 60)
    young = archive(repo, b"y" * (60 * KB))

    assert repo.cleanup_archive(clock.now_ms()) == 0
    clock.advance(30 * 60)
    assert repo.cleanup_archive(clock.now_ms()) == 0  # exactly one hour old: kept
    clock.advance(1)
    assert repo.cleanup_archive(clock.now_ms()) == 1
    assert not repo.exists(old)
    assert repo.read(young) == b"y" * (60 * KB)
    assert repo.archived_file_count() == 1
    clock.advance(30 * 60)
    assert repo.cleanup_archive(clock.now_ms()) == 1
    assert not repo.exists(young)
    assert repo.archived_file_count() == 0


@pytest.mark.usefixtures("roomy_disk")
def test_age_of_a_file_without_a_millis_name_comes_from_mtime(content_repo_factory: Any) -> None:
    clock = content_repo_factory.clock
    repo = content_repo_factory(archive_max_retention_period="1 hour")
    archive(repo, b"a" * (60 * KB))
    stray = next(iter(archive_dir_files(content_repo_factory.root / "container0"))).parent
    stray = stray / "not-a-timestamp"
    stray.write_bytes(b"s")
    mtime_s = (clock.now_ms() - 2 * HOUR_MS) / 1000
    os.utime(stray, (mtime_s, mtime_s))

    assert repo.cleanup_archive(clock.now_ms()) == 1
    assert not stray.exists()
    assert len(archive_dir_files(content_repo_factory.root / "container0")) == 1


def test_archive_ages_off_oldest_first_by_disk_usage(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = content_repo_factory.clock
    repo = content_repo_factory(archive_max_usage_percentage=90)
    root = content_repo_factory.root / "container0"
    claims = []
    for n in range(5):
        claims.append(archive(repo, bytes([n]) * (60 * KB)))
        clock.advance(1)
    live = repo.write(b"live" * KB)
    size = 60 * KB
    total = 100 * size
    base = 88 * size  # 93% used with the 5 archived files; 3 must go to get to 90%

    def fake_usage(_path: str) -> Usage:
        used = base + sum(p.stat().st_size for p in archive_dir_files(root))
        return Usage(total, used, total - used)

    monkeypatch.setattr(shutil, "disk_usage", fake_usage)
    assert repo.cleanup_archive(clock.now_ms()) == 3
    for claim in claims[:3]:
        assert not repo.exists(claim)
    for claim in claims[3:]:
        assert repo.exists(claim)
    assert repo.cleanup_archive(clock.now_ms()) == 0  # at 90%: not above the limit

    base = 99 * size  # no amount of archive deletion is enough
    assert repo.cleanup_archive(clock.now_ms()) == 2
    assert archive_dir_files(root) == []
    assert repo.read(live) == b"live" * KB  # live content is never aged off
    assert repo.cleanup_archive(clock.now_ms()) == 0


def test_usage_is_measured_per_container(
    content_repo_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = content_repo_factory(containers=2)
    roots = content_repo_factory.containers(2)
    first = archive(repo, b"0" * (60 * KB))
    second = archive(repo, b"1" * (60 * KB))
    assert {first.resource.container, second.resource.container} == {"0", "1"}
    full = roots[int(first.resource.container)]

    def fake_usage(path: str) -> Usage:
        return Usage(100, 99, 1) if Path(path) == full else Usage(100, 10, 90)

    monkeypatch.setattr(shutil, "disk_usage", fake_usage)
    assert repo.cleanup_archive(content_repo_factory.clock.now_ms()) == 1
    assert not repo.exists(first)
    assert repo.exists(second)


def test_an_archive_directory_removed_behind_the_repository_is_recreated(
    content_repo_factory: Any,
) -> None:
    repo = content_repo_factory(sections=1)
    root = content_repo_factory.root / "container0"
    first = archive(repo, b"f" * (60 * KB))
    shutil.rmtree(root / "0" / "archive")
    assert not repo.exists(first)

    second = archive(repo, b"s" * (60 * KB))

    assert repo.read(second) == b"s" * (60 * KB)  # archived, not lost
    assert [p.name for p in archive_dir_files(root)] == [second.resource.id]
    assert repo.archived_file_count() == 1


def test_an_archive_path_taken_by_a_file_deletes_the_released_claim(
    content_repo_factory: Any,
) -> None:
    repo = content_repo_factory(sections=1)
    root = content_repo_factory.root / "container0"
    archive(repo, b"f" * (60 * KB))
    shutil.rmtree(root / "0" / "archive")
    (root / "0" / "archive").write_bytes(b"not a directory")

    claim = repo.write(b"s" * (60 * KB))
    repo.decrement(claim.resource)
    assert repo.release([claim.resource]) == 1

    assert not repo.exists(claim)
    assert (root / "0" / "archive").read_bytes() == b"not a directory"


def test_a_new_section_gets_its_archive_directory_only_when_archiving(
    content_repo_factory: Any,
) -> None:
    archiving = content_repo_factory(sections=1)
    archiving.write(b"a")
    assert (content_repo_factory.root / "container0" / "0" / "archive").is_dir()

    content_repo_factory.root = content_repo_factory.root / "other"
    deleting = content_repo_factory(sections=1, archive_enabled=False)
    deleting.write(b"a")
    assert not (content_repo_factory.root / "container0" / "0" / "archive").exists()
