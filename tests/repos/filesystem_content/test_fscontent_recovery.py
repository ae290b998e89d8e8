"""Restart: orphan sweep, no appends to old claims, torn files (spec items 19-21)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from flowcore.errors import ContentNotFoundError
from flowcore.model.flowfile import ContentClaim, ResourceClaim

KB = 1024


def live_path(factory: Any, resource: ResourceClaim) -> Path:
    return factory.containers(1)[int(resource.container)] / resource.section / resource.id


def all_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_recover_sweeps_unreferenced_files(content_repo_factory: Any) -> None:
    before = content_repo_factory()
    kept = before.write(b"k" * KB)  # partly filled, was writable at the crash
    orphan_full = before.write(b"o" * (60 * KB))  # frozen, never committed
    orphan_open = before.create_writer()
    orphan_open.write(b"p" * (70 * KB))  # a writer in flight at the crash
    # crash: the instance is abandoned without close()

    after = content_repo_factory()
    swept = after.recover({kept.resource: 1})

    assert swept == 2
    assert after.claimant_count(kept.resource) == 1
    assert after.read(kept) == b"k" * KB
    assert not live_path(content_repo_factory, orphan_full.resource).exists()
    assert after.archived_file_count() == 2
    assert after.read(orphan_full) == b"o" * (60 * KB)  # archived, still readable
    assert after.take_release_candidates() == []


def test_recover_deletes_orphans_when_archiving_is_off(content_repo_factory: Any) -> None:
    before = content_repo_factory(archive_enabled=False)
    orphan = before.write(b"o" * KB)
    after = content_repo_factory(archive_enabled=False)
    assert after.recover({}) == 1
    assert not after.exists(orphan)
    assert all_files(content_repo_factory.root / "container0") == {}


def test_existing_archive_files_are_counted_at_startup(content_repo_factory: Any) -> None:
    first = content_repo_factory()
    claims = [first.write(bytes([n]) * (60 * KB)) for n in range(3)]
    for claim in claims:
        first.decrement(claim.resource)
    assert first.release(first.take_release_candidates()) == 3
    first.close()

    second = content_repo_factory()
    assert second.recover({}) == 0
    assert second.archived_file_count() == 3


def test_claims_are_never_appended_to_after_restart(content_repo_factory: Any) -> None:
    before = content_repo_factory()
    kept = before.write(b"k" * KB)  # its file had room for 49 more
    archived = before.write(b"a" * (60 * KB))
    before.decrement(archived.resource)
    before.release(before.take_release_candidates())
    root = content_repo_factory.root / "container0"
    old_files = all_files(root)
    old_ids = {Path(name).name for name in old_files}

    # Same clock, same counter start: the first new names would collide with old ones.
    after = content_repo_factory()
    after.recover({kept.resource: 1})
    new_claims = [after.write(bytes([n % 251]) * KB) for n in range(120)]
    new_claims.append(after.write(b"L" * (60 * KB)))

    assert {c.resource.id for c in new_claims}.isdisjoint(old_ids)
    for name, data in old_files.items():
        assert (root / name).read_bytes() == data  # not one byte appended
    for n, claim in enumerate(new_claims[:-1]):
        assert after.read(claim) == bytes([n % 251]) * KB
    assert after.read(kept) == b"k" * KB
    assert after.read(archived) == b"a" * (60 * KB)


def test_torn_file_raises_content_not_found(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    first = repo.write(b"1" * 100)
    torn = repo.write(b"2" * 100)
    repo.read(torn, 0, 1)  # a cached read handle must not hide the truncation
    os.truncate(live_path(content_repo_factory, torn.resource), torn.offset + 60)

    assert repo.read(first) == b"1" * 100
    assert repo.exists(first)
    assert not repo.exists(torn)
    with pytest.raises(ContentNotFoundError, match=torn.resource.id):
        repo.read(torn)
    with pytest.raises(ContentNotFoundError, match="incomplete"):
        repo.read(torn, 0, 10)  # the range is on disk, but the claim is not whole
    with pytest.raises(ContentNotFoundError, match="incomplete"):
        content_repo_factory().read(torn, 70, 10)


def test_claim_past_the_end_of_its_file(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    real = repo.write(b"x" * 10)
    beyond = ContentClaim(real.resource, 500, 10)
    assert not repo.exists(beyond)
    with pytest.raises(ContentNotFoundError, match=str(real.resource)):
        repo.read(beyond)


def test_missing_and_foreign_claims(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    for resource in (
        ResourceClaim("0", "7", "1-1"),  # never written
        ResourceClaim("5", "0", "1-1"),  # no such container
        ResourceClaim("x", "0", "1-1"),
        ResourceClaim("0", "..", "1-1"),
        ResourceClaim("0", "0", "../../etc"),
    ):
        claim = ContentClaim(resource, 0, 1)
        assert not repo.exists(claim)
        with pytest.raises(ContentNotFoundError):
            repo.read(claim)


def test_recover_leaves_directories_that_are_not_sections_alone(
    content_repo_factory: Any,
) -> None:
    before = content_repo_factory(archive_enabled=False)
    orphan = before.write(b"o" * KB)
    staged = content_repo_factory.root / "container0" / "staging" / "part-0.parquet"
    staged.parent.mkdir(parents=True)
    staged.write_bytes(b"parquet")
    after = content_repo_factory(archive_enabled=False)
    assert after.recover({}) == 1
    assert not after.exists(orphan)
    assert staged.read_bytes() == b"parquet"
