"""``read_many``: whole claims that share a file are read with one ``pread``; every claim
still comes back exactly, checked against its checksum, and any failure gives the error
``read`` gives."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import repos.filesystem_content.repository as repository_module
from flowcore.errors import ContentCorruptedError, ContentNotFoundError
from flowcore.model.flowfile import ContentClaim

KB = 1024


def live_path(factory: Any, claim: ContentClaim) -> Path:
    resource = claim.resource
    root: Path = factory.containers(1)[int(resource.container)]
    return root / resource.section / resource.id


def garble(factory: Any, claim: ContentClaim, at: int) -> None:
    """Flip the bits of one byte of the claim's file, ``at`` bytes into the claim."""
    with live_path(factory, claim).open("r+b") as handle:
        handle.seek(claim.offset + at)
        byte = handle.read(1)
        handle.seek(claim.offset + at)
        handle.write(bytes([byte[0] ^ 0xFF]))


@pytest.fixture
def preads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(length, offset) of every ``os.pread`` from now on (the calls still read)."""
    calls: list[tuple[int, int]] = []
    real = os.pread

    def counting(fd: int, length: int, offset: int) -> bytes:
        calls.append((length, offset))
        return real(fd, length, offset)

    monkeypatch.setattr(os, "pread", counting)
    return calls


def whole(claims: list[ContentClaim]) -> list[tuple[ContentClaim, int, int]]:
    return [(claim, 0, claim.length) for claim in claims]


def test_adjacent_claims_of_a_file_are_read_with_one_pread(
    content_repo_factory: Any, preads: list[tuple[int, int]]
) -> None:
    repo = content_repo_factory()
    contents = [bytes([65 + n]) * (1000 + n) for n in range(20)]
    claims = [repo.write(content) for content in contents]
    assert len({c.resource for c in claims}) == 1
    preads.clear()

    assert repo.read_many(whole(claims)) == contents
    assert preads == [(sum(len(c) for c in contents), 0)]


def test_claims_with_others_between_them_come_back_exactly(
    content_repo_factory: Any, preads: list[tuple[int, int]]
) -> None:
    repo = content_repo_factory()
    claims = [repo.write(f"content {n}; ".encode() * (n + 1)) for n in range(30)]
    asked = claims[29::-3]  # every third one, newest first
    preads.clear()

    assert repo.read_many(whole(asked)) == [repo.read(c) for c in asked]
    assert len(preads) == 1 + len(asked)  # one for read_many, one per read


def test_claims_of_several_files_are_read_with_one_pread_per_file(
    content_repo_factory: Any, preads: list[tuple[int, int]]
) -> None:
    repo = content_repo_factory(max_appendable_size="10 KB")
    contents = [bytes([n]) * KB for n in range(35)]
    claims = [repo.write(content) for content in contents]
    files = {c.resource for c in claims}
    assert len(files) == 4
    preads.clear()

    assert repo.read_many(whole(claims)) == contents
    assert len(preads) == len(files)


def test_claims_far_apart_are_read_in_spans_of_bounded_size(
    content_repo_factory: Any, preads: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(repository_module, "_SPAN_GAP", 3 * KB)
    monkeypatch.setattr(repository_module, "_SPAN_MAX", 5 * KB)
    repo = content_repo_factory()
    contents = [bytes([n]) * KB for n in range(12)]
    claims = [repo.write(content) for content in contents]
    # Kept: 0, 1, 2, 3, 4 (5 KB: one span), 5, 9 (a gap of 3 KB: the same span), 11 (a
    # gap of 1 KB, but 7 KB from 5: a new span).
    kept = [0, 1, 2, 3, 4, 5, 9, 11]
    preads.clear()

    assert repo.read_many(whole([claims[n] for n in kept])) == [contents[n] for n in kept]
    assert preads == [(5 * KB, 0), (5 * KB, 5 * KB), (KB, 11 * KB)]


def test_a_damaged_claim_among_many_raises_what_read_raises(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    claims = [repo.write(bytes([48 + n]) * 500) for n in range(10)]
    garble(content_repo_factory, claims[6], 100)
    garble(content_repo_factory, claims[3], 7)

    with pytest.raises(ContentCorruptedError) as raised:
        repo.read_many(whole(claims[5:]))
    with pytest.raises(ContentCorruptedError) as alone:
        repo.read(claims[6])
    assert str(raised.value) == str(alone.value)
    with pytest.raises(ContentCorruptedError, match="is damaged") as first:
        repo.read_many(whole(claims))
    with pytest.raises(ContentCorruptedError) as third:
        repo.read(claims[3])
    assert str(first.value) == str(third.value)
    assert repo.read_many(whole(claims[7:])) == [bytes([48 + n]) * 500 for n in range(7, 10)]


def test_a_torn_file_raises_what_read_raises(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    claims = [repo.write(bytes([n]) * 800) for n in range(5)]
    os.truncate(live_path(content_repo_factory, claims[0]), 3 * 800 + 10)

    with pytest.raises(ContentNotFoundError, match="incomplete on disk") as raised:
        repo.read_many(whole(claims))
    with pytest.raises(ContentNotFoundError) as alone:
        repo.read(claims[3])
    assert str(raised.value) == str(alone.value)
    assert repo.read_many(whole(claims[:3])) == [bytes([n]) * 800 for n in range(3)]


def test_archived_claims_are_read_from_the_archive(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    contents = [bytes([n]) * (60 * KB) for n in range(2)]  # a file each, frozen
    claims = [repo.write(content) for content in contents]
    for claim in claims:
        repo.decrement(claim.resource)
    assert repo.release(repo.take_release_candidates()) == 2
    assert not live_path(content_repo_factory, claims[0]).exists()

    assert repo.read_many(whole(claims)) == contents
