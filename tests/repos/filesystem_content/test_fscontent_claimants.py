"""Claimant counts, release candidates, release to the archive, and flush (spec item 23)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flowcore.errors import ContentNotFoundError
from flowcore.model.flowfile import ResourceClaim

KB = 1024


def live_path(factory: Any, resource: ResourceClaim) -> Path:
    return factory.containers(1)[int(resource.container)] / resource.section / resource.id


def archive_path(factory: Any, resource: ResourceClaim) -> Path:
    return live_path(factory, resource).parent / "archive" / resource.id


def frozen_claim(repo: Any, fill: int = 60 * KB) -> Any:
    """A content claim whose resource is frozen (it filled its file on its own)."""
    return repo.write(b"F" * fill)


def test_writable_claim_at_zero_is_a_candidate_only_once_frozen(
    content_repo_factory: Any,
) -> None:
    repo = content_repo_factory(max_appendable_size="100 KB")
    claim = repo.write(b"a" * KB)
    resource = claim.resource
    assert repo.decrement(resource) == 0
    assert repo.take_release_candidates() == []  # still writable: not free
    assert repo.release([resource]) == 0
    assert live_path(content_repo_factory, resource).exists()

    writer = repo.create_writer()
    writer.write(b"b" * (70 * KB))  # goes to the OS into the pooled claim
    writer.write(b"c" * (65 * KB))  # straight to the OS too: the file is past 100 KB
    writer.abort()  # nothing referenced; the claim is frozen on give-back
    assert repo.claimant_count(resource) == 0
    assert repo.take_release_candidates() == [resource]
    assert repo.release([resource]) == 1


def test_filled_claim_becomes_candidate_when_its_last_reference_goes(
    content_repo_factory: Any,
) -> None:
    repo = content_repo_factory()
    claims = [repo.write(b"x" * KB) for _ in range(50)]  # fills and freezes one file
    resource = claims[0].resource
    assert {c.resource for c in claims} == {resource}
    for claim in claims[:-1]:
        repo.decrement(claim.resource)
    assert repo.take_release_candidates() == []
    repo.decrement(resource)
    assert repo.take_release_candidates() == [resource]


def test_closing_the_repository_freezes_pooled_claims(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    claim = repo.write(b"x" * KB)
    repo.decrement(claim.resource)
    assert repo.take_release_candidates() == []
    repo.close()
    assert repo.take_release_candidates() == [claim.resource]


def test_release_archives_only_frozen_claims_still_at_zero(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    gone = frozen_claim(repo)
    revived = frozen_claim(repo)
    open_claim = repo.write(b"w" * KB)  # pooled, writable
    for claim in (gone, revived, open_claim):
        repo.decrement(claim.resource)
    candidates = repo.take_release_candidates()
    assert set(candidates) == {gone.resource, revived.resource}

    repo.increment(revived.resource)  # referenced again between take and release
    released = repo.release([*candidates, open_claim.resource])

    assert released == 1
    assert not live_path(content_repo_factory, gone.resource).exists()
    assert archive_path(content_repo_factory, gone.resource).read_bytes() == b"F" * (60 * KB)
    assert live_path(content_repo_factory, revived.resource).exists()
    assert live_path(content_repo_factory, open_claim.resource).exists()
    assert repo.archived_file_count() == 1
    assert repo.release([gone.resource]) == 0  # already released


def test_archived_content_is_still_readable(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    claim = frozen_claim(repo)
    assert repo.read(claim, 0, 4) == b"FFFF"  # caches a read handle on the live path
    repo.decrement(claim.resource)
    assert repo.release(repo.take_release_candidates()) == 1

    assert repo.exists(claim)
    assert repo.read(claim) == b"F" * (60 * KB)
    fresh = content_repo_factory()  # a new instance finds it only in the archive
    assert fresh.read(claim, 10, 5) == b"FFFFF"


def test_release_deletes_when_archiving_is_off(content_repo_factory: Any) -> None:
    repo = content_repo_factory(archive_enabled=False)
    claim = frozen_claim(repo)
    assert repo.read(claim, 0, 1) == b"F"  # a cached handle must not outlive the file
    repo.decrement(claim.resource)
    assert repo.release(repo.take_release_candidates()) == 1

    assert not live_path(content_repo_factory, claim.resource).exists()
    assert not archive_path(content_repo_factory, claim.resource).exists()
    assert not repo.exists(claim)
    with pytest.raises(ContentNotFoundError, match=claim.resource.id):
        repo.read(claim)


def test_flush_fsyncs_only_when_asked_and_only_once(
    content_repo_factory: Any, counted_fsyncs: list[int]
) -> None:
    repo = content_repo_factory(durability="power")
    synced = counted_fsyncs
    claim = repo.write(b"durable")

    repo.flush([claim.resource], fsync=False)
    assert synced == []
    repo.flush([claim.resource], fsync=True)
    first = len(synced)
    assert first >= 2  # the file and its new directory entry
    repo.flush([claim.resource], fsync=True)
    assert len(synced) == first  # nothing new: nothing to do
    second = repo.write(b"more")
    assert second.resource == claim.resource
    repo.flush([second.resource], fsync=True)
    assert len(synced) == first + 1  # only the file this time
    other = frozen_claim(repo)
    repo.flush([claim.resource], fsync=True)
    assert len(synced) == first + 1 + 2  # the new file's section and container dirs only
    repo.flush([other.resource], fsync=True)
    assert len(synced) == first + 4
