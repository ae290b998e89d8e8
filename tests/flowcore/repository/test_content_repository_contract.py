"""The content repository contract, run against the filesystem repository and the in-memory
twin: writing and reading, checksums, claimant counts, release, the archive, restart.

What only the filesystem repository does (files shared by claims, the file stock, fsync,
full disks, torn files) is tested in ``tests/repos/filesystem_content/``.
"""

from __future__ import annotations

import array
from typing import Any

import msgspec
import pytest
import xxhash

from flowcore.errors import ContentNotFoundError, RepositoryError
from flowcore.model.flowfile import ContentClaim, ResourceClaim

KB = 1024
HOUR_MS = 3_600_000


def frozen_claim(repo: Any, fill: int = 60 * KB) -> ContentClaim:
    """A content claim whose resource takes no more appends (it filled its file alone)."""
    return repo.write(b"F" * fill)  # type: ignore[no-any-return]


def test_write_read_round_trip(content_factory: Any) -> None:
    repo = content_factory()
    claim = repo.write(b"hello, flowcore")

    assert claim.length == 15
    assert repo.read(claim) == b"hello, flowcore"
    assert repo.exists(claim)
    assert repo.claimant_count(claim.resource) == 1


def test_writer_streams_chunks_and_accepts_any_buffer(content_factory: Any) -> None:
    repo = content_factory()
    ints = array.array("i", range(1000))
    writer = repo.create_writer()
    writer.write(b"head:")
    writer.write(bytearray(b"middle:"))
    writer.write(memoryview(ints))
    writer.write(b"")
    assert writer.bytes_written == 5 + 7 + ints.itemsize * 1000
    claim = writer.close()

    assert claim.length == writer.bytes_written
    assert repo.read(claim) == b"head:middle:" + ints.tobytes()
    assert repo.claimant_count(claim.resource) == 1


def test_empty_content_is_a_zero_length_claim(content_factory: Any) -> None:
    repo = content_factory()
    claim = repo.create_writer().close()
    assert claim.length == 0
    assert repo.read(claim) == b""
    assert repo.exists(claim)
    assert repo.claimant_count(claim.resource) == 1


def test_read_ranges(content_factory: Any) -> None:
    repo = content_factory()
    repo.write(b"0123456789")
    claim = repo.write(b"abcdefghijklmnopqrstuvwxyz")

    assert repo.read(claim, 0, 3) == b"abc"
    assert repo.read(claim, 10, 5) == b"klmno"
    assert repo.read(claim, 20) == b"uvwxyz"
    assert repo.read(claim, 26) == b""
    assert repo.read(claim, 5, 0) == b""
    assert b"".join(repo.stream(claim, 3, 10, chunk=4)) == b"defghijklm"
    for offset, length in ((-1, 2), (0, 27), (27, -1), (20, 7), (3, -2)):
        with pytest.raises(ValueError, match="outside content claim"):
            repo.read(claim, offset, length)


def test_read_many_gives_what_read_gives_each_range_in_order(content_factory: Any) -> None:
    repo = content_factory()
    first = repo.write(b"first content")
    skipped = repo.write(b"not asked for")
    second = repo.write(b"second")
    empty = repo.create_writer().close()
    large = repo.write(b"L" * (60 * KB))  # a file of its own
    third = repo.write(b"third, after the large one")
    ranges = [
        (third, 0, third.length),
        (first, 0, -1),
        (large, 0, large.length),
        (second, 0, second.length),
        (empty, 0, 0),
        (first, 6, 7),  # part of a claim
        (first, 0, first.length),  # the same claim twice
    ]

    assert repo.read_many(ranges) == [repo.read(c, o, n) for c, o, n in ranges]
    assert repo.read_many(ranges)[:4] == [
        b"third, after the large one",
        b"first content",
        b"L" * (60 * KB),
        b"second",
    ]
    assert repo.read_many([]) == []
    assert repo.read(skipped) == b"not asked for"


def test_read_many_raises_what_read_raises_for_the_first_failing_range(
    content_factory: Any,
) -> None:
    repo = content_factory()
    claim = repo.write(b"abcdefghijklmnopqrstuvwxyz")
    never = ContentClaim(ResourceClaim("0", "0", "1-never-written"), 0, 5)
    with pytest.raises(ValueError, match="outside content claim"):
        repo.read_many([(claim, 0, claim.length), (claim, 20, 7), (never, 0, 5)])
    with pytest.raises(ContentNotFoundError) as raised:
        repo.read_many([(claim, 0, claim.length), (never, 0, 5)])
    with pytest.raises(ContentNotFoundError) as alone:
        repo.read(never)
    assert str(raised.value) == str(alone.value)


