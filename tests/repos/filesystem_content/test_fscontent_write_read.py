"""Writing and reading: round trips, packing into shared files, ranges, concurrency."""

from __future__ import annotations

import itertools
import os
import random
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from flowcore.model.flowfile import ContentClaim, ResourceClaim

KB = 1024


def live_path(factory: Any, resource: ResourceClaim, containers: int = 1) -> Path:
    return factory.containers(containers)[int(resource.container)] / resource.section / resource.id


def test_write_read_round_trip(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    claim = repo.write(b"hello, flowcore")

    assert claim.offset == 0
    assert claim.length == 15
    assert repo.read(claim) == b"hello, flowcore"
    assert repo.exists(claim)
    assert repo.claimant_count(claim.resource) == 1
    assert live_path(content_repo_factory, claim.resource).read_bytes() == b"hello, flowcore"


def test_small_contents_share_a_file_until_the_appendable_size(content_repo_factory: Any) -> None:
    repo = content_repo_factory()  # default max appendable size: 50 KB
    claims = [repo.write(bytes([n]) * KB) for n in range(51)]

    first = claims[0].resource
    assert all(c.resource == first for c in claims[:50])
    assert [c.offset for c in claims[:50]] == [n * KB for n in range(50)]
    assert claims[50].resource != first
    assert claims[50].offset == 0
    assert live_path(content_repo_factory, first).stat().st_size == 50 * KB
    assert repo.claimant_count(first) == 50
    for n, claim in enumerate(claims):
        assert repo.read(claim) == bytes([n]) * KB


def test_appendable_size_setting_is_honoured(content_repo_factory: Any) -> None:
    repo = content_repo_factory(max_appendable_size="10 KB")
    claims = [repo.write(b"z" * KB) for _ in range(21)]
    resources = [c.resource for c in claims]
    assert len(set(resources[:10])) == 1
    assert len(set(resources[10:20])) == 1
    assert resources[10] != resources[0]
    assert resources[20] not in (resources[0], resources[10])


def test_large_content_gets_its_own_file_and_is_frozen(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    small = repo.write(b"s" * KB)
    big = repo.write(b"B" * (1024 * KB))
    streamed_writer = repo.create_writer()
    for _ in range(50):
        streamed_writer.write(b"t" * (4 * KB))
    streamed = streamed_writer.close()
    after = repo.write(b"a" * KB)

    assert big.resource != small.resource
    assert big.offset == 0
    assert streamed.resource not in (small.resource, big.resource)
    assert streamed.offset == 0
    assert live_path(content_repo_factory, big.resource).stat().st_size == 1024 * KB
    assert live_path(content_repo_factory, streamed.resource).stat().st_size == 200 * KB
    # The partly filled small claim is still the one that takes small contents.
    assert after.resource == small.resource
    assert after.offset == KB
    assert repo.read(big) == b"B" * (1024 * KB)
    assert repo.read(streamed) == b"t" * (200 * KB)
    # Frozen: nothing more is ever appended to the large files.
    for _ in range(60):
        repo.write(b"x" * KB)
    assert live_path(content_repo_factory, big.resource).stat().st_size == 1024 * KB


def test_read_ranges(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    repo.write(b"0123456789")  # so the claim under test does not start at offset 0
    claim = repo.write(b"abcdefghijklmnopqrstuvwxyz")
    assert claim.offset == 10

    assert repo.read(claim, 0, 3) == b"abc"
    assert repo.read(claim, 10, 5) == b"klmno"
    assert repo.read(claim, 20) == b"uvwxyz"
    assert repo.read(claim, 26) == b""
    assert repo.read(claim, 5, 0) == b""
    for offset, length in ((-1, 2), (0, 27), (27, -1), (20, 7), (3, -2)):
        with pytest.raises(ValueError, match="outside content claim"):
            repo.read(claim, offset, length)


def test_concurrent_writers_never_interleave(content_repo_factory: Any) -> None:
    repo = content_repo_factory()
    threads, per_thread = 8, 150
    barrier = threading.Barrier(threads)
    results: list[list[tuple[bytes, ContentClaim]]] = [[] for _ in range(threads)]
    errors: list[BaseException] = []

    def work(index: int) -> None:
        rng = random.Random(index)
        try:
            barrier.wait()
            for n in range(per_thread):
                payload = f"<t{index}-{n}>".encode() * rng.randint(1, 400)
                if n % 2:
                    results[index].append((payload, repo.write(payload)))
                    continue
                writer = repo.create_writer()
                third = len(payload) // 3
                for part in (payload[:third], payload[third : 2 * third], payload[2 * third :]):
                    writer.write(part)
                results[index].append((payload, writer.close()))
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert not errors
    by_resource: dict[ResourceClaim, list[ContentClaim]] = defaultdict(list)
    for per_thread_results in results:
        assert len(per_thread_results) == per_thread
        for payload, claim in per_thread_results:
            assert repo.read(claim) == payload
            by_resource[claim.resource].append(claim)
    assert len(by_resource) < threads * per_thread  # contents were packed together
    for resource, claims in by_resource.items():
        claims.sort(key=lambda c: c.offset)
        for before, after in itertools.pairwise(claims):
            assert before.offset + before.length <= after.offset
        assert repo.claimant_count(resource) == len(claims)


def test_multiple_containers_are_striped_round_robin(content_repo_factory: Any) -> None:
    repo = content_repo_factory(containers=3, sections=4)
    roots = content_repo_factory.containers(3)
    assert not any(root.exists() and any(root.iterdir()) for root in roots)  # lazy dirs

    claims = [repo.write(bytes([n]) * (60 * KB)) for n in range(12)]  # each fills a file

    assert [c.resource.container for c in claims] == ["0", "1", "2"] * 4
    assert {c.resource.section for c in claims} == {"0", "1", "2", "3"}
    for n, claim in enumerate(claims):
        path = live_path(content_repo_factory, claim.resource, containers=3)
        assert path.parent.parent == roots[int(claim.resource.container)]
        assert path.stat().st_size == 60 * KB
        assert repo.read(claim) == bytes([n]) * (60 * KB)
    for root in roots:
        assert {p.name for p in root.iterdir()} == {"0", "1", "2", "3"}


def test_open_append_handles_are_bounded(content_repo_factory: Any, tmp_path: Path) -> None:
    repo = content_repo_factory(max_open_appendable=2, max_appendable_size="1 MB")
    writers = [repo.create_writer() for _ in range(3)]
    for writer in writers:
        writer.write(b"w" * (70 * KB))
    claims = [writer.close() for writer in writers]
    assert len({c.resource for c in claims}) == 3

    def open_claim_files() -> int:
        count = 0
        for fd in os.listdir("/proc/self/fd"):
            try:
                target = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            count += target.startswith(str(tmp_path))
        return count

    assert open_claim_files() == 2  # the third claim was frozen and its handle closed
    frozen = live_path(content_repo_factory, claims[2].resource)
    later = {repo.write(b"x" * KB).resource for _ in range(100)}
    assert claims[2].resource not in later
    assert later & {claims[0].resource, claims[1].resource}  # pooled claims take appends
    assert frozen.stat().st_size == 70 * KB
