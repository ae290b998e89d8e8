"""The session ledger: what counts as nothing to commit or roll back."""

from __future__ import annotations

from flowcore.model.flowfile import FlowFile
from flowcore.session.ledger import SessionLedger
from flowcore.session.records import SessionRecord


def _flowfile() -> FlowFile:
    return FlowFile(
        id=1,
        attributes={"uuid": "u"},
        claim=None,
        claim_offset=0,
        size=0,
        entry_date=0,
        lineage_start_date=0,
    )


def test_a_fresh_ledger_is_empty() -> None:
    assert SessionLedger().is_empty()


def test_a_held_flowfile_a_counter_or_a_state_change_is_work() -> None:
    held = SessionLedger()
    held.records[1] = SessionRecord(original=None, current=_flowfile())
    counted = SessionLedger()
    counted.counters["n"] = 1
    cleared = SessionLedger()
    cleared.state = {}  # clearing the state is a change, unlike no state set
    assert not held.is_empty()
    assert not counted.is_empty()
    assert not cleared.is_empty()
