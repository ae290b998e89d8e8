"""The provenance events a session generates, as NiFi generates them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from flowcore.model import ProvenanceEvent
from flowcore.model.flowfile import FlowFile
from flowcore.model.provenance import ContentRef
from flowcore.processor import ProcessContext
from flowcore.session import ProcessSession
from flowcore.testing import TestRunner
from flowcore.testing.runner import INPUT, UNDER_TEST

RunnerFactory = Callable[..., TestRunner]


def kinds(events: list[ProvenanceEvent]) -> list[str]:
    return [e.event_type for e in events]


def test_create_emits_create(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        session.transfer(session.create(), "success")

    runner = runner_factory(trigger)
    runner.run()
    events = runner.get_provenance_events()
    created = runner.get_flowfiles_for_relationship("success")[0]
    assert kinds(events) == ["CREATE"]
    assert events[0].flowfile_uuid == created.uuid
    assert created.get_attribute("filename") == created.uuid
    assert created.get_attribute("path") == "./"


def test_create_from_parent_forks_and_inherits_attributes(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        parent = session.get()
        assert parent is not None
        for _i in range(2):
            session.transfer(session.create(parent), "success")
        session.transfer(parent, "other")

    runner = runner_factory(trigger)
    parent = runner.enqueue("x", {"colour": "red"})
    runner.run()
    children = runner.get_flowfiles_for_relationship("success")
    events = runner.get_provenance_events()
    assert kinds(events) == ["FORK"]
    assert events[0].flowfile_uuid == parent.uuid
    assert events[0].parent_uuids == [parent.uuid]
    assert sorted(events[0].child_uuids) == sorted(c.uuid for c in children)
    assert all(c.get_attribute("colour") == "red" and c.uuid != parent.uuid for c in children)


def test_join_intersects_attributes_and_takes_earliest_lineage(
    runner_factory: RunnerFactory,
) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        parents = session.get_batch(10)
        child = session.create(parents)
        child = session.write(child, b"".join(session.read(p) for p in parents))
        session.transfer(child, "success")
        for parent in parents:
            session.transfer(parent, "other")

    runner = runner_factory(trigger)
    first = runner.enqueue("a", {"shared": "1", "only": "a"})
    runner.advance_time(5)
    second = runner.enqueue("b", {"shared": "1", "only": "b"})
    runner.run()
    child = runner.get_flowfiles_for_relationship("success")[0]
    child.assert_content_equals("ab")
    child.assert_attribute_equals("shared", "1")
    child.assert_attribute_not_exists("only")
    assert child.flowfile.lineage_start_date == first.flowfile.lineage_start_date
    join = runner.get_provenance_events()[0]
    assert join.event_type == "JOIN"
    assert join.flowfile_uuid == child.uuid
    assert join.parent_uuids == [first.uuid, second.uuid]
    assert join.child_uuids == [child.uuid]
    assert kinds(runner.get_provenance_events()) == ["JOIN"]


def test_clone_whole_is_clone_and_range_is_fork(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        original = session.get()
        assert original is not None
        session.transfer(session.clone(original), "success")
        session.transfer(session.clone(original, 2, 3), "other")
        session.transfer(original, "failure")

    runner = runner_factory(trigger)
    original = runner.enqueue("0123456789")
    runner.run()
    whole = runner.get_flowfiles_for_relationship("success")[0]
    part = runner.get_flowfiles_for_relationship("other")[0]
    whole.assert_content_equals("0123456789")
    part.assert_content_equals("234")
    assert part.flowfile.claim == original.flowfile.claim, "a range points into the same claim"
    events = runner.get_provenance_events()
    assert kinds(events) == ["FORK", "CLONE"]
    assert events[0].child_uuids == [part.uuid]
    assert events[1].child_uuids == [whole.uuid]
    assert original.flowfile.claim is not None
    assert runner.node.content.claimant_count(original.flowfile.claim.resource) == 3


def test_content_and_attribute_changes(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        for flowfile in session.get_batch(10):
            kind = flowfile.attributes["kind"]
            if kind in ("content", "both"):
                flowfile = session.write(flowfile, b"new")
            if kind in ("attributes", "both"):
                flowfile = session.put_attribute(flowfile, "touched", "yes")
                flowfile = session.remove_attribute(flowfile, "kind")
            session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    for kind in ("content", "attributes", "both", "none"):
        runner.enqueue("old", {"kind": kind})
    runner.run()
    events = runner.get_provenance_events()
    assert kinds(events) == ["CONTENT_MODIFIED", "ATTRIBUTES_MODIFIED", "CONTENT_MODIFIED"]
    attributes_event = events[1]
    assert attributes_event.updated_attributes == {"touched": "yes", "kind": None}
    assert attributes_event.previous_attributes["kind"] == "attributes"
    assert "kind" not in attributes_event.attributes
    content_event = events[0]
    assert content_event.previous_content is not None and content_event.current_content
    assert content_event.previous_content != content_event.current_content
    assert content_event.source_queue_id == "input"


def test_remove_emits_drop_with_discard_reason(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        session.remove(flowfile)

    runner = runner_factory(trigger)
    runner.enqueue("x", {"discard.reason": "duplicate"})
    runner.run()
    events = runner.get_provenance_events()
    assert kinds(events) == ["DROP"]
    assert events[0].details == "Discard reason: duplicate"
    assert runner.queue_size == 0


def test_created_then_removed_emits_nothing_and_spurious_fork_is_dropped(
    runner_factory: RunnerFactory,
) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        parent = session.get()
        assert parent is not None
        child = session.create(parent)
        session.remove(child)
        session.remove(session.create())
        session.transfer(parent, "success")

    runner = runner_factory(trigger)
    runner.enqueue("x")
    runner.run()
    assert runner.get_provenance_events() == []


def test_auto_terminated_drop_comes_last(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        flowfile = session.put_attribute(flowfile, "a", "b")
        session.provenance.route(flowfile, "success")
        session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    runner.set_relationship_auto_terminated("success")
    runner.enqueue("x")
    runner.run()
    events = runner.get_provenance_events()
    assert kinds(events) == ["ROUTE", "DROP"]
    assert events[-1].details == "Auto-Terminated by success Relationship"
    assert events[-1].attributes["a"] == "b"
    assert runner.get_flowfiles_for_relationship("success") == []


def test_route_back_to_source_is_spurious(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        session.provenance.route(flowfile, "success", details="going nowhere")
        session.transfer(flowfile)

    runner = runner_factory(trigger)
    runner.enqueue("x")
    runner.run()
    assert runner.get_provenance_events() == []
    assert runner.queue_size == 1


def test_reported_events_and_their_validation(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        session.provenance.receive(flowfile, "http://example/in", source_system_flowfile_id="s1")
        session.provenance.associate(flowfile, "order", "42")
        session.provenance.send(flowfile, "http://example/out")
        session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    runner.enqueue("x")
    runner.run()
    events = runner.get_provenance_events()
    assert kinds(events) == ["RECEIVE", "ADDINFO", "SEND"]
    assert events[0].transit_uri == "http://example/in"
    assert events[0].source_system_flowfile_id == "s1"
    assert events[1].alternate_identifier == "order:42"


def test_add_info_is_associate_under_its_other_name(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        session.provenance.add_info(flowfile, "order", "42")
        session.provenance.add_info(flowfile, "", "urn:x")
        session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    runner.enqueue("x")
    runner.run()
    events = runner.get_provenance_events()
    assert kinds(events) == ["ADDINFO", "ADDINFO"]
    assert [e.alternate_identifier for e in events] == ["order:42", "urn:x"]


def test_each_event_describes_its_own_flowfile(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        for flowfile in session.get_batch(10):
            flowfile = session.put_attribute(flowfile, "seen", "yes")
            session.provenance.route(flowfile, "success")
            session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    sent = [runner.enqueue(name, {"name": name}) for name in ("a", "b", "c")]
    runner.run()
    events = runner.get_provenance_events()
    assert [e.flowfile_uuid for e in events] == [f.uuid for f in sent]
    assert [e.previous_attributes["name"] for e in events] == ["a", "b", "c"]
    assert [e.updated_attributes for e in events] == [{"seen": "yes"}] * 3


def test_a_reported_join_replaces_the_framework_join(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        parents = session.get_batch(10)
        child = session.create(parents)
        session.provenance.join(parents, child, details="Records Merged due to: Bin is full")
        session.transfer(child, "success")
        for parent in parents:
            session.transfer(parent, "other")

    runner = runner_factory(trigger)
    first = runner.enqueue("a")
    runner.advance_time(3)
    runner.enqueue("b")
    runner.run()
    events = runner.get_provenance_events()
    assert [(e.event_type, e.details) for e in events] == [
        ("JOIN", "Records Merged due to: Bin is full")
    ]
    child = runner.get_flowfiles_for_relationship("success")[0]
    assert child.flowfile.lineage_start_date == first.flowfile.lineage_start_date


def test_a_joined_child_created_earlier_starts_its_lineage_with_its_parents(
    runner_factory: RunnerFactory,
) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        child = session.create()
        parents = session.get_batch(10)
        session.provenance.join(parents, child, details="Records Merged due to: x")
        session.transfer(child, "success")
        for parent in parents:
            session.transfer(parent, "other")

    runner = runner_factory(trigger)
    first = runner.enqueue("a")
    runner.advance_time(10)
    runner.enqueue("b")
    runner.advance_time(10)
    runner.run()
    child = runner.get_flowfiles_for_relationship("success")[0]
    assert child.flowfile.lineage_start_date == first.flowfile.lineage_start_date
    events = runner.get_provenance_events()
    assert [e.event_type for e in events] == ["JOIN"]
    assert events[0].lineage_start_date == first.flowfile.lineage_start_date


def test_unchanged_content_is_the_same_reference_before_and_after(
    runner_factory: RunnerFactory,
) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        session.transfer(session.put_attribute(flowfile, "touched", "yes"), "success")

    runner = runner_factory(trigger)
    runner.enqueue("kept bytes")
    runner.run()
    [event] = runner.get_provenance_events()
    assert event.event_type == "ATTRIBUTES_MODIFIED"
    assert event.previous_content is not None
    assert event.previous_content == event.current_content
    assert event.current_content is not None and event.current_content.size == 10


def test_a_range_clone_points_at_its_own_bytes(runner_factory: RunnerFactory) -> None:
    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        flowfile = session.get()
        assert flowfile is not None
        part = session.clone(flowfile, 2, 3)
        session.transfer(part, "success")
        session.transfer(flowfile, "success")

    runner = runner_factory(trigger)
    runner.enqueue("0123456789")
    runner.run()
    fork = next(e for e in runner.get_provenance_events() if e.event_type == "FORK")
    assert fork.current_content is not None and fork.current_content.size == 10
    [part] = [f for f in runner.get_flowfiles_for_relationship("success") if f.size == 3]
    assert part.content == b"234"


def test_generated_and_auto_terminate_events_field_by_field(
    runner_factory: RunnerFactory,
) -> None:
    """Each generated event and auto-terminate DROP describes its FlowFile's final state:
    the attribute delta since the session took it, both content references, the source
    queue, the time in the session; a FlowFile with two events has the same in both."""
    final: dict[str, FlowFile] = {}
    clock: list[TestRunner] = []

    def trigger(_: ProcessContext, session: ProcessSession) -> None:
        first, second, third = session.get_batch(3)
        clock[0].advance_time(0.25)
        first = session.put_all_attributes(first, {"colour": "red", "gone": "x"})
        first = session.remove_attribute(first, "gone")
        first = session.remove_attribute(first, "size")
        second = session.put_attribute(session.write(second, b"new bytes"), "colour", "blue")
        third = session.put_attribute(third, "colour", "green")
        created = session.write(session.create(), b"created")
        for name, flowfile in (("first", first), ("second", second), ("created", created)):
            final[name] = flowfile
            session.transfer(flowfile, "other")
        final["third"] = third
        session.transfer(third, "success")

    runner = runner_factory(trigger)
    clock.append(runner)
    runner.set_relationship_auto_terminated("other")
    taken = {
        name: runner.enqueue(name, {"size": "s"}).flowfile for name in ("first", "second", "third")
    }
    runner.run()
    events = runner.get_provenance_events()
    assert [(e.event_type, e.flowfile_uuid) for e in events] == [
        ("ATTRIBUTES_MODIFIED", final["first"].uuid),
        ("CONTENT_MODIFIED", final["second"].uuid),
        ("ATTRIBUTES_MODIFIED", final["third"].uuid),
        ("CREATE", final["created"].uuid),
        ("DROP", final["first"].uuid),
        ("DROP", final["second"].uuid),
        ("DROP", final["created"].uuid),
    ]
    now = runner.clock.now_ms()

    def ref(flowfile: FlowFile) -> ContentRef | None:
        claim = flowfile.claim
        if claim is None:
            return None
        resource = claim.resource
        return ContentRef(
            resource.container,
            resource.section,
            resource.id,
            claim.offset,
            claim.length,
            claim.checksum,
        )

    def expected(event_type: str, name: str, details: str | None = None) -> dict[str, Any]:
        flowfile, original = final[name], taken.get(name)
        before = original.attributes if original is not None else {}
        updated: dict[str, str | None] = {
            k: v for k, v in flowfile.attributes.items() if before.get(k) != v
        }
        updated.update({k: None for k in before if k not in flowfile.attributes})
        return {
            "event_time": now,
            "event_type": event_type,
            "flowfile_uuid": flowfile.uuid,
            "component_id": UNDER_TEST,
            "component_type": "Scripted",
            "entry_date": flowfile.entry_date,
            "lineage_start_date": flowfile.lineage_start_date,
            "event_duration": 250,
            "parent_uuids": [],
            "child_uuids": [],
            "previous_attributes": before,
            "updated_attributes": updated,
            "previous_content": ref(original) if original is not None else None,
            "current_content": ref(flowfile),
            "details": details,
            "relationship": None,
            "transit_uri": None,
            "source_system_flowfile_id": None,
            "alternate_identifier": None,
            "source_queue_id": INPUT if original is not None else None,
            "size": flowfile.size,
        }

    drop = "Auto-Terminated by other Relationship"
    wanted = [
        expected("ATTRIBUTES_MODIFIED", "first"),
        expected("CONTENT_MODIFIED", "second"),
        expected("ATTRIBUTES_MODIFIED", "third"),
        expected("CREATE", "created"),
        expected("DROP", "first", drop),
        expected("DROP", "second", drop),
        expected("DROP", "created", drop),
    ]
    wanted[3]["event_duration"] = 0  # created after the clock moved
    wanted[6]["event_duration"] = 0
    got = [{k: v for k, v in msgspec.structs.asdict(e).items() if k != "event_id"} for e in events]
    assert got == wanted
    assert wanted[0]["updated_attributes"] == {"colour": "red", "size": None}
