"""Keyed state: staged in the session, written in the commit's transaction, undone by rollback."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from flowcore.errors import CommitFailedError
from flowcore.processor import ProcessContext
from flowcore.session import ProcessSession
from flowcore.testing import TestRunner

RunnerFactory = Callable[..., TestRunner]


def test_writes_commit_with_the_session_and_reads_see_staged_values(
    runner_factory: RunnerFactory,
) -> None:
    seen: list[object] = []

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        state = session.keyed_state
        count = int(state.get(b"count") or b"0") + 1
        state.put(b"count", str(count).encode())
        state.put(f"item/{flowfile.attributes['filename']}".encode(), b"seen")
        seen.append(state.get(b"count"))
        seen.append(sorted(state.get_many([b"count", b"missing", b"item/a"])))
        session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    runner.enqueue("x", {"filename": "a"})
    runner.enqueue("y", {"filename": "b"})
    runner.run(2)
    assert seen == [b"1", [b"count", b"item/a"], b"2", [b"count", b"item/a"]]
    assert runner.keyed_state() == {b"count": b"2", b"item/a": b"seen", b"item/b": b"seen"}
    assert runner.keyed_state(b"item/") == {b"item/a": b"seen", b"item/b": b"seen"}


def test_rollback_discards_staged_writes(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        session.keyed_state.put(b"k", b"v")
        raise RuntimeError("boom")

    runner = runner_factory(trigger)
    runner.enqueue("x")
    with pytest.raises(RuntimeError, match="boom"):
        runner.run()
    assert runner.keyed_state() == {}
    assert runner.queue_size == 1


def test_a_failed_commit_writes_no_keyed_state_and_keeps_the_queue(
    runner_factory: RunnerFactory,
) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        for i in range(1500):
            session.keyed_state.put(f"k{i:05}".encode(), b"v" * 2000)
        session.transfer(flowfile, "success")

    runner = runner_factory(
        trigger, flowfile_repository={"map_size": "2 MB", "max_map_size": "2 MB"}
    )
    runner.enqueue("x")
    with pytest.raises(CommitFailedError, match="full"):
        runner.run()
    assert runner.keyed_state() == {}
    assert runner.queue_size == 1


def test_scan_merges_staged_writes_and_deletes_in_key_order(
    runner_factory: RunnerFactory,
) -> None:
    scans: list[list[tuple[bytes, bytes]]] = []

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        if flowfile is None:
            return
        state = session.keyed_state
        if flowfile.attributes["filename"] == "first":
            for key in (b"p/1", b"p/3", b"p/5", b"q/1"):
                state.put(key, b"old")
        else:
            state.put(b"p/2", b"new")
            state.put(b"p/3", b"new")
            state.delete(b"p/5")
            state.put(b"p/9", b"new")
            scans.append(list(state.scan(b"p/")))
        session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    runner.enqueue("x", {"filename": "first"})
    runner.enqueue("y", {"filename": "second"})
    runner.run(2)
    expected = [(b"p/1", b"old"), (b"p/2", b"new"), (b"p/3", b"new"), (b"p/9", b"new")]
    assert scans == [expected]
    assert sorted(runner.keyed_state(b"p/").items()) == expected


def test_keys_longer_than_the_limit_are_refused(runner_factory: RunnerFactory) -> None:
    errors: list[str] = []

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        state = session.keyed_state
        try:
            state.put(b"k" * 401, b"v")
        except ValueError as exc:
            errors.append(str(exc))
        try:
            state.delete(b"")
        except ValueError as exc:
            errors.append(str(exc))

    runner = runner_factory(trigger)
    runner.run()
    assert errors == [
        "a keyed-state key must be 1 to 400 bytes, not 401",
        "a keyed-state key must be 1 to 400 bytes, not 0",
    ]
