"""The invariants every flow keeps, each shown to catch what it is there for."""

from __future__ import annotations

from pathlib import Path

from flowcore.delivery import DeliveryLedger
from flowcore.model.flowfile import FlowFile
from flowcore.model.provenance import ProvenanceEvent
from flowcore.simulation import invariants


def event(event_id: int, kind: str, uuid: str, children: tuple[str, ...] = ()) -> ProvenanceEvent:
    return ProvenanceEvent(
        event_id=event_id,
        event_time=0,
        event_type=kind,
        flowfile_uuid=uuid,
        component_id="p",
        component_type="P",
        child_uuids=list(children),
        transit_uri="file:///out/" + uuid if kind == "SEND" else None,
    )


def queued(*uuids: str) -> list[tuple[str, FlowFile]]:
    return [("q", FlowFile(n, {"uuid": u}, None, 0, 0, 0, 0)) for n, u in enumerate(uuids)]


def messages(found: list[invariants.Violation]) -> list[str]:
    return [f"{v.invariant}: {v.message}" for v in found]


def test_a_consistent_history_passes() -> None:
    events = [
        event(0, "CREATE", "a"),
        event(1, "FORK", "a", ("b", "c")),
        event(2, "DROP", "a"),
        event(3, "CLONE", "b", ("d",)),
        event(4, "DROP", "c"),
    ]
    assert invariants.check_accounting(events, queued("b", "d")) == []
    assert invariants.check_provenance(events) == []


def test_lost_duplicated_and_unknown_flowfiles_are_reported() -> None:
    events = [event(0, "CREATE", "a"), event(1, "CREATE", "b"), event(2, "CREATE", "c")]
    found = messages(invariants.check_accounting(events, queued("b", "b", "x")))
    assert found == [
        "accounted: 1 FlowFile(s) queued more than once: b",
        "accounted: 2 FlowFile(s) neither queued nor dropped (lost): a, c",
        "accounted: 1 queued FlowFile(s) unknown to provenance: x",
    ]


def test_a_flowfile_queued_and_dropped_or_born_twice_is_reported() -> None:
    events = [
        event(0, "CREATE", "a"),
        event(1, "CREATE", "a"),
        event(2, "DROP", "a"),
        event(3, "DROP", "a"),
    ]
    found = messages(invariants.check_accounting(events, queued("a")))
    assert found == [
        "accounted: 1 FlowFile(s) both queued and dropped: a",
        "provenance: 1 FlowFile(s) born more than once: a",
        "provenance: 1 FlowFile(s) dropped more than once: a",
    ]


def test_event_ids_with_a_gap_or_repeat_and_events_after_a_drop_are_reported() -> None:
    events = [event(0, "CREATE", "a"), event(2, "DROP", "a"), event(2, "SEND", "a")]
    found = messages(invariants.check_provenance(events))
    assert found == [
        "provenance: event ids are not 0..2 each once (repeated: 2)",
        "provenance: events after a FlowFile's DROP: SEND 2 of a",
    ]


def test_a_send_without_its_delivery_is_a_loss_and_a_second_delivery_a_redelivery() -> None:
    ledger = DeliveryLedger()
    ledger.record("p", "a", "file:///out/a", b"x")
    ledger.record("p", "a", "file:///out/a", b"x")
    events = [event(0, "SEND", "a"), event(1, "SEND", "b")]
    found, again = invariants.check_deliveries(events, ledger.deliveries, exactly_once=False)
    assert messages(found) == [
        "deliveries: 1 SEND event(s) without a delivery (lost): b to file:///out/b by 'p'"
    ]
    assert [(r.flowfile_uuid, r.times) for r in again] == [("a", 2)]
    strict, _ = invariants.check_deliveries(events, ledger.deliveries, exactly_once=True)
    assert [v.invariant for v in strict] == ["deliveries", "exactly_once_delivery"]


def test_lines_delivered_once_counts_every_line(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.csv").write_text("h\n1\n2\n")
    out = tmp_path / "out"
    (out / "x").mkdir(parents=True)
    (out / "x" / "m.csv").write_text("h\n2\n2\n")
    (out / ".m.csv.tmp").write_text("h\n1\n")  # hidden: a temporary file, not delivered
    found = messages(invariants.check_lines(tmp_path / "in", {"out": out}, skip_header=True))
    assert found == [
        "lines_delivered_once: 1 input line(s) not delivered: '1'",
        "lines_delivered_once: 1 line(s) delivered more often than input: '2'",
    ]
