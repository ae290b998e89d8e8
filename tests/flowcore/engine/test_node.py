"""The node: input ports, a running flow, restart and recovery, replay, orphan sweep, swap.

Everything runs on real repositories (LMDB, the file-system content repository, DuckDB)
under tmp_path, driven by the DeterministicScheduler on a ManualClock.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from flowcore.clock import ManualClock
from flowcore.engine import (
    BackPressureError,
    DeterministicScheduler,
    EnqueueItem,
    Node,
    ReplayError,
    RunState,
)
from flowcore.errors import RepositoryError
from flowcore.flow import parse_flow
from flowcore.model.flowfile import FlowFile, ResourceClaim
from flowcore.model.provenance import ProvenanceEvent
from flowcore.processor import (
    ControllerService,
    ProcessContext,
    Processor,
    Relationship,
    Scheduling,
    processor,
)
from flowcore.repository import ProvenanceQuery
from flowcore.session import ProcessSession
from flowcore.settings import EngineSettings

SettingsFactory = Callable[..., EngineSettings]


@processor("NodeTestCounter")
class Counter(Processor):
    """Creates one FlowFile per trigger, numbered from a counter kept in its state."""

    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    scheduling = Scheduling(input_required=False)

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        state = session.get_state()
        seq = int(state.get("next", "0"))
        flowfile = session.create()
        flowfile = session.write(flowfile, f"item-{seq}".encode())
        flowfile = session.put_attribute(flowfile, "seq", str(seq))
        session.transfer(flowfile, "success")
        session.set_state({"next": str(seq + 1)})


@processor("NodeTestJoin")
class Join(Processor):
    """Merges every queued FlowFile into one (a JOIN) and drops the parents."""

    relationships: ClassVar[list[Relationship]] = [Relationship("merged")]

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        parents = session.get_batch(100)
        if len(parents) < 2:
            for parent in parents:
                session.transfer(parent)
            return
        merged = session.create(parents)
        merged = session.write(merged, b"".join(session.read(p) for p in parents))
        session.transfer(merged, "merged")
        for parent in parents:
            session.remove(parent)


def open_node(settings: EngineSettings, flow: dict[str, Any], clock: ManualClock) -> Node:
    return Node.from_flow(settings, parse_flow(flow), clock)


def all_events(node: Node) -> list[ProvenanceEvent]:
    node.index_provenance()
    return sorted(node.provenance.search(ProvenanceQuery(limit=100_000)), key=lambda e: e.event_id)


def drain(node: Node, connection: str) -> list[FlowFile]:
    """Take every FlowFile out of a connection's queue, in the order it gives them."""
    queue = node.connections[connection].queue
    taken: list[FlowFile] = []
    while batch := queue.poll_batch(97, node.clock.now_ms()):
        taken.extend(record.flowfile for record in batch)
    return taken


def content_of(node: Node, flowfile: FlowFile) -> bytes:
    if flowfile.claim is None:
        return b""
    return node.content.read(flowfile.claim, flowfile.claim_offset, flowfile.size)


def port_flow(
    *, threshold: int | None = None, downstream: str = "STOPPED", sink: str = "STOPPED"
) -> dict[str, Any]:
    """in -> tag (UpdateAttribute) -> sink (Funnel, auto-terminated)."""
    incoming: dict[str, Any] = {"from": "in", "to": "tag", "name": "incoming"}
    if threshold is not None:
        incoming["back_pressure"] = {"object_threshold": threshold}
    return {
        "flow": {
            "name": "ports",
            "input_ports": ["in"],
            "processors": {
                "tag": {
                    "type": "UpdateAttribute",
                    "properties": {"stage": "tagged"},
                    "run_state": downstream,
                },
                "sink": {"type": "Funnel", "auto_terminate": ["success"], "run_state": sink},
            },
            "connections": [
                incoming,
                {"from": "tag", "relationships": ["success"], "to": "sink", "name": "tagged"},
            ],
        }
    }


# -- input ports ----------------------------------------------------------------------------


