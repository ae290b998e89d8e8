"""Content checksums: taken while writing, checked on every read of a whole claim."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
import xxhash

from flowcore.errors import ContentCorruptedError, ContentNotFoundError
from flowcore.model.flowfile import ContentClaim

KB = 1024


def garble(factory: Any, claim: ContentClaim, at: int) -> None:
    """Flip the bits of one byte of the claim's file, ``at`` bytes into the claim."""
    resource = claim.resource
    path: Path = factory.containers(1)[int(resource.container)] / resource.section / resource.id
    with path.open("r+b") as handle:
        handle.seek(claim.offset + at)
        byte = handle.read(1)
        handle.seek(claim.offset + at)
        handle.write(bytes([byte[0] ^ 0xFF]))


@pytest.mark.parametrize(
    "pieces",
    [
        [b"a" * 10, b"b" * 20],  # stays in the buffer: the one-call write at close
        [b"a" * 100, b"b" * (70 * KB), b"c" * 5],  # buffer drained, a large write, a tail
        [bytearray(b"x" * (65 * KB)), memoryview(b"y" * (3 * KB))],
    ],
)
def test_a_writer_checksums_every_byte_once_in_order(
    content_repo_factory: Any, pieces: list[bytes]
) -> None:
    repo = content_repo_factory()
    writer = repo.create_writer()
    for piece in pieces:
        writer.write(piece)
    claim = writer.close()
    whole = b"".join(bytes(p) for p in pieces)
    assert claim.checksum == xxhash.xxh3_64_intdigest(whole)
    assert repo.read(claim) == whole


def test_a_garbled_byte_fails_a_whole_read_with_the_reason(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    before = repo.write(b"neighbour")
    claim = repo.write(b"0123456789" * 10)
    after = repo.write(b"next one")
    garble(content_repo_factory, claim, 42)

    with pytest.raises(ContentCorruptedError, match=rf"{claim.resource}.*is damaged") as raised:
        repo.read(claim)
    assert isinstance(raised.value, ContentNotFoundError)
    assert raised.value.repository == "content"
    with pytest.raises(ContentCorruptedError):
        repo.read(claim, 0, claim.length)
    with pytest.raises(ContentCorruptedError):
        repo.verify(claim)
    # The claims around it in the same file are intact.
    assert repo.read(before) == b"neighbour"
    assert repo.read(after) == b"next one"


def test_a_partial_read_is_not_checked(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    claim = repo.write(b"0123456789")
    garble(content_repo_factory, claim, 8)
    assert repo.read(claim, 0, 5) == b"01234"
    assert repo.read(claim, 5, 5)[:3] == b"567"


def test_a_claim_without_checksum_is_read_unchecked(content_repo_factory: Any) -> None:
    """Claims recorded before checksums existed carry none: they read as they are."""
    repo = content_repo_factory()
    claim = repo.write(b"0123456789")
    garble(content_repo_factory, claim, 0)
    legacy = msgspec.structs.replace(claim, checksum=None)
    assert repo.read(legacy)[1:] == b"123456789"
    assert list(repo.stream(legacy, chunk=4))[1:] == [b"4567", b"89"]


def test_a_stream_of_a_damaged_claim_never_hands_over_its_last_chunk(
    content_repo_factory: Any,
) -> None:
    repo = content_repo_factory()
    data = bytes(range(256)) * 40  # 10,240 bytes: 10 chunks of 1 KB and one of 0
    claim = repo.write(data)
    assert b"".join(repo.stream(claim, chunk=KB)) == data
    assert [len(c) for c in repo.stream(claim, chunk=3 * KB)] == [3 * KB, 3 * KB, 3 * KB, KB]

    garble(content_repo_factory, claim, 5)
    received: list[bytes] = []
    with pytest.raises(ContentCorruptedError):
        for chunk in repo.stream(claim, chunk=KB):
            received.append(chunk)
    assert len(received) == 9, "every chunk but the last"


def test_a_stream_of_part_of_a_claim_is_not_checked(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    claim = repo.write(b"a" * 100)
    garble(content_repo_factory, claim, 0)
    assert b"".join(repo.stream(claim, 10, 90, chunk=7)) == b"a" * 90


def test_a_damaged_archived_claim_is_detected_too(content_repo_factory: Any) -> None:
    repo = content_repo_factory(max_appendable_size="1 B")
    claim = repo.write(b"kept in the archive")
    repo.decrement(claim.resource)
    assert repo.release(repo.take_release_candidates()) == 1
    archived = (
        content_repo_factory.containers(1)[0] / claim.resource.section / "archive"
    ) / claim.resource.id
    with archived.open("r+b") as handle:
        handle.write(b"K")
    with pytest.raises(ContentCorruptedError):
        repo.read(claim)
