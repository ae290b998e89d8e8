"""Files created ahead (``FileStock``): handed out per container, never left behind, and
never a reason for a directory entry to be synced before it is used.

The stock's own thread is not needed to test it: ``fill`` is what that thread runs, so
the unit tests call it on the test's thread and the outcome is deterministic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flowcore.errors import RepositoryError
from flowcore.model.flowfile import ResourceClaim
from repos.filesystem_content.appendable import AppendableClaim
from repos.filesystem_content.file_stock import FileStock

KB = 1024


class FakeFiles:
    """``create`` and ``discard`` for a stock, recording what they did."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.made: list[AppendableClaim] = []
        self.discarded: list[AppendableClaim] = []
        self.fail_after = fail_after

    def create(self, container: int) -> AppendableClaim:
        if self.fail_after is not None and len(self.made) >= self.fail_after:
            msg = "content repository is out of disk space (ENOSPC)"
            raise RepositoryError(msg)
        number = len(self.made)
        claim = AppendableClaim(ResourceClaim(str(container), "0", str(number)), f"/x/{number}", -1)
        self.made.append(claim)
        return claim

    def discard(self, claim: AppendableClaim) -> None:
        self.discarded.append(claim)


def stock_of(files: FakeFiles, containers: int = 2) -> FileStock:
    return FileStock(files.create, files.discard, containers=containers, size=2)


def test_fill_makes_size_files_per_container_and_take_hands_them_out_oldest_first() -> None:
    files = FakeFiles()
    stock = stock_of(files)
    assert stock.fill()
    assert len(stock) == 4
    assert [c.resource.container for c in files.made] == ["0", "0", "1", "1"]

    assert stock.take(1) is files.made[2]
    assert stock.take(1) is files.made[3]
    assert stock.take(0) is files.made[0]
    assert len(stock) == 1
    stock.close()
    assert files.discarded == [files.made[1]]  # what was left is removed


def test_a_failing_create_pauses_the_stock_and_the_caller_creates_its_own() -> None:
    files = FakeFiles(fail_after=1)
    stock = stock_of(files, containers=1)
    assert stock.fill()  # stops at the failure, without raising
    assert len(stock) == 1
    assert stock.take(0) is files.made[0]
    assert stock.take(0) is None
    stock.close()
    assert not stock.fill()  # closed: nothing more is made


def test_a_stock_of_size_zero_never_makes_a_file() -> None:
    files = FakeFiles()
    stock = FileStock(files.create, files.discard, containers=1, size=0)
    assert stock.take(0) is None
    stock.close()
    assert files.made == []


# -- in the repository ------------------------------------------------------------------


def claim_files(root: Path) -> set[str]:
    return {p.name for p in root.glob("*/*") if p.is_file()}


def test_with_the_stock_containers_are_still_striped_round_robin(
    content_repo_factory: Any,
) -> None:
    repo = content_repo_factory(containers=3, sections=4, file_stock_size=2)
    claims = [repo.write(bytes([n]) * (60 * KB)) for n in range(12)]  # each fills a file
    assert [c.resource.container for c in claims] == ["0", "1", "2"] * 4
    for n, claim in enumerate(claims):
        assert repo.read(claim) == bytes([n]) * (60 * KB)


def test_closing_removes_the_stocked_files_and_keeps_every_written_one(
    content_repo_factory: Any,
) -> None:
    repo = content_repo_factory(sections=2, file_stock_size=2)
    root = content_repo_factory.containers(1)[0]
    first = repo.write(b"a" * (60 * KB))  # makes its section directory
    second = repo.write(b"b" * (60 * KB))  # and this one the other
    stock = repo._lender._stock
    stock.fill()
    assert len(stock) == 2
    assert len(claim_files(root)) == 2 + 2

    repo.close()
    assert claim_files(root) == {first.resource.id, second.resource.id}


def test_stocked_files_left_by_a_crash_are_swept_as_orphans(content_repo_factory: Any) -> None:
    repo = content_repo_factory(sections=2, file_stock_size=2)
    root = content_repo_factory.containers(1)[0]
    kept = repo.write(b"a" * (60 * KB))
    repo.write(b"b" * (60 * KB))
    repo._lender._stock.fill()
    assert len(claim_files(root)) == 4  # as a kill -9 would leave them

    restarted = content_repo_factory(sections=2, file_stock_size=2)
    restarted.recover({kept.resource: 1})
    assert claim_files(root) == {kept.resource.id}
    assert restarted.read(kept) == b"a" * (60 * KB)


def test_a_stocked_file_is_synced_with_its_directory_only_once_handed_out(
    content_repo_factory: Any, request: pytest.FixtureRequest
) -> None:
    repo = content_repo_factory(durability="power", sections=1, file_stock_size=2)
    first = repo.write(b"a" * (60 * KB))
    repo.flush([first.resource], fsync=True)
    repo._lender._stock.fill()
    synced: list[int] = request.getfixturevalue("counted_fsyncs")  # counting from here

    repo.flush([first.resource], fsync=True)
    assert synced == []  # files made ahead are no reason to sync anything
    second = repo.write(b"b" * (60 * KB))
    repo.flush([second.resource], fsync=True)
    assert len(synced) == 2  # the file and its entry in the section directory
