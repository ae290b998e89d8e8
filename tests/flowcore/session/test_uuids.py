"""FlowFile uuids: random version 4 UUIDs in canonical form."""

from __future__ import annotations

import os
import threading
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


def test_a_forked_child_and_its_parent_never_share_uuids() -> None:
    random_uuid()  # the parent holds a block of random bytes when it forks
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        os.close(read_end)
        os.write(write_end, "\n".join(random_uuid() for _ in range(300)).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        from_child = set(pipe.read().decode().split("\n"))
    os.waitpid(child, 0)
    from_parent = {random_uuid() for _ in range(300)}
    assert len(from_child) == 300
    assert not from_child & from_parent


def test_threads_never_share_uuids() -> None:
    made: list[list[str]] = [[], []]

    def make(into: list[str]) -> None:
        into.extend(random_uuid() for _ in range(1000))

    threads = [threading.Thread(target=make, args=(made[i],)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(made[0]) | set(made[1])) == 2000
