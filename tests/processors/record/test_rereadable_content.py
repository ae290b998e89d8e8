"""``RereadableContent``: every read gives the whole content from its start."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from processors.record import api
from processors.record.api import RereadableContent


def chunks(parts: list[bytes], taken: list[int]) -> Iterator[bytes]:
    """A content that can be read only once, counting the chunks taken from it."""
    for part in parts:
        taken[0] += 1
        yield part


PARTS = [b"id,a\n", b"", b"1,x\n", b"2,y\n" * 3]


def test_a_generator_is_read_once_and_replayed() -> None:
    taken = [0]
    content = RereadableContent(chunks(PARTS, taken))
    assert b"".join(content.read()) == b"".join(PARTS)
    assert b"".join(content.read()) == b"".join(PARTS)
    assert taken == [len(PARTS)]  # the second read came from the spool


def test_a_read_stopped_early_leaves_the_rest_to_the_next() -> None:
    taken = [0]
    content = RereadableContent(chunks(PARTS, taken))
    first = iter(content.read())
    assert next(first) == PARTS[0]
    assert b"".join(content.read()) == b"".join(PARTS)
    assert b"".join(content.read()) == b"".join(PARTS)
    assert taken == [len(PARTS)]


def test_a_large_content_spills_to_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "SPOOL_IN_MEMORY", 8)
    content = RereadableContent(iter(PARTS))
    assert b"".join(content.read()) == b"".join(PARTS)
    assert b"".join(content.read()) == b"".join(PARTS)


@pytest.mark.parametrize("given", [b"id\n1\n", [b"id\n", b"1\n"]])
def test_bytes_and_reiterables_are_read_again_as_they_are(given: bytes | list[bytes]) -> None:
    content = RereadableContent(given)
    assert content.read() is given
    assert content.read() is given