def test_two_open_writers_never_share_a_claim(content_factory: Any) -> None:
    repo = content_factory(max_appendable_size="1 MB")
    first, second = repo.create_writer(), repo.create_writer()
    chunk = 70 * KB
    for _ in range(3):
        first.write(b"1" * chunk)
        second.write(b"2" * chunk)
    one, two = first.close(), second.close()

    assert one.resource != two.resource
    assert repo.read(one) == b"1" * (3 * chunk)
    assert repo.read(two) == b"2" * (3 * chunk)


def test_an_aborted_writer_leaves_nothing_referenced(content_factory: Any) -> None:
    repo = content_factory()
    writer = repo.create_writer()
    writer.write(b"never")
    writer.abort()
    kept = repo.write(b"kept")
    assert repo.read(kept) == b"kept"
    assert repo.take_release_candidates() == []


def test_closed_writer_and_repository_refuse_work(content_factory: Any) -> None:
    repo = content_factory()
    writer = repo.create_writer()
    writer.write(b"abc")
    writer.close()
    with pytest.raises(RepositoryError, match="closed"):
        writer.write(b"more")
    with pytest.raises(RepositoryError, match="closed"):
        writer.close()
    writer.abort()  # harmless after close

    repo.close()
    with pytest.raises(RepositoryError, match="closed"):
        repo.write(b"late")


def test_writes_record_the_checksum_of_their_bytes(content_factory: Any) -> None:
    repo = content_factory()
    data = b"the quick brown fox" * 50
    assert repo.write(data).checksum == xxhash.xxh3_64_intdigest(data)
    assert repo.write(b"").checksum == xxhash.xxh3_64_intdigest(b"")
    writer = repo.create_writer()
    for piece in (b"a" * 100, b"b" * (70 * KB), b"c" * 5):
        writer.write(piece)
    claim = writer.close()
    whole = b"a" * 100 + b"b" * (70 * KB) + b"c" * 5
    assert claim.checksum == xxhash.xxh3_64_intdigest(whole)
    assert repo.read(claim) == whole
    repo.verify(claim)


def test_a_claim_whose_checksum_does_not_match_fails_a_whole_read_only(
    content_factory: Any,
) -> None:
    repo = content_factory()
    claim = repo.write(b"0123456789")
    wrong = msgspec.structs.replace(claim, checksum=(claim.checksum or 0) ^ 1)
    with pytest.raises(ContentNotFoundError, match="damaged"):
        repo.read(wrong)
    with pytest.raises(ContentNotFoundError, match="damaged"):
        repo.verify(wrong)
    assert repo.read(wrong, 0, 5) == b"01234"  # a part is not checked
    legacy = msgspec.structs.replace(claim, checksum=None)
    assert repo.read(legacy) == b"0123456789"  # claims from before checksums: unchecked


def test_claimant_count_arithmetic(content_factory: Any) -> None:
    repo = content_factory()
    resource = frozen_claim(repo).resource

    assert repo.claimant_count(resource) == 1
    assert repo.increment(resource) == 2
    assert repo.increment(resource, 3) == 5
    assert repo.decrement(resource) == 4
    assert repo.decrement(resource, 3) == 1
    assert repo.take_release_candidates() == []
    assert repo.decrement(resource) == 0
    assert repo.claimant_count(resource) == 0
    assert repo.take_release_candidates() == [resource]
    assert repo.take_release_candidates() == []  # handed over once
    with pytest.raises(ValueError):
        repo.increment(resource, -1)
    with pytest.raises(ValueError):
        repo.decrement(resource, -1)


def test_create_then_rollback_and_clone_then_rollback(content_factory: Any) -> None:
    repo = content_factory()
    created = frozen_claim(repo)
    assert repo.decrement(created.resource) == 0
    assert repo.take_release_candidates() == [created.resource]

    kept = frozen_claim(repo)
    repo.increment(kept.resource)
    assert repo.decrement(kept.resource) == 1
    assert repo.take_release_candidates() == []


