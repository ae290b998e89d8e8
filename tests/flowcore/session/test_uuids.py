"""FlowFile uuids: random version 4 UUIDs in canonical form."""

from __future__ import annotations

import uuid

from flowcore.session.uuids import random_uuid


def test_random_uuids_are_canonical_version_4_and_distinct() -> None:
    made = [random_uuid() for _ in range(2000)]

    assert len(set(made)) == len(made)
    for text in made:
        parsed = uuid.UUID(text)
        assert str(parsed) == text
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122


def test_every_hex_digit_appears_in_the_random_positions() -> None:
    made = [random_uuid().replace("-", "") for _ in range(2000)]
    # Positions 12 (the version) and 16 (the variant) are fixed or constrained; all
    # others take every hex digit, so no position is stuck.
    for position in (0, 11, 13, 17, 31):
        assert {text[position] for text in made} == set("0123456789abcdef")
    assert {text[16] for text in made} == set("89ab")
