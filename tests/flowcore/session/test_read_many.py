"""``ProcessSession.read_many``: every FlowFile's content as ``read`` gives it, with the
contents asked of the content repository in one call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flowcore.errors import ContentCorruptedError, FlowFileHandlingError
from flowcore.model.flowfile import FlowFile
from flowcore.processor import ProcessContext
from flowcore.session import ProcessSession
from flowcore.session.content_errors import CONTENT_ERROR_REASON
from flowcore.testing import TestRunner
from tests.flowcore.session.test_damaged_content import garble

RunnerFactory = Callable[..., TestRunner]


def test_read_many_gives_each_content_as_read_does(
    runner_factory: RunnerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        taken = session.get_batch(10)
        part = session.clone(taken[0], 2, 3)
        empty = session.create()
        written = session.write(session.create(), b"written here")
        flowfiles = [taken[2], part, empty, taken[0], written, taken[1]]
        calls: list[int] = []
        content = session._content  # the repository the session reads from
        real = content.read_many

        def spy(ranges: Any) -> list[bytes]:
            calls.append(len(ranges))
            return real(ranges)

        monkeypatch.setattr(content, "read_many", spy)
        seen.append(session.read_many(flowfiles))
        seen.append(calls)
        seen.append([session.read(f) for f in flowfiles])
        for flowfile in (*taken, part, empty, written):
            session.remove(flowfile)

    runner = runner_factory(trigger)
    for text in ("first content", "second", "third one"):
        runner.enqueue(text)
    runner.run()
    together, calls, one_by_one = seen
    assert together == [b"third one", b"rst", b"", b"first content", b"written here", b"second"]
    assert together == one_by_one
    assert calls == [5]  # one call; the empty FlowFile has nothing to read


def test_read_many_refuses_a_flowfile_the_session_does_not_hold(
    runner_factory: RunnerFactory,
) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        stale = session.put_attribute(flowfile, "a", "1")
        session.put_attribute(stale, "b", "2")
        with pytest.raises(FlowFileHandlingError, match="not the most recent version"):
            session.read_many([stale])
        session.rollback()

    runner = runner_factory(trigger)
    runner.enqueue("x")
    runner.run()


def test_a_damaged_content_fails_as_it_does_when_read_alone(
    runner_factory: RunnerFactory,
) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfiles: list[FlowFile] = session.get_batch(10)
        contents = session.read_many(flowfiles)
        for flowfile, content in zip(flowfiles, contents, strict=True):
            session.transfer(session.write(flowfile, content.upper()), "success")

    runner = runner_factory(trigger)
    healthy = runner.enqueue("fine")
    damaged = runner.enqueue("this content will be garbled")
    after = runner.enqueue("fine too")
    garble(runner, damaged.flowfile, 3)

    with pytest.raises(ContentCorruptedError):
        runner.run()
    (failed,) = runner.get_flowfiles_for_relationship("failure")
    assert failed.uuid == damaged.uuid
    assert "is damaged" in (failed.get_attribute(CONTENT_ERROR_REASON) or "")
    runner.advance_time(60)
    runner.run()
    done = runner.get_flowfiles_for_relationship("success")
    assert [d.uuid for d in done] == [healthy.uuid, after.uuid]
    assert [d.text() for d in done] == ["FINE", "FINE TOO"]