def test_enqueue_into_input_port(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, port_flow(), clock))

    uuids = node.enqueue(
        "in",
        [
            EnqueueItem(b"first", {"source": "a", "filename": "one.txt"}),
            EnqueueItem(b"second"),
        ],
    )

    assert len(uuids) == 2 and len(set(uuids)) == 2
    queued = node.connections["incoming"].queue.listing()
    assert [r.flowfile.uuid for r in queued] == uuids
    first, second = (r.flowfile for r in queued)
    assert content_of(node, first) == b"first"
    assert content_of(node, second) == b"second"
    assert first.attributes["source"] == "a"
    assert first.attributes["filename"] == "one.txt"
    assert first.attributes["uuid"] == uuids[0]
    assert second.attributes["filename"] == uuids[1]
    events = all_events(node)
    assert [e.event_type for e in events] == ["RECEIVE", "RECEIVE"]
    assert [e.flowfile_uuid for e in events] == uuids
    assert {e.component_id for e in events} == {"in"}
    assert {e.transit_uri for e in events} == {"flowcore://input-port/in"}
    assert events[0].attributes["source"] == "a"


def test_enqueue_refuses_uuid_attribute(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, port_flow(), clock))

    with pytest.raises(ValueError, match="uuid"):
        node.enqueue(
            "in",
            [EnqueueItem(b"fine"), EnqueueItem(b"sneaky", {"uuid": "my-own-uuid"})],
        )

    assert node.connections["incoming"].queue.size == 0
    assert all_events(node) == []
    # The node still works afterwards.
    assert len(node.enqueue("in", [EnqueueItem(b"ok")])) == 1
    assert node.connections["incoming"].queue.size == 1


def test_enqueue_into_unknown_port(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, port_flow(), clock))
    with pytest.raises(KeyError):
        node.enqueue("nope", [EnqueueItem(b"x")])


def test_back_pressure_on_port_connection(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, port_flow(threshold=3), clock))
    node.enqueue("in", [EnqueueItem(f"{i}".encode()) for i in range(3)])
    queue = node.connections["incoming"].queue
    assert queue.is_full()

    with pytest.raises(BackPressureError) as info:
        node.enqueue("in", [EnqueueItem(b"one too many")])

    assert info.value.port == "in"
    assert info.value.connection == "incoming"
    assert queue.size == 3
    assert len(all_events(node)) == 3

    # Once the downstream processor drains the queue, the port accepts again.
    node.processors["tag"].start()
    DeterministicScheduler(node).run_until_idle()
    assert queue.size == 0
    assert len(node.enqueue("in", [EnqueueItem(b"now fine")])) == 1