def test_decrement_below_zero_is_clamped(content_factory: Any) -> None:
    repo = content_factory()
    claim = frozen_claim(repo)
    assert repo.decrement(claim.resource, 2) == 0
    assert repo.claimant_count(claim.resource) == 0
    assert repo.increment(claim.resource) == 1


def test_release_keeps_a_claim_referenced_again(content_factory: Any) -> None:
    repo = content_factory()
    gone, revived = frozen_claim(repo), frozen_claim(repo)
    for claim in (gone, revived):
        repo.decrement(claim.resource)
    candidates = repo.take_release_candidates()
    assert set(candidates) == {gone.resource, revived.resource}

    repo.increment(revived.resource)  # referenced again between take and release
    assert repo.release(candidates) == 1
    assert repo.read(revived) == b"F" * (60 * KB)
    assert repo.release([gone.resource]) == 0  # already released


def test_archived_content_is_still_readable_after_a_restart(content_factory: Any) -> None:
    repo = content_factory()
    claim = frozen_claim(repo)
    repo.decrement(claim.resource)
    assert repo.release(repo.take_release_candidates()) == 1

    assert repo.exists(claim)
    assert repo.read(claim) == b"F" * (60 * KB)
    assert content_factory().read(claim, 10, 5) == b"FFFFF"


def test_release_deletes_when_archiving_is_off(content_factory: Any) -> None:
    repo = content_factory(archive_enabled=False)
    claim = frozen_claim(repo)
    assert repo.read(claim, 0, 1) == b"F"
    repo.decrement(claim.resource)
    assert repo.release(repo.take_release_candidates()) == 1

    assert not repo.exists(claim)
    with pytest.raises(ContentNotFoundError, match=claim.resource.id):
        repo.read(claim)


def test_archive_ages_off_by_retention_period(content_factory: Any) -> None:
    clock = content_factory.clock
    repo = content_factory(archive_max_retention_period="1 hour", archive_max_usage_percentage=100)

    def archive(data: bytes) -> ContentClaim:
        claim = repo.write(data)
        repo.decrement(claim.resource)
        assert repo.release([claim.resource]) == 1
        return claim  # type: ignore[no-any-return]

    old = archive(b"o" * (60 * KB))
    clock.advance(30 * 60)
    young = archive(b"y" * (60 * KB))

    assert repo.cleanup_archive(clock.now_ms()) == 0
    clock.advance(30 * 60)
    assert repo.cleanup_archive(clock.now_ms()) == 0  # exactly one hour old: kept
    clock.advance(1)
    assert repo.cleanup_archive(clock.now_ms()) == 1
    assert not repo.exists(old)
    assert repo.read(young) == b"y" * (60 * KB)


def test_age_off_keeps_archived_content_a_claimant_holds_again(content_factory: Any) -> None:
    """A provenance replay references archived content again: age-off must not delete it
    while it is held, and deletes it once it is let go."""
    clock = content_factory.clock
    repo = content_factory(archive_max_retention_period="1 hour", archive_max_usage_percentage=100)
    held = repo.write(b"h" * (60 * KB))
    repo.decrement(held.resource)
    assert repo.release([held.resource]) == 1
    repo.increment(held.resource)  # a replayed FlowFile points at it
    clock.advance(2 * 3600)

    assert repo.cleanup_archive(clock.now_ms()) == 0
    assert repo.read(held) == b"h" * (60 * KB)

    repo.decrement(held.resource)
    repo.release(repo.take_release_candidates())  # nothing live to move: it stays archived
    assert repo.cleanup_archive(clock.now_ms()) == 1
    assert not repo.exists(held)


def test_recover_keeps_only_referenced_claims_at_their_counts(content_factory: Any) -> None:
    before = content_factory()
    a = before.write(b"a" * (60 * KB))
    b = before.write(b"b" * (60 * KB))
    after = content_factory()
    assert after.recover({a.resource: 3, b.resource: 0}) == 1
    assert after.claimant_count(a.resource) == 3
    assert after.claimant_count(b.resource) == 0
    assert after.read(a) == b"a" * (60 * KB)
    assert after.decrement(a.resource, 3) == 0
    assert after.take_release_candidates() == [a.resource]  # claims from before: frozen


def test_a_claim_never_written_is_missing(content_factory: Any) -> None:
    repo = content_factory()
    claim = ContentClaim(ResourceClaim("0", "7", "1-1"), 0, 1)
    assert not repo.exists(claim)
    with pytest.raises(ContentNotFoundError):
        repo.read(claim)
