"""The FlowFile repository contract, run against the LMDB repository and the in-memory twin."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from flowcore.errors import FlowFileHandlingError
from flowcore.model import ContentClaim, FlowFile, ProvenanceEvent, ResourceClaim
from flowcore.repository import FlowFileRepository, QueuedFlowFile, RepositoryUpdate, SwapOut
from flowcore.repository.flowfile import MAX_KEYED_STATE_KEY

RepoFactory = Callable[..., FlowFileRepository]


def flowfile(ident: int, claim: ContentClaim | None = None, **attrs: str) -> FlowFile:
    attributes = {"uuid": f"uuid-{ident}", "filename": f"f{ident}", "path": "./", **attrs}
    return FlowFile(
        id=ident,
        attributes=attributes,
        claim=claim,
        claim_offset=0,
        size=claim.length if claim else 0,
        entry_date=ident,
        lineage_start_date=0,
    )


def event(uuid: str, kind: str = "CREATE") -> ProvenanceEvent:
    return ProvenanceEvent(
        event_time=1, event_type=kind, flowfile_uuid=uuid, component_id="c", component_type="T"
    )


def claim(name: str, length: int = 10) -> ContentClaim:
    return ContentClaim(ResourceClaim("0", "1", name), 0, length)


def reopen(repo: FlowFileRepository, factory: RepoFactory) -> FlowFileRepository:
    repo.close()
    return factory()


def test_commit_then_recover_restores_queues_in_order(repo_factory: RepoFactory) -> None:
    repo = repo_factory()
    repo.commit(
        RepositoryUpdate(puts=[QueuedFlowFile("q", seq, flowfile(seq + 10)) for seq in (2, 0, 1)])
    )
    repo = reopen(repo, repo_factory)
    state = repo.recover()
    assert [r.flowfile.id for r in state.queues["q"]] == [10, 11, 12]
    assert state.next_seq["q"] == 3
    assert state.next_flowfile_id == 13


def test_record_updated_three_times_recovers_last_version(repo_factory: RepoFactory) -> None:
    repo = repo_factory()
    for version in range(3):
        repo.commit(
            RepositoryUpdate(puts=[QueuedFlowFile("q", version, flowfile(1, v=str(version)))])
        )
    repo = reopen(repo, repo_factory)
    records = repo.recover().queues["q"]
    assert len(records) == 1
    assert records[0].flowfile.attributes["v"] == "2"


def test_delete_removes_record_and_its_claim_reference(repo_factory: RepoFactory) -> None:
    repo = repo_factory()
    shared = claim("a")
    repo.commit(
        RepositoryUpdate(
            puts=[
                QueuedFlowFile("q", 0, flowfile(1, shared)),
                QueuedFlowFile("q", 1, flowfile(2, shared)),
            ]
        )
    )
    repo.commit(RepositoryUpdate(deletes=[1]))
    state = reopen(repo, repo_factory).recover()
    assert [r.flowfile.id for r in state.queues["q"]] == [2]
    assert state.claim_references[shared.resource] == 1


def test_event_ids_are_assigned_in_commit_order_and_continue_after_restart(
    repo_factory: RepoFactory,
) -> None:
    repo = repo_factory()
    first = repo.commit(RepositoryUpdate(events=[event("a"), event("b")]))
    second = repo.commit(RepositoryUpdate(events=[event("c")]))
    assert list(first.event_ids) == [0, 1] and list(second.event_ids) == [2]
    repo.trim_journal(2)
    repo = reopen(repo, repo_factory)
    assert list(repo.commit(RepositoryUpdate(events=[event("d")])).event_ids) == [3]
    assert [e.event_id for e in repo.read_journal(-1, 10)] == [3]


def test_journal_reads_in_batches_and_trims(repo_factory: RepoFactory) -> None:
    repo = repo_factory()
    repo.commit(RepositoryUpdate(events=[event(str(i)) for i in range(5)]))
    assert [e.flowfile_uuid for e in repo.read_journal(-1, 2)] == ["0", "1"]
    assert [e.event_id for e in repo.read_journal(1, 10)] == [2, 3, 4]
    assert repo.trim_journal(2) == 3
    assert repo.journal_size() == 2
    assert [e.event_id for e in repo.read_journal(-1, 10)] == [3, 4]


def test_trimming_the_whole_journal_empties_it_and_ids_continue(
    repo_factory: RepoFactory,
) -> None:
    repo = repo_factory()
    repo.commit(RepositoryUpdate(events=[event(str(i)) for i in range(5)]))
    assert repo.trim_journal(4) == 5
    assert repo.journal_size() == 0 and repo.read_journal(-1, 10) == []
    assert repo.trim_journal(9) == 0
    repo = reopen(repo, repo_factory)
    assert list(repo.commit(RepositoryUpdate(events=[event("5")])).event_ids) == [5]
    assert [e.event_id for e in repo.read_journal(-1, 10)] == [5]
    assert repo.journal_size() == 1


def test_state_is_committed_with_flowfiles(repo_factory: RepoFactory) -> None:
    repo = repo_factory()
    repo.commit(
        RepositoryUpdate(
            puts=[QueuedFlowFile("q", 0, flowfile(1))], state={"proc": {"g.target": "3"}}
        )
    )
    repo = reopen(repo, repo_factory)
    assert repo.load_state("proc") == {"g.target": "3"}
    assert repo.load_state("other") == {}


def test_swap_out_and_in_round_trip_with_summaries(repo_factory: RepoFactory) -> None:
    repo = repo_factory()
    records = [QueuedFlowFile("q", i, flowfile(i, claim("x"))) for i in range(5)]
    repo.commit(RepositoryUpdate(puts=records[:3]))
    # Two live records and two put by the same update leave in one batch.
    receipt = repo.commit(
        RepositoryUpdate(puts=[records[4]], swap_outs=[SwapOut("q", records[1:4])])
    )
    [summary] = receipt.swapped
    assert (summary.count, summary.min_seq, summary.max_seq) == (3, 1, 3)
    repo = reopen(repo, repo_factory)
    state = repo.recover()
    assert [r.flowfile.id for r in state.queues["q"]] == [0, 4]
    assert [s.location for s in state.swapped["q"]] == [summary.location]
    assert state.claim_references[claim("x").resource] == 5
    assert state.next_flowfile_id == 5
    back = repo.swap_in(state.swapped["q"][0])
    assert [r.flowfile.id for r in back] == [1, 2, 3]
    after = reopen(repo, repo_factory).recover()
    assert len(after.queues["q"]) == 5 and not after.swapped


def test_concurrent_commits_share_transactions_without_losing_any(
    repo_factory: RepoFactory,
) -> None:
    repo = repo_factory()
    threads = 8
    per_thread = 50

    def work(worker: int) -> None:
        for i in range(per_thread):
            ident = worker * 1000 + i
            repo.commit(
                RepositoryUpdate(
                    puts=[QueuedFlowFile("q", ident, flowfile(ident))], events=[event(str(ident))]
                )
            )

    pool = [threading.Thread(target=work, args=(w,)) for w in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    state = repo.recover()
    assert len(state.queues["q"]) == threads * per_thread
    events = repo.read_journal(-1, 10_000)
    assert [e.event_id for e in events] == list(range(threads * per_thread))
    assert len({e.flowfile_uuid for e in events}) == threads * per_thread


def test_large_single_commit_recovers(repo_factory: RepoFactory) -> None:
    repo = repo_factory()
    records = [QueuedFlowFile("q", i, flowfile(i)) for i in range(50_000)]
    repo.commit(RepositoryUpdate(puts=records))
    assert len(reopen(repo, repo_factory).recover().queues["q"]) == 50_000


def test_power_durability_is_reported(repo_factory: RepoFactory, tmp_path: Any) -> None:
    assert repo_factory(durability="power").durability == "power"
    assert repo_factory(data_dir=tmp_path / "other").durability == "process"


def test_keyed_state_commits_with_flowfiles_and_survives_reopen(repo_factory: RepoFactory) -> None:
    repo = repo_factory()
    repo.commit(
        RepositoryUpdate(
            puts=[QueuedFlowFile("q", 0, flowfile(1))],
            keyed_state={"proc": {b"m/a": b"1", b"m/b": b"2", b"x": b"3"}, "other": {b"m/a": b"9"}},
        )
    )
    repo.commit(RepositoryUpdate(keyed_state={"proc": {b"m/b": None, b"m/c": b"4"}}))
    repo = reopen(repo, repo_factory)
    assert repo.load_keyed("proc", [b"m/a", b"m/b", b"m/c", b"nope"]) == {
        b"m/a": b"1",
        b"m/c": b"4",
    }
    assert [(i.key, i.value) for i in repo.scan_keyed("proc", b"m/", None, 10)] == [
        (b"m/a", b"1"),
        (b"m/c", b"4"),
    ]
    assert [i.key for i in repo.scan_keyed("proc", b"", b"m/a", 10)] == [b"m/c", b"x"]
    assert [i.key for i in repo.scan_keyed("proc", b"", None, 2)] == [b"m/a", b"m/c"]
    assert repo.load_keyed("other", [b"m/a", b"m/c"]) == {b"m/a": b"9"}


def test_keyed_state_takes_the_longest_keys_under_any_processor_name(
    repo_factory: RepoFactory,
) -> None:
    repo = repo_factory()
    long_name = "a processor with a very long name " * 8  # 272 bytes
    other = long_name + "!"
    longest = b"k" * MAX_KEYED_STATE_KEY
    repo.commit(RepositoryUpdate(keyed_state={long_name: {longest: b"1"}, other: {longest: b"2"}}))
    assert repo.load_keyed(long_name, [longest]) == {longest: b"1"}
    assert [(i.key, i.value) for i in repo.scan_keyed(other, b"", None, 10)] == [(longest, b"2")]
    repo.commit(RepositoryUpdate(keyed_state={long_name: {longest: None}}))
    assert repo.load_keyed(long_name, [longest]) == {}
    assert repo.load_keyed(other, [longest]) == {longest: b"2"}


def test_text_that_is_not_unicode_is_refused_whole_with_its_attribute_named(
    repo_factory: RepoFactory,
) -> None:
    repo = repo_factory()
    bad = flowfile(2, filename="caf\udce9.txt")  # a Latin-1 byte of a file name
    with pytest.raises(FlowFileHandlingError, match="attribute 'filename' of FlowFile uuid-2"):
        repo.commit(
            RepositoryUpdate(
                puts=[QueuedFlowFile("q", 0, flowfile(1)), QueuedFlowFile("q", 1, bad)],
                events=[event("uuid-1")],
            )
        )
    with pytest.raises(FlowFileHandlingError, match="state of 'proc'"):
        repo.commit(RepositoryUpdate(state={"proc": {"seen": "\udcff"}}))
    assert repo.journal_size() == 0
    state = reopen(repo, repo_factory).recover()
    assert not any(state.queues.values())