def test_data_size_back_pressure_on_port_connection(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    flow = port_flow()
    flow["flow"]["connections"][0]["back_pressure"] = {"data_size_threshold": "1 KB"}
    node = closing(open_node(settings, flow, clock))
    node.enqueue("in", [EnqueueItem(b"x" * 1000)])
    node.enqueue("in", [EnqueueItem(b"y" * 100)])  # not full yet: 1000 B < 1 KB

    with pytest.raises(BackPressureError):
        node.enqueue("in", [EnqueueItem(b"z")])

    queue = node.connections["incoming"].queue
    assert (queue.size, queue.total_bytes) == (2, 1100)


# -- a running flow ---------------------------------------------------------------------------


def generate_to_files(
    out: Path, *, max_runs: int = 4, put_state: str = "RUNNING"
) -> dict[str, Any]:
    return {
        "flow": {
            "name": "files",
            "processors": {
                "gen": {
                    "type": "GenerateFlowFile",
                    "properties": {"Custom Text": "payload", "Batch Size": "2"},
                    "schedule": {"max_runs": max_runs},
                },
                "tag": {
                    "type": "UpdateAttribute",
                    "properties": {"filename": "${uuid}.txt", "stage": "tagged"},
                },
                "put": {
                    "type": "PutFile",
                    "properties": {"Directory": str(out)},
                    "auto_terminate": ["success", "failure"],
                    "run_state": put_state,
                },
            },
            "connections": [
                {"from": "gen", "relationships": ["success"], "to": "tag", "name": "generated"},
                {"from": "tag", "relationships": ["success"], "to": "put", "name": "tagged"},
            ],
        }
    }


def test_flow_runs_generate_update_put(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    node = closing(open_node(settings, generate_to_files(out, max_runs=4), clock))

    summary = DeterministicScheduler(node).run_until_idle()

    assert summary.idle
    files = sorted(out.iterdir())
    assert len(files) == 8
    assert all(f.read_bytes() == b"payload" for f in files)
    assert all(f.name.endswith(".txt") for f in files)
    assert node.processors["gen"].runs == 4
    assert all(c.queue.size == 0 for c in node.connections.values())
    events = all_events(node)
    types = [e.event_type for e in events]
    assert types.count("CREATE") == 8
    assert types.count("ATTRIBUTES_MODIFIED") == 8
    assert types.count("SEND") == 8
    assert types.count("DROP") == 8
    sent = {e.transit_uri for e in events if e.event_type == "SEND"}
    assert sent == {f.resolve().as_uri() for f in files}


def test_queued_flowfiles_resume_after_restart(
    settings: EngineSettings, clock: ManualClock, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    flow = generate_to_files(out, max_runs=3, put_state="STOPPED")
    node = open_node(settings, flow, clock)
    try:
        DeterministicScheduler(node).run_until_idle()
        before = {r.flowfile.uuid: r.flowfile for r in node.connections["tagged"].queue.listing()}
        assert len(before) == 6
        assert list(out.iterdir()) == []
    finally:
        node.close()

    node = open_node(settings, flow, clock)
    try:
        assert node.recovery is not None
        assert node.recovery.flowfiles == 6
        queued = node.connections["tagged"].queue.listing()
        assert {r.flowfile.uuid for r in queued} == set(before)
        for record in queued:
            flowfile = record.flowfile
            assert flowfile.attributes == before[flowfile.uuid].attributes
            assert flowfile.attributes["stage"] == "tagged"
            assert content_of(node, flowfile) == b"payload"
        assert node.processors["put"].run_state is RunState.STOPPED

        node.processors["gen"].stop()  # its max_runs counts runs of this process only
        node.processors["put"].start()
        DeterministicScheduler(node).run_until_idle()

        assert node.connections["tagged"].queue.size == 0
        assert sorted(f.name for f in out.iterdir()) == sorted(
            before[u].attributes["filename"] for u in before
        )
        assert all(f.read_bytes() == b"payload" for f in out.iterdir())
    finally:
        node.close()


def counter_flow() -> dict[str, Any]:
    return {
        "flow": {
            "name": "counter",
            "processors": {
                "count": {"type": "NodeTestCounter", "schedule": {"max_runs": 3}},
                "sink": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            },
            "connections": [
                {"from": "count", "relationships": ["success"], "to": "sink", "name": "counted"}
            ],
        }
    }


def test_processor_state_survives_restart(settings: EngineSettings, clock: ManualClock) -> None:
    node = open_node(settings, counter_flow(), clock)
    try:
        DeterministicScheduler(node).run_until_idle()
        binding = node.processors["count"].binding
        assert binding.state.values == {"next": "3"}
    finally:
        node.close()

    node = open_node(settings, counter_flow(), clock)
    try:
        binding = node.processors["count"].binding
        assert binding.state.values == {"next": "3"}
        assert node.flowfiles.load_state("count") == {"next": "3"}
        DeterministicScheduler(node).run_until_idle()
        seqs = [f.attributes["seq"] for f in drain(node, "counted")]
        assert seqs == [str(i) for i in range(6)]
        assert binding.state.values == {"next": "6"}
    finally:
        node.close()


# -- replay -----------------------------------------------------------------------------------


def test_replay_creates_a_new_flowfile_on_the_source_connection(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, port_flow(downstream="RUNNING"), clock))
    (original,) = node.enqueue("in", [EnqueueItem(b"replay me", {"colour": "blue"})])
    DeterministicScheduler(node).run_until_idle()
    assert node.connections["incoming"].queue.size == 0
    (modified,) = [e for e in all_events(node) if e.event_type == "ATTRIBUTES_MODIFIED"]
    assert modified.flowfile_uuid == original
    assert modified.source_queue_id == "incoming"
    clock.advance(5)

    new_uuid = node.replay(modified.event_id)

    assert new_uuid != original
    found = node.locate(new_uuid)
    assert found is not None
    connection, flowfile = found.connection, found.flowfile
    assert connection.name == "incoming"
    assert flowfile.attributes["flowfile.replay"] == "true"
    assert flowfile.attributes["flowfile.replay.timestamp"] == str(clock.now_ms())
    assert flowfile.attributes["uuid"] == new_uuid
    assert flowfile.attributes["colour"] == "blue"
    assert "stage" not in flowfile.attributes  # the attributes before the event
    assert content_of(node, flowfile) == b"replay me"

    (replay,) = [e for e in all_events(node) if e.event_type == "REPLAY"]
    assert replay.parent_uuids == [original]
    assert replay.child_uuids == [new_uuid]
    assert replay.flowfile_uuid == original
    assert replay.source_queue_id == "incoming"

    lineage = node.provenance.lineage(original)
    flowfiles = {n.flowfile_uuid for n in lineage.nodes if n.node_type == "FLOWFILE"}
    assert new_uuid in flowfiles
    assert any(n.event_type == "REPLAY" for n in lineage.nodes)

    # The replayed FlowFile goes through the flow like any other.
    DeterministicScheduler(node).run_until_idle()
    tagged = [e for e in all_events(node) if e.event_type == "ATTRIBUTES_MODIFIED"]
    assert {e.flowfile_uuid for e in tagged} == {original, new_uuid}


def test_the_replay_event_records_the_replayed_flowfile(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, port_flow(downstream="RUNNING"), clock))
    (original,) = node.enqueue("in", [EnqueueItem(b"again", {"colour": "red"})])
    DeterministicScheduler(node).run_until_idle()
    (modified,) = [e for e in all_events(node) if e.event_type == "ATTRIBUTES_MODIFIED"]
    clock.advance(7)
    tag_stats = node.processors["tag"].binding.stats.commits

    new_uuid = node.replay(modified.event_id)

    (replay,) = [e for e in all_events(node) if e.event_type == "REPLAY"]
    assert (replay.component_id, replay.component_type) == ("tag", "UpdateAttribute")
    assert (replay.event_time, replay.entry_date) == (clock.now_ms(), clock.now_ms())
    assert replay.lineage_start_date == modified.lineage_start_date
    assert replay.event_duration == -1
    assert replay.details == f"Replay of event {modified.event_id}"
    assert replay.previous_attributes == modified.previous_attributes
    assert replay.updated_attributes == {
        "uuid": new_uuid,
        "flowfile.replay": "true",
        "flowfile.replay.timestamp": str(clock.now_ms()),
    }
    assert replay.previous_content == replay.current_content == modified.previous_content
    assert replay.size == modified.size
    assert replay.attributes["uuid"] == new_uuid
    assert original in replay.parent_uuids
    # No other event comes with it, and the replayed processor's totals are its own.
    assert [e.event_type for e in all_events(node)][-1] == "REPLAY"
    assert node.processors["tag"].binding.stats.commits == tag_stats


def test_a_replay_whose_commit_fails_leaves_nothing_behind(
    settings: EngineSettings,
    clock: ManualClock,
    closing: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    node = closing(open_node(settings, port_flow(downstream="RUNNING"), clock))
    node.enqueue("in", [EnqueueItem(b"no room")])
    DeterministicScheduler(node).run_until_idle()
    (modified,) = [e for e in all_events(node) if e.event_type == "ATTRIBUTES_MODIFIED"]
    ref = modified.previous_content
    assert ref is not None
    resource = ResourceClaim(ref.container, ref.section, ref.identifier)
    claimants = node.content.claimant_count(resource)
    count = node.provenance.event_count()

    def refuse(*_: Any, **__: Any) -> None:
        raise RepositoryError("no room", repository="FlowFile")

    monkeypatch.setattr(node.flowfiles, "commit", refuse)
    with pytest.raises(RepositoryError):
        node.replay(modified.event_id)
    monkeypatch.undo()

    assert node.content.claimant_count(resource) == claimants
    assert node.connections["incoming"].queue.size == 0
    assert node.provenance.event_count() == count
    assert node.flowfiles.journal_size() == 0


def test_a_replay_session_rolled_back_lets_go_of_the_content(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, port_flow(), clock))
    node.enqueue("in", [EnqueueItem(b"shared")])
    (queued,) = node.connections["incoming"].queue.listing()
    parent = queued.flowfile
    assert parent.claim is not None
    resource = parent.claim.resource
    claimants = node.content.claimant_count(resource)
    queue = node.connections["incoming"].queue
    session = node.session_for(node.processors["tag"].binding)

    child = session.replay(parent, queue, "Replay of event 0")

    assert child.claim == parent.claim and child.uuid != parent.uuid
    assert child.attributes["flowfile.replay"] == "true"
    assert node.content.claimant_count(resource) == claimants + 1
    session.rollback()
    assert node.content.claimant_count(resource) == claimants
    assert queue.size == 1
    assert node.flowfiles.journal_size() == 1  # the RECEIVE only


def test_replay_survives_restart(settings: EngineSettings, clock: ManualClock) -> None:
    node = open_node(settings, port_flow(downstream="RUNNING"), clock)
    try:
        node.enqueue("in", [EnqueueItem(b"again")])
        DeterministicScheduler(node).run_until_idle()
        (modified,) = [e for e in all_events(node) if e.event_type == "ATTRIBUTES_MODIFIED"]
        new_uuid = node.replay(modified.event_id)
    finally:
        node.close()
    node = open_node(settings, port_flow(downstream="STOPPED"), clock)
    try:
        found = node.locate(new_uuid)
        assert found is not None
        assert content_of(node, found.flowfile) == b"again"
    finally:
        node.close()


def test_replay_of_unknown_event(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node = closing(open_node(settings, port_flow(), clock))
    with pytest.raises(KeyError):
        node.replay(12345)


def test_replay_of_join_is_refused(
    settings: EngineSettings, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    flow = {
        "flow": {
            "name": "join",
            "input_ports": ["in"],
            "processors": {
                "join": {"type": "NodeTestJoin"},
                "sink": {"type": "Funnel", "auto_terminate": ["success"], "run_state": "STOPPED"},
            },
            "connections": [
                {"from": "in", "to": "join", "name": "incoming"},
                {"from": "join", "relationships": ["merged"], "to": "sink", "name": "merged"},
            ],
        }
    }
    node = closing(open_node(settings, flow, clock))
    node.enqueue("in", [EnqueueItem(b"a"), EnqueueItem(b"b")])
    DeterministicScheduler(node).run_until_idle()
    (joined,) = drain(node, "merged")
    assert content_of(node, joined) == b"ab"
    (join,) = [e for e in all_events(node) if e.event_type == "JOIN"]
    count = node.provenance.event_count()

    with pytest.raises(ReplayError, match="JOIN") as refused:
        node.replay(join.event_id)
    assert refused.value.reason == "join"

    assert node.connections["incoming"].queue.size == 0
    assert all_events(node)[-1].event_type != "REPLAY"
    assert node.provenance.event_count() == count


def test_replay_when_content_is_gone_is_refused(
    settings_factory: SettingsFactory, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    settings = settings_factory(content={"archive_enabled": False, "max_appendable_size": "1 KB"})
    node = closing(open_node(settings, port_flow(downstream="RUNNING", sink="RUNNING"), clock))
    node.enqueue("in", [EnqueueItem(b"x" * 4096)])
    DeterministicScheduler(node).run_until_idle()
    node.checkpoint()
    (modified,) = [e for e in all_events(node) if e.event_type == "ATTRIBUTES_MODIFIED"]
    assert modified.previous_content is not None
    count = node.provenance.event_count()

    with pytest.raises(ReplayError, match="no longer available") as refused:
        node.replay(modified.event_id)
    assert refused.value.reason == "content-gone"

    assert node.connections["incoming"].queue.size == 0
    assert node.provenance.event_count() == count


def archived_then_modified(
    settings_factory: SettingsFactory,
    clock: ManualClock,
    closing: Callable[[Any], Any],
    content: bytes,
) -> tuple[Node, Any]:
    """A node with archiving on whose flow took ``content`` through ``tag`` and dropped it
    (its claim archived at the checkpoint), ``tag`` stopped; the ATTRIBUTES_MODIFIED
    event to replay."""
    settings = settings_factory(content={"archive_enabled": True, "max_appendable_size": "1 KB"})
    node = closing(open_node(settings, port_flow(downstream="RUNNING", sink="RUNNING"), clock))
    node.enqueue("in", [EnqueueItem(content)])
    DeterministicScheduler(node).run_until_idle()
    node.checkpoint()
    (modified,) = [e for e in all_events(node) if e.event_type == "ATTRIBUTES_MODIFIED"]
    node.processors["tag"].stop()
    return node, modified


def test_replay_with_content_archived_works(
    settings_factory: SettingsFactory, clock: ManualClock, closing: Callable[[Any], Any]
) -> None:
    node, modified = archived_then_modified(settings_factory, clock, closing, b"y" * 4096)

    new_uuid = node.replay(modified.event_id)

    found = node.locate(new_uuid)
    assert found is not None
    assert content_of(node, found.flowfile) == b"y" * 4096
    # The archive's age-off keeps the file while the replayed FlowFile holds it.
    clock.advance(48 * 3600)
    node.maintain()
    assert content_of(node, found.flowfile) == b"y" * 4096


def test_replay_holds_archived_content_before_age_off_can_delete_it(
    settings_factory: SettingsFactory,
    clock: ManualClock,
    closing: Callable[[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Age-off running between the replay's check of the content and its commit must not
    delete the archived file the replayed FlowFile is about to point at."""
    node, modified = archived_then_modified(settings_factory, clock, closing, b"z" * 4096)
    clock.advance(48 * 3600)
    verify = node.content.verify

    def aged_off_first(claim: Any) -> None:
        node.content.cleanup_archive(clock.now_ms())
        verify(claim)

    monkeypatch.setattr(node.content, "verify", aged_off_first)

    new_uuid = node.replay(modified.event_id)

    found = node.locate(new_uuid)
    assert found is not None
    assert content_of(node, found.flowfile) == b"z" * 4096


# -- recovery ---------------------------------------------------------------------------------


def content_files(settings: EngineSettings) -> set[Path]:
    root = settings.content_containers[0]
    return {p for p in root.rglob("*") if p.is_file() and p.parent != root}  # claims only


def test_orphaned_content_is_swept_at_start(
    settings_factory: SettingsFactory, clock: ManualClock
) -> None:
    settings = settings_factory(content={"archive_enabled": False})
    node = open_node(settings, port_flow(), clock)
    try:
        node.enqueue("in", [EnqueueItem(b"keep me")])
    finally:
        node.close()
    root = settings.content_containers[0]
    kept = content_files(settings)
    assert len(kept) == 1
    stray = root / "0" / "1600000000000-999"
    stray.write_bytes(b"nobody references this")
    other_section = root / "17"
    other_section.mkdir()
    (other_section / "1600000000000-1000").write_bytes(b"nor this")

    node = open_node(settings, port_flow(), clock)
    try:
        assert node.recovery is not None
        assert node.recovery.orphaned_claims == 2
        assert not stray.exists()
        assert content_files(settings) == kept
        (record,) = node.connections["incoming"].queue.listing()
        assert content_of(node, record.flowfile) == b"keep me"
    finally:
        node.close()


def test_orphaned_content_goes_to_the_archive_when_archiving(
    settings: EngineSettings, clock: ManualClock
) -> None:
    node = open_node(settings, port_flow(), clock)
    node.close()
    root = settings.content_containers[0]
    (root / "3").mkdir(parents=True)
    stray = root / "3" / "1600000000000-5"
    stray.write_bytes(b"stray")

    node = open_node(settings, port_flow(), clock)
    try:
        assert node.recovery is not None
        assert node.recovery.orphaned_claims == 1
        assert not stray.exists()
        assert (root / "3" / "archive" / "1600000000000-5").read_bytes() == b"stray"
    finally:
        node.close()


def test_swapped_queue_keeps_fifo_order_across_restart(
    settings_factory: SettingsFactory, clock: ManualClock
) -> None:
    settings = settings_factory(queue={"swap_threshold": 100, "swap_batch_size": 40})
    node = open_node(settings, port_flow(), clock)
    try:
        for start in range(0, 1000, 125):
            node.enqueue(
                "in",
                [EnqueueItem(f"c{i}".encode(), {"n": str(i)}) for i in range(start, start + 125)],
            )
        snapshot = node.connections["incoming"].queue.snapshot()
        assert snapshot.count == 1000
        assert snapshot.swapped > 0
    finally:
        node.close()

    node = open_node(settings, port_flow(), clock)
    try:
        assert node.recovery is not None
        assert node.recovery.flowfiles + node.recovery.swapped == 1000
        assert node.recovery.swapped > 0
        snapshot = node.connections["incoming"].queue.snapshot()
        assert snapshot.count == 1000
        assert snapshot.swapped > 0
        taken = drain(node, "incoming")
        assert [f.attributes["n"] for f in taken] == [str(i) for i in range(1000)]
        assert all(content_of(node, f) == f"c{f.attributes['n']}".encode() for f in taken)
    finally:
        node.close()


def test_swapped_queue_drains_through_the_flow_after_restart(
    settings_factory: SettingsFactory, clock: ManualClock
) -> None:
    settings = settings_factory(queue={"swap_threshold": 100, "swap_batch_size": 50})
    node = open_node(settings, port_flow(), clock)
    try:
        node.enqueue("in", [EnqueueItem(b"z", {"n": str(i)}) for i in range(1000)])
    finally:
        node.close()
    node = open_node(settings, port_flow(downstream="RUNNING"), clock)
    try:
        DeterministicScheduler(node).run_until_idle()
        assert node.connections["incoming"].queue.size == 0
        order = [f.attributes["n"] for f in drain(node, "tagged")]
        assert order == [str(i) for i in range(1000)]
    finally:
        node.close()


# -- orphaned FlowFiles (spec section 6, item 18) ---------------------------------------------


def test_flowfiles_of_a_removed_connection_are_retained_with_their_content(
    settings: EngineSettings, clock: ManualClock
) -> None:
    node = open_node(settings, port_flow(), clock)
    node.enqueue("in", [EnqueueItem(b"kept", {"n": str(i)}) for i in range(3)])
    node.checkpoint()
    node.close()

    without = port_flow()
    without["flow"]["connections"] = [without["flow"]["connections"][1]]
    without["flow"]["input_ports"] = []
    without["flow"]["processors"]["tag"]["run_state"] = "STOPPED"
    node = open_node(
        settings,
        {
            "flow": {
                **without["flow"],
                "processors": {"sink": without["flow"]["processors"]["sink"]},
                "connections": [],
            }
        },
        clock,
    )
    try:
        assert node.recovery is not None and node.recovery.flowfiles == 0
        assert node.recovery.orphaned_claims == 0, "their content must be kept"
        assert "incoming" in node.flowfiles.recover().queues
    finally:
        node.close()

    node = open_node(settings, port_flow(), clock)
    try:
        back = drain(node, "incoming")
        assert sorted(f.attributes["n"] for f in back) == ["0", "1", "2"]
        assert all(content_of(node, f) == b"kept" for f in back)
    finally:
        node.close()


# -- streamed uploads ------------------------------------------------------------------------


def test_open_upload_streams_chunks_and_commits_durably(
    settings: EngineSettings, clock: ManualClock
) -> None:
    from flowcore.engine.node import PortUpload

    node = open_node(settings, port_flow(), clock)
    try:
        upload: PortUpload = node.open_upload("in", {"name": "streamed"})
        for chunk in (b"first ", b"second ", b"third"):
            upload.write(chunk)
        assert upload.size == len(b"first second third")
        uuid = upload.commit()
        (flowfile,) = drain(node, "incoming")
        assert flowfile.uuid == uuid
        assert flowfile.attributes["name"] == "streamed"
        assert content_of(node, flowfile) == b"first second third"
        receive = [e for e in all_events(node) if e.event_type == "RECEIVE"]
        assert [e.flowfile_uuid for e in receive] == [uuid]
    finally:
        node.close()


def test_aborted_upload_leaves_nothing(settings: EngineSettings, clock: ManualClock) -> None:
    node = open_node(settings, port_flow(), clock)
    try:
        upload = node.open_upload("in", {})
        upload.write(b"x" * 100_000)
        upload.abort()
        assert node.connections["incoming"].queue.size == 0
        assert all_events(node) == []
        node.checkpoint()
        recovered = node.flowfiles.recover()
        assert not recovered.queues and not recovered.claim_references
        with pytest.raises(ValueError, match="uuid"):
            node.open_upload("in", {"uuid": "mine"})
        with pytest.raises(KeyError):
            node.open_upload("nowhere", {})
    finally:
        node.close()


def test_locate_finds_queued_swapped_and_in_process_flowfiles(
    settings_factory: Any, clock: ManualClock
) -> None:
    settings = settings_factory(queue={"swap_threshold": 10, "swap_batch_size": 10})
    node = open_node(settings, port_flow(threshold=1000), clock)
    try:
        uuids = node.enqueue("in", [EnqueueItem(f"{i}".encode()) for i in range(30)])
        queue = node.connections["incoming"].queue
        assert queue.snapshot().swapped > 0
        first = node.locate(uuids[0])
        assert first is not None and (first.state, first.position) == ("QUEUED", 0)
        last = node.locate(uuids[-1])
        assert last is not None and last.state in ("SWAPPED_OUT", "QUEUED")
        swapped = [u for u in uuids if (f := node.locate(u)) and f.state == "SWAPPED_OUT"]
        assert swapped, "some FlowFiles are found in swapped batches"
        assert node.locate(swapped[0]).connection.name == "incoming"  # type: ignore[union-attr]
        taken = queue.poll_batch(1, clock.now_ms())
        held = node.locate(taken[0].flowfile.uuid)
        assert held is not None and held.state == "IN_PROCESS"
        queue.requeue(taken, clock.now_ms())
        again = node.locate(taken[0].flowfile.uuid)
        assert again is not None and again.state == "QUEUED"
        assert node.locate("no-such-uuid") is None

        # A batch swapped back in between listing the batches and reading one: the
        # FlowFile is looked for in memory instead of failing the look-up.
        def vanished(summary: Any) -> Any:
            raise RepositoryError(f"swap location {summary.location} is unknown")

        node.flowfiles.read_swapped = vanished  # type: ignore[method-assign]
        assert node.locate(swapped[0]) is None
        queued = node.locate(uuids[0])
        assert queued is not None and queued.state == "QUEUED"
    finally:
        node.close()


class _Recorded(ControllerService):
    """A service that records when it is disabled, in a log shared with a processor."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def on_disabled(self) -> None:
        self.log.append("disabled")


class _StopRecorder(Processor):
    relationships: ClassVar[list[Relationship]] = [Relationship("success")]
    scheduling = Scheduling(input_required=False)

    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.log = log

    def on_trigger(self, context: ProcessContext, session: ProcessSession) -> None:
        pass

    def on_stopped(self, context: ProcessContext) -> None:
        self.log.append("stopped")


def test_close_disables_controller_services_after_stopping_processors(
    settings: EngineSettings, clock: ManualClock
) -> None:
    log: list[str] = []
    node = Node(settings, clock)
    node.add_controller_service("service", _Recorded(log))
    processor_node = node.add_processor("p", _StopRecorder(log), {})
    processor_node.start()
    node.recover()
    node.trigger("p")
    node.close()
    assert log == ["stopped", "disabled"]
    node.close()  # once only
    assert log == ["stopped", "disabled"]
