"""Content checksums: the xxh3_64 of a content claim's bytes.

A content repository takes the checksum once, while it writes the bytes (incrementally
for content written in several calls), and stores it in the claim; a read of the whole
claim compares it, so damaged bytes raise ``ContentCorruptedError`` instead of flowing
on. xxh3_64 was measured against crc32c (google-crc32c, hardware) and zlib.crc32 on this
project's machine: 0.07 us per 1 KB and 17 us per 1 MB, against 0.13 us and 38 us for
crc32c and 0.39 us and 244 us for zlib. It is a check against damage (bit rot, a torn or
overwritten file), not against tampering.
"""

from __future__ import annotations

import xxhash

from flowcore.errors import ContentCorruptedError
from flowcore.model.flowfile import ContentClaim

ALGORITHM = "xxh3_64"

# The checksum of one whole content in one call (a C function, no Python frame).
checksum_of = xxhash.xxh3_64_intdigest


class RunningChecksum:
    """The checksum of content handed over in pieces, in order."""

    __slots__ = ("_state",)

    def __init__(self) -> None:
        self._state = xxhash.xxh3_64()

    def update(self, data: bytes | bytearray | memoryview) -> None:
        self._state.update(data)

    @property
    def value(self) -> int:
        return self._state.intdigest()


def check(claim: ContentClaim, actual: int) -> None:
    """Raise ``ContentCorruptedError`` if ``actual`` is not the claim's recorded checksum."""
    if claim.checksum is not None and actual != claim.checksum:
        raise ContentCorruptedError(corrupted_message(claim, actual), repository="content")


def corrupted_message(claim: ContentClaim, actual: int) -> str:
    return (
        f"content claim {claim.resource} (offset {claim.offset}, length {claim.length}) is "
        f"damaged: its {ALGORITHM} checksum was {claim.checksum:016x} when written but is "
        f"{actual:016x} now"
    )
